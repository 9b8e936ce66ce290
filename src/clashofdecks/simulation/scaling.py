"""The scaling benchmark (``clash simulate --bench-scaling``): one batch played on local processes
and on Ray with 1 and 2 (or more) workers, the wall time of each, and what follows from them.

* **scaling efficiency** of ``n`` workers on a backend: ``T(1) / (n · T(n))`` (1.0 is perfect);
* **Ray overhead** for ``n`` workers: ``T_ray(n) / T_local(n) − 1`` (the cost of Ray's scheduling
  and serialisation over a local process pool), with Ray's start-up time reported apart;
* every measurement also checks that the results are the same games as the first measurement's
  (determinism across backends and worker counts).

Times are wall-clock (``time.perf_counter``) around :func:`.batch.run_games`: what a user waits
for, so the load of the machine is part of every figure; the report says how loaded it was.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .batch import SimConfig, run_games
from .game import GameResult, SimulationError
from .runner import LocalBackend


@dataclass(frozen=True, slots=True)
class Measurement:
    backend: str
    workers: int
    seconds: float
    games_per_second: float


@dataclass
class ScalingResult:
    games: int
    config: dict[str, Any]
    measurements: list[Measurement]
    ray_startup_seconds: float | None
    load_before: tuple[float, float, float] | None
    load_after: tuple[float, float, float] | None
    identical: bool
    efficiency: dict[str, dict[int, float]] = field(default_factory=dict)
    ray_overhead: dict[int, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["measurements"] = [asdict(m) for m in self.measurements]
        return out


def _load() -> tuple[float, float, float] | None:
    try:
        return os.getloadavg()
    except OSError:  # pragma: no cover - not on Unix
        return None


def measure_scaling(
    config: SimConfig,
    *,
    workers: Sequence[int] = (1, 2),
    backends: Sequence[str] = ("local", "ray"),
    on_step: Callable[[str], None] | None = None,
) -> ScalingResult:
    """Play ``config`` on every backend with every number of ``workers`` (see the module)."""
    config.check()
    if not workers or min(workers) < 1:
        raise SimulationError("give worker counts of at least 1")
    say = on_step or (lambda _text: None)
    load_before = _load()
    measurements: list[Measurement] = []
    reference: list[GameResult] | None = None
    identical = True
    ray_startup: float | None = None

    def timed(backend_name: str, n: int, backend: Any) -> None:
        nonlocal reference, identical
        say(f"{backend_name}, {n} worker(s): {config.games} games")
        start = time.perf_counter()
        results = run_games(config, backend=backend)
        seconds = time.perf_counter() - start
        measurements.append(Measurement(backend_name, n, seconds, config.games / seconds))
        if reference is None:
            reference = results
        elif results != reference:
            identical = False

    for name in backends:
        for n in workers:
            if name == "local":
                timed(name, n, LocalBackend(n))
            elif name == "ray":
                from .ray_backend import RayBackend

                start = time.perf_counter()
                say(f"starting a local Ray instance with {n} CPU(s)")
                with RayBackend(n) as backend:
                    startup = time.perf_counter() - start
                    ray_startup = startup if ray_startup is None else min(ray_startup, startup)
                    timed(name, n, backend)
            else:
                raise SimulationError(f"unknown backend {name!r} (choose local or ray)")
    result = ScalingResult(
        games=config.games,
        config={
            "mode": config.mode,
            "agents": list(config.agents),
            "format": config.format,
            "seed": config.seed,
        },
        measurements=measurements,
        ray_startup_seconds=ray_startup,
        load_before=load_before,
        load_after=_load(),
        identical=identical,
    )
    times = {(m.backend, m.workers): m.seconds for m in measurements}
    for name in backends:
        base = times.get((name, 1))
        if base is None:
            continue
        result.efficiency[name] = {n: base / (n * times[(name, n)]) for n in workers if (name, n) in times}
    for n in workers:
        if ("ray", n) in times and ("local", n) in times:
            result.ray_overhead[n] = times[("ray", n)] / times[("local", n)] - 1.0
    return result


__all__ = ["Measurement", "ScalingResult", "measure_scaling"]
