"""Several server processes on one database: the database is the authority, each process's games in
memory are copies that catch up (docs/web.md, "Several processes").

* Every write that changes a game expects the game's revision the process's copy is at
  (:meth:`Store.bump_revision`); a write refused as stale changes nothing, and the process then
  catches up: :func:`catch_up` loads the stored game and brings its copy there -- the new actions
  applied one by one (their events go to the pages, which animate them), or, when the history the
  copy showed is no longer the stored one (an undo elsewhere), the session rebuilt where the two
  part and the stored actions applied from there.
* :class:`GameSync` takes the change bus's messages (web/bus.py): a game another process changed is
  caught up and its new state broadcast to this process's connections; a notice is sent to them.

Nothing here imports the server: it is driven through :class:`GameHost`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from ..events import Event
from ..session import GameSession
from .bus import ChangeBus
from .games import LiveGame, clock_of_row, session_of_row, undo_event
from .protocol import ProtocolError
from .store import GameRow, StaleGameError, Store

log = logging.getLogger("clashofdecks.web")

T = TypeVar("T")

#: What a catch-up gives the pages: engine events and the server's own (undo, resignation).
Events = list[Event | dict[str, Any]]
#: A game's history as (seat, action text) pairs, in order: what the store keeps.
History = list[tuple[int, str]]

STALE_MESSAGE = "another move was stored first; the game is shown as it stands now"


class StaleError(ProtocolError):
    """The ``stale`` protocol error of a write another process beat: the game has caught up and its
    new state has been broadcast; the client decides again from it."""

    def __init__(self, message: str = STALE_MESSAGE) -> None:
        super().__init__("stale", message)


class GameHost(Protocol):
    """What :class:`GameSync` needs of the server."""

    games: dict[str, LiveGame]

    def lock(self, game_id: str) -> asyncio.Lock: ...

    async def run_db(self, fn: Callable[[Store], T]) -> T: ...

    async def broadcast(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None: ...


def history_of(session: GameSession) -> History:
    return [(st.seat, st.action) for st in session.steps]


def _common_prefix(a: History, b: History) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def catch_up(live: LiveGame, row: GameRow, shown: History | None = None) -> Events:
    """Bring ``live`` to the stored ``row`` (the caller holds the game's lock) and return the events
    its pages have not seen.  ``shown``: the history the pages were last shown, when the session in
    memory holds a change that was never stored (an undo or a clocked action whose write was
    refused); None: the session is what the pages were shown."""
    ours = history_of(live.session) if shown is None else shown
    common = _common_prefix(ours, row.actions)
    events: Events = []
    if shown is not None or common < len(ours):
        live.session = session_of_row(
            replace(row, actions=row.actions[:common], result=None, status="active")
        )
        if common < len(ours):
            taken = [text for _seat, text in reversed(ours[common:])]  # latest first, as an undo says
            events.append(undo_event(live, taken))
    session = live.session
    for seat, text in row.actions[len(session.steps) :]:
        events.extend(session.act(seat, text).events)
    events.extend(_conclude(live, row))
    live.seats = row.seats
    live.rated, live.rated_offer = row.rated, row.rated_offer
    live.clock = None if row.clock is None else clock_of_row(row.clock)
    abandoned = row.result is not None and bool(row.result.get("abandoned"))
    live.result_override = row.result if abandoned else None
    live.revision = row.revision
    return events


def _conclude(live: LiveGame, row: GameRow) -> Events:
    """A stored end that is no action (a resignation, a time-out, an abandonment) applied to the
    copy, with the event the pages show for it."""
    session = live.session
    result = row.result or {}
    if row.status != "over" or session.is_over or result.get("winner") not in (0, 1):
        return []
    loser = 1 - int(result["winner"])
    if result.get("abandoned"):
        session.resign(loser)
        return []  # its notice says it (``abandoned``)
    if result.get("termination") == "time":
        outcome = session.lose_on_time(loser)
        return [{"kind": "time", "rule": "", "player": loser, "text": outcome.reason}]
    outcome = session.resign(loser)
    return [{"kind": "resigned", "rule": "", "player": loser, "text": outcome.reason}]


class GameSync:
    """This process's side of the change bus."""

    def __init__(self, host: GameHost, bus: ChangeBus) -> None:
        self.host = host
        self.bus = bus
        #: The newest revision announced for each game being caught up, and the task doing it.
        self.wanted: dict[str, int] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.notices: set[asyncio.Task[None]] = set()
        #: Names this process in a notice's ``skip`` (a connection id means nothing elsewhere).
        self.origin = secrets.token_hex(8)

    async def start(self) -> None:
        await self.bus.start(self.on_change, self.on_notice, self.on_resync)

    async def stop(self) -> None:
        await self.bus.stop()
        for task in [*self.tasks.values(), *self.notices]:
            task.cancel()

    async def notify_game(self, game_id: str, frame: dict[str, Any], skip: object | None = None) -> None:
        """A notice for the game's connections on every process, except the connection ``skip``."""
        await self.bus.publish_notice(game_id, frame, None if skip is None else self._key(skip))

    def _key(self, conn: object) -> str:
        return f"{self.origin}:{id(conn)}"

    async def on_notice(self, game_id: str, frame: dict[str, Any], skip: str | None) -> None:
        live = self.host.games.get(game_id)
        if live is None:
            return
        # A rematch is agreed in the memory of the process that holds the second offer: the offers
        # and the rematch made elsewhere are kept here too.
        if frame.get("code") == "rematch_offered" and isinstance(frame.get("seats"), list):
            live.rematch_offers.update(s for s in frame["seats"] if s in (0, 1))
        if frame.get("type") == "rematch" and isinstance(frame.get("game"), str):
            live.rematch_game = frame["game"]
        from_elsewhere = skip is None or not skip.startswith(self.origin + ":")
        if frame.get("code") == "joined" and from_elsewhere and isinstance(frame.get("seats"), list):
            # The seat's player is back, through another process: not away as this one counted it.
            for seat in frame["seats"]:
                if live.present.get(seat) == 0:
                    del live.present[seat]
                    live.abandon_deadline = None
        catching_up = self.tasks.get(game_id)
        if catching_up is None:
            await self._deliver(live, frame, skip)
        else:  # the change announced before it is shown first (a seat "joined" once it is taken)
            task = asyncio.create_task(self._deliver(live, frame, skip, after=catching_up))
            self.notices.add(task)
            task.add_done_callback(self.notices.discard)

    async def _deliver(
        self, live: LiveGame, frame: dict[str, Any], skip: str | None, after: asyncio.Task[None] | None = None
    ) -> None:
        if after is not None:
            await asyncio.wait([after])
        for conn in list(live.connections):
            if skip is None or self._key(conn) != skip:
                await conn.send(frame)

    async def on_change(self, game_id: str, revision: int) -> None:
        """A game changed at ``revision``: caught up in a task of its own (the bus goes on
        reading), one at a time per game, if this process holds it.  Held without connections
        too: a page opening it may have read the stored revision just before this change and not
        be among the game's connections yet (its seat claimed, its clock started meanwhile), and
        would then wait for a move it was never shown."""
        live = self.host.games.get(game_id)
        if live is None or revision <= live.revision:
            return  # not held here (a page opening it reads the store), or written here
        self.wanted[game_id] = max(revision, self.wanted.get(game_id, 0))
        if game_id not in self.tasks:
            task = asyncio.create_task(self._follow(game_id))
            self.tasks[game_id] = task
            task.add_done_callback(lambda _t: self.tasks.pop(game_id, None))

    async def on_resync(self) -> None:
        """The bus missed messages: every game followed here catches up from the store."""
        for game_id, live in list(self.host.games.items()):
            if live.connections:
                await self.on_change(game_id, live.revision + 1)

    async def _follow(self, game_id: str) -> None:
        while True:
            live = self.host.games.get(game_id)
            wanted = self.wanted.pop(game_id, 0)
            if live is None or wanted <= live.revision:
                return
            try:
                await self.refresh(live, wanted=wanted)
            except asyncio.CancelledError:
                raise
            except Exception:  # the next change, or the next write (refused as stale), tries again
                log.exception("catching up game %s failed", game_id)
                return

    async def refresh(
        self, live: LiveGame, shown: History | None = None, *, locked: bool = False, wanted: int = 0
    ) -> bool:
        """Catch ``live`` up with the store and broadcast what changed; False if it was current.
        ``locked``: the caller holds the game's lock already.  ``wanted``: the revision announced;
        a copy at it already (this process's own write, announced before the write's caller went
        on) is not read again."""
        if locked:
            return await self._refresh(live, shown)
        async with self.host.lock(live.id):
            if wanted and live.revision >= wanted:
                return False
            return await self._refresh(live, shown)

    async def _refresh(self, live: LiveGame, shown: History | None) -> bool:
        game_id = live.id
        row = await self.host.run_db(lambda s: s.load_game(game_id))
        if row is None or (row.revision == live.revision and shown is None):
            return False
        events = catch_up(live, row, shown)
        await self.host.broadcast(live, events)
        return True

    async def checked(
        self, live: LiveGame, write: Callable[[], Awaitable[None]], shown: History | None
    ) -> None:
        """Run a write of ``live`` (the caller holds its lock); if another process changed the game
        first, catch up, broadcast, and refuse with :class:`StaleError`."""
        try:
            await write()
        except StaleGameError:
            await self.refresh(live, shown, locked=True)
            raise StaleError() from None
