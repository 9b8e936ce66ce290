"""SQLite stays single-process: ``clash serve`` holds an OS lock on ``<database>.lock`` for its whole
life, so a second process on the same SQLite file is refused at start (each process keeps its games
in memory; two on one file would not see each other's moves).  The kernel releases the lock when the
process ends, even by ``SIGKILL``: a crashed server never blocks the next start.  PostgreSQL takes no
such lock (several processes on one PostgreSQL: docs/deploy.md)."""

from __future__ import annotations

import os
import sys
from typing import IO

import sqlalchemy as sa

from .store import default_database_url, normalize_url


class DatabaseInUseError(Exception):
    """Another process serves this SQLite file (the message says which, and what to do)."""


def hold_sqlite_lock(database_url: str | None) -> IO[str] | None:
    """Lock the SQLite file ``database_url`` names (None: the default one) for this process; returns
    the open lock file, to keep referenced while serving (None: not SQLite on a file, nothing to lock).
    Raises :class:`DatabaseInUseError`, or OSError when the lock file cannot be made."""
    url = normalize_url(database_url or default_database_url())
    if not url.startswith("sqlite") or sys.platform == "win32":
        return None
    path = sa.engine.make_url(url).database
    if not path or path == ":memory:" or path.startswith("file::memory:"):
        return None
    import fcntl

    lock = open(f"{path}.lock", "a+", encoding="utf-8")  # noqa: SIM115 (held open for the process's life)
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "unknown"
        lock.close()
        raise DatabaseInUseError(
            f"the SQLite database {path} is in use by another clash serve (pid {holder}); SQLite serves "
            "one process: stop that one, or run several processes on PostgreSQL (docs/deploy.md)"
        ) from None
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    return lock
