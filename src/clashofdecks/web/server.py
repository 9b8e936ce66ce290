"""The web app: a Starlette ASGI application (HTTP for the lobby, records and replays; one WebSocket
per page for game traffic).  ``clash serve`` runs it on uvicorn; ``docs/web.md`` documents it.

The server is the only judge: pages send action text, the session checks it, and each connection
gets the view of the seats its tokens open (R9), spectators the public view.  Every action is
committed to the store before anyone is told about it; agent decisions and hints run in a process
pool, off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import math
import multiprocessing
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy.engine import Connection as DbConnection
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..errors import ActionSyntaxError, ClashError, IllegalActionError, RecordError
from ..events import Event
from ..options import LEVELS, THREAT_ABILITIES, THREAT_CHOICES, ThreatError
from ..record import GameRecord
from ..session import AGENT, NotYourTurnError, SessionError, UndoError
from ..worker_processes import exit_with_parent
from . import workers
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    GameSetupError,
    LiveGame,
    NewGame,
    abandoned_result,
    board_abilities,
    card_catalogue,
    common_part,
    create_session,
    dumps,
    events_json,
    final_result,
    frame_for,
    game_row,
    join_frame,
    record_of_row,
    replay_frames,
    seat_part,
    session_of_row,
)
from .protocol import (
    MAX_NAME_CHARS,
    AddressRateLimiter,
    Message,
    ProtocolError,
    RateLimiter,
    error_frame,
    parse_message,
)
from .store import ActionWrite, GameRow, SeatRow, Store, Write, open_store

log = logging.getLogger("clashofdecks.web")
T = TypeVar("T")
PLAYER_COOKIE = "clash_player"
NAME_COOKIE = "clash_name"


@dataclass
class ServerConfig:
    """Options of ``clash serve`` (see ``docs/web.md``)."""

    database_url: str | None = None
    #: The address players use (``https://cards.example.org``): invite links and allowed Origins.
    public_url: str | None = None
    #: Messages per second per connection, and the burst allowed above that pace.
    rate: float = 20.0
    burst: float = 40.0
    #: Games a client address may create per minute over HTTP (new games and imports), and the
    #: burst allowed above that pace; more get 429 and create nothing.
    create_rate: float = 20.0
    create_burst: float = 20.0
    #: A duel seat whose player is away on their turn this long loses (the other seat is told).
    abandon_seconds: float = 600.0
    #: Worker processes for agents and hints (0: a thread in this process, for tests and small machines).
    agent_workers: int = 1
    hint_seconds: float = 1.0
    #: Further Origins allowed to open game sockets (besides the page's own host and the public URL).
    extra_origins: tuple[str, ...] = ()
    watch_interval: float = 1.0


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    limiter: RateLimiter
    live: LiveGame | None = None
    seats: set[int] = field(default_factory=set)
    lang: str = "en"
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(dumps(frame))

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            if self.ws.application_state != WebSocketState.CONNECTED:
                return
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await self.ws.send_text(text)


class GameServer:
    """The state behind the app: the store, the games in memory, the worker pools."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: Store | None = None
        self.games: dict[str, LiveGame] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.load_lock = asyncio.Lock()
        self.db: ThreadPoolExecutor | None = None
        self.pool: Executor | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.agent_tasks: set[asyncio.Task[None]] = set()
        self.pending_writes: list[
            tuple[ActionWrite | Callable[[Store, DbConnection], None], asyncio.Future[None]]
        ] = []
        self.flusher: asyncio.Task[None] | None = None
        self.inline_db = False

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-db")
        loop = asyncio.get_running_loop()
        self.store = await loop.run_in_executor(self.db, open_store, self.config.database_url)
        self.inline_db = self.store.engine.dialect.name == "sqlite"
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
        for task in list(self.agent_tasks):
            task.cancel()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.store is not None and self.db is not None:
            await asyncio.get_running_loop().run_in_executor(self.db, self.store.close)
        if self.db is not None:
            self.db.shutdown(wait=True)

    async def run_db(self, fn: Callable[[Store], T]) -> T:
        assert self.store is not None and self.db is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.db, lambda: fn(store))

    async def write(self, fn: ActionWrite | Callable[[Store, DbConnection], None]) -> None:
        """Store one write; returns once it is committed (raises its error otherwise).

        Writes that arrive while a commit is under way are committed together in the next one
        (group commit): with many games, one commit acknowledges many actions.
        """
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending_writes.append((fn, fut))
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())
        await fut

    async def _flush(self) -> None:
        assert self.store is not None and self.db is not None
        store = self.store
        loop = asyncio.get_running_loop()
        while self.pending_writes:
            batch, self.pending_writes = self.pending_writes, []
            calls: list[Write] = [
                fn if isinstance(fn, ActionWrite) else functools.partial(fn, store) for fn, _fut in batch
            ]
            try:
                if self.inline_db:
                    # SQLite on local disk commits in well under a millisecond: a hop to a thread
                    # (and back) costs more under load than the commit itself.
                    errors = store.batch(calls)
                else:
                    errors = await loop.run_in_executor(self.db, store.batch, calls)
            except Exception as exc:  # the executor itself failed: every write of the batch did
                errors = [exc] * len(batch)
            for (_fn, fut), err in zip(batch, errors, strict=True):
                if fut.done():
                    continue
                if err is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(err)

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self.locks.get(game_id)
        if lock is None:
            lock = self.locks[game_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ games

    async def get_game(self, game_id: str) -> LiveGame | None:
        live = self.games.get(game_id)
        if live is not None:
            return live
        async with self.load_lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.run_db(lambda s: s.load_game(game_id))
            if row is None:
                return None
            try:
                session = session_of_row(row)
            except ClashError as exc:
                log.error("game %s does not replay from the store: %s", game_id, exc)
                return None
            live = LiveGame(row.id, row.kind, session, row.seats)
            if row.result is not None and row.result.get("abandoned"):
                live.result_override = row.result
            if session.is_over and row.status != "over":
                # Killed between storing the last action and marking the game finished.
                result = session.record().result or {}
                await self.run_db(lambda s: s.finish(game_id, result))
            self.games[game_id] = live
            return live

    async def create_game(self, req: NewGame, owner: str) -> tuple[LiveGame, dict[int, str]]:
        game_id = secrets.token_hex(12)
        session, seats, tokens = create_session(req, game_id)
        creator_seat = session.participant_seat(0)
        seats[creator_seat].owner = owner
        if req.kind == "hotseat":
            seats[1 - creator_seat].owner = owner
        live = LiveGame(game_id, req.kind, session, seats)
        if req.deck is not None and session.to_move == creator_seat and req.kind == "solo":
            session.act(creator_seat, f"deck {req.deck}")
        row = game_row(live)
        await self.run_db(lambda s: s.create_game(row))
        self.games[game_id] = live
        self.schedule_agents(live)
        return live, tokens

    async def import_record(self, record: GameRecord, owner: str) -> LiveGame:
        from ..session import GameSession, Seat

        seats = [
            Seat.remote("Player 0"),
            Seat("automaton") if record.mode == "solo" else Seat.remote("Player 1"),
        ]
        game_id = secrets.token_hex(12)
        try:
            session = GameSession.from_record(record, seats=seats, session_id=game_id)
        except ClashError as exc:
            raise RecordError(str(exc)) from None
        names = list(record.players)
        rows = [
            SeatRow(s, seats[s].kind, names[s] if s < len(names) else seats[s].kind, None, None, owner)
            for s in (0, 1)
        ]
        live = LiveGame(game_id, "imported", session, rows)
        row = game_row(live)
        row.status = "over"  # an imported game is for replaying, never continued here
        if row.result is None:
            row.result = {"winner": None, "reason": "imported unfinished", "termination": "imported"}
        await self.run_db(lambda s: s.create_game(row))
        return live

    async def broadcast(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None:
        """A ``state`` frame to every connection of the game, each built for its seats (R9).  The
        public part is built and serialised once per language, each seat's part once per seat, so
        connections that see the same (spectators, one language) share one text."""
        session = live.session
        abilities = None if session.game.phase == "setup" else board_abilities(session)
        common_by_lang: dict[str, str] = {}
        own_by_seats: dict[frozenset[int], dict[str, Any]] = {}
        texts: dict[tuple[frozenset[int], str], str] = {}
        for conn in list(live.connections):
            seats = frozenset(conn.seats)
            key = (seats, conn.lang)
            text = texts.get(key)
            if text is None:
                common = common_by_lang.get(conn.lang)
                if common is None:
                    events_text = events_json(live, events, conn.lang)
                    common = common_by_lang[conn.lang] = dumps(common_part(live, events_text, abilities))
                own = own_by_seats.get(seats)
                if own is None:
                    own = own_by_seats[seats] = seat_part(live, set(seats))
                text = texts[key] = join_frame(own, common)
            await conn.send_text(text)

    def schedule_agents(self, live: LiveGame) -> None:
        if live.agent_busy or live.session.is_over or not live.session.is_agent_turn():
            return
        live.agent_busy = True
        task = asyncio.create_task(self._run_agents(live))
        self.agent_tasks.add(task)
        task.add_done_callback(self.agent_tasks.discard)

    async def _run_agents(self, live: LiveGame) -> None:
        session = live.session
        try:
            while True:
                async with self.lock(live.id):
                    if session.is_over or not session.is_agent_turn():
                        break
                    seat = session.to_move
                    spec = session.seats[seat].agent
                    assert spec is not None
                    record = session.record().to_dict()
                    index = len(session.steps)
                text = await self._in_worker(
                    workers.agent_action, record, spec, session.seed * 2 + seat + index
                )
                async with self.lock(live.id):
                    if len(session.steps) != index or session.to_move != seat:
                        continue  # the game moved on meanwhile (an undo): think again
                    events = await self._apply(live, seat, text)
                    if not session.is_agent_turn():
                        live.agent_busy = False
                    await self.broadcast(live, events)
        except asyncio.CancelledError:
            raise
        except Exception:  # an agent failure must not take the server down; the game waits
            log.exception("agent move failed in game %s", live.id)
        finally:
            live.agent_busy = False

    async def _in_worker(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the worker pool; a pool whose process died is replaced and the job retried once."""
        loop = asyncio.get_running_loop()
        assert self.pool is not None
        try:
            return await loop.run_in_executor(self.pool, fn, *args)
        except BrokenExecutor:
            log.warning("a worker process died; starting a new pool")
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new_pool()
            return await loop.run_in_executor(self.pool, fn, *args)

    def _new_pool(self) -> Executor:
        if self.config.agent_workers > 0:
            ctx = multiprocessing.get_context("spawn")
            # Workers end with the server even when it is killed (SIGKILL): no idle worker left behind.
            return ProcessPoolExecutor(
                max_workers=self.config.agent_workers, mp_context=ctx, initializer=exit_with_parent
            )
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-agent")

    async def _apply(self, live: LiveGame, seat: int, text: str) -> list[Event | dict[str, Any]]:
        """Check, store, then apply one action (the caller holds the game's lock).  Raises the
        session's errors with nothing changed."""
        session = live.session
        if session.is_over:
            raise SessionError("the game is over")
        if seat != session.to_move:
            raise NotYourTurnError(f"it is not seat {seat}'s decision (seat {session.to_move} is to move)")
        game = session.game
        code = game.parse_action(text)
        if not game.is_legal(code):
            raise IllegalActionError(game.explain_illegal(code))
        canonical = game.action_text(code)
        index = len(session.steps)
        await self.write(ActionWrite(live.id, index, seat, canonical))
        step = session.act(seat, code)
        if session.is_over:
            result = final_result(session)
            await self.write(lambda s, c: s.finish(live.id, result, conn=c))
        return list(step.events)

    async def _finish(self, game_id: str, result: dict[str, Any]) -> None:
        await self.write(lambda s, c: s.finish(game_id, result, conn=c))

    async def _watch(self) -> None:
        """The abandonment clock of duels between people (see ``docs/web.md``)."""
        while True:
            await asyncio.sleep(self.config.watch_interval)
            now = time.monotonic()
            for live in list(self.games.values()):
                session = live.session
                if live.kind != "friend" or session.is_over:
                    continue
                seat = session.to_move
                if seat < 0 or live.present.get(seat, 0) > 0 or seat not in live.present:
                    # present, or never joined yet (an invite not opened is not an abandonment)
                    if live.abandon_deadline is not None:
                        live.abandon_deadline = None
                    continue
                if live.abandon_deadline is None:
                    live.abandon_deadline = now + self.config.abandon_seconds
                    for conn in list(live.connections):
                        await conn.send(
                            {
                                "type": "notice",
                                "code": "opponent_away",
                                "seat": seat,
                                "seconds": self.config.abandon_seconds,
                            }
                        )
                    continue
                if now >= live.abandon_deadline:
                    async with self.lock(live.id):
                        if session.is_over or session.to_move != seat:
                            continue
                        result = abandoned_result(session, seat)
                        live.result_override = result
                        await self._finish(live.id, result)
                    for conn in list(live.connections):
                        await conn.send({"type": "notice", "code": "abandoned", "seat": seat})
                    await self.broadcast(live, [])

    # ------------------------------------------------------------------ socket messages

    async def handle(self, conn: Connection, msg: Message) -> None:
        if msg.type == "ping":
            await conn.send({"type": "pong", "id": msg.get("id", 0)})
            return
        if msg.type == "hello":
            await self._hello(conn, msg)
            return
        live = conn.live
        if live is None:
            raise ProtocolError("hello_first", "send 'hello' with the game id first")
        if not conn.seats:
            raise ProtocolError("spectator", "spectators watch; they cannot act")
        session = live.session
        if msg.type == "hint":
            await self._hint(conn, live)
            return
        async with self.lock(live.id):
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            if msg.type == "act":
                if msg.get("index") != len(session.steps):
                    raise ProtocolError(
                        "stale",
                        f"the game has {len(session.steps)} actions; your page showed {msg.get('index')}",
                    )
                try:
                    events = await self._apply(live, seat, msg.get("action"))
                except NotYourTurnError as exc:
                    raise ProtocolError("not_your_turn", str(exc)) from None
                except ActionSyntaxError as exc:
                    raise ProtocolError("syntax", str(exc)) from None
                except IllegalActionError as exc:
                    raise ProtocolError("illegal", str(exc)) from None
                except SessionError as exc:
                    raise ProtocolError("game_over", str(exc)) from None
            elif msg.type == "undo":
                if msg.get("index") != len(session.steps):
                    raise ProtocolError("stale", "the game moved on; undo refused")
                try:
                    taken = session.undo(seat)
                except UndoError as exc:
                    raise ProtocolError("undo_refused", str(exc)) from None
                keep = len(session.steps)
                await self.write(lambda s, c: s.truncate_actions(live.id, keep, conn=c))
                events = [
                    {"kind": "undo", "rule": "", "actions": taken, "text": "taken back: " + ", ".join(taken)}
                ]
            else:  # resign
                outcome = session.resign(seat)
                result = final_result(session)
                await self.write(lambda s, c: s.finish(live.id, result, conn=c))
                events = [{"kind": "resigned", "rule": "", "player": seat, "text": outcome.reason}]
        await self.broadcast(live, events)
        self.schedule_agents(live)

    def _acting_seat(self, conn: Connection, live: LiveGame) -> int:
        if len(conn.seats) == 1:
            return next(iter(conn.seats))
        to_move = live.session.to_move
        if to_move in conn.seats:
            return to_move
        raise ProtocolError("not_your_turn", f"seat {to_move} is to move")

    async def _hello(self, conn: Connection, msg: Message) -> None:
        if conn.live is not None:
            raise ProtocolError("bad_field", "this connection already follows a game")
        live = await self.get_game(msg.get("game"))
        if live is None:
            raise ProtocolError("no_game", "no such game")
        tokens: list[str] = msg.get("tokens")
        seats = live.seats_for_tokens(tokens)
        if tokens and len(seats) != len(tokens):
            raise ProtocolError("bad_token", "that token opens no seat of this game")
        conn.live = live
        conn.seats = seats
        conn.lang = msg.get("lang") or "en"
        live.connections.add(conn)
        for s in seats:
            live.present[s] = live.present.get(s, 0) + 1
        frame = frame_for(live, seats)
        history = [*live.session.initial_events, *(e for st in live.session.steps for e in st.events)]
        frame["log"] = events_json(live, history, conn.lang)
        await conn.send(frame)
        self.schedule_agents(live)  # an agent stopped by a failure tries again when a page opens
        for other in list(live.connections):
            if other is not conn and seats:
                await other.send({"type": "notice", "code": "joined", "seats": sorted(seats)})

    async def _hint(self, conn: Connection, live: LiveGame) -> None:
        session = live.session
        async with self.lock(live.id):
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            if seat != session.to_move or session.game.phase == "setup":
                raise ProtocolError("hint_unavailable", "hints are given on your own turn, after the setup")
            record = session.record().to_dict()
            index = len(session.steps)
        action, score, label = await self._in_worker(workers.hint, record, seat, self.config.hint_seconds)
        await conn.send({"type": "hint", "index": index, "action": action, "score": score, "label": label})

    def disconnect(self, conn: Connection) -> None:
        live = conn.live
        if live is None:
            return
        live.connections.discard(conn)
        for s in conn.seats:
            live.present[s] = max(0, live.present.get(s, 0) - 1)
        if not live.connections and live.session.is_over and not live.agent_busy:
            self.games.pop(live.id, None)  # finished and unwatched: the store keeps it
            lock = self.locks.get(live.id)
            if lock is not None and not lock.locked():
                del self.locks[live.id]


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


def _player(request: Request) -> tuple[str, bool]:
    player = request.cookies.get(PLAYER_COOKIE, "")
    if len(player) == 32 and all(c in "0123456789abcdef" for c in player):
        return player, False
    return secrets.token_hex(16), True


def _with_player(response: Response, player: str, new: bool) -> Response:
    if new:
        response.set_cookie(PLAYER_COOKIE, player, max_age=10 * 365 * 86400, httponly=True, samesite="lax")
    return response


def _base_url(request: Request, config: ServerConfig) -> str:
    if config.public_url:
        return config.public_url.rstrip("/")
    return str(request.base_url).rstrip("/")


def _summary(row: GameRow, player: str | None) -> dict[str, Any]:
    return {
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


def create_app(config: ServerConfig | None = None) -> Starlette:
    """The ASGI app (``server.state.server`` is the :class:`GameServer`)."""
    config = config or ServerConfig()
    server = GameServer(config)
    creations = AddressRateLimiter(config.create_rate / 60.0, config.create_burst)

    def creation_refused(request: Request) -> Response | None:
        """429 when this client address has created games faster than ``--create-rate`` allows.
        Checked before the body is read: a refused request costs the server almost nothing."""
        address = request.client.host if request.client is not None else "unknown"
        if creations.allow(address):
            return None
        wait = max(1, math.ceil(creations.retry_after(address)))
        body = {
            "error": f"too many new games from this address; at most {config.create_rate:g} a minute",
            "code": "rate_limited",
            "retry_after": wait,
        }
        return JSONResponse(body, status_code=429, headers={"Retry-After": str(wait)})

    async def page(request: Request) -> Response:
        player, new = _player(request)
        html = HTMLResponse(
            _index_html(), headers={"Content-Security-Policy": _CSP, "Cache-Control": "no-store"}
        )
        return _with_player(html, player, new)

    async def cards(request: Request) -> Response:
        return JSONResponse(card_catalogue(), headers={"Cache-Control": "max-age=3600"})

    async def rules(request: Request) -> Response:
        from ..ui.i18n import LANGUAGES, ability_help, ability_keys, rules_summary

        lang = request.query_params.get("lang", "en")
        if lang not in LANGUAGES:
            lang = "en"
        body = {
            "lang": lang,
            "summary": list(rules_summary(lang)),
            "abilities": {a: ability_help(lang, a) for a in ability_keys()},
        }
        return JSONResponse(body, headers={"Cache-Control": "max-age=3600"})

    async def lobby(request: Request) -> Response:
        player, new = _player(request)
        open_rows = await server.run_db(lambda s: s.list_games(status="active", limit=30))
        mine_rows = await server.run_db(lambda s: s.list_games(owner=player, limit=30))
        body = {
            "ai_levels": list(AI_LEVELS),
            "ai_default": DEFAULT_AI,
            "levels": sorted(LEVELS),
            "threat_choices": {k: list(v) for k, v in THREAT_CHOICES.items()},
            "threat_abilities": list(THREAT_ABILITIES),
            "formats": ["draft", "precon"],
            "open": [_summary(r, player) for r in open_rows if r.kind != "imported"],
            "mine": [_summary(r, player) for r in mine_rows],
        }
        return _with_player(JSONResponse(body), player, new)

    async def new_game(request: Request) -> Response:
        refused = creation_refused(request)
        if refused is not None:
            return refused
        player, new = _player(request)
        raw = await _read_body(request, MAX_OPTIONS_BYTES)
        if raw is None:
            return JSONResponse({"error": f"options are at most {MAX_OPTIONS_BYTES} bytes"}, status_code=413)
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        try:
            req = _new_game_request(data)
            live, tokens = await server.create_game(req, player)
        except (GameSetupError, ThreatError, ClashError, ValueError, TypeError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        base = _base_url(request, config)
        creator = live.session.participant_seat(0)
        mine = [tokens[s] for s in sorted(tokens) if s == creator or req.kind == "hotseat"]
        body: dict[str, Any] = {
            "id": live.id,
            "seat": creator,
            "tokens": mine,
            "url": f"{base}/g/{live.id}#t={','.join(mine)}",
        }
        if req.kind == "friend":
            body["invite"] = f"{base}/g/{live.id}#t={tokens[1 - creator]}"
        response = JSONResponse(body)
        if req.name:
            response.set_cookie(
                NAME_COOKIE, req.name[:MAX_NAME_CHARS], max_age=10 * 365 * 86400, samesite="lax"
            )
        return _with_player(response, player, new)

    async def finished_row(game_id: str) -> GameRow | Response:
        row = await server.run_db(lambda s: s.load_game(game_id))
        if row is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        if row.status != "over":
            # The record holds the seed, which decides every hidden card: only finished games.
            return JSONResponse({"error": "records are given for finished games only"}, status_code=403)
        return row

    async def record(request: Request) -> Response:
        row = await finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        rec = record_of_row(row).to_dict()
        if row.kind == "imported" and rec["result"] and rec["result"].get("termination") == "imported":
            rec["result"] = None
        return JSONResponse(
            rec, headers={"Content-Disposition": f'attachment; filename="clash-{row.id}.json"'}
        )

    async def replay(request: Request) -> Response:
        row = await finished_row(request.path_params["game_id"])
        if isinstance(row, Response):
            return row
        rec = record_of_row(row)
        frames = replay_frames(rec)
        return JSONResponse(
            {
                "id": row.id,
                "players": [s.name for s in row.seats],
                "mode": row.mode,
                "result": row.result,
                "frames": frames,
            }
        )

    async def import_record(request: Request) -> Response:
        refused = creation_refused(request)
        if refused is not None:
            return refused
        player, new = _player(request)
        body = await _read_body(request, MAX_RECORD_BYTES)
        if body is None:
            return JSONResponse({"error": "a record is at most 1 MiB"}, status_code=413)
        try:
            rec = GameRecord.from_dict(json.loads(body))
            live = await server.import_record(rec, player)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            return JSONResponse({"error": "the file is not JSON"}, status_code=400)
        except ClashError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        return _with_player(JSONResponse({"id": live.id, "replay": f"/r/{live.id}"}), player, new)

    async def socket(ws: WebSocket) -> None:
        if not _origin_allowed(ws.headers.get("origin"), ws.headers.get("host"), config):
            await ws.close(code=4403)
            return
        await ws.accept()
        conn = Connection(ws, RateLimiter(config.rate, config.burst))
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                if not conn.limiter.allow():
                    await conn.send(error_frame("rate_limited", "too many messages; slow down"))
                    continue
                try:
                    msg = parse_message(text)
                    await server.handle(conn, msg)
                except ProtocolError as exc:
                    await conn.send(error_frame(exc.code, exc.message))
                except ClashError as exc:
                    await conn.send(error_frame("illegal", str(exc)))
                except Exception:
                    log.exception("message failed")
                    await conn.send(
                        error_frame("server_error", "the server could not do that; nothing changed")
                    )
                    if conn.live is not None:
                        # Memory may be ahead of the store: reload the game from the store.
                        server.games.pop(conn.live.id, None)
        except WebSocketDisconnect:
            pass
        finally:
            server.disconnect(conn)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.start()
        try:
            yield
        finally:
            await server.stop()

    static = StaticFiles(packages=[("clashofdecks.web", "static")])
    app = Starlette(
        routes=[
            Route("/", page),
            Route("/g/{game_id}", page),
            Route("/r/{game_id}", page),
            Route("/rules", page),
            Route("/api/cards", cards),
            Route("/api/lobby", lobby),
            Route("/api/rules", rules),
            Route("/api/games", new_game, methods=["POST"]),
            Route("/api/games/{game_id}/record", record),
            Route("/api/games/{game_id}/replay", replay),
            Route("/api/import", import_record, methods=["POST"]),
            WebSocketRoute("/ws", socket),
            Mount("/static", app=static, name="static"),
        ],
        lifespan=lifespan,
    )
    app.state.server = server
    return app


_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
)


MAX_OPTIONS_BYTES = 16 * 1024
MAX_RECORD_BYTES = 1 << 20


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
    allowed = {"kind", "format", "deck", "level", "threat", "ai", "name", "name2"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise GameSetupError(f"unknown option {unknown[0]!r}")
    req = NewGame()
    for key in ("kind", "format", "ai", "name", "name2"):
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
    if "threat" in data and data["threat"] is not None:
        if not isinstance(data["threat"], dict):
            raise GameSetupError("'threat' must be an object of threat options")
        req.threat = data["threat"]
    return req
