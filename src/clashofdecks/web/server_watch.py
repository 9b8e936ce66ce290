"""The game server's watcher: the heartbeat and the scans run by the holder of their lease --
game clocks that ran out, players away from an unclocked duel (docs/web.md, "Clocks", "Timeouts")."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..session import REMOTE
from . import leases, presence
from .games import LiveGame, abandoned_result, final_result
from .server_core import ServerCore
from .store import Store
from .sync import StaleError

log = logging.getLogger("clashofdecks.web")


class Watcher(ServerCore):
    """The watch loop: heartbeat, clocks and abandonment."""

    def _start_clock(self, live: LiveGame) -> bool:
        """Start a clocked game's clock once every person's seat is held by an identity (an invite
        not yet opened costs nobody time); True when it started now."""
        clock = live.clock
        if clock is None or clock.started or live.session.is_over:
            return False
        if any(s.kind == REMOTE and s.owner is None for s in live.seats):
            return False
        clock.start(live.session.to_move, self.config.clock())
        return True

    async def _time_out(self, live: LiveGame, now: float) -> None:
        """End a game whose running clock has run out (the caller holds the game's lock): the seat
        loses on time, stored like a resignation with the termination ``time``, once: a write
        refused because another process changed the game raises :class:`StaleError` (caught up)."""
        clock = live.clock
        session = live.session
        seat = None if clock is None else clock.expired(now)
        if seat is None or session.is_over:
            return
        outcome = session.lose_on_time(seat)
        if not await self._finish(live, final_result(session)):
            return  # another process ended it first (its copy here catches up at the next look)
        log.info("game %s: seat %d lost on time", live.id, seat)
        event = {"kind": "time", "rule": "", "player": seat, "text": outcome.reason}
        task = asyncio.create_task(self._announce_time_out(live, seat, event))
        self.agent_tasks.add(task)  # kept (and cancelled on stop) like agent tasks
        task.add_done_callback(self.agent_tasks.discard)

    async def _announce_time_out(self, live: LiveGame, seat: int, event: dict[str, Any]) -> None:
        await self.notify_game(live.id, {"type": "notice", "code": "time_out", "seat": seat})
        await self.broadcast(live, [event])

    async def _check_clocks(self) -> None:
        """End every game whose deadline has passed: found in the database, so a deadline that passed
        while the server was down, or in a game another server process holds, is seen too.  Run by
        the holder of the ``clocks`` lease; each game's clock is read from the store (the authority:
        another process may have moved it)."""
        now = self.config.clock()
        for game_id in await self.run_db(lambda s: s.expired_clocks(now)):
            live = await self._current_game(game_id)
            if live is None:
                continue
            async with self.lock(live.id):
                if not await self._refresh(live) or live.clock is None:
                    continue
                try:
                    await self._time_out(live, now)
                except StaleError:  # another process changed the game meanwhile: caught up
                    continue
            if not live.connections and live.session.is_over:
                self.games.pop(live.id, None)  # loaded only to end it: the store keeps it

    async def _refresh(self, live: LiveGame) -> bool:
        """Before ending a game here (the caller holds its lock): bring the copy to the store, which
        another process may have changed (an action, an invitee who joined there, a clock moved).
        False: the game is over or gone."""
        assert self.sync is not None
        await self.sync.refresh(live, locked=True)
        return not live.session.is_over

    async def _current_game(self, game_id: str) -> LiveGame | None:
        """The game as the store has it now: a copy in memory that is behind the store (another
        process wrote it) catches up (web/sync.py), and this process's pages are shown the change.
        Compared under the game's lock, so a write under way here is not taken for a difference."""
        live = await self.get_game(game_id)
        if live is None:
            return None
        assert self.sync is not None
        async with self.lock(game_id):
            await self.sync.catch_up_if_moved(live)
        return live

    async def _watch(self) -> None:
        """Every watch interval: this process's heartbeat, the agent moves whose holder died, the
        queue, the game clocks and the abandonment clock of unclocked duels between people; the
        scans each by the one process holding its lease (docs/web.md, "Leases")."""
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("the heartbeat", self._heartbeat),
            ("taking over agent moves", self._take_over_agents),
            ("the queue", self.tick_queue),
            ("checking the game clocks", self._scan(leases.CLOCKS, self._check_clocks)),
            ("checking absent players", self._scan(leases.ABANDONMENT, self._check_abandonment)),
        ]
        while True:
            await asyncio.sleep(self.config.watch_interval)
            for what, step in steps:
                try:
                    await step()
                except asyncio.CancelledError:
                    raise
                except Exception:  # a database hiccup must not stop the watcher; the next round retries
                    log.exception("%s failed", what)

    def _scan(self, name: str, work: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        """``work`` run only while this process holds the lease ``name`` (taken or renewed here)."""

        async def scan() -> None:
            if await self.holds(name):
                await work()

        return scan

    async def holds(self, name: str) -> bool:
        me, seconds = self.process_id, self.config.lease_seconds
        return await self.run_db(lambda s: leases.acquire(s.engine, name, me, seconds))

    async def _heartbeat(self) -> None:
        me = self.process_id
        await self.run_db(lambda s: leases.heartbeat(s.engine, me))

    async def _check_abandonment(self) -> None:
        """Unclocked friend duels whose player to move has no connection on any live process: told
        to the game once, lost ``abandon_seconds`` after the countdown started; the countdown is
        stored (web/presence.py), so a process taking this scan over continues it."""
        counting = await self.run_db(lambda s: presence.running_countdowns(s.engine))
        for game_id, seat in await self.run_db(lambda s: presence.away_seats(s.engine)):
            live = await self._current_game(game_id)
            if live is None or live.clock is not None or live.session.to_move != seat:
                if live is not None and (game_id, seat) in counting:  # no longer its move
                    await self.write(functools.partial(_cancel_countdown, game_id=game_id, seat=seat))
                if live is not None and not live.connections and not live.agent_busy:
                    self.games.pop(game_id, None)  # loaded only to look: the store keeps it
                continue
            elapsed = counting.get((game_id, seat))
            if elapsed is None:
                start = functools.partial(_start_countdown, game_id=game_id, seat=seat)
                if await self.run_db(start):
                    notice = {"type": "notice", "code": "opponent_away", "seat": seat}
                    await self.notify_game(game_id, {**notice, "seconds": self.config.abandon_seconds})
            elif elapsed >= self.config.abandon_seconds:
                await self._abandon(live, seat)
        await self.write(_forget_countdowns)

    async def _abandon(self, live: LiveGame, seat: int) -> None:
        async with self.lock(live.id):
            if not await self._refresh(live) or live.session.to_move != seat:
                return
            result = abandoned_result(live.session, seat)
            live.result_override = result
            try:
                ended = await self._finish(live, result)
            except StaleError:  # another process changed the game meanwhile: caught up, next scan looks
                return
            if not ended:
                return
        log.info("game %s: seat %d abandoned the game", live.id, seat)
        await self.notify_game(live.id, {"type": "notice", "code": "abandoned", "seat": seat})
        await self.broadcast(live, [])


def _start_countdown(store: Store, *, game_id: str, seat: int) -> bool:
    return presence.start_countdown(store.engine, game_id, seat)


def _forget_countdowns(_store: Store, conn: DbConnection) -> None:
    presence.forget_finished(conn)
    presence.forget_returned(conn)


def _cancel_countdown(_store: Store, conn: DbConnection, *, game_id: str, seat: int) -> None:
    presence.cancel_countdown(conn, game_id, seat)
