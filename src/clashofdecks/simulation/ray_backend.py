"""A :class:`~.runner.Backend` on Ray: chunks of games as Ray tasks, on this machine or a cluster.

Ray is an optional extra (``pip install 'clashofdecks[cluster]'``); nothing imports it until a
:class:`RayBackend` is opened.  Use it as a context manager::

    with RayBackend(workers=2) as backend:          # a local Ray instance with 2 CPUs
        results = run_specs(specs, games=n, backend=backend)
    with RayBackend(address="ray://head:10001"):   # or "auto": join a running cluster
        ...

Opening starts a local Ray instance (``num_cpus=workers``) unless Ray is already initialised in
this process or an ``address`` is given, in which case it joins that cluster; closing shuts down
only what it started.  Each chunk is one task running :func:`.runner.play_chunk`, the same
function as every other backend, so the results are identical to the local backend's for the same
specs: only where the games are played changes.  At most ``4 × workers`` chunks are in flight, so
specs are made as games finish, and results are taken in chunk order.  On a cluster every node
needs the same ``clashofdecks`` installed (the tasks import it).
"""

from __future__ import annotations

import importlib
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any

from .game import GameResult, GameSpec, SimulationError
from .runner import MAX_WORKERS, default_workers, next_in_order, play_chunk


def import_ray() -> Any:
    """The ``ray`` module, or a clear error naming the extra to install."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise SimulationError(
            "the ray backend needs Ray: pip install 'clashofdecks[cluster]' (or pip install ray)"
        ) from exc


class RayBackend:
    """Chunks as Ray tasks (see the module).  ``workers``: CPUs of the local instance it starts
    (default all cores); when joining a cluster, default all the cluster's CPUs."""

    def __init__(self, workers: int | None = None, *, address: str | None = None) -> None:
        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise SimulationError(f"workers must be 1 to {MAX_WORKERS}, not {workers}")
        self._requested = workers
        self.address = address
        self.workers = workers or default_workers()
        self._ray: Any = None
        self._started = False
        self._remote: Any = None

    def __enter__(self) -> RayBackend:
        ray = import_ray()
        if not ray.is_initialized():
            try:
                if self.address is None:
                    ray.init(
                        num_cpus=self.workers,
                        include_dashboard=False,
                        log_to_driver=False,
                        configure_logging=False,
                    )
                else:
                    ray.init(address=self.address, log_to_driver=False, configure_logging=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
                raise SimulationError(f"could not start or join {where}: {exc}") from exc
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, min(self._requested or cpus, cpus, MAX_WORKERS))
        self._ray = ray
        self._remote = ray.remote(num_cpus=1, max_retries=3)(play_chunk)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._started and self._ray is not None:
            self._ray.shutdown()
        self._started = False
        self._ray = None
        self._remote = None

    def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
        if self._remote is None:
            raise SimulationError("open the RayBackend first (with RayBackend(...) as backend: ...)")
        ray = self._ray
        pending: deque[Any] = deque()
        try:
            for chunk in chunks:
                pending.append(self._remote.remote(list(chunk)))
                if len(pending) >= 4 * self.workers:
                    yield next_in_order(pending, ray.get)
            while pending:
                yield next_in_order(pending, ray.get)
        except KeyboardInterrupt:
            # Hand over the chunks already finished, in order, before cancelling the rest.
            if pending:
                done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                ready = set(done)
                while pending and pending[0] in ready:
                    yield ray.get(pending.popleft())
            raise
        finally:
            # Interrupted or abandoned: cancel what has not come back, so no work goes on unseen.
            try:
                for ref in pending:
                    ray.cancel(ref, force=True)
                # Cancelling is asynchronous: wait until the cancelled tasks are gone, so none of
                # them writes a record after the run has reported what finished.
                if pending:
                    ray.wait(list(pending), num_returns=len(pending), timeout=30)
            except Exception:  # Ray may be shutting down on the same Ctrl-C
                pass


__all__ = ["RayBackend", "import_ray"]
