"""The game server's socket messages: the protocol's dispatch, and a player's moves, undo,
resignation and hints, each checked by the session and stored before anyone is told."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..errors import ActionSyntaxError, IllegalActionError
from ..events import Event
from ..session import (
    CheckedAction,
    GameSession,
    NotYourTurnError,
    SessionError,
    StaleActionError,
    UndoError,
)
from . import metrics, workers
from .games import LiveGame, clock_row, final_result, seat_names, undo_event
from .protocol import Message, ProtocolError
from .server_core import Connection, ServerCore, _save_clock
from .store import ActionWrite, Store
from .sync import StaleError, history_of

#: What a message is, in the refusal of one that came after its player's clock ran out.
_WHAT = {"act": "this action", "undo": "this undo", "resign": "this resignation"}


class Moves(ServerCore):
    """The socket messages of a game: act, undo, resign, hint."""

    async def handle(self, conn: Connection, msg: Message) -> None:
        if msg.type == "ping":
            await conn.send({"type": "pong", "id": msg.get("id", 0)})
            return
        if msg.type == "hello":
            await self._hello(conn, msg)
            return
        if msg.type in ("queue", "leave_queue", "queue_ai"):
            await self.matchmaker.handle(conn, msg)
            return
        live = conn.live
        if live is None:
            raise ProtocolError("hello_first", "send 'hello' with the game id first")
        if not conn.seats:
            raise ProtocolError("spectator", "spectators watch; they cannot act")
        if msg.type == "hint":
            await self._hint(conn, live)
            return
        if msg.type == "rematch":
            await self._rematch(conn, live)
            return
        async with self.lock(live.id):
            session = live.session  # read under the lock: a catch-up may replace it
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            await self._lost_on_time_before(live, _WHAT.get(msg.type, "this message"))
            if msg.type in ("act", "undo") and msg.get("index") != len(session.steps):
                await self._refuse_stale(live, msg.get("index"))
            if msg.type == "act":
                try:
                    checked = session.check(seat, msg.get("action"), msg.get("index"))
                    events = await self._apply(live, checked)
                except StaleActionError:
                    raise ProtocolError(
                        "stale",
                        f"the game has {len(session.steps)} actions; your page showed {msg.get('index')}",
                    ) from None
                except NotYourTurnError as exc:
                    raise ProtocolError("not_your_turn", str(exc)) from None
                except ActionSyntaxError as exc:
                    raise ProtocolError("syntax", str(exc)) from None
                except IllegalActionError as exc:
                    raise ProtocolError("illegal", str(exc)) from None
                except SessionError as exc:
                    raise ProtocolError("game_over", str(exc)) from None
            elif msg.type == "undo":
                shown = history_of(session)
                try:
                    taken = session.undo(seat, msg.get("index"))
                except StaleActionError as exc:
                    raise ProtocolError("stale", str(exc)) from None
                except UndoError as exc:
                    raise ProtocolError("undo_refused", str(exc)) from None
                keep = len(session.steps)
                await self.write_game(
                    live, functools.partial(_truncate, game_id=live.id, keep=keep), shown=shown
                )
                events = [undo_event(live, taken)]
            else:  # resign
                outcome = session.resign(seat)
                result = final_result(session)
                await self._finish(live, result)
                events = [{"kind": "resigned", "rule": "", "player": seat, "text": outcome.reason}]
        await self.broadcast(live, events)
        self.schedule_agents(live)

    async def _refuse_stale(self, live: LiveGame, index: Any) -> None:
        """Answer ``stale`` to a page whose index is not this copy's (the caller holds the lock).
        With several processes the page may be ahead (it reconnected here from another process):
        the copy first catches up, and the page is sent the game as it stands."""
        assert self.sync is not None
        if not self.inline_db:
            await self.sync.refresh(live, locked=True)
        steps = len(live.session.steps)
        raise ProtocolError("stale", f"the game has {steps} actions; your page showed {index}")

    def _acting_seat(self, conn: Connection, live: LiveGame) -> int:
        if len(conn.seats) == 1:
            return next(iter(conn.seats))
        to_move = live.session.to_move
        if to_move in conn.seats:
            return to_move
        raise ProtocolError("not_your_turn", f"seat {to_move} is to move")

    async def _apply(self, live: LiveGame, checked: CheckedAction) -> list[Event | dict[str, Any]]:
        """Store, then apply one action the session has checked just now (the caller holds the game's
        lock since the check).  A clock run out raises :class:`SessionError` with nothing stored."""
        session = live.session
        seat, code, canonical, index = checked.seat, checked.action, checked.text, checked.index
        clock = live.clock
        if clock is None:
            await self.write_game(
                live,
                ActionWrite(live.id, index, seat, canonical, agent_next=_agent_decides_after(session, code)),
            )
            step = session.act(seat, code)
        else:
            now = self.config.clock()
            if clock.expired(now) is not None:
                await self._time_out(live, now)
                raise SessionError("your time ran out before this action arrived")
            # The clock's new state depends on who decides next: apply, then store the action and the
            # clock in one transaction before anyone is told (a stale write rebuilds the session from
            # the store; any other failed write makes the socket handler drop the game from memory,
            # which then reloads from the store).
            shown = history_of(session)
            step = session.act(seat, code)
            clock.moved(session.to_move, now)
            moved = clock_row(clock)
            await self.write_game(
                live,
                ActionWrite(live.id, index, seat, canonical, agent_next=_agent_decides_after(session, None)),
                then=functools.partial(_save_clock, game_id=live.id, clock=moved),
                shown=shown,
            )
        metrics.action_accepted()
        if session.is_over:
            result = final_result(session)
            await self._finish(live, result)
        return list(step.events)

    async def _hint(self, conn: Connection, live: LiveGame) -> None:
        async with self.lock(live.id):
            session = live.session  # read under the lock: a catch-up may replace it
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            if not session.can_hint(seat, in_setup=False):
                raise ProtocolError("hint_unavailable", "hints are given on your own turn, after the setup")
            record = session.record().to_dict()
            index = len(session.steps)
        action, score, label = await self._in_worker(workers.hint, record, seat, self.config.hint_seconds)
        sentence = action
        session = live.session  # as it is now, after the thinking
        if len(session.steps) == index:  # the game has not moved on: say the action as the move list does
            sentence = session.describe_action(action, conn.lang, names=seat_names(live, conn.lang))
        await conn.send(
            {
                "type": "hint",
                "index": index,
                "action": action,
                "sentence": sentence,
                "score": score,
                "label": label,
            }
        )

    async def _lost_on_time_before(self, live: LiveGame, what: str) -> None:
        """A clocked game whose running clock ran out before ``what`` arrived (the caller holds the
        lock) was lost on time then, whatever came after: ended so here, and ``what`` refused."""
        now = self.config.clock()
        if live.clock is not None and live.clock.expired(now) is not None:
            try:
                await self._time_out(live, now)
            except StaleError:
                if not live.session.is_over:  # caught up: the clock had moved elsewhere in time
                    raise
                raise ProtocolError("game_over", "the game is over") from None  # ended elsewhere
            raise ProtocolError("game_over", f"the game was lost on time before {what} arrived")


def _agent_decides_after(session: GameSession, code: int | None) -> bool | None:
    """Whether an agent seat is to decide after ``code`` (None: after the action just applied),
    stored with the action so a process finds the agent moves to take over (web/leases.py); None
    in a game without an agent seat (nothing to keep: no cost on the hot path of duels)."""
    return session.agent_decides_after(code)


def _truncate(store: Store, conn: DbConnection, *, game_id: str, keep: int) -> None:
    store.truncate_actions(game_id, keep, conn=conn)
