"""One live game: its state (:class:`~clashofdecks.web.games.GameState`: session, seats, clock), its
lock, its writes and its subscribers (the connections that follow it), and everything that changes
it -- a page joining (its seats claimed by token), a move, an undo, a resignation, a hint asked, a
clock run out, a player away too long, the end -- in this one file (docs/web.md, "Code").

Its messages are handled one at a time, in the order they came, under the game's lock (an
``asyncio.Lock`` is first come, first served); a message's sender awaits its handling, so its
errors go back to that socket alone, and a failure in one game leaves every other game as it was.
Every change is committed to the store, behind the game's revision (web/sync.py), before anyone is
told about it; each subscriber then gets the frame of the seats it holds (R9).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.engine import Connection as DbConnection

from ..errors import ActionSyntaxError, IllegalActionError
from ..events import Event
from ..session import (
    REMOTE,
    CheckedAction,
    GameSession,
    NotYourTurnError,
    SessionError,
    StaleActionError,
    UndoError,
)
from . import bots, hint_terms, metrics, presence
from .config import ServerConfig
from .deltas import base_of, frame_delta
from .frame_words import steps_done
from .games import (
    GameState,
    aborted_result,
    board_abilities,
    clock_row,
    common_part,
    dumps,
    events_json,
    final_result,
    first_turns_done,
    frame_for,
    history_json,
    join_frame,
    position_dump,
    seat_names,
    seat_part,
    undo_event,
)
from .protocol import Message, ProtocolError
from .services import Background, Database
from .store import ActionWrite, ClockRow, SeatRow, SeatTakenError, Store, token_hash
from .sync import GameSync, History, StaleError, history_of
from .workers import WorkBudgetError, WorkDropped, WorkerPool

log = logging.getLogger("clashofdecks.web")

#: What a message is, in the refusal of one that came after its player's clock ran out.
_WHAT = {"act": "this action", "undo": "this undo", "resign": "this resignation", "abort": "this abort"}

Events = list[Event | dict[str, Any]]


class Subscriber(Protocol):
    """A connection following a game (web/connection.py's ``Connection``)."""

    seats: set[int]
    lang: str
    identity: str | None
    #: The protocol version the page asked for in ``hello`` (2: ``delta`` frames after a change).
    protocol: int
    #: Version 2: the last full state the page was sent (what its next delta applies to).
    shown: dict[str, Any] | None
    #: The socket has closed (work it asked for and not yet begun is dropped).
    closed: bool

    async def send(self, frame: dict[str, Any]) -> None: ...

    async def send_text(self, text: str) -> None: ...


class AgentTurns(Protocol):
    """The agents runner (web/agents_runner.py), as a game asks it for work."""

    def schedule(self, live: LiveGame) -> None: ...

    def hint_wait(self, who: str) -> float: ...

    async def hint(
        self, record: dict[str, Any], seat: int, wanted: Callable[[], str | None] | None = None
    ) -> tuple[str, float, str]: ...


class AnalysisRequests(Protocol):
    """The analyses (web/analyses.py), as a game that ends asks for its own."""

    def request(self, game_id: str) -> tuple[int, dict[str, Any]]: ...


@dataclass
class GameServices:
    """What every live game of a server process uses, passed to each when it is made."""

    config: ServerConfig
    db: Database
    background: Background
    agents: AgentTurns
    analyses: AnalysisRequests
    #: The change bus's side of this process (set once the bus is open, at the server's start).
    sync: GameSync | None = None
    process_id: str = ""
    #: The worker pool (imports are replayed in its optional lane).
    pool: WorkerPool | None = None


class LiveGame(GameState):
    """A game in memory and what changes it."""

    def __init__(
        self,
        services: GameServices,
        id: str,
        kind: str,
        session: GameSession,
        seats: list[SeatRow],
        **state: Any,
    ) -> None:
        super().__init__(id, kind, session, seats, **state)
        self.services = services
        self.config = services.config
        #: When something last looked at or changed this game (``time.monotonic``): a game nothing
        #: follows is let go after ``idle_game_seconds`` (web/game_table.py).
        self.last_used = time.monotonic()
        #: A hint is being thought for this game (one at a time: optional work, web/workers.py).
        self.hinting = False

    # ------------------------------------------------------------------ writes and notices

    @property
    def sync(self) -> GameSync:
        assert self.services.sync is not None
        return self.services.sync

    async def write(
        self,
        fn: ActionWrite | Callable[[Store, DbConnection], None],
        *,
        then: Callable[[Store, DbConnection], None] | None = None,
        shown: History | None = None,
    ) -> None:
        """Store a write that changes this game (the caller holds its lock), with ``then`` in the
        same transaction, only if the stored game is still at this copy's revision.  If another
        server process changed it first, nothing is written: the copy catches up, its pages are
        sent the new state, and :class:`~clashofdecks.web.sync.StaleError` is raised.  ``shown``:
        the history the pages were shown, when the session is already past it (web/sync.py)."""
        expected = self.revision
        write: ActionWrite | Callable[[Store, DbConnection], None]
        if isinstance(fn, ActionWrite):
            # Made directly: ``dataclasses.replace`` looks the fields up at every call (a move's).
            action = ActionWrite(fn.game_id, fn.idx, fn.seat, fn.text, expected, fn.agent_next, then is None)
            write = action if then is None else functools.partial(_append_then, action=action, then=then)
        else:
            write = functools.partial(_bumped, fn=fn, then=then, game_id=self.id, expected=expected)
        await self.sync.checked(self, lambda: self.services.db.write(write), shown)
        self.revision = expected + 1

    async def notify(self, frame: dict[str, Any], *, skip: Subscriber | None = None) -> None:
        """A notice frame to every connection of the game, on every server process (through the
        change bus), except ``skip``."""
        await self.sync.notify_game(self.id, frame, skip)

    def schedule_agents(self) -> None:
        self.services.agents.schedule(self)

    # ------------------------------------------------------------------ subscribers

    async def join(
        self,
        conn: Subscriber,
        tokens: list[str],
        *,
        accept_rated: bool,
        lang: str,
        accept_hints: bool = False,
        name: str = "",
    ) -> None:
        """A page opens this game (``hello``): its seats (claimed by token, or held by its
        identity), a clock started once both seats are held, and the page sent the game."""
        async with self.lock:
            await self.sync.catch_up_if_moved(self)  # the copy held here may be older than the store
            offered, names = self.rated_offer, [s.name for s in self.seats]
            seats = await self._seats_of(
                conn, tokens, accept_rated=accept_rated, accept_hints=accept_hints, name=name
            )
            started = self.start_clock()
            if started:
                assert self.clock is not None
                await self.write(functools.partial(_save_clock, game_id=self.id, clock=clock_row(self.clock)))
            renamed = names != [s.name for s in self.seats]
            if (started or offered != self.rated_offer or renamed) and self.connections:
                # The creator's page shows the clock running, whether the game is rated, the
                # invitee's name.
                await self.broadcast([])
        conn.seats, conn.lang = seats, lang
        self.last_used = time.monotonic()
        self.connections.add(conn)
        for s in seats:
            self.present[s] = self.present.get(s, 0) + 1
        await self.save_presence(seats)
        await self.resend(conn)
        self.schedule_agents()  # an agent stopped by a failure tries again when a page opens
        if seats:
            await self.notify({"type": "notice", "code": "joined", "seats": sorted(seats)}, skip=conn)
        if getattr(conn, "wants_presence", False) and self.kind == "friend":
            await self.announce_presence(only=None if seats else conn)

    async def resend(self, conn: Subscriber) -> None:
        """The whole game as ``conn``'s seats see it, with the log so far: the answer to ``hello``,
        and to ``resync`` (a page of protocol version 2 whose state no longer takes its deltas);
        its next delta applies to this frame."""
        frame = frame_for(self, conn.seats, lang=conn.lang, now=self.config.clock())
        # Seats no identity holds yet: the creator's page shows the invite link until it is used.
        frame["open_seats"] = [s.seat for s in self.seats if s.owner is None and s.token_hash is not None]
        # The latest events only (``caps.hello_log_events``): a page opening a long game costs no more
        # than a short one's, on the event loop (only the steps shown are rendered, once per language).
        frame["log"] = history_json(self, conn.lang, self.config.caps.hello_log_events)
        if conn.protocol == 2:
            conn.shown = base_of(frame)
        await conn.send(frame)

    async def _seats_of(
        self,
        conn: Subscriber,
        tokens: list[str],
        *,
        accept_rated: bool,
        accept_hints: bool = False,
        name: str = "",
    ) -> set[int]:
        """The seats this connection plays (the caller holds the lock): those its identity owns, and
        those whose token it presents when no identity holds them yet, which it thereby takes for
        good (an invite link is single-use), named ``name`` when one is given (the invitee's own
        name, not a default in the creator's language).  Refused, with nothing changed: a token of no seat, a
        seat another identity holds, the second seat of a friend duel for the identity that holds
        the first (its creator), and any token without an identity."""
        me = conn.identity
        by_hash = {s.token_hash: s for s in self.seats if s.token_hash is not None}
        presented = [by_hash.get(token_hash(t)) for t in tokens]
        if any(row is None for row in presented):
            raise ProtocolError("bad_token", "that token opens no seat of this game")
        to_claim: list[SeatRow] = []
        for row in presented:
            assert row is not None
            if (row.owner is not None and row.owner == me) or any(r.seat == row.seat for r in to_claim):
                continue
            if me is None:
                raise ProtocolError(
                    "no_identity", "seats belong to identities: sign in or POST /api/identities first"
                )
            if row.owner is not None:
                raise ProtocolError(
                    "seat_taken", "this seat belongs to another player; open the game without it to watch"
                )
            if self.kind == "friend" and any(s.owner == me for s in self.seats if s.seat != row.seat):
                raise ProtocolError(
                    "own_game", "you hold the other seat of this duel; the invite link is for your friend"
                )
            to_claim.append(row)
        for row in to_claim:
            assert me is not None
            try:
                await self.write(
                    functools.partial(_claim, game_id=self.id, seat=row.seat, owner=me, name=name)
                )
            except SeatTakenError:
                raise ProtocolError("seat_taken", "this seat belongs to another player") from None
            row.owner = me
            row.bot = await self.services.db.read(functools.partial(_is_bot, identity_id=me))
            if name:
                row.name = name
            if self.kind == "friend":  # the invitee's answer to hints offered by the creator, if any
                await self.services.db.write(
                    functools.partial(_answer_hints, game_id=self.id, agreed=accept_hints)
                )
            if self.rated_offer:
                # The invitee's answer to a duel offered as rated: rated only when both chose it.
                await self.write(functools.partial(_answer_rated, game_id=self.id, accepted=accept_rated))
                self.rated_offer, self.rated = False, accept_rated
        return {s.seat for s in self.seats if me is not None and s.owner == me and s.kind == REMOTE}

    def leave(self, conn: Subscriber) -> bool:
        """A connection of this game closed; True when none is left and no agent thinks (the table
        may then let the game go: the store keeps it)."""
        self.connections.discard(conn)
        self.last_used = time.monotonic()
        for s in conn.seats:
            self.present[s] = max(0, self.present.get(s, 0) - 1)
        self.services.background.run(self._presence_changed(set(conn.seats)))
        gone = sorted(s for s in conn.seats if self.present.get(s, 0) == 0)
        if gone and self.connections:  # presence: the other seat and spectators see the seat away
            self.services.background.run(self.notify({"type": "notice", "code": "left", "seats": gone}))
        return not self.connections and not self.agent_busy

    async def _presence_changed(self, seats: set[int]) -> None:
        await self.save_presence(seats)
        if seats and self.kind == "friend":
            await self.announce_presence()

    async def announce_presence(self, only: Subscriber | None = None) -> None:
        """A ``presence`` message (which seats have a page connected, on any process: the shared
        table, so every process says the same) to the pages that asked for it on every process, or
        to ``only``.  Not part of the state frame: frames are the same from every process."""
        game_id = self.id
        connected = await self.services.db.run(lambda s: presence.connected_seats(s.engine, game_id))
        frame = presence_message(self, connected)
        if only is not None:
            await only.send(frame)
        else:
            await self.notify(frame)

    async def save_presence(self, seats: Iterable[int]) -> None:
        """Tell the other processes how many connections this one holds for ``seats`` (duels
        between two people: the abandonment rule of unclocked ones, the presence every page shows)."""
        if self.kind != "friend" or not seats:
            return
        counts = {seat: self.present.get(seat, 0) for seat in seats}
        me, game_id = self.services.process_id, self.id

        def save(_s: Store, c: DbConnection) -> None:
            for seat, n in counts.items():
                presence.set_presence(c, me, game_id, seat, n)

        await self.services.db.write(save)

    async def broadcast(self, events: Sequence[Event | dict[str, Any]]) -> None:
        """A ``state`` frame to every connection of the game, each built for its seats (R9).  The
        public part is built and serialised once per language, each seat's part once per seat, so
        connections that see the same (spectators, one language) share one text.  A page of
        protocol version 2 gets a ``delta`` from the state it was shown instead (web/deltas.py)."""
        self.last_used = time.monotonic()
        frames = _Frames(self, events)
        for conn in list(self.connections):
            if conn.protocol == 2 and conn.shown is not None:
                full = frames.full(conn)
                await conn.send_text(frames.delta(conn.shown, full))
                conn.shown = full
            else:
                await conn.send_text(frames.text(conn))

    # ------------------------------------------------------------------ a player's messages

    async def handle(self, conn: Subscriber, msg: Message) -> None:
        """``act``, ``undo`` or ``resign`` of a connection holding seats: checked by the session,
        stored, applied, told to every connection; then an agent to move is started."""
        async with self.lock:
            session = self.session  # read under the lock: a catch-up may replace it
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self.acting_seat(conn)
            await self._lost_on_time_before(_WHAT.get(msg.type, "this message"))
            if msg.type in ("act", "undo") and msg.get("index") != steps_done(session):
                await self._refuse_stale(msg.get("index"))
            if msg.type == "act":
                events = await self._act(session, seat, msg.get("action"), msg.get("index"))
            elif msg.type == "undo":
                events = await self._undo(session, seat, msg.get("index"))
            else:  # resign, or abort (a resignation a rated game not yet begun counts as aborted)
                if msg.type == "abort" and (not self.rated or first_turns_done(session)):
                    raise ProtocolError(
                        "abort_refused", "only a rated game is aborted, before each player finished a turn"
                    )
                outcome = session.resign(seat)
                await self.finish(final_result(session))
                events = [{"kind": "resigned", "rule": "", "player": seat, "text": outcome.reason}]
        await self.broadcast(events)
        self.schedule_agents()

    async def _act(self, session: GameSession, seat: int, action: Any, index: Any) -> Events:
        try:
            return await self.apply(session.check(seat, action, index))
        except StaleActionError:
            raise ProtocolError(
                "stale", f"the game has {steps_done(session)} actions; your page showed {index}"
            ) from None
        except NotYourTurnError as exc:
            raise ProtocolError("not_your_turn", str(exc)) from None
        except ActionSyntaxError as exc:
            raise ProtocolError("syntax", str(exc)) from None
        except IllegalActionError as exc:
            raise ProtocolError("illegal", str(exc)) from None
        except SessionError as exc:
            raise ProtocolError("game_over", str(exc)) from None

    async def _undo(self, session: GameSession, seat: int, index: Any) -> Events:
        shown = history_of(session)
        try:
            taken = session.undo(seat, index)
        except StaleActionError as exc:
            raise ProtocolError("stale", str(exc)) from None
        except UndoError as exc:
            raise ProtocolError("undo_refused", str(exc)) from None
        keep = steps_done(session)
        await self.write(functools.partial(_truncate, game_id=self.id, keep=keep), shown=shown)
        return [undo_event(self, taken)]

    async def apply(self, checked: CheckedAction) -> Events:
        """Store, then apply one action the session has checked just now (the caller holds the
        lock since the check).  A clock run out raises :class:`SessionError` with nothing stored."""
        session = self.session
        seat, code, canonical, index = checked.seat, checked.action, checked.text, checked.index
        clock = self.clock
        if clock is None:
            agent_next = session.agent_decides_after(code)
            await self.write(ActionWrite(self.id, index, seat, canonical, agent_next=agent_next))
            step = session.act(seat, code)
        else:
            now = self.config.clock()
            if clock.expired(now) is not None:
                await self.time_out(now)
                raise SessionError("your time ran out before this action arrived")
            # The clock's new state depends on who decides next: apply, then store the action and the
            # clock in one transaction before anyone is told (a stale write rebuilds the session from
            # the store; any other failed write makes the socket layer drop the game from memory,
            # which then reloads from the store).
            shown = history_of(session)
            step = session.act(seat, code)
            clock.moved(session.to_move, now)
            moved = clock_row(clock)
            await self.write(
                ActionWrite(self.id, index, seat, canonical, agent_next=session.agent_decides_after(None)),
                then=functools.partial(_save_clock, game_id=self.id, clock=moved),
                shown=shown,
            )
        metrics.action_accepted()
        if session.is_over:
            await self.finish(final_result(session))
        return list(step.events)

    async def _refuse_stale(self, index: Any) -> None:
        """Answer ``stale`` to a page whose index is not this copy's (the caller holds the lock).
        With several processes the page may be ahead (it reconnected here from another process):
        the copy first catches up, and the page is sent the game as it stands."""
        if not self.services.db.inline:
            await self.sync.refresh(self, locked=True)
        steps = steps_done(self.session)
        raise ProtocolError("stale", f"the game has {steps} actions; your page showed {index}")

    def acting_seat(self, conn: Subscriber) -> int:
        if len(conn.seats) == 1:
            return next(iter(conn.seats))
        to_move = self.session.to_move
        if to_move in conn.seats:
            return to_move
        raise ProtocolError("not_your_turn", f"seat {to_move} is to move")

    async def hint(self, conn: Subscriber) -> None:
        """The session's hint for the seat to move, thought in the worker pool, sent to ``conn``."""
        async with self.lock:
            session = self.session  # read under the lock: a catch-up may replace it
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            if self.rated or self.rated_offer:
                self.refuse_engine_help()
            game_id = self.id
            if self.kind == "friend" and not await self.services.db.run(
                lambda s: hint_terms.agreed(s.engine, game_id)
            ):
                raise ProtocolError(
                    "hint_unavailable", "hints between two people only if both agreed to them"
                )
            seat = self.acting_seat(conn)
            if not session.can_hint(seat, in_setup=False):
                raise ProtocolError("hint_unavailable", "hints are given on your own turn, after the setup")
            if self.hinting:
                metrics.work_refused("hint", "one_per_game")
                raise ProtocolError("hint_unavailable", "a hint for this game is being found; wait for it")
            wait = self.services.agents.hint_wait(conn.identity or f"socket {id(conn)}")
            if wait > 0:
                metrics.work_refused("hint", "per_identity")
                every = self.config.caps.hint_interval_seconds
                raise ProtocolError(
                    "hint_unavailable", f"one hint every {every:g} s; ask again in {math.ceil(wait)} s"
                )
            record = session.record().to_dict()
            index = steps_done(session)
            self.hinting = True

        def wanted() -> str | None:
            """Why the hint is no longer wanted once a worker is free (None: it is)."""
            if conn.closed:
                return "socket_closed"
            return "game_moved" if len(self.session.steps) != index or self.session.is_over else None

        try:
            action, score, label = await self.services.agents.hint(record, seat, wanted)
        except asyncio.CancelledError:  # the socket closed while the hint waited or was thought
            metrics.work_dropped("hint", "socket_closed")
            raise
        except WorkDropped:
            raise ProtocolError("hint_unavailable", "the game moved on before a hint was found") from None
        except WorkBudgetError as exc:
            raise ProtocolError("hint_unavailable", f"no hint this time: {exc}") from None
        finally:
            self.hinting = False
        sentence = action
        session = self.session  # as it is now, after the thinking
        if steps_done(session) == index:  # the game has not moved on: say the action as the move list does
            sentence = session.describe_action(action, conn.lang, names=seat_names(self, conn.lang))
        frame = {"type": "hint", "index": index, "action": action, "sentence": sentence}
        await conn.send({**frame, "score": score, "label": label})

    def refuse_engine_help(self) -> None:
        """Fair play: no engine help (hint, win chance) in a rated game while it runs, for either
        seat or a spectator (docs/web.md, "Fair play")."""
        raise ProtocolError("hint_unavailable", "no hints in a rated game while it runs")

    # ------------------------------------------------------------------ clocks, absence, the end

    def start_clock(self) -> bool:
        """Start a clocked game's clock once every person's seat is held by an identity (an invite
        not yet opened costs nobody time); True when it started now."""
        clock = self.clock
        if clock is None or clock.started or self.session.is_over:
            return False
        if any(s.kind == REMOTE and s.owner is None for s in self.seats):
            return False
        clock.start(self.session.to_move, self.config.clock())
        return True

    async def _lost_on_time_before(self, what: str) -> None:
        """A clocked game whose running clock ran out before ``what`` arrived (the caller holds the
        lock) was lost on time then, whatever came after: ended so here, and ``what`` refused."""
        now = self.config.clock()
        if self.clock is not None and self.clock.expired(now) is not None:
            try:
                await self.time_out(now)
            except StaleError:
                if not self.session.is_over:  # caught up: the clock had moved elsewhere in time
                    raise
                raise ProtocolError("game_over", "the game is over") from None  # ended elsewhere
            raise ProtocolError("game_over", f"the game was lost on time before {what} arrived")

    async def time_out(self, now: float) -> None:
        """End the game if its running clock has run out (the caller holds the lock): the seat loses
        on time, stored like a resignation with the termination ``time``, once: a write refused
        because another process changed the game raises :class:`StaleError` (caught up)."""
        seat = None if self.clock is None else self.clock.expired(now)
        if seat is None or self.session.is_over:
            return
        outcome = self.session.lose_on_time(seat)
        if not await self.finish(final_result(self.session)):
            return  # another process ended it first (its copy here catches up at the next look)
        log.info("game %s: seat %d lost on time", self.id, seat)
        event = {"kind": "time", "rule": "", "player": seat, "text": outcome.reason}
        self.services.background.run(self._announce_time_out(seat, event))

    async def _announce_time_out(self, seat: int, event: dict[str, Any]) -> None:
        await self.notify({"type": "notice", "code": "time_out", "seat": seat})
        await self.broadcast([event])

    async def refresh(self) -> bool:
        """Before ending the game here (the caller holds the lock): bring the copy to the store,
        which another process may have changed.  False: the game is over or gone."""
        await self.sync.refresh(self, locked=True)
        return not self.session.is_over

    async def abandon(self, seat: int, result: dict[str, Any]) -> None:
        """``seat`` of an unclocked duel was away too long on its turn (``result``: its loss)."""
        self.result_override = result
        try:
            ended = await self.finish(result)
        except StaleError:  # another process changed the game meanwhile: caught up, next scan looks
            return
        if ended:
            log.info("game %s: seat %d abandoned the game", self.id, seat)
            await self.notify({"type": "notice", "code": "abandoned", "seat": seat})
            await self.broadcast([])

    async def finish(self, result: dict[str, Any]) -> bool:
        """Store the end of a game played here, and start its analysis (an imported game's waits
        for its replay to be opened).  False, with nothing written, when the store says the game
        was over already (another server process ended it: a timeout or abandonment counts once)."""
        aborted = self.rated and not first_turns_done(self.session)
        if aborted:  # the abort rule: ended before each player's first turn, so not rated
            result = self.result_override = aborted_result(result)
        clock = None
        if self.clock is not None:
            self.clock.stop(self.config.clock())
            clock = clock_row(self.clock)
        end = functools.partial(
            _end, game_id=self.id, result=result, rating=_rating_write(self, result), clock=clock
        )
        outcome, player = self.session.outcome, self.seats[0] if self.seats else None
        if self.campaign_level is not None and player is not None and player.owner and outcome is not None:
            end = functools.partial(end, campaign=(player.owner, self.campaign_level, outcome.winner == 0))
        ended: list[bool] = []
        # The session in memory has ended already: a refused write rebuilds it from the store.
        await self.write(lambda s, c: ended.append(end(s, c)), shown=history_of(self.session))
        if not ended[-1]:
            return False
        if aborted:
            self.rated = False
        if self.kind != "imported" and self.config.auto_analysis:
            self.services.analyses.request(self.id)  # when "busy", the replay page asks again later
        return True


def presence_message(live: GameState, connected: Iterable[int]) -> dict[str, Any]:
    """Which people's seats have a page connected now (``"connected"``/``"away"``; null: a seat an
    agent or the automaton plays)."""
    here = set(connected)
    seats = [None if s.kind != REMOTE else ("connected" if s.seat in here else "away") for s in live.seats]
    return {"type": "presence", "game": live.id, "seats": seats}


class _Frames:
    """The frames of one broadcast, each part built once: the public part per language, each seat's
    part per seat and language, each delta per state it starts from."""

    def __init__(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None:
        self.live, self.events = live, events
        self.abilities = None if live.session.phase == "setup" else board_abilities(live.session)
        self.now = live.config.clock()
        self.commons: dict[str, dict[str, Any]] = {}
        self.common_texts: dict[str, str] = {}
        self.owns: dict[tuple[frozenset[int], str], dict[str, Any]] = {}
        self.texts: dict[tuple[frozenset[int], str], str] = {}
        self.fulls: dict[tuple[frozenset[int], str], dict[str, Any]] = {}
        self.deltas: dict[tuple[int, int], str] = {}
        #: The position's dump, made once for every seat's view (``position.view``).
        self.dumped: dict[str, Any] | None = None

    def _common(self, lang: str) -> dict[str, Any]:
        common = self.commons.get(lang)
        if common is None:
            said = events_json(self.live, self.events, lang)
            common = self.commons[lang] = common_part(self.live, said, self.abilities, self.now)
        return common

    def _common_json(self, lang: str) -> str:
        """The common part's JSON text, made only for a frame sent whole (a page of protocol 2 is
        sent a delta, made from the dicts)."""
        text = self.common_texts.get(lang)
        if text is None:
            text = self.common_texts[lang] = dumps(self._common(lang))
        return text

    def _own(self, key: tuple[frozenset[int], str]) -> dict[str, Any]:
        own = self.owns.get(key)
        if own is None:
            if self.dumped is None:
                self.dumped = position_dump(self.live)
            own = self.owns[key] = seat_part(self.live, set(key[0]), key[1], self.dumped)
        return own

    def text(self, conn: Subscriber) -> str:
        key = (frozenset(conn.seats), conn.lang)
        text = self.texts.get(key)
        if text is None:
            text = self.texts[key] = join_frame(self._own(key), self._common_json(conn.lang))
        return text

    def full(self, conn: Subscriber) -> dict[str, Any]:
        key = (frozenset(conn.seats), conn.lang)
        full = self.fulls.get(key)
        if full is None:
            full = self.fulls[key] = {**self._own(key), **self._common(conn.lang)}
        return full

    def delta(self, shown: dict[str, Any], full: dict[str, Any]) -> str:
        pair = (id(shown), id(full))
        text = self.deltas.get(pair)
        if text is None:
            text = self.deltas[pair] = dumps(frame_delta(shown, full))
        return text


def _end(
    s: Store,
    c: DbConnection,
    *,
    game_id: str,
    result: dict[str, Any],
    rating: tuple[str | None, tuple[str, str]] | None,
    clock: ClockRow | None,
    campaign: tuple[str, int, bool] | None = None,
) -> bool:
    """The game's end: the ratings, the stopped clock and the campaign change in the transaction
    that ends it, never one without the other, and only if this write ended it."""
    if not s.finish(game_id, result, conn=c):
        return False
    if result.get("aborted"):
        s.unrate(game_id, conn=c)  # the abort rule: the game no longer counts as rated
    if rating is not None:
        s.apply_rating(game_id, rating[0], rating[1], conn=c)
    if clock is not None:
        s.save_clock(game_id, clock, conn=c)
    if campaign is not None:
        s.record_campaign(campaign[0], campaign[1], campaign[2], conn=c)
    return True


def _rating_write(live: GameState, result: dict[str, Any]) -> tuple[str | None, tuple[str, str]] | None:
    """For a rated duel between two identities: (the winner's identity or None for a draw, both
    identities); None for any other game.  A resignation and an abandonment count as losses."""
    if not live.rated or result.get("aborted"):
        return None
    owners = [s.owner for s in live.seats]
    a, b = owners[0], owners[1]
    if a is None or b is None or a == b:
        return None
    winner = result.get("winner")
    return (owners[winner] if winner in (0, 1) else None), (a, b)


def _save_clock(store: Store, conn: DbConnection, *, game_id: str, clock: ClockRow) -> None:
    store.save_clock(game_id, clock, conn=conn)


def _truncate(store: Store, conn: DbConnection, *, game_id: str, keep: int) -> None:
    store.truncate_actions(game_id, keep, conn=conn)


def _answer_rated(store: Store, conn: DbConnection, *, game_id: str, accepted: bool) -> None:
    store.answer_rated_offer(game_id, accepted, conn=conn)


def _answer_hints(_store: Store, conn: DbConnection, *, game_id: str, agreed: bool) -> None:
    hint_terms.answer(conn, game_id, agreed)


def _is_bot(store: Store, *, identity_id: str) -> bool:
    return bots.is_bot(store.engine, identity_id)


def _claim(store: Store, conn: DbConnection, *, game_id: str, seat: int, owner: str, name: str) -> None:
    store.claim_seat(game_id, seat, owner, conn=conn, name=name)


def _bumped(
    store: Store,
    conn: DbConnection,
    *,
    fn: Callable[[Store, DbConnection], None],
    then: Callable[[Store, DbConnection], None] | None,
    game_id: str,
    expected: int,
) -> None:
    """A write of a game behind its revision check (web/sync.py), in one transaction."""
    store.bump_revision(game_id, expected, conn)
    fn(store, conn)
    if then is not None:
        then(store, conn)


def _append_then(
    store: Store, conn: DbConnection, *, action: ActionWrite, then: Callable[[Store, DbConnection], None]
) -> None:
    store.append_actions([action], conn)  # checks the action's revision
    then(store, conn)
