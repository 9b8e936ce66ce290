"""HTTP routes of games: the lobby, new games, records, replays, analyses and imports."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..errors import ClashError
from ..options import LEVELS, THREAT_ABILITIES, THREAT_CHOICES, ThreatError
from ..record import GameRecord
from ..words.i18n import LANGUAGES
from .clocks import TIME_CONTROLS
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    GameSetupError,
    mistake_labels,
    names_of_seats,
    record_of_row,
    replay_frames,
)
from .routes_common import RouteGroup
from .server import (
    MAX_OPTIONS_BYTES,
    MAX_RECORD_BYTES,
    _base_url,
    _cross_site_refusal,
    _new_game_request,
    _read_body,
    _summary,
)
from .store import GameRow


class GameRoutes(RouteGroup):
    """Games and their records."""

    async def lobby(self, request: Request) -> Response:
        row, _hashed = await self.who(request)
        player = row.id if row is not None else None
        now = self.config.clock()
        open_rows = await self.server.run_db(lambda s: s.list_games(status="active", limit=30))
        mine_rows = (
            await self.server.run_db(lambda s: s.list_games(owner=player, limit=30))
            if player is not None
            else []
        )
        body = {
            "ai_levels": list(AI_LEVELS),
            "ai_default": DEFAULT_AI,
            "levels": sorted(LEVELS),
            "threat_choices": {k: list(v) for k, v in THREAT_CHOICES.items()},
            "threat_abilities": list(THREAT_ABILITIES),
            "formats": ["draft", "precon"],
            "time_controls": ["none", *TIME_CONTROLS],
            "open": [_summary(r, player, now) for r in open_rows if r.kind != "imported"],
            "mine": [_summary(r, player, now) for r in mine_rows],
        }
        return JSONResponse(body)

    async def new_game(self, request: Request) -> Response:
        refused = _cross_site_refusal(request, self.config) or self.creation_refused(request)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        raw = await _read_body(request, MAX_OPTIONS_BYTES)
        if raw is None:
            return JSONResponse({"error": f"options are at most {MAX_OPTIONS_BYTES} bytes"}, status_code=413)
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        try:
            req = _new_game_request(data)
            if not req.name.strip() and row.display_name:
                req.name = row.display_name
            live, tokens = await self.server.create_game(req, row.id)
        except (GameSetupError, ThreatError, ClashError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        base = _base_url(request, self.config)
        creator = live.session.participant_seat(0)
        mine = [tokens[s] for s in sorted(tokens) if s == creator or req.kind == "hotseat"]
        body: dict[str, Any] = {
            "id": live.id,
            "seat": creator,
            "tokens": mine,
            "url": f"{base}/g/{live.id}#t={','.join(mine)}",
        }
        if req.kind == "friend":
            # "&rated=1": the invitee's page asks whether to play it rated before taking the seat.
            offer = "&rated=1" if req.rated else ""
            body["invite"] = f"{base}/g/{live.id}#t={tokens[1 - creator]}{offer}"
        return JSONResponse(body)

    async def finished_row(self, game_id: str) -> GameRow | Response:
        row = await self.server.run_db(lambda s: s.load_game(game_id))
        if row is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        if row.status != "over":
            # The record holds the seed, which decides every hidden card: only finished games.
            return JSONResponse({"error": "records are given for finished games only"}, status_code=403)
        return row

    async def record(self, request: Request) -> Response:
        row = await self.finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        rec = record_of_row(row).to_dict()
        if row.kind == "imported" and rec["result"] and rec["result"].get("termination") == "imported":
            rec["result"] = None
        return JSONResponse(
            rec, headers={"Content-Disposition": f'attachment; filename="clash-{row.id}.json"'}
        )

    async def replay(self, request: Request) -> Response:
        row = await self.finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        from ..words.i18n import languages

        rec = record_of_row(row)
        lang = request.query_params.get("lang", "en")
        if lang not in languages():
            lang = "en"
        names = names_of_seats(row.seats, lang)
        frames = replay_frames(rec, lang, names)
        return JSONResponse(
            {
                "id": row.id,
                "players": list(names),
                "mode": row.mode,
                "result": row.result,
                "frames": frames,
            }
        )

    async def analysis(self, request: Request) -> Response:
        status, body = await self.server.analysis(request.path_params["game_id"])
        if status == 200 and body.get("status") == "done" and body["analysis"].get("mistakes"):
            # The played and the better actions as sentences in the page's language (?lang=).
            lang = request.query_params.get("lang", "en")
            row = await self.finished_row(request.path_params["game_id"])
            if lang in LANGUAGES and not isinstance(row, Response):
                rec, names = record_of_row(row), names_of_seats(row.seats, lang)
                analysis = dict(body["analysis"])
                analysis["mistakes"] = mistake_labels(rec, analysis["mistakes"], lang, names)
                body = {**body, "analysis": analysis}
        headers = {"Retry-After": str(body["retry_after"])} if "retry_after" in body else None
        return JSONResponse(body, status_code=status, headers=headers)

    async def import_record(self, request: Request) -> Response:
        refused = _cross_site_refusal(request, self.config) or self.creation_refused(request)
        if refused is not None:
            return refused
        owner, _hashed = await self.who(request)
        if owner is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        body = await _read_body(request, MAX_RECORD_BYTES)
        if body is None:
            return JSONResponse({"error": "a record is at most 1 MiB"}, status_code=413)
        try:
            rec = GameRecord.from_dict(json.loads(body))
            live = await self.server.import_record(rec, owner.id)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            return JSONResponse({"error": "the file is not JSON"}, status_code=400)
        except ClashError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"id": live.id, "replay": f"/r/{live.id}"})

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/lobby", self.lobby),
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game_id}/record", self.record),
            Route("/api/games/{game_id}/replay", self.replay),
            Route("/api/games/{game_id}/analysis", self.analysis),
            Route("/api/import", self.import_record, methods=["POST"]),
        ]
