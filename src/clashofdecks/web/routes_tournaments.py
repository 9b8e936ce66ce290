"""HTTP routes of tournaments (docs/web.md, "Tournaments"): the list, a new tournament, one
tournament's standings and games, joining and withdrawing.  The director (web/tournament_director.py)
does the rest on the watch tick."""

from __future__ import annotations

import math
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from . import store_tournaments as st
from .clocks import TIME_CONTROLS
from .http_checks import cross_site_refusal
from .identity import InputError
from .names import MAX_NAME, NameRefused, checked_name
from .ratings import RATED_FORMATS
from .routes_common import RouteGroup
from .store import IdentityRow, Store
from .tournament_director import new_tournament_id, swiss_table

#: The time controls a tournament takes: the real-time ones (a tournament's games are played now).
TOURNAMENT_CONTROLS: Final = tuple(name for name, c in TIME_CONTROLS.items() if not c.per_move)
KINDS: Final = ("arena", "swiss")
MINUTES: Final = (10, 360)
ROUNDS: Final = (1, 15)
#: How far ahead a tournament may start (seconds).
MAX_LEAD: Final = 30 * 86400.0
#: Finished tournaments the list keeps showing (seconds after their end).
LIST_FINISHED: Final = 86400.0
FIELDS: Final = {
    "name",
    "kind",
    "format",
    "time_control",
    "starts_at",
    "starts_in",
    "minutes",
    "rounds",
    "bots_allowed",
}


class TournamentRefused(InputError):
    """A field of a new tournament that is refused: the 400's ``code`` (the page says it in the
    reader's language, docs/web.md "Tournaments"), the ``field`` and the ``values`` its words name."""

    def __init__(self, code: str, field: str, message: str, **values: int) -> None:
        super().__init__(message)
        self.code, self.field, self.values = code, field, values

    def body(self) -> dict[str, Any]:
        return {"error": str(self), "code": self.code, "field": self.field, "values": self.values}


def bot_refused(row: IdentityRow, t: st.TournamentRow) -> bool:
    """A bot account (issue 39) enters only a tournament that allows bots."""
    return row.is_bot and not t.bots_allowed


def _int_in(data: dict[str, Any], key: str, low: int, high: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        message = f"'{key}' must be a whole number from {low} to {high}"
        raise TournamentRefused(f"bad_{key}", key, message, low=low, high=high)
    return value


def _start(data: dict[str, Any], now: float) -> float:
    days = int(MAX_LEAD // 86400)
    if ("starts_at" in data) == ("starts_in" in data):
        message = "give one of 'starts_at' (seconds since the epoch) or 'starts_in' (seconds from now)"
        raise TournamentRefused("bad_start", "starts_in", message, days=days)
    key = "starts_at" if "starts_at" in data else "starts_in"
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TournamentRefused("bad_start", key, f"'{key}' must be a number of seconds", days=days)
    start = float(value) if key == "starts_at" else now + float(value)
    if not now <= start <= now + MAX_LEAD:
        raise TournamentRefused(
            "bad_start", key, f"a tournament starts from now to {days} days ahead", days=days
        )
    return start


def tournament_request(data: Any, creator: str, now: float) -> st.TournamentRow:
    """A new tournament from ``POST /api/tournaments`` (InputError, TournamentRefused for a field the
    form shows: nothing stored)."""
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise InputError(f"unknown field {unknown[0][:40]!r}")
    kind = data.get("kind")
    if kind not in KINDS:
        raise TournamentRefused("bad_kind", "kind", "'kind' must be arena or swiss")
    fmt = data.get("format", "draft")
    if fmt not in RATED_FORMATS:
        raise TournamentRefused("bad_format", "format", f"'format' must be one of {', '.join(RATED_FORMATS)}")
    control = data.get("time_control", "3+2")
    if control not in TOURNAMENT_CONTROLS:
        message = f"'time_control' must be one of {', '.join(TOURNAMENT_CONTROLS)}"
        raise TournamentRefused("bad_time_control", "time_control", message)
    bots = data.get("bots_allowed", False)
    if not isinstance(bots, bool):
        raise TournamentRefused("bad_bots_allowed", "bots_allowed", "'bots_allowed' must be true or false")
    if (kind == "arena" and "rounds" in data) or (kind == "swiss" and "minutes" in data):
        raise InputError("an arena lasts 'minutes'; a Swiss has 'rounds'")
    try:
        name = checked_name(data.get("name"), "the tournament's name")
    except NameRefused as exc:
        raise TournamentRefused("bad_name", "name", str(exc), max=MAX_NAME) from None
    return st.TournamentRow(
        id=new_tournament_id(),
        kind=kind,
        name=name,
        format=fmt,
        time_control=control,
        starts_at=_start(data, now),
        minutes=_int_in(data, "minutes", *MINUTES) if kind == "arena" else None,
        rounds=_int_in(data, "rounds", *ROUNDS) if kind == "swiss" else None,
        bots_allowed=bots,
        created_by=creator,
        status=st.CREATED,
        created_at=now,
    )


def summary(t: st.TournamentRow, players: int, now: float) -> dict[str, Any]:
    """A tournament as the list shows it."""
    ends = t.ends_at
    return {
        "id": t.id,
        "kind": t.kind,
        "name": t.name,
        "status": t.status,
        "players": players,
        "format": t.format,
        "time_control": t.time_control,
        "starts_at": t.starts_at,
        "ends_at": ends,
        "minutes": t.minutes,
        "rounds": t.rounds,
        "round": t.round,
        "bots_allowed": t.bots_allowed,
        "scheduled": t.schedule_key is not None,
        "seconds_to_start": max(0.0, round(t.starts_at - now, 1)),
        "seconds_to_end": None if ends is None else max(0.0, round(ends - now, 1)),
    }


def _standings(
    t: st.TournamentRow, entries: list[st.Entry], pairings: list[st.Pairing], handles: dict[str, str]
) -> list[dict[str, Any]]:
    by_id = {e.identity_id: e for e in entries}
    played = {e.identity_id: 0 for e in entries}
    for p in pairings:
        if p.result is not None and p.result != st.ABORTED and p.player in played:
            played[p.player] += 1
    order: list[tuple[str, float | None, float | None]]
    if t.kind == "swiss":
        order = [
            (s.player, float(s.buchholz), float(s.sonneborn_berger)) for s in swiss_table(entries, pairings)
        ]
    else:
        ranked = sorted(entries, key=lambda e: (-e.score, e.joined_at, e.identity_id))
        order = [(e.identity_id, None, None) for e in ranked]
    return [
        {
            "rank": i + 1,
            "handle": handles.get(player, ""),
            "name": by_id[player].name,
            "score": by_id[player].score,
            "games": played[player],
            "withdrawn": by_id[player].withdrawn,
            **({"buchholz": b, "sonneborn_berger": sb} if t.kind == "swiss" else {}),
        }
        for i, (player, b, sb) in enumerate(order)
    ]


def _games(pairings: list[st.Pairing], handles: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for p in pairings:
        if p.opponent is None or p.player > p.opponent:
            continue
        game: dict[str, Any] = {
            "round": p.round,
            "players": [handles.get(p.player, ""), handles.get(p.opponent, "")],
            "results": [p.result, _other(p.result)],
            "game": p.game_id,
            "running": p.running,
        }
        if p.game_id is not None:
            game["url"] = f"/g/{p.game_id}" if p.running else f"/r/{p.game_id}"
        out.append(game)
    return out


def _other(result: str | None) -> str | None:
    return {st.WIN: st.LOSS, st.LOSS: st.WIN}.get(result or "", result)


def _yours(
    reader: str | None, entries: list[st.Entry], pairings: list[st.Pairing], handles: dict[str, str]
) -> dict[str, Any] | None:
    entry = next((e for e in entries if e.identity_id == reader), None)
    if entry is None:
        return None
    mine = [p for p in pairings if p.player == reader]
    current = next((p for p in reversed(mine) if p.running), None)
    return {
        "withdrawn": entry.withdrawn,
        "score": entry.score,
        "next": None
        if current is None
        else {
            "round": current.round,
            "opponent": handles.get(current.opponent or "", ""),
            "game": current.game_id,
            "url": None if current.game_id is None else f"/g/{current.game_id}",
        },
    }


def detail(store: Store, tournament_id: str, reader: str | None, now: float) -> dict[str, Any] | None:
    """``GET /api/tournaments/{id}``: the tournament, its standings, its games (a running game's link
    to play or watch, a finished one's to its replay) and the reader's entry and next pairing."""
    with store.engine.connect() as conn:
        t = st.get(conn, tournament_id)
        if t is None:
            return None
        entries, pairings = st.entries(conn, t.id), st.pairings(conn, t.id)
        handles = st.handles(conn, [e.identity_id for e in entries])
    active = sum(1 for e in entries if not e.withdrawn)
    return {
        **summary(t, active, now),
        "standings": _standings(t, entries, pairings, handles),
        "games": _games(pairings, handles),
        "byes": [
            {"round": p.round, "player": handles.get(p.player, "")} for p in pairings if p.result == st.BYE
        ],
        "you": _yours(reader, entries, pairings, handles),
    }


class TournamentRoutes(RouteGroup):
    """``/api/tournaments``."""

    async def listing(self, request: Request) -> Response:
        now = self.config.clock()
        rows = await self.server.run_db(lambda s: st.listing(s.engine, now - LIST_FINISHED))
        return JSONResponse({"tournaments": [summary(t, n, now) for t, n in rows]})

    async def create(self, request: Request) -> Response:
        refused = cross_site_refusal(request, self.config) or self.creation_refused(request)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None or not row.is_account:
            return self.bad("an account creates tournaments: sign in first", 403, "account_required")
        creator, now = row.id, self.config.clock()
        try:
            t = tournament_request(await self.json_body(request), creator, now)
        except TournamentRefused as exc:
            return JSONResponse(exc.body(), status_code=400)
        except InputError as exc:
            return self.bad(str(exc))
        await self.server.run_db(lambda s: st.create(s.engine, t))
        return JSONResponse(summary(t, 0, now))

    async def choices(self, request: Request) -> Response:
        """``GET /api/tournaments/new``: what the page's form offers (the server's own limits)."""
        return JSONResponse(
            {
                "kinds": list(KINDS),
                "formats": list(RATED_FORMATS),
                "time_controls": list(TOURNAMENT_CONTROLS),
                "minutes": list(MINUTES),
                "rounds": list(ROUNDS),
                "max_days": int(MAX_LEAD // 86400),
            }
        )

    async def show(self, request: Request) -> Response:
        row, _hashed = await self.who(request)
        reader = None if row is None else row.id
        tid, now = request.path_params["tournament_id"], self.config.clock()
        body = await self.server.run_db(lambda s: detail(s, tid, reader, now))
        if body is None:
            return self.bad("no such tournament", 404, "not_found")
        return JSONResponse(body)

    async def join(self, request: Request) -> Response:
        return await self._entry(request, joining=True)

    async def withdraw(self, request: Request) -> Response:
        return await self._entry(request, joining=False)

    async def _entry(self, request: Request, *, joining: bool) -> Response:
        refused = cross_site_refusal(request, self.config)
        if refused is not None:
            return refused
        row, _hashed = await self.who(request)
        if row is None:
            return self.bad("no identity: POST /api/identities first", 403, "no_identity")
        tid, now = request.path_params["tournament_id"], self.config.clock()
        try:
            await self.server.run_db(
                lambda s: _enter(s, tid, row, now) if joining else _leave(s, tid, row.id)
            )
        except st.TournamentError as exc:
            return self.bad(str(exc), 404 if exc.code == "not_found" else 400, exc.code)
        body = await self.server.run_db(lambda s: detail(s, tid, row.id, now))
        return JSONResponse(body)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/tournaments", self.listing),
            Route("/api/tournaments", self.create, methods=["POST"]),
            Route("/api/tournaments/new", self.choices),  # before {tournament_id}: an id is hex
            Route("/api/tournaments/{tournament_id}", self.show),
            Route("/api/tournaments/{tournament_id}/join", self.join, methods=["POST"]),
            Route("/api/tournaments/{tournament_id}/withdraw", self.withdraw, methods=["POST"]),
        ]


def _enter(store: Store, tournament_id: str, row: IdentityRow, now: float) -> None:
    with store.engine.connect() as conn:
        t = st.get(conn, tournament_id)
    if t is not None and bot_refused(row, t):
        raise st.TournamentError("no_bots", "this tournament is for people only")
    st.join(store.engine, tournament_id, row.id, row.display_name or row.handle, now)


def _leave(store: Store, tournament_id: str, identity_id: str) -> None:
    with store.engine.begin() as conn:
        t = st.get(conn, tournament_id)
        if t is None:
            raise st.TournamentError("not_found", "no such tournament")
        if t.status == st.FINISHED:
            raise st.TournamentError("finished", "this tournament is over")
        if not st.withdraw(conn, tournament_id, identity_id):
            raise st.TournamentError("not_joined", "you are not in this tournament")
