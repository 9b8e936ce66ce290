"""The web app: a Starlette ASGI application (HTTP for the lobby, records and replays; one WebSocket
per page for game traffic).  ``clash serve`` runs it on uvicorn; ``docs/web.md`` documents it.

The server is the only judge: pages send action text, the session checks it, and each connection
gets the view of the seats its tokens open (R9), spectators the public view.  Every action is
committed to the store before anyone is told about it; agent decisions, hints and game analyses run
in a process pool, off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..options import LEVELS
from ..session import AGENT
from ..words.i18n import LANGUAGES
from . import identity as ident
from . import leases, workers
from .bus import bus_for
from .clocks import TIME_CONTROLS
from .games import GameSetupError, NewGame, clock_of_row
from .identity import SESSION_COOKIE
from .protocol import MAX_NAME_CHARS
from .ratings import LEADERBOARD_GAMES, RATED_FORMATS, display
from .server_agents import AgentRunner
from .server_analyses import Analyses
from .server_connections import Connections
from .server_core import READ_THREADS
from .server_core import Connection as Connection
from .server_core import ServerConfig as ServerConfig
from .server_lifecycle import GameLifecycle
from .server_moves import Moves
from .server_watch import Watcher
from .store import CampaignLevel, GameRow, IdentityRow, Store, open_store
from .sync import GameSync
from .tutorial import TutorialError, tutorial_steps

log = logging.getLogger("clashofdecks.web")
#: How long the session cookie lives in the browser (the session itself lasts until logout).
SESSION_MAX_AGE = 400 * 86400


class GameServer(Connections, Moves, AgentRunner, Watcher, Analyses, GameLifecycle):
    """The state behind the app: the store, the games in memory, the worker pools; its rooms are the
    ``server_*.py`` modules (docs/web.md, "Code"), this class starts and stops them."""

    async def start(self) -> None:
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-db")
        loop = asyncio.get_running_loop()
        self.store = await loop.run_in_executor(self.db, open_store, self.config.database_url)
        self.inline_db = self.store.engine.dialect.name == "sqlite"
        if not self.inline_db:
            self.reads = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="clash-read")
        self.sync = GameSync(self, bus_for(self.store, self.read_db))  # a notice writes no game
        await self.sync.start()
        me = self.process_id
        await self.run_db(lambda s: leases.heartbeat(s.engine, me))
        self.pool = self._new_pool()
        await loop.run_in_executor(self.pool, workers.warm_up)
        self.watcher = asyncio.create_task(self._watch())
        # Games whose agent was to move when the server stopped go on by themselves.
        for row in await self.run_db(lambda s: s.list_games(status="active", limit=1000)):
            if any(seat.kind == AGENT for seat in row.seats):
                live = await self.get_game(row.id)
                if live is not None:
                    self.schedule_agents(live)

    async def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watcher
        for task in [*self.agent_tasks, *self.analyses.values()]:
            task.cancel()
        if self.sync is not None:
            await self.sync.stop()
        if self.store is not None and self.db is not None:
            with contextlib.suppress(Exception):  # a stopping server gives its scans up at once
                await self.run_db(self._release_scans)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.store is not None and self.db is not None:
            await asyncio.get_running_loop().run_in_executor(self.db, self.store.close)
        if self.db is not None:
            self.db.shutdown(wait=True)
        if self.reads is not None:
            self.reads.shutdown(wait=True)

    def _release_scans(self, store: Store) -> None:
        for name in (leases.CLOCKS, leases.ABANDONMENT, leases.QUEUE):
            leases.release(store.engine, name, self.process_id)


def _create_identity(store: Store, *, row: IdentityRow, sid: str) -> None:
    store.create_identity(row, ident.session_hash(sid))


# ---------------------------------------------------------------------------- HTTP


def _index_html() -> str:
    return resources.files("clashofdecks.web").joinpath("static/index.html").read_text(encoding="utf-8")


def _origin_allowed(origin: str | None, host: str | None, config: ServerConfig) -> bool:
    """Browsers send Origin; a page of another site must not drive a player's seat (CSWSH).
    Clients without an Origin (bots, tests) are not browsers and are let through."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if host and parts.netloc == host:
        return True
    allowed = list(config.extra_origins)
    if config.public_url:
        pub = urlsplit(config.public_url)
        allowed.append(f"{pub.scheme}://{pub.netloc}")
    return origin.rstrip("/") in {a.rstrip("/") for a in allowed}


def _session_id(headers: Any, cookies: dict[str, str]) -> str | None:
    """The session id a request carries: ``Authorization: Bearer <id>`` (bots, scripts) or the
    ``clash_session`` cookie (browsers)."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return cookies.get(SESSION_COOKIE) or None


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _cross_site_refusal(request: Request, config: ServerConfig) -> Response | None:
    """State-changing requests are JSON only (415 otherwise: an HTML form or a ``text/plain``
    fetch of another site cannot send JSON without a CORS preflight, which this server never
    grants), and their Origin, when present, must be this site's (403).  A request without an
    Origin is a non-browser client: browsers send Origin on every POST."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    origin = request.headers.get("origin")
    if media != "application/json" or not _origin_allowed(origin, request.headers.get("host"), config):
        log.warning(
            "refused POST %s (content type %r, origin %r)", request.url.path, media[:60], (origin or "")[:100]
        )
    if media != "application/json":
        return JSONResponse(
            {"error": "send the request as application/json", "code": "unsupported_media_type"},
            status_code=415,
        )
    if not _origin_allowed(request.headers.get("origin"), request.headers.get("host"), config):
        return JSONResponse(
            {"error": "requests from other sites are refused", "code": "bad_origin"}, status_code=403
        )
    return None


def _set_session(response: Response, session_id: str, request: Request, config: ServerConfig) -> None:
    secure = request.url.scheme == "https" or (config.public_url or "").startswith("https:")
    response.set_cookie(
        SESSION_COOKIE, session_id, max_age=SESSION_MAX_AGE, httponly=True, samesite="lax", secure=secure
    )


def _me(row: IdentityRow | None) -> dict[str, Any]:
    if row is None:
        return {"identity": None}
    return {
        "identity": row.handle,
        "display_name": row.display_name,
        "username": row.username,
        "account": row.is_account,
    }


def _base_url(request: Request, config: ServerConfig) -> str:
    if config.public_url:
        return config.public_url.rstrip("/")
    return str(request.base_url).rstrip("/")


def campaign_json(levels: Sequence[CampaignLevel]) -> dict[str, Any]:
    """The solo campaign of one identity (``GET /api/campaign``, a player's page): every rulebook
    level with its best result (``None``: not played), whether it is open (level 0, and each level
    after a won one), and ``next``: the lowest open level not won yet (the highest level once all
    are won)."""
    by_level = {c.level: c for c in levels}
    out: list[dict[str, Any]] = []
    for level in sorted(LEVELS):
        c = by_level.get(level)
        below = by_level.get(level - 1)
        out.append(
            {
                "level": level,
                "best": None if c is None else c.best,
                "played": 0 if c is None else c.played,
                "won": 0 if c is None else c.won,
                "open": level == min(LEVELS) or (below is not None and below.best == "won"),
            }
        )
    candidates = [c["level"] for c in out if c["open"] and c["best"] != "won"]
    return {"levels": out, "next": candidates[0] if candidates else max(LEVELS)}


def _clock_summary(row: GameRow, player: str | None, now: float) -> dict[str, Any] | None:
    if row.clock is None:
        return None
    clock = clock_of_row(row.clock)
    return {**clock.to_json(now), "your_turn": _holds(row, clock.running, player)}


def _holds(row: GameRow, seat: int | None, player: str | None) -> bool:
    return (
        player is not None
        and seat is not None
        and any(s.seat == seat and s.owner == player for s in row.seats)
    )


def _summary(row: GameRow, player: str | None, now: float = 0.0) -> dict[str, Any]:
    clock = _clock_summary(row, player, now)
    return {
        "clock": clock,
        "your_turn": clock is not None and clock["your_turn"],
        "id": row.id,
        "kind": row.kind,
        "mode": row.mode,
        "format": row.format,
        "status": row.status,
        "players": [s.name for s in row.seats],
        "result": row.result,
        "actions": row.n_actions,
        "updated": row.updated_at,
        "mine": player is not None and any(s.owner == player for s in row.seats),
    }


_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
)


MAX_OPTIONS_BYTES = 16 * 1024
#: Handles are guest-<hex> or usernames (a-z 0-9 _ . -); anything else is no player, unasked.
_HANDLE = re.compile(r"[a-z0-9_.-]{1,40}")


def _player_body(store: Store, row: IdentityRow) -> dict[str, Any]:
    """``GET /api/players/<handle>``: ratings and their history by format, results by format and
    by preconstructed deck, and the identity's last 50 games (the results count those).  No
    identity id leaves the server."""
    rates, hist = store.player_ratings(row.id)
    ratings_by_format = {
        r.format: {
            "rating": display(r.mu, r.sigma),
            "games": r.games,
            "wins": r.wins,
            "losses": r.losses,
            "provisional": row.username is None or r.games < LEADERBOARD_GAMES,
        }
        for r in rates
    }
    history: dict[str, list[dict[str, Any]]] = {}
    for h in hist:
        history.setdefault(h.format, []).append({"game": h.game_id, "rating": h.rating, "at": h.at})
    games_rows = store.list_games(owner=row.id, limit=50)
    results: dict[str, dict[str, int]] = {}
    by_deck: dict[str, dict[str, int]] = {}
    decks = store.decks_taken([g.id for g in games_rows if g.format == "precon" and g.status == "over"])
    for g in games_rows:
        if g.status != "over" or g.kind == "imported":
            continue
        mine = [s.seat for s in g.seats if s.owner == row.id]
        winner = (g.result or {}).get("winner")
        key = "wins" if winner in mine and len(mine) == 1 else "draws" if winner is None else "losses"
        if len(mine) != 1:
            key = "played"  # hot-seat: both seats are the player's
        tally = results.setdefault(g.format, {"wins": 0, "losses": 0, "draws": 0, "played": 0})
        tally[key] += 1
        deck = decks.get((g.id, mine[0])) if len(mine) == 1 else None
        if deck is not None:
            per_deck = by_deck.setdefault(str(deck), {"wins": 0, "losses": 0, "draws": 0, "played": 0})
            per_deck[key] += 1
    return {
        "handle": row.handle,
        "name": row.display_name or row.handle,
        "account": row.is_account,
        "ratings": ratings_by_format,
        "history": history,
        "results": results,
        #: Preconstructed games by the deck the player took (1-4).
        "results_by_deck": by_deck,
        "games": [_summary(g, row.id) for g in games_rows],
        #: The solo campaign (as ``GET /api/players/<handle>/campaign``).
        "campaign": campaign_json(store.campaign_of_identity(row.id)),
    }


#: The name a deleted person's seats show.
ANONYMOUS_NAME = "deleted player"
MAX_RECORD_BYTES = 1 << 20
MAX_TUTORIAL_BYTES = 1024
MAX_TUTORIAL_ACTION_CHARS = 100


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it passes ``limit`` bytes (read no further: a huge upload
    costs the server nothing but the refusal)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _new_game_request(data: Any) -> NewGame:
    if not isinstance(data, dict):
        raise GameSetupError("the request must be a JSON object")
    allowed = {
        "kind",
        "format",
        "deck",
        "level",
        "threat",
        "ai",
        "name",
        "name2",
        "lang",
        "rated",
        "time_control",
    }
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise GameSetupError(f"unknown option {unknown[0]!r}")
    req = NewGame()
    for key in ("kind", "format", "ai", "name", "name2", "lang"):
        if key in data:
            if not isinstance(data[key], str) or len(data[key]) > MAX_NAME_CHARS:
                raise GameSetupError(f"{key!r} must be a short text")
            setattr(req, key, data[key])
    if "deck" in data and data["deck"] is not None:
        if type(data["deck"]) is not int:
            raise GameSetupError("'deck' must be 1-4")
        req.deck = data["deck"]
    if "level" in data:
        if type(data["level"]) is not int or data["level"] not in LEVELS:
            raise GameSetupError(f"'level' must be one of {sorted(LEVELS)}")
        req.level = data["level"]
    if "time_control" in data and data["time_control"] is not None:
        if not isinstance(data["time_control"], str):
            raise GameSetupError(f"'time_control' must be one of none, {', '.join(TIME_CONTROLS)}")
        req.time_control = data["time_control"]
    if "threat" in data and data["threat"] is not None:
        if not isinstance(data["threat"], dict):
            raise GameSetupError("'threat' must be an object of threat options")
        req.threat = data["threat"]
    if "rated" in data:
        if type(data["rated"]) is not bool:
            raise GameSetupError("'rated' must be true or false")
        if data["rated"] and (req.kind != "friend" or req.format not in RATED_FORMATS):
            raise GameSetupError("only a friend duel in draft or precon can be rated")
        req.rated = data["rated"]
    from ..words.i18n import languages

    if req.lang not in languages():
        raise GameSetupError(f"'lang' must be one of {', '.join(languages())}")
    return req


def _tutorial_request(data: Any) -> tuple[int, str, str]:
    """``{"step": index, "action": text, "lang": "en"}`` checked: the step index, the action, the language."""
    if not isinstance(data, dict):
        raise TutorialError("the request must be a JSON object")
    unknown = sorted(set(data) - {"step", "action", "lang"})
    if unknown:
        raise TutorialError(f"unknown field {unknown[0]!r} (step, action, lang)")
    n = len(tutorial_steps())
    step = data.get("step")
    if type(step) is not int or not 0 <= step < n:
        raise TutorialError(f"'step' must be a step number from 0 to {n - 1}")
    action = data.get("action")
    if not isinstance(action, str) or not action.strip() or len(action) > MAX_TUTORIAL_ACTION_CHARS:
        raise TutorialError(
            f"'action' must be an action in text notation (at most {MAX_TUTORIAL_ACTION_CHARS} characters)"
        )
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
        raise TutorialError(f"'lang' must be one of {', '.join(LANGUAGES)}")
    return step, action, lang
