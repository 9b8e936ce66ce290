"""The one way many games are played: a list of :class:`~.game.GameSpec` in chunks → results.

Each game is a pure function of its spec (:func:`~.game.play_game`), so where a chunk is played
does not matter: a *backend* plays chunks and hands back each chunk's results, in chunk order, and
:func:`run_specs` puts them together in spec order.  The output is therefore identical for any
number of workers.  :class:`LocalBackend` plays in this process (one worker) or in a pool of
``spawn``ed processes (safe with threads and on every platform); another backend (a cluster) only
has to implement :meth:`Backend.play_chunks` (:class:`~.ray_backend.RayBackend`: a Ray cluster).

Ctrl-C: :func:`run_specs` catches :class:`KeyboardInterrupt`, stops the backend (its generator is
closed, so a pool is terminated and Ray tasks are cancelled) and raises :class:`Interrupted` with
the results of the games finished so far, in spec order: every chunk that came back before the
first unfinished one (a backend interrupted while it waits hands over the chunks already done).
Records (``--records``) of games in chunks that did not come back are removed, so the records,
the store and the summary cover the same games.
Worker processes ignore SIGINT so that only this process decides.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.pool import AsyncResult
from typing import Final, Protocol, TypeVar

from ..worker_processes import ignore_sigint_and_exit_with_parent
from .game import GameResult, GameSpec, SimulationError, play_game, record_file

#: A pending chunk of a backend (an ``AsyncResult``, a Ray object reference).
T = TypeVar("T")

#: Most games one run plays while it keeps every result in memory (a few hundred bytes each); a run
#: that keeps none (``keep_results=False``: running totals, ``clash simulate``) may play more.
MAX_GAMES: Final = 1_000_000
#: Most worker processes a command accepts (more would only cost memory on any real machine).
MAX_WORKERS: Final = 256
#: Largest chunk: small chunks keep progress moving and the load balanced, large ones cut overhead.
MAX_CHUNK: Final = 32


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class Interrupted(Exception):
    """The run was interrupted (Ctrl-C); ``results`` are the games finished before, in spec order
    (empty for a run that keeps no results), ``finished`` how many they are."""

    def __init__(self, results: list[GameResult], finished: int | None = None) -> None:
        self.finished = len(results) if finished is None else finished
        super().__init__(f"interrupted after {self.finished} games")
        self.results = results


def ignore_sigint(parent: int | None = None) -> None:
    """Worker processes leave Ctrl-C to the process that runs the batch (it keeps what finished), and
    end with it if it is killed (:func:`~clashofdecks.worker_processes.exit_with_parent`)."""
    ignore_sigint_and_exit_with_parent(parent)


def play_chunk(chunk: Sequence[GameSpec]) -> list[GameResult]:
    """Play the games of ``chunk`` in order (module level, so worker processes can import it)."""
    return [play_game(spec)[0] for spec in chunk]


class Backend(Protocol):
    """Where chunks of games are played."""

    #: How many chunks it plays at once (to size the chunks).
    workers: int

    def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
        """Play every chunk; yield each chunk's results (in the chunk's order), chunk by chunk
        in the order given.  ``chunks`` may be a lazy iterator: take only what is needed soon."""
        ...


class LocalBackend:
    """This machine: in this process for one worker, else a pool of ``workers`` processes."""

    def __init__(self, workers: int | None = None) -> None:
        n = default_workers() if workers is None else workers
        if not 1 <= n <= MAX_WORKERS:
            raise SimulationError(f"workers must be 1 to {MAX_WORKERS}, not {n}")
        self.workers = n

    @classmethod
    def for_games(cls, workers: int | None, games: int) -> LocalBackend:
        """A backend of ``workers`` processes (default all cores), but no more than ``games``."""
        return cls(min(cls(workers).workers, max(1, games)))

    def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
        if self.workers == 1:
            for chunk in chunks:
                yield play_chunk(chunk)
            return
        # A bounded window of chunks in flight: specs are made as the games progress, not all
        # up front, and results come back in order.
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(self.workers, initializer=ignore_sigint, initargs=(os.getpid(),)) as pool:
            pending: deque[AsyncResult[list[GameResult]]] = deque()
            try:
                for chunk in chunks:
                    pending.append(pool.apply_async(play_chunk, (chunk,)))
                    if len(pending) >= 4 * self.workers:
                        yield next_in_order(pending, AsyncResult.get)
                while pending:
                    yield next_in_order(pending, AsyncResult.get)
            except KeyboardInterrupt:
                # Hand over the chunks already finished, in order, before giving up the rest.
                while pending and pending[0].ready() and pending[0].successful():
                    yield pending.popleft().get()
                raise


def next_in_order(pending: deque[T], get: Callable[[T], list[GameResult]]) -> list[GameResult]:
    """The first pending chunk's results (``get`` waits for them).  The chunk leaves ``pending`` only
    once they are in hand: a Ctrl-C during the wait must not skip it, or the chunks a backend hands
    over afterwards would be out of order."""
    results = get(pending[0])
    pending.popleft()
    return results


def chunk_size(games: int, workers: int) -> int:
    """Games per chunk: about eight chunks per worker, at most :data:`MAX_CHUNK`."""
    return max(1, min(MAX_CHUNK, games // (workers * 8)))


def _chunks(specs: Iterable[GameSpec], size: int, sent: deque[list[GameSpec]]) -> Iterator[list[GameSpec]]:
    it = iter(specs)
    while chunk := list(itertools.islice(it, size)):
        sent.append(chunk)
        yield chunk


def _discard_unreported_records(unreported: Iterable[list[GameSpec]]) -> None:
    """Remove the records of games whose chunk never came back (a worker may have finished some of
    them before it was stopped), so the records folder holds exactly the games the run reports."""
    for chunk in unreported:
        for spec in chunk:
            if spec.records_dir is not None:
                record = record_file(spec.records_dir, spec.index)
                record.unlink(missing_ok=True)
                # A worker stopped while saving leaves its temporary file (record.write_json_atomically).
                for partial in record.parent.glob(f".{record.name}.*.part"):
                    partial.unlink(missing_ok=True)


def run_specs(
    specs: Iterable[GameSpec],
    *,
    games: int,
    backend: Backend | None = None,
    chunk: int | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    on_chunk: Callable[[list[GameResult]], None] | None = None,
    keep_results: bool = True,
) -> list[GameResult]:
    """Play the ``games`` games of ``specs`` on ``backend`` (default: :class:`LocalBackend` on all
    cores); the results in spec order (none with ``keep_results=False``: the callbacks see every
    result, and memory does not grow with the number of games).  ``chunk`` games go to a worker at
    a time (default: :func:`chunk_size`; 1 suits long games).  ``on_result`` is called for each
    result as its chunk comes back (progress bars, logs); ``on_chunk`` with each chunk's results,
    in spec order (the store of games).  Per-card rows (:attr:`.GameResult.cards`) reach
    ``on_chunk`` only: the results kept and returned have none, so a long run's memory stays small.

    Ctrl-C raises :class:`Interrupted` holding the games finished in spec order (see the module)."""
    if games < 0 or (keep_results and games > MAX_GAMES):
        raise SimulationError(f"a run plays 0 to {MAX_GAMES:,} games, not {games:,}")
    backend = backend or LocalBackend()
    size = chunk or chunk_size(games, backend.workers)
    sent: deque[list[GameSpec]] = deque()
    results: list[GameResult] = []
    finished = 0
    stream = backend.play_chunks(_chunks(specs, size, sent))
    try:
        for chunk_results in stream:
            played = sent.popleft()
            if [r.index for r in chunk_results] != [s.index for s in played]:
                raise SimulationError("a backend returned results that do not match its chunk")
            if on_chunk is not None:
                on_chunk(chunk_results)
            for result in chunk_results:
                if keep_results:
                    results.append(result.without_cards())
                finished += 1
                if on_result is not None:
                    on_result(result)
    except KeyboardInterrupt:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        _discard_unreported_records(sent)
        raise Interrupted(results, finished) from None
    if sent or finished != games:
        raise SimulationError(f"{finished} results for {games} games")
    return results


__all__ = [
    "MAX_GAMES",
    "MAX_WORKERS",
    "Backend",
    "Interrupted",
    "LocalBackend",
    "chunk_size",
    "default_workers",
    "play_chunk",
    "run_specs",
]
