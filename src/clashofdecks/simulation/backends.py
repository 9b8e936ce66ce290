"""Choosing where a batch of games is played, by name (``clash simulate`` and ``clash arena``'s
``--backend``): this process and its pool (:class:`~.runner.LocalBackend`) or Ray
(:mod:`.ray_backend`, only imported when asked for)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .game import SimulationError
from .runner import Backend, LocalBackend


@contextmanager
def open_backend(kind: str, workers: int | None, address: str | None, games: int) -> Iterator[Backend]:
    """The backend named ``kind``: ``local`` processes, or ``ray`` (a local Ray instance, or the
    cluster at ``address``), for a run of ``games`` games on at most ``workers`` workers."""
    if kind == "local":
        if address is not None:
            raise SimulationError("--address is for --backend ray")
        yield LocalBackend.for_games(workers, games)
        return
    from .ray_backend import RayBackend

    with RayBackend(min(workers, games) if workers else None, address=address) as backend:
        yield backend


__all__ = ["open_backend"]
