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
import resource
import signal
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

from ..agents.registry import make_agent
from ..errors import ClashError, RecordError
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


def replay_page(
    record: dict[str, Any], lang: str, names: tuple[str, str], start: int, count: int, log_events: int
) -> dict[str, Any]:
    """A page of a finished game's replay (:func:`clashofdecks.web.games.replay_page`)."""
    from .games import replay_page as page

    return page(GameRecord.from_dict(record), lang, names, start, count, log_events)


def imported_game(record: dict[str, Any], game_id: str, owner: str) -> Any:
    """The stored row of an imported record (:func:`clashofdecks.web.games.imported_row`): the
    record replayed here, off the server's event loop.  Raises RecordError for one that does not
    replay."""
    from .games import imported_row

    return imported_row(GameRecord.from_dict(record), game_id, owner)


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


class WorkBudgetError(ClashError):
    """A worker job stopped at its budget (web/limits.py); the message says which."""


class JobTimedOut(WorkBudgetError):
    """The job took longer than its ``job_seconds``."""


class JobOverMemory(WorkBudgetError):
    """The job needed more memory than its ``job_memory_mb``; its worker is replaced."""


class WorkDropped(Exception):
    """Queued work let go before a worker took it: whoever asked for it is gone (the reason)."""


@dataclass(frozen=True)
class Budget:
    """What one job of a lane may use in a worker process (0: no limit)."""

    seconds: float = 0.0
    memory_mb: int = 0


class _Alarm(BaseException):
    """Raised in a worker by its job's timer (a BaseException: a job's ``except Exception`` lets it
    through)."""


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Alarm


def _address_space() -> int | None:
    """This process's virtual memory size in bytes (Linux ``/proc``), or None elsewhere."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def bounded(fn: Callable[..., T], args: tuple[Any, ...], budget: Budget) -> T:
    """``fn(*args)`` in a worker process within ``budget``: a timer that stops it after
    ``budget.seconds`` (:class:`JobTimedOut`) and an address-space limit of what the process has now
    plus ``budget.memory_mb`` (:class:`JobOverMemory`; Linux), both lifted again afterwards."""
    previous = resource.getrlimit(resource.RLIMIT_AS)
    now = _address_space() if budget.memory_mb > 0 else None
    if now is not None:
        cap = now + (budget.memory_mb << 20)
        hard = previous[1]
        resource.setrlimit(
            resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard)
        )
    if budget.seconds > 0:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, budget.seconds)
    try:
        return fn(*args)
    except MemoryError:
        raise JobOverMemory(f"the job needed more than {budget.memory_mb} MiB; it was stopped") from None
    except _Alarm:
        raise JobTimedOut(f"the job took more than {budget.seconds:g} s; it was stopped") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        if now is not None:
            resource.setrlimit(resource.RLIMIT_AS, previous)


class _Lane:
    """One executor of the pool: processes (0: one thread of the server, for tests and small
    machines), replaced when a process dies or a job outgrows its memory.  Jobs wait for a free
    worker here, on the event loop, so a job whose requester is gone by then is never run."""

    def __init__(self, name: str, processes: int, budget: Budget = Budget()) -> None:
        self.name = name
        self.processes = processes
        self.budget = budget
        self.executor: Executor | None = None
        self.slots = asyncio.Semaphore(max(1, processes))

    async def start(self) -> None:
        self.executor = self._new_executor()
        await asyncio.get_running_loop().run_in_executor(self.executor, warm_up)

    def stop(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    async def run(
        self,
        fn: Callable[..., T],
        *args: Any,
        kind: str | None = None,
        wanted: Callable[[], str | None] | None = None,
    ) -> T:
        """Run ``fn`` here once a worker is free.  ``wanted()``, asked then, names why the job is no
        longer wanted (its socket closed...): it is dropped unrun (:class:`WorkDropped`).  A pool
        whose process died is replaced and the job retried once."""
        from . import metrics

        name = kind or str(getattr(fn, "__name__", "job"))
        await self.slots.acquire()  # a requester cancelled while it waits here takes no worker
        try:
            why = wanted() if wanted is not None else None
            if why is not None:
                metrics.work_dropped(name, why)
                raise WorkDropped(why)
            metrics.worker_job(self.name, name)
            job = asyncio.ensure_future(self._counted(name, fn, args))
        except BaseException:
            self.slots.release()
            raise
        # The worker stays taken until the job ends, even when its requester is gone meanwhile.
        job.add_done_callback(self._job_done)
        return await asyncio.shield(job)

    def _job_done(self, job: asyncio.Future[Any]) -> None:
        self.slots.release()
        if not job.cancelled():
            job.exception()  # retrieved: a job whose requester left fails without a warning

    async def _counted(self, kind: str, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        from . import metrics

        try:
            return await self._submit(fn, args)
        except JobTimedOut:
            metrics.work_timed_out(kind)
            raise
        except JobOverMemory:
            metrics.work_over_memory(kind)
            log.warning("a %s job outgrew its memory limit; starting a new pool", kind)
            self._replace()
            raise

    async def _submit(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        loop = asyncio.get_running_loop()
        assert self.executor is not None
        if self.processes == 0:  # a thread of the server: no signal or limit of its own to set
            job = loop.run_in_executor(self.executor, fn, *args)
            if self.budget.seconds <= 0:
                return await job
            try:
                return await asyncio.wait_for(job, self.budget.seconds)
            except TimeoutError:
                raise JobTimedOut(f"the job took more than {self.budget.seconds:g} s") from None
        try:
            return await loop.run_in_executor(self.executor, bounded, fn, args, self.budget)
        except BrokenExecutor:
            log.warning("a worker process died; starting a new pool")
            self._replace()
            return await loop.run_in_executor(self.executor, bounded, fn, args, self.budget)

    def _replace(self) -> None:
        """A new executor in place of the current one (its jobs under way finish there)."""
        assert self.executor is not None
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.executor = self._new_executor()

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
    decisions on ``ai_processes`` of their own, hints, analyses, imports and replay pages sharing
    ``optional_processes`` (0 and 0: a thread each, for tests and small machines).  Optional jobs
    get ``seconds`` each, every job ``memory_mb`` (web/limits.py)."""

    def __init__(
        self, ai_processes: int, optional_processes: int = 1, *, seconds: float = 0.0, memory_mb: int = 0
    ) -> None:
        self.ai = _Lane("ai", ai_processes, Budget(0.0, memory_mb))
        optional = optional_processes if ai_processes > 0 else 0
        self.optional = _Lane("optional", optional, Budget(seconds, memory_mb))

    async def start(self) -> None:
        await asyncio.gather(self.ai.start(), self.optional.start())

    def stop(self) -> None:
        self.ai.stop()
        self.optional.stop()

    async def run_ai(self, fn: Callable[..., T], *args: Any) -> T:
        """An agent decision: on the AI lane, where no hint or analysis ever queues."""
        return await self.ai.run(fn, *args)

    async def run_optional(
        self,
        fn: Callable[..., T],
        *args: Any,
        kind: str | None = None,
        wanted: Callable[[], str | None] | None = None,
    ) -> T:
        """A hint, an analysis, an import or a replay page: on the lane they share, within its
        budget; dropped unrun when ``wanted()`` names a reason once a worker is free."""
        return await self.optional.run(fn, *args, kind=kind, wanted=wanted)
