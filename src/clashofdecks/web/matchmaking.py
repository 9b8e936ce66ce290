"""The "play now" queue as the server runs it (docs/web.md, "Ratings and the queue"): the socket
messages ``queue``, ``leave_queue`` and ``queue_ai``, the pairing round of the process holding the
``queue`` lease, and the news each process gives its own waiting connections.  The entries are in
the database (web/dbqueue.py), so players waiting on different server processes meet.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from sqlalchemy.engine import Connection as DbConnection

from . import dbqueue, leases
from .clocks import QUEUE_TIME_CONTROL
from .games import GameState, NewGame
from .protocol import Message, ProtocolError, error_frame
from .ratings import RATED_FORMATS, QueueError, ai_for_rating, display
from .services import Database, LeaseKeeper
from .store import Store

log = logging.getLogger("clashofdecks.web")


class Waiter(Protocol):
    """What the queue needs of a connection (the server's ``Connection``)."""

    identity: str | None
    display_name: str
    lang: str

    @property
    def live(self) -> GameState | None: ...

    async def send(self, frame: dict[str, Any]) -> None: ...


class MadeGame(Protocol):
    """What the makers of games below read of a game made: its id."""

    @property
    def id(self) -> str: ...


class GameMaker(Protocol):
    """What the queue and the tournament director need of the table of live games
    (web/game_table.py): a game made for its owners, in one transaction with the caller's own write
    (``with_write``: a pair's claim, a pairing's game); only its id is read back."""

    async def create_owned_game(
        self,
        req: NewGame,
        owners: Sequence[str],
        *,
        rated: bool = False,
        with_write: Callable[[DbConnection, str], None] | None = None,
    ) -> MadeGame: ...


class Matchmaker:
    """One server process's side of the queue: which of its connections wait, and what they were told."""

    def __init__(
        self, db: Database, leases: LeaseKeeper, games: GameMaker, clock: Callable[[], float]
    ) -> None:
        self.db = db
        self.leases = leases
        self.games = games
        self.clock = clock
        #: The connection of each identity waiting on this process (the entries are in the database).
        self.queued: dict[str, Waiter] = {}
        #: Identities already told of their AI offer.
        self.offers_told: set[str] = set()

    async def handle(self, conn: Waiter, msg: Message) -> None:
        """``queue``, ``leave_queue``, ``queue_ai``; refused with nothing changed when not allowed."""
        if conn.identity is None:
            raise ProtocolError("no_identity", "the queue is for identities: POST /api/identities first")
        identity = conn.identity
        if msg.type == "leave_queue":
            if self.queued.get(identity) is not conn:
                raise ProtocolError("not_queued", "you are not waiting in a queue")
            self._forget(identity)
            await self._leave(identity)
            await conn.send({"type": "queue", "status": "left"})
        elif msg.type == "queue_ai":
            await self._take_ai_offer(conn, identity)
        else:
            await self._join(conn, identity, msg)

    async def _join(self, conn: Waiter, identity: str, msg: Message) -> None:
        if conn.live is not None:
            raise ProtocolError("bad_field", "this connection follows a game; queue from the lobby")
        fmt: str = msg.get("format")
        conn.lang = msg.get("lang") or conn.lang
        if fmt not in RATED_FORMATS:
            raise ProtocolError("bad_field", f"'format' must be one of {', '.join(RATED_FORMATS)}")
        mu, sigma, _games = await self.db.run(lambda s: s.rating(identity, fmt))
        me = self.leases.process_id
        entry = dbqueue.Entry(
            identity,
            fmt,
            display(mu, sigma),
            conn.display_name,
            conn.lang,
            self.clock(),
            me,
            bots_ok=msg.get("bots") is True,  # a person meets bots only after opting in
        )
        try:
            await self.db.run(lambda s: dbqueue.join(s.engine, entry))
        except QueueError as exc:
            raise ProtocolError(exc.code, str(exc)) from None
        self.queued[identity] = conn
        waiting = {"type": "queue", "status": "waiting", "format": fmt, "rating": entry.rating}
        if entry.bots_ok:
            waiting["bots"] = True
        await conn.send(waiting)
        await self.tick()

    async def _take_ai_offer(self, conn: Waiter, identity: str) -> None:
        me = self.leases.process_id
        entry = None
        if self.queued.get(identity) is conn:
            entry = await self.db.run(lambda s: dbqueue.leave(s.engine, identity, me, offered_only=True))
        if entry is None:
            raise ProtocolError("not_queued", "an AI is offered after a wait in the queue, not before")
        self._forget(identity)
        strength = ai_for_rating(entry.rating)
        req = NewGame(kind="ai", format=entry.format, ai=strength, name=conn.display_name, lang=conn.lang)
        live = await self.games.create_owned_game(req, [identity])
        await conn.send({"type": "matched", "game": live.id, "rated": False, "ai": strength})

    def _forget(self, identity: str) -> None:
        self.queued.pop(identity, None)
        self.offers_told.discard(identity)

    async def _leave(self, identity: str) -> None:
        await self.db.run(functools.partial(_leave, identity=identity, process=self.leases.process_id))

    async def disconnect(self, conn: Waiter) -> None:
        """Leaving the page leaves the queue."""
        if conn.identity is not None and self.queued.get(conn.identity) is conn:
            self._forget(conn.identity)
            await self._leave(conn.identity)

    async def tick(self) -> None:
        """The holder of the ``queue`` lease starts the pairs the queue finds and marks the AI
        offers due; then this process tells its own waiting connections what concerns them."""
        if await self.leases.holds(leases.QUEUE):
            now = self.clock()
            pairs, _offers = await self.db.run(lambda s: dbqueue.plan_round(s.engine, now))
            for pair in pairs:
                await self._start_game(pair)
        if self.queued:
            await self._tell()

    async def _start_game(self, pair: tuple[dbqueue.Entry, dbqueue.Entry]) -> None:
        a, b = pair
        req = NewGame(
            kind="friend",
            format=a.format,
            name=a.name,
            name2=b.name,
            lang=a.lang,
            time_control=QUEUE_TIME_CONTROL,  # every rated game has a clock
        )
        try:
            await self.games.create_owned_game(
                req, [a.identity, b.identity], rated=True, with_write=functools.partial(_claim_pair, pair)
            )
        except QueueError:
            return  # a player left meanwhile: the other waits on
        except Exception:
            log.exception("could not start a queue game")
            for e in pair:  # the pages waiting here are told to queue again
                conn = self.queued.get(e.identity) if e.process == self.leases.process_id else None
                if conn is not None:
                    self._forget(e.identity)
                    await self._leave(e.identity)
                    await conn.send(
                        error_frame("server_error", "the server could not start the game; queue again")
                    )

    async def _tell(self) -> None:
        """Tell this process's waiting connections that they were matched, or offered an AI."""
        me = self.leases.process_id
        for entry in await self.db.run(lambda s: dbqueue.entries_of(s.engine, me)):
            conn = self.queued.get(entry.identity)
            if entry.game_id is not None:
                self._forget(entry.identity)
                game_id = entry.game_id
                await self.db.run(functools.partial(_told, identity=entry.identity, game_id=game_id))
                if conn is not None:
                    await conn.send(
                        {"type": "matched", "game": game_id, "rated": True, "format": entry.format}
                    )
            elif conn is None:  # its connection left: the entry goes
                await self._leave(entry.identity)
            elif entry.ai_offered and entry.identity not in self.offers_told:
                self.offers_told.add(entry.identity)
                await conn.send({"type": "queue", "status": "ai_offer", "ai": ai_for_rating(entry.rating)})


def _claim_pair(pair: tuple[dbqueue.Entry, dbqueue.Entry], conn: DbConnection, game_id: str) -> None:
    dbqueue.claim_pair(conn, pair, game_id)


def _leave(store: Store, *, identity: str, process: str) -> None:
    dbqueue.leave(store.engine, identity, process)


def _told(store: Store, *, identity: str, game_id: str) -> None:
    dbqueue.told_matched(store.engine, identity, game_id)
