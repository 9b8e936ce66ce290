"""Processes of the test run, read from Linux's ``/proc`` (the tests that use them skip elsewhere)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

PROC = Path("/proc")
#: Linux: the process tree can be read.
HAS_PROC = sys.platform.startswith("linux") and PROC.is_dir()
_PR_SET_CHILD_SUBREAPER = 36


def _stat(pid: int) -> tuple[str, int] | None:
    """(state letter, parent pid) of ``pid``, or None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid``."""
    out: set[int] = set()
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[1] == pid and st[0] not in ("Z", "X"):
                out.add(int(entry.name))
    return out


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, their children, ...)."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in out:
                out.add(child)
                todo.append(child)
    return out


def command_line(pid: int) -> str:
    try:
        return (
            (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        )
    except OSError:
        return "?"


def wait_gone(pids: Iterable[int], hang_guard_s: float = 60.0) -> set[int]:
    """Wait until none of ``pids`` runs; returns those still running when the hang guard ran out (it
    is far above the time a dying process needs: a bound on a hang, not a timing)."""
    left = {p for p in pids if alive(p)}
    deadline = time.monotonic() + hang_guard_s
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p for p in left if alive(p)}
    return left


def become_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (Linux), so a process a test left behind is
    still seen as this process's child at the end of the run."""
    if not HAS_PROC:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def reap_zombies() -> None:
    """Collect adopted children that have exited (they would stay zombies of this process)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
