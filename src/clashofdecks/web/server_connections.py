"""The game server's connections: a page opening a game (``hello``: its seats, claimed by token),
its presence for the abandonment rule, and its going away."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Coroutine
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..session import REMOTE
from . import presence
from .games import LiveGame, clock_row, events_json, frame_for
from .protocol import Message, ProtocolError
from .server_core import Connection, ServerCore, _save_clock
from .store import SeatRow, SeatTakenError, Store, token_hash


class Connections(ServerCore):
    """A connection's game and seats, from ``hello`` to its end."""

    async def _hello(self, conn: Connection, msg: Message) -> None:
        if conn.live is not None:
            raise ProtocolError("bad_field", "this connection already follows a game")
        live = await self.get_game(msg.get("game"))
        if live is None:
            raise ProtocolError("no_game", "no such game")
        tokens: list[str] = msg.get("tokens")
        async with self.lock(live.id):
            if self.sync is not None:  # a copy held here may be older than the store
                await self.sync.catch_up_if_moved(live)
            seats = await self._seats_of(conn, live, tokens, accept_rated=msg.get("rated") is True)
            if self._start_clock(live):
                assert live.clock is not None
                started = clock_row(live.clock)
                await self.write_game(live, functools.partial(_save_clock, game_id=live.id, clock=started))
                if live.connections:
                    await self.broadcast(live, [])  # the creator's page shows the clock running
        conn.live = live
        conn.seats = seats
        conn.lang = msg.get("lang") or "en"
        live.connections.add(conn)
        for s in seats:
            live.present[s] = live.present.get(s, 0) + 1
        await self._save_presence(live, seats)
        frame = frame_for(live, seats, lang=conn.lang, now=self.config.clock())
        # Seats no identity holds yet: the creator's page shows the invite link until it is used.
        frame["open_seats"] = [s.seat for s in live.seats if s.owner is None and s.token_hash is not None]
        frame["log"] = events_json(live, _latest_events(live, self.config.caps.hello_log_events), conn.lang)
        await conn.send(frame)
        self.schedule_agents(live)  # an agent stopped by a failure tries again when a page opens
        if seats:
            await self.notify_game(
                live.id, {"type": "notice", "code": "joined", "seats": sorted(seats)}, skip=conn
            )

    async def _seats_of(
        self, conn: Connection, live: LiveGame, tokens: list[str], *, accept_rated: bool = False
    ) -> set[int]:
        """The seats this connection plays (the caller holds the game's lock): those its identity
        owns, and those whose token it presents when no identity holds them yet, which it thereby
        takes for good (an invite link is single-use).  Refused, with nothing changed: a token of
        no seat, a seat another identity holds, the second seat of a friend duel for the identity
        that holds the first (its creator), and any token without an identity."""
        me = conn.identity
        by_hash = {s.token_hash: s for s in live.seats if s.token_hash is not None}
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
            if live.kind == "friend" and any(s.owner == me for s in live.seats if s.seat != row.seat):
                raise ProtocolError(
                    "own_game", "you hold the other seat of this duel; the invite link is for your friend"
                )
            to_claim.append(row)
        assert me is not None or not to_claim
        for row in to_claim:
            game_id, seat = live.id, row.seat
            assert me is not None
            try:
                await self.write_game(live, functools.partial(_claim, game_id=game_id, seat=seat, owner=me))
            except SeatTakenError:
                raise ProtocolError("seat_taken", "this seat belongs to another player") from None
            row.owner = me
            if live.rated_offer:
                # The invitee's answer to a duel offered as rated: rated only when both chose it.
                await self.write_game(
                    live, functools.partial(_answer_rated, game_id=live.id, accepted=accept_rated)
                )
                live.rated_offer, live.rated = False, accept_rated
        return {s.seat for s in live.seats if me is not None and s.owner == me and s.kind == REMOTE}

    def disconnect(self, conn: Connection) -> None:
        if conn.identity is not None and conn.identity in self.matchmaker.queued:
            self._background(self.matchmaker.disconnect(conn))
        live = conn.live
        if live is None:
            return
        live.connections.discard(conn)
        for s in conn.seats:
            live.present[s] = max(0, live.present.get(s, 0) - 1)
        self._background(self._save_presence(live, set(conn.seats)))
        # Unwatched here: the store keeps it (clocks, presence and agent turns too), and a page
        # opening it again, or a scan, reloads it.
        if not live.connections and not live.agent_busy:
            self.games.pop(live.id, None)
            lock = self.locks.get(live.id)
            if lock is not None and not lock.locked():
                del self.locks[live.id]

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task kept (and cancelled on stop) like agent tasks."""
        task = asyncio.create_task(work)
        self.agent_tasks.add(task)
        task.add_done_callback(self.agent_tasks.discard)

    async def _save_presence(self, live: LiveGame, seats: set[int]) -> None:
        """Tell the other processes how many connections this one holds for ``seats`` (friend duels
        without a clock only: the abandonment rule's)."""
        if live.kind != "friend" or live.clock is not None or not seats:
            return
        counts = {seat: live.present.get(seat, 0) for seat in seats}
        me, game_id = self.process_id, live.id

        def save(_s: Store, c: DbConnection) -> None:
            for seat, n in counts.items():
                presence.set_presence(c, me, game_id, seat, n)

        await self.write(save)


def _answer_rated(store: Store, conn: DbConnection, *, game_id: str, accepted: bool) -> None:
    store.answer_rated_offer(game_id, accepted, conn=conn)


def _claim(store: Store, conn: DbConnection, *, game_id: str, seat: int, owner: str) -> None:
    store.claim_seat(game_id, seat, owner, conn=conn)


def _latest_events(live: LiveGame, limit: int) -> list[Any]:
    """The last ``limit`` events of the game's history (all when ``limit`` is 0), newest last,
    collected from the end so a long game costs no more than a short one."""
    out: list[Any] = []
    for step in reversed(live.session.steps):
        out.extend(reversed(step.events))
        if limit and len(out) >= limit:
            break
    else:
        out.extend(reversed(live.session.initial_events))
    out.reverse()
    return out[-limit:] if limit else out
