"""HTTP routes of games: the lobby, new games, records, replays, analyses and imports."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ..errors import ClashError
from ..options import LEVELS, THREAT_ABILITIES, THREAT_CHOICES, ThreatError
from ..record import GameRecord
from ..words.i18n import LANGUAGES
from . import reports, workers
from .bodies import game_summary
from .clocks import TIME_CONTROLS
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    GameSetupError,
    mistake_labels,
    names_of_seats,
    record_of_row,
)
from .http_checks import (
    MAX_OPTIONS_BYTES,
    MAX_RECORD_BYTES,
    base_url,
    cross_site_refusal,
    new_game_request,
    read_body,
)
from .names import NameRefused, checked_name
from .routes_common import RouteGroup
from .store import GameRow
from .workers import WorkBudgetError


def unfinished_refusal(row: GameRow, what: str) -> dict[str, Any]:
    """The body refusing a record, replay or analysis of an unfinished game: a rated one's says
    ``hint_unavailable`` (no engine help while a rated game runs, docs/web.md "Fair play")."""
    body: dict[str, Any] = {"error": f"{what} for finished games only"}
    if row.rated or row.rated_offer:
        body["code"] = "hint_unavailable"
    return body


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
            "open": [game_summary(r, player, now) for r in open_rows if r.kind != "imported"],
            "mine": [game_summary(r, player, now) for r in mine_rows],
        }
        return JSONResponse(body)

    async def new_game(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config) or self.creation_refused(request)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        raw = await read_body(request, MAX_OPTIONS_BYTES)
        if raw is None:
            return JSONResponse({"error": f"options are at most {MAX_OPTIONS_BYTES} bytes"}, status_code=413)
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):  # ValueError: bad JSON or UTF-8, a 5,000-digit number
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        try:
            req = new_game_request(data)
            req.max_turns = self.config.caps.max_turns or None
            if not req.name.strip() and row.display_name:
                req.name = row.display_name
            live, tokens = await self.server.table.create_game(req, row.id)
        except (GameSetupError, ThreatError, ClashError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        base = base_url(request, self.config)
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
            # "&hints=1": it asks whether to accept the hints the creator offers.
            offer = "&rated=1" if req.rated else "&hints=1" if req.hints else ""
            body["invite"] = f"{base}/g/{live.id}#t={tokens[1 - creator]}{offer}"
        return JSONResponse(body)

    async def finished_row(self, game_id: str) -> GameRow | Response:
        row = await self.server.run_db(lambda s: s.load_game(game_id))
        if row is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        if row.status != "over":
            # The record holds the seed, which decides every hidden card: only finished games.
            return JSONResponse(unfinished_refusal(row, "records are given"), status_code=403)
        return row

    async def record(self, request: Request) -> Response:
        refused = self.heavy_refused(request)
        if refused is not None:
            return refused
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
        refused = self.heavy_refused(request)
        if refused is not None:
            return refused
        row = await self.finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        from ..words.i18n import languages

        rec = record_of_row(row)
        lang = request.query_params.get("lang", "en")
        if lang not in languages():
            lang = "en"
        names = names_of_seats(row.seats, lang)
        try:
            start = int(request.query_params.get("from", "0"))
        except ValueError:
            start = -1
        if not 0 <= start <= len(row.actions):
            return self.bad(f"from is a step of this replay, 0 to {len(row.actions)}")
        caps = self.config.caps
        # A page of frames, built in a worker within its budget (a long record takes a while to
        # replay: never on the event loop, never whole in one request).
        try:
            page = await self.server.pool.run_optional(
                workers.replay_page,
                rec.to_dict(),
                lang,
                names,
                start,
                caps.replay_page_frames,
                caps.hello_log_events,
                kind="replay",
            )
        except WorkBudgetError as exc:
            return self.bad(f"the replay could not be built: {exc}", 503, "busy")
        body = {"id": row.id, "players": list(names), "mode": row.mode, "result": row.result, **page}
        return JSONResponse(body)

    async def analysis(self, request: Request) -> Response:
        refused = self.heavy_refused(request)
        if refused is not None:
            return refused
        status, body = await self.server.analyses.answer(request.path_params["game_id"])
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

    async def report(self, request: Request) -> Response:
        """``POST /api/games/{id}/report`` ``{"reason": "..."}``: a player of a finished duel
        between two people reports the other, kept for the operator (web/reports.py)."""
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        me, _hashed = await self.who(request)
        if me is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        row = await self.finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        owners = [s.owner for s in row.seats if s.owner is not None]
        others = [o for o in owners if o != me.id]
        if row.mode != "duel" or me.id not in owners or len(others) != 1:
            return self.bad(
                "only a player of a duel between two people reports the other", 403, "not_a_player"
            )
        raw = await read_body(request, MAX_OPTIONS_BYTES)
        try:
            reason = json.loads(raw or b"")["reason"]
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError):
            return self.bad('the body is {"reason": "..."}')
        if not isinstance(reason, str) or not reason.strip() or len(reason) > reports.MAX_REASON:
            return self.bad(f"the reason is a text of 1 to {reports.MAX_REASON} characters")
        game_id, reported = row.id, others[0]
        kept = await self.server.run_db(lambda s: reports.report(s.engine, game_id, me.id, reported, reason))
        return JSONResponse({"reported": True, "new": kept})

    async def handles(self, request: Request) -> Response:
        """``GET /api/games/{id}/handles``: the unique handle of each seat of a rated game, shown
        beside the players' names (web/handles.py); 404 for a game that is not rated."""
        from .handles import seat_handles

        game_id = request.path_params["game_id"]
        if not 0 < len(game_id) <= 32:
            return self.bad("no such rated game", 404, "no_game")
        found = await self.server.run_db(lambda s: seat_handles(s.engine, game_id))
        if found is None:
            return self.bad("no such rated game", 404, "no_game")
        return JSONResponse({"handles": found})

    async def import_record(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config) or self.creation_refused(request)
        if refused is not None:
            return refused
        owner, _hashed = await self.who(request)
        if owner is None:
            return self.bad("no identity: POST /api/identities first", 401, "no_identity")
        body = await read_body(request, MAX_RECORD_BYTES)
        if body is None:
            return JSONResponse({"error": "a record is at most 1 MiB"}, status_code=413)
        try:
            rec = await asyncio.to_thread(_parse_record, body)
        except (ValueError, RecursionError):  # ValueError: bad JSON or UTF-8, a 5,000-digit number
            return JSONResponse({"error": "the file is not JSON"}, status_code=400)
        except ClashError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        why = _record_refused(rec, self.config.caps.record_actions)
        if why is not None:
            return self.bad(why)
        try:
            game_id = (await self.server.table.import_record(rec, owner.id)).id
        except WorkBudgetError as exc:
            return self.bad(f"the record could not be checked: {exc}", 503, "busy")
        except ClashError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse({"id": game_id, "replay": f"/r/{game_id}"})

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/lobby", self.lobby),
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game_id}/record", self.record),
            Route("/api/games/{game_id}/replay", self.replay),
            Route("/api/games/{game_id}/analysis", self.analysis),
            Route("/api/games/{game_id}/report", self.report, methods=["POST"]),
            Route("/api/games/{game_id}/handles", self.handles),
            Route("/api/import", self.import_record, methods=["POST"]),
        ]


def _parse_record(body: bytes) -> GameRecord:
    return GameRecord.from_dict(json.loads(body))


def _record_refused(rec: GameRecord, max_actions: int) -> str | None:
    """Why an imported record is refused before it is replayed (None: it is not): too many actions
    (each costs replaying; web/limits.py), a seed the database cannot hold, a player name that
    breaks the rule of names (web/names.py)."""
    if max_actions and len(rec.actions) > max_actions:
        return f"a record may hold at most {max_actions} actions; this one has {len(rec.actions)}"
    if not isinstance(rec.seed, int) or not 0 <= rec.seed < 1 << 63:
        return "the record's seed must be a whole number from 0 to 2^63 - 1"
    for name in rec.players:
        try:
            checked_name(name, "a player's name")
        except NameRefused as exc:
            return str(exc)
    return None
