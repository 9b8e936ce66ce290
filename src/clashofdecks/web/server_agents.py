"""The game server's AI seats: each agent decision a stateless job in the worker pool, made under
the game's agent lease by one process (docs/web.md, "Leases")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar

from ..worker_processes import exit_with_parent
from . import leases, workers
from .games import LiveGame
from .server_core import ServerCore
from .sync import StaleError

log = logging.getLogger("clashofdecks.web")
T = TypeVar("T")


class AgentRunner(ServerCore):
    """Agent decisions: claimed, thought in the worker pool, applied."""

    def schedule_agents(self, live: LiveGame) -> None:
        if live.agent_busy or live.session.is_over or not live.session.is_agent_turn():
            return
        live.agent_busy = True
        task = asyncio.create_task(self._run_agents(live))
        self.agent_tasks.add(task)
        task.add_done_callback(self.agent_tasks.discard)

    async def _run_agents(self, live: LiveGame) -> None:
        """Make the agent's decisions of a game while it is the agent's turn, each under the game's
        agent lease (docs/web.md, "Leases"): one process thinks per decision, renewing the lease
        while it thinks; a process that finds the lease held leaves the move to its holder, and if
        the holder dies, a watcher takes it over once the lease has expired."""
        session = live.session
        failed = False
        try:
            while True:
                job = await self._claim_agent_decision(live)
                if job is None:
                    break
                seat, index, record, spec = job
                text = await self._think(live.id, record, spec, session.seed * 2 + seat + index)
                if text is None:
                    break  # the lease was taken over: its new holder makes this move
                async with self.lock(live.id):
                    session = live.session
                    if len(session.steps) != index or session.to_move != seat:
                        continue  # the game moved on meanwhile (an undo): think again
                    # Another process storing this decision first is refused by the revision check
                    # of the write (StaleError, below): the copy here has caught up by then.
                    events = await self._apply(live, session.check(seat, text))
                    await self.broadcast(live, events)
        except asyncio.CancelledError:
            raise
        except StaleError:  # another process moved the game meanwhile: its copy here caught up
            pass
        except Exception:  # an agent failure must not take the server down; the game waits
            log.exception("agent move failed in game %s", live.id)
            failed = True
        finally:
            live.agent_busy = False
            # A failed decision keeps its lease until it expires: tried again then, not at once.
            # The release is submitted before any new task of this game can claim (one database
            # thread, in order).
            name, me = leases.agent_lease(live.id), self.process_id
            if not failed:
                with contextlib.suppress(Exception):
                    await self.run_db(lambda s: leases.release(s.engine, name, me))

    async def _claim_agent_decision(self, live: LiveGame) -> tuple[int, int, dict[str, Any], str] | None:
        """(seat, index, record, agent spec) of the agent decision this process is to make now, with
        its lease taken; None when no agent is to move or another process thinks."""
        session = live.session
        async with self.lock(live.id):
            if session.is_over or not session.is_agent_turn():
                return None
            seat = session.to_move
            spec = session.seats[seat].agent
            assert spec is not None
            record = session.record().to_dict()
            index = len(session.steps)
        me, seconds = self.process_id, self.config.lease_seconds
        if not await self.run_db(lambda s: leases.claim_agent_turn(s.engine, live.id, index, me, seconds)):
            return None
        return seat, index, record, spec

    async def _think(self, game_id: str, record: dict[str, Any], spec: str, seed: int) -> str | None:
        """The agent's action (a stateless job in the worker pool), the lease renewed meanwhile;
        None when the lease was lost (this process was too slow: another took the move over)."""
        name = leases.agent_lease(game_id)
        renewer = asyncio.create_task(self._keep_lease(name))
        try:
            text = await self._in_worker(workers.agent_action, record, spec, seed)
        finally:
            renewer.cancel()
        return text if await self._renew(name) else None

    async def _keep_lease(self, name: str) -> None:
        while await self._renew(name):
            await asyncio.sleep(self.config.lease_seconds / 3)

    async def _renew(self, name: str) -> bool:
        me, seconds = self.process_id, self.config.lease_seconds
        if await self.run_db(lambda s: leases.renew(s.engine, name, me, seconds)):
            return True
        log.warning("lease %s was lost (this process was too slow); its work may be done twice", name)
        return False

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
                max_workers=self.config.agent_workers,
                mp_context=ctx,
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-agent")

    async def _take_over_agents(self) -> None:
        """Agent moves nobody thinks about (their process died, or never took them): schedule them
        here; the agent lease makes one process take each."""
        for game_id in await self.run_db(lambda s: leases.orphaned_agent_turns(s.engine)):
            live = await self._current_game(game_id)
            if live is not None:
                log.info("game %s: taking over its agent's decision %d", game_id, live.n_actions)
                self.schedule_agents(live)
