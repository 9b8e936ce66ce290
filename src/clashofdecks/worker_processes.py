"""Worker processes that end with the process that started them.

A pool's worker waits on a pipe whose writing end it holds itself, so a parent killed without
cleanup (``SIGKILL``, a crash) would leave its workers, and the ``multiprocessing`` resource tracker
they keep open, running idle forever.  :func:`exit_with_parent`, run as a pool's initializer in each
worker, ends the worker when its parent is gone: at once on Linux (the kernel's parent-death signal),
and elsewhere by a watcher thread that notices the new parent.  Standard library only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from typing import Final

#: How often the watcher thread looks at the parent (where the parent-death signal is unavailable).
WATCH_INTERVAL_S: Final = 0.5
_PR_SET_PDEATHSIG: Final = 1


def _parent_death_signal(parent: int) -> bool:
    """Ask Linux to send SIGKILL when the parent dies; whether that is now in force."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    # The parent may have died before the request: then no signal comes (the new parent is alive).
    if os.getppid() != parent:
        os._exit(1)
    return True


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL_S)
    os._exit(1)  # no cleanup: the work belonged to the parent, which is gone


def exit_with_parent(parent: int | None = None) -> None:
    """End this process when ``parent`` (default: the current parent) dies; for a pool's initializer.

    Pass the creator's pid (``initargs=(os.getpid(),)``): a worker that starts only after its parent
    was killed would otherwise take its new parent (the reaper) for the one to watch, and stay."""
    parent = os.getppid() if parent is None else parent
    if not _parent_death_signal(parent):
        threading.Thread(target=_watch, args=(parent,), name="exit-with-parent", daemon=True).start()


def ignore_sigint_and_exit_with_parent(parent: int | None = None) -> None:
    """A batch worker's initializer: Ctrl-C is left to the parent (it keeps what finished), and the
    worker ends with its parent (:func:`exit_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent(parent)
