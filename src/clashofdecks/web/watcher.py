"""The watcher of one server process: every watch interval its heartbeat, the agent moves whose holder
died, the queue, and the scans run by the holder of their lease -- game clocks that ran out, players
away from an unclocked duel (docs/web.md, "Clocks", "Timeouts", "Leases")."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable

from sqlalchemy.engine import Connection as DbConnection

from . import leases, logins, presence, signouts
from .agents_runner import AgentRunner
from .config import ServerConfig
from .game_table import GameTable
from .games import abandoned_result
from .live_game import LiveGame
from .matchmaking import Matchmaker
from .services import Database, LeaseKeeper
from .store import Store
from .sync import StaleError

log = logging.getLogger("clashofdecks.web")


class Watcher:
    """The watch loop: heartbeat, agent take-over, queue, clocks and abandonment."""

    def __init__(
        self,
        config: ServerConfig,
        db: Database,
        leases: LeaseKeeper,
        table: GameTable,
        agents: AgentRunner,
        matchmaker: Matchmaker,
    ) -> None:
        self.config = config
        self.db = db
        self.leases = leases
        self.table = table
        self.agents = agents
        self.matchmaker = matchmaker
        self.task: asyncio.Task[None] | None = None
        #: Closes this process's sockets of the identities given whose session ended (the server's).
        self.close_signed_out: Callable[[set[str]], Awaitable[int]] | None = None
        #: The last ``signouts`` row read (web/signouts.py); None: not read yet.
        self.signouts_seen: int | None = None
        #: When this process last pruned (time.monotonic()); the server's start prunes first.
        self.pruned_at = time.monotonic()
        #: The tournament director's step (web/tournament_director.py; the server sets it).
        self.tournaments: Callable[[], Awaitable[None]] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _watch(self) -> None:
        """Every watch interval: this process's heartbeat, the agent moves whose holder died, the
        queue, the game clocks, the abandonment clock of unclocked duels between people and the
        tournaments; the
        scans each by the one process holding its lease (docs/web.md, "Leases")."""
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("the heartbeat", self.heartbeat),
            ("closing the sockets of ended sessions", self._read_signouts),
            ("taking over agent moves", self._take_over_agents),
            ("the queue", self.matchmaker.tick),
            ("letting idle games go", self._evict_idle),
            ("checking the game clocks", self._scan(leases.CLOCKS, self._check_clocks)),
            ("checking absent players", self._scan(leases.ABANDONMENT, self._check_abandonment)),
            ("pruning old sessions and guests", self._prune),
            ("directing the tournaments", self._tournaments),
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
            if await self.leases.holds(name):
                await work()

        return scan

    async def _prune(self) -> None:
        """Every ``prune_seconds``, old sessions, guests and review records go (web/logins.py),
        pruned by the one process that holds the ``prune`` lease then."""
        every = self.config.caps.prune_seconds
        if not every or time.monotonic() - self.pruned_at < every:
            return
        self.pruned_at = time.monotonic()
        if await self.leases.holds(leases.PRUNE):
            now, caps = time.time(), self.config.caps
            counts = await self.db.run(lambda s: logins.prune(s.engine, now, caps))
            if any(counts.values()):
                log.info("pruned %s", ", ".join(f"{n} {what}" for what, n in counts.items()))

    async def _tournaments(self) -> None:
        if self.tournaments is not None:
            await self.tournaments()

    async def _read_signouts(self) -> None:
        """Sessions other processes (or ``clash admin``) ended: their sockets here close."""
        seen = self.signouts_seen
        if seen is None:
            self.signouts_seen = await self.db.run(lambda s: signouts.last_id(s.engine))
            return
        last, identities = await self.db.run(lambda s: signouts.since(s.engine, seen))
        self.signouts_seen = last
        if identities and self.close_signed_out is not None:
            await self.close_signed_out(identities)

    async def heartbeat(self) -> None:
        me = self.leases.process_id
        await self.db.run(lambda s: leases.heartbeat_alone(s, me))

    async def _evict_idle(self) -> None:
        self.table.evict_idle(time.monotonic())

    async def _take_over_agents(self) -> None:
        """Agent moves nobody thinks about (their process died, or never took them): schedule them
        here; the agent lease makes one process take each."""
        for game_id in await self.db.run(lambda s: leases.orphaned_agent_turns(s.engine)):
            live = await self.table.current(game_id)
            if live is not None:
                log.info("game %s: taking over its agent's decision %d", game_id, live.n_actions)
                self.agents.schedule(live)

    async def _check_clocks(self) -> None:
        """End every game whose deadline has passed: found in the database, so a deadline that passed
        while the server was down, or in a game another server process holds, is seen too.  Each
        game's clock is read from the store (the authority: another process may have moved it)."""
        now = self.config.clock()
        for game_id in await self.db.run(lambda s: s.expired_clocks(now)):
            live = await self.table.current(game_id)
            if live is None:
                continue
            async with live.lock:
                if not await live.refresh() or live.clock is None:
                    continue
                try:
                    await live.time_out(now)
                except StaleError:  # another process changed the game meanwhile: caught up
                    continue
            if live.session.is_over:
                self.table.let_go(live)  # loaded only to end it: the store keeps it

    async def _check_abandonment(self) -> None:
        """Unclocked friend duels whose player to move has no connection on any live process: told
        to the game once, lost ``abandon_seconds`` after the countdown started; the countdown is
        stored (web/presence.py), so a process taking this scan over continues it."""
        counting = await self.db.run(lambda s: presence.running_countdowns(s.engine))
        for game_id, seat in await self.db.run(lambda s: presence.away_seats(s.engine)):
            live = await self.table.current(game_id)
            if live is None or live.clock is not None or live.session.to_move != seat:
                if live is not None and (game_id, seat) in counting:  # no longer its move
                    await self.db.write(functools.partial(_cancel_countdown, game_id=game_id, seat=seat))
                if live is not None:
                    self.table.let_go(live)  # loaded only to look: the store keeps it
                continue
            elapsed = counting.get((game_id, seat))
            if elapsed is None:
                start = functools.partial(_start_countdown, game_id=game_id, seat=seat)
                if await self.db.run(start):
                    notice = {"type": "notice", "code": "opponent_away", "seat": seat}
                    await live.notify({**notice, "seconds": self.config.abandon_seconds})
            elif elapsed >= self.config.abandon_seconds:
                await self._abandon(live, seat)
        await self.db.write(_forget_countdowns)

    async def _abandon(self, live: LiveGame, seat: int) -> None:
        async with live.lock:
            if not await live.refresh() or live.session.to_move != seat:
                return
            await live.abandon(seat, abandoned_result(live.session, seat))


def _start_countdown(store: Store, *, game_id: str, seat: int) -> bool:
    return presence.start_countdown(store.engine, game_id, seat)


def _forget_countdowns(_store: Store, conn: DbConnection) -> None:
    presence.forget_finished(conn)
    presence.forget_returned(conn)


def _cancel_countdown(_store: Store, conn: DbConnection, *, game_id: str, seat: int) -> None:
    presence.cancel_countdown(conn, game_id, seat)
