"""The AI seats of the live games: each agent decision a stateless job in the worker pool, made under
the game's agent lease by one process (docs/web.md, "Leases"); and the hints players ask for."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from . import leases, workers
from .config import ServerConfig
from .live_game import LiveGame
from .services import Background, Database, LeaseKeeper
from .sync import StaleError

log = logging.getLogger("clashofdecks.web")


class AgentRunner:
    """Agent decisions: claimed, thought in the worker pool, applied by the game."""

    def __init__(
        self,
        config: ServerConfig,
        db: Database,
        leases: LeaseKeeper,
        pool: workers.WorkerPool,
        background: Background,
    ) -> None:
        self.config = config
        self.db = db
        self.leases = leases
        self.pool = pool
        self.background = background
        #: When each identity (or identity-less socket) last was given a hint slot (``config.clock``).
        self.last_hint: dict[str, float] = {}

    def schedule(self, live: LiveGame) -> None:
        """Start the game's agent thinking if it is to move and nobody here thinks for it yet."""
        if live.agent_busy or live.session.is_over or not live.session.is_agent_turn():
            return
        live.agent_busy = True
        self.background.run(self._run(live))

    def hint_wait(self, who: str) -> float:
        """Seconds ``who`` must still wait for a hint (``hint_interval_seconds`` after its last);
        0: it may have one now, and the interval starts again."""
        now, every = self.config.clock(), self.config.caps.hint_interval_seconds
        last = self.last_hint.get(who)
        if last is not None and now - last < every:
            return every - (now - last)
        if len(self.last_hint) > 10_000:  # forget those whose interval is over
            self.last_hint = {k: t for k, t in self.last_hint.items() if now - t < every}
        self.last_hint[who] = now
        return 0.0

    async def hint(
        self, record: dict[str, Any], seat: int, wanted: Callable[[], str | None] | None = None
    ) -> tuple[str, float, str]:
        """The hint (web/workers.py), on the optional lane; dropped unrun if ``wanted()`` says so."""
        seconds = self.config.hint_seconds
        return await self.pool.run_optional(workers.hint, record, seat, seconds, kind="hint", wanted=wanted)

    async def _run(self, live: LiveGame) -> None:
        """Make the agent's decisions of a game while it is the agent's turn, each under the game's
        agent lease (docs/web.md, "Leases"): one process thinks per decision, renewing the lease
        while it thinks; a process that finds the lease held leaves the move to its holder, and if
        the holder dies, a watcher takes it over once the lease has expired."""
        session = live.session
        failed = False
        try:
            while True:
                job = await self._claim(live)
                if job is None:
                    break
                seat, index, record, spec = job
                text = await self._think(live.id, record, spec, session.seed * 2 + seat + index)
                if text is None:
                    break  # the lease was taken over: its new holder makes this move
                async with live.lock:
                    session = live.session
                    if len(session.steps) != index or session.to_move != seat:
                        continue  # the game moved on meanwhile (an undo): think again
                    # Another process storing this decision first is refused by the revision check
                    # of the write (StaleError, below): the copy here has caught up by then.
                    events = await live.apply(session.check(seat, text))
                    await live.broadcast(events)
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
            if not failed:
                with contextlib.suppress(Exception):
                    await self.leases.release(leases.agent_lease(live.id))

    async def _claim(self, live: LiveGame) -> tuple[int, int, dict[str, Any], str] | None:
        """(seat, index, record, agent spec) of the agent decision this process is to make now, with
        its lease taken; None when no agent is to move or another process thinks."""
        session = live.session
        async with live.lock:
            if session.is_over or not session.is_agent_turn():
                return None
            seat = session.to_move
            spec = session.seats[seat].agent
            assert spec is not None
            record = session.record().to_dict()
            index = len(session.steps)
        me, seconds = self.leases.process_id, self.config.lease_seconds
        if not await self.db.run(lambda s: leases.claim_agent_turn(s.engine, live.id, index, me, seconds)):
            return None
        return seat, index, record, spec

    async def _think(self, game_id: str, record: dict[str, Any], spec: str, seed: int) -> str | None:
        """The agent's action (a stateless job in the worker pool), the lease renewed meanwhile;
        None when the lease was lost (this process was too slow: another took the move over)."""
        name = leases.agent_lease(game_id)
        renewer = asyncio.create_task(self.leases.keep(name))
        try:
            text = await self.pool.run_ai(workers.agent_action, record, spec, seed)
        finally:
            renewer.cancel()
        return text if await self.leases.renew(name) else None
