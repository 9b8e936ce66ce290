"""Work that must not run on the server's event loop: agent decisions, hints and game analyses.

Each job gets the game's record (plain JSON) and rebuilds the game in the worker process, so a
search that thinks for seconds stalls no other game; the result is action text that the server then
applies and stores like any other action.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar

from ..agents.registry import make_agent
from ..errors import RecordError
from ..game_loop import next_decision
from ..record import GameRecord, replay
from ..worker_processes import exit_with_parent

T = TypeVar("T")
log = logging.getLogger("clashofdecks.web")


def agent_action(record: dict[str, Any], spec: str, seed: int) -> str:
    """The action ``spec`` chooses in the position the record leads to: a stateless job (the game is
    replayed from its record, the agent made afresh with the move's seed), so any process can take
    it over.  The decision is the game loop's (:func:`~clashofdecks.game_loop.next_decision`)."""
    game = replay(GameRecord.from_dict(record), check_result=False)
    agent = make_agent(spec, seed)
    agent.reset(seed)
    decision = next_decision(game, [agent.act, agent.act])
    if decision is None:
        raise RecordError("the recorded game has no decision to make (it is over)")
    return game.action_text(decision[1])


def hint(record: dict[str, Any], seat: int, seconds: float) -> tuple[str, float, str]:
    """The session layer's hint for ``seat`` (action, score, what the score is)."""
    from ..session import GameSession, Seat

    rec = GameRecord.from_dict(record)
    seats = [Seat.remote(), Seat("automaton") if rec.mode == "solo" else Seat.remote()]
    session = GameSession.from_record(rec, seats=seats)
    result = session.hint(seat, seconds=seconds)
    return result.action, result.score, result.label


#: How many mistakes an analysis names (the replay page lists them).
ANALYSIS_TOP = 3


def analysis(record: dict[str, Any], iterations: int) -> tuple[dict[str, Any], float]:
    """``clash analyze`` of a finished game (:func:`clashofdecks.analyze.analyze_record`, seed 0:
    the same record gives the same analysis) and the CPU seconds it took.  The analysis carries
    ``label``: how the page must name its chances ("win chance" only where the learned evaluation is
    calibrated for the game's mode and level, docs/ai.md).  Raises RecordError for a record that
    does not replay."""
    from ..agents.evaluation import shipped_model, threat_level
    from ..analyze import analyze_record
    from ..options import Threat

    started = time.process_time()
    rec = GameRecord.from_dict(record)
    result = analyze_record(rec, iterations=iterations)
    body = result.to_dict(ANALYSIS_TOP)
    del body["players"]  # the record's names; the page names players as their seats do
    level = threat_level(rec.threat or Threat()) if rec.mode == "solo" else None
    body["label"] = shipped_model().chance_label("solo" if rec.mode == "solo" else "duel", level)
    return body, time.process_time() - started


def warm_up() -> bool:
    """Import and read everything a job needs (called once per worker at start, so the first move is
    quick): the agents and the learned evaluation the named strengths score positions with."""
    from ..agents.evaluation import shipped_model

    make_agent("greedy", 0)
    shipped_model()
    return True


class _Lane:
    """One executor of the pool: processes (0: one thread of the server, for tests and small
    machines), replaced when a process dies."""

    def __init__(self, name: str, processes: int) -> None:
        self.name = name
        self.processes = processes
        self.executor: Executor | None = None

    async def start(self) -> None:
        self.executor = self._new_executor()
        await asyncio.get_running_loop().run_in_executor(self.executor, warm_up)

    def stop(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` here; a pool whose process died is replaced and the job retried once."""
        from . import metrics

        metrics.worker_job(self.name, getattr(fn, "__name__", "job"))
        loop = asyncio.get_running_loop()
        assert self.executor is not None
        try:
            return await loop.run_in_executor(self.executor, fn, *args)
        except BrokenExecutor:
            log.warning("a worker process died; starting a new pool")
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = self._new_executor()
            return await loop.run_in_executor(self.executor, fn, *args)

    def _new_executor(self) -> Executor:
        if self.processes > 0:
            ctx = multiprocessing.get_context("spawn")
            # Workers end with the server even when it is killed (SIGKILL): no idle worker left behind.
            return ProcessPoolExecutor(
                max_workers=self.processes,
                mp_context=ctx,
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"clash-{self.name}")


class WorkerPool:
    """The server's workers, in two lanes so AI work never waits behind optional work: agent
    decisions on ``ai_processes`` of their own, hints and analyses sharing ``optional_processes``
    (0 and 0: a thread each, for tests and small machines)."""

    def __init__(self, ai_processes: int, optional_processes: int = 1) -> None:
        self.ai = _Lane("ai", ai_processes)
        self.optional = _Lane("optional", optional_processes if ai_processes > 0 else 0)

    async def start(self) -> None:
        await asyncio.gather(self.ai.start(), self.optional.start())

    def stop(self) -> None:
        self.ai.stop()
        self.optional.stop()

    async def run_ai(self, fn: Callable[..., T], *args: Any) -> T:
        """An agent decision: on the AI lane, where no hint or analysis ever queues."""
        return await self.ai.run(fn, *args)

    async def run_optional(self, fn: Callable[..., T], *args: Any) -> T:
        """A hint or an analysis: on the lane they share."""
        return await self.optional.run(fn, *args)
