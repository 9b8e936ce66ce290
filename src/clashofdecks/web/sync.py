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
  A change whose notification carries its actions, to a copy exactly one revision behind at their
  index, is applied from the notification with no read at all (the session gives the same events as
  a live move); any other (a gap, an undo, an end, a seat claimed, an action the session refuses)
  reads the store -- only the actions after the copy's history (web/sync_reads.py), or the game
  whole when the histories part.  Correctness never rests on the notification: every write still
  expects the copy's revision, so a copy that went wrong is refused as stale and reads the store.

Nothing here imports the server: it is driven through :class:`GameHost`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from ..errors import ClashError
from ..events import Event
from ..session import GameSession
from . import metrics
from .bus import Change, ChangeBus
from .games import GameState, clock_of_row, session_of_row, undo_event
from .protocol import ProtocolError
from .store import GameRow, StaleGameError, Store
from .sync_reads import History as History  # the server's name for it too
from .sync_reads import load_since

log = logging.getLogger("clashofdecks.web")

T = TypeVar("T")

#: What a catch-up gives the pages: engine events and the server's own (undo, resignation).
Events = list[Event | dict[str, Any]]

STALE_MESSAGE = "another move was stored first; the game is shown as it stands now"


class StaleError(ProtocolError):
    """The ``stale`` protocol error of a write another process beat: the game has caught up and its
    new state has been broadcast; the client decides again from it."""

    def __init__(self, message: str = STALE_MESSAGE) -> None:
        super().__init__("stale", message)


class GameHost(Protocol):
    """What :class:`GameSync` needs of the server: its table of live games."""

    @property
    def games(self) -> Mapping[str, GameState]: ...

    async def broadcast(self, live: GameState, events: Sequence[Event | dict[str, Any]]) -> None: ...


class Reader(Protocol):
    """The database's read-only queries (web/services.py's ``Database``)."""

    async def read(self, fn: Callable[[Store], T]) -> T: ...


def history_of(session: GameSession) -> History:
    return [(st.seat, st.action) for st in session.steps]


def _common_prefix(a: History, b: History) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def catch_up(live: GameState, row: GameRow, shown: History | None = None) -> Events:
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
    said = row.result is not None and bool(row.result.get("abandoned") or row.result.get("aborted"))
    live.result_override = row.result if said else None
    live.revision = row.revision
    return events


def _conclude(live: GameState, row: GameRow) -> Events:
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

    def __init__(self, host: GameHost, db: Reader, bus: ChangeBus) -> None:
        self.host = host
        self.db = db
        self.bus = bus
        #: The changes announced for each game being caught up, in order, and the task doing it.
        self.pending: dict[str, list[Change]] = {}
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
        # The offers are agreed in the store (web/rematches.py); a rematch made elsewhere is kept here
        # too, so a later request on this process is answered with it at once.
        if frame.get("type") == "rematch" and isinstance(frame.get("game"), str):
            live.rematch_game = frame["game"]
        from_elsewhere = skip is None or not skip.startswith(self.origin + ":")
        if frame.get("code") == "joined" and from_elsewhere and isinstance(frame.get("seats"), list):
            # The seat's player is back, through another process: not away as this one counted it.
            for seat in frame["seats"]:
                if live.present.get(seat) == 0:
                    del live.present[seat]
        catching_up = self.tasks.get(game_id)
        if catching_up is None:
            await self._deliver(live, frame, skip)
        else:  # the change announced before it is shown first (a seat "joined" once it is taken)
            task = asyncio.create_task(self._deliver(live, frame, skip, after=catching_up))
            self.notices.add(task)
            task.add_done_callback(self.notices.discard)

    async def _deliver(
        self,
        live: GameState,
        frame: dict[str, Any],
        skip: str | None,
        after: asyncio.Task[None] | None = None,
    ) -> None:
        if after is not None:
            await asyncio.wait([after])
        presence_only = frame.get("type") == "presence"  # sent to the pages that asked for it
        for conn in list(live.connections):
            if presence_only and not getattr(conn, "wants_presence", False):
                continue
            if skip is None or self._key(conn) != skip:
                await conn.send(frame)

    async def on_change(self, game_id: str, change: Change) -> None:
        """A game changed: caught up in a task of its own (the bus goes on reading), one at a time
        per game and in the order announced, if this process holds it.  Held without connections
        too: a page opening it may have read the stored revision just before this change and not
        be among the game's connections yet (its seat claimed, its clock started meanwhile), and
        would then wait for a move it was never shown."""
        live = self.host.games.get(game_id)
        if live is None or change.revision <= live.revision:
            return  # not held here (a page opening it reads the store), or written here
        self.pending.setdefault(game_id, []).append(change)
        if game_id not in self.tasks:
            self.tasks[game_id] = asyncio.create_task(self._follow(game_id))

    async def on_resync(self) -> None:
        """The bus missed messages: every game followed here catches up from the store."""
        for game_id, live in list(self.host.games.items()):
            if live.connections:
                await self.on_change(game_id, Change(live.revision + 1))

    async def _follow(self, game_id: str) -> None:
        try:
            while True:
                changes = self.pending.pop(game_id, [])
                live = self.host.games.get(game_id)
                if live is None or not changes:
                    return  # no await until ``finally``: a change announced after this starts a task
                async with live.lock:
                    await self._take(live, changes)
        except asyncio.CancelledError:
            raise
        except Exception:  # the next change, or the next write (refused as stale), tries again
            log.exception("catching up game %s failed", game_id)
            self.pending.pop(game_id, None)
        finally:
            self.tasks.pop(game_id, None)

    async def _take(self, live: GameState, changes: list[Change]) -> None:
        """Bring the copy to the changes announced (the caller holds the game's lock): each one
        revision ahead whose actions came with it is applied with no read; at the first other one
        (a gap, an undo, an end, a seat claimed...) the store is read, which covers the rest."""
        events: Events = []
        changed = False
        for change in changes:
            if change.revision <= live.revision:
                continue  # this process's own write, or covered by a read already
            steps = len(live.session.steps)
            applied = self._apply_notified(live, change)
            if applied is not None:
                events.extend(applied)
                changed = True
                continue
            read = await self._read(live, None, force=changed or len(live.session.steps) != steps)
            if read is not None:
                events.extend(read)
                changed = True
            break
        if changed:
            await self.host.broadcast(live, events)

    def _apply_notified(self, live: GameState, change: Change) -> Events | None:
        """The actions a change notification carries, applied to a copy exactly one revision behind
        at their index, with the events a live move has; None (the store must be read) for any other
        change, or when the session refuses an action (then the copy may hold the ones before it:
        the read that follows compares histories)."""
        session = live.session
        if change.index is None or change.revision != live.revision + 1 or change.index != len(session.steps):
            return None
        events: Events = []
        for offset, (seat, text) in enumerate(change.actions):
            try:
                events.extend(session.act(seat, text, change.index + offset).events)
            except ClashError as exc:
                log.warning("game %s: a notified action does not apply (%s); reading the store", live.id, exc)
                return None
        live.revision = change.revision
        metrics.caught_up("notified")
        return events

    async def catch_up_if_moved(self, live: GameState) -> None:
        """The caller holds the game's lock: if the store moved past this copy (another process
        wrote it), catch up and show this process's pages the change.  One cheap read of the stored
        revision says; none when no other process writes the store."""
        if not self.bus.shared:
            return
        game_id = live.id
        stored = await self.db.read(lambda s: s.game_revision(game_id))
        if stored is not None and stored != live.revision:
            await self._refresh(live, None)

    async def refresh(self, live: GameState, shown: History | None = None, *, locked: bool = False) -> bool:
        """Catch ``live`` up with the store and broadcast what changed; False if it was current.
        ``locked``: the caller holds the game's lock already."""
        if locked:
            return await self._refresh(live, shown)
        async with live.lock:
            return await self._refresh(live, shown)

    async def _refresh(self, live: GameState, shown: History | None) -> bool:
        events = await self._read(live, shown)
        if events is None:
            return False
        await self.host.broadcast(live, events)
        return True

    async def _read(self, live: GameState, shown: History | None, *, force: bool = False) -> Events | None:
        """Read the store and bring the copy there; the events its pages have not seen, or None if
        it was current (``force``: the session may hold notified actions the store has not, so the
        histories are compared even at the same revision).  Only the actions after the copy's
        history are read, unless the history shown is not the session's or the two have parted."""
        game_id = live.id
        row = None
        how = "read"
        if shown is None:
            known = history_of(live.session)
            row = await self.db.read(lambda s: load_since(s, game_id, known))
        if row is None:
            row = await self.db.read(lambda s: s.load_game(game_id))
            how = "whole"
        if row is None or (row.revision == live.revision and shown is None and not force):
            return None
        events = catch_up(live, row, shown)
        metrics.caught_up(how)
        return events

    async def checked(
        self, live: GameState, write: Callable[[], Awaitable[None]], shown: History | None
    ) -> None:
        """Run a write of ``live`` (the caller holds its lock); if another process changed the game
        first, catch up, broadcast, and refuse with :class:`StaleError`."""
        try:
            await write()
        except StaleGameError:
            await self.refresh(live, shown, locked=True)
            raise StaleError() from None
