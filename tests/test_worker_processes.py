"""Worker processes end with the process that started them, even when it is killed (``SIGKILL``):
the simulation's pool, a ``ProcessPoolExecutor`` with :func:`exit_with_parent` (the web server's AI
workers, ``clash check-native``), and the ``multiprocessing`` resource tracker they kept open."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from process_tools import HAS_PROC, command_line, descendants, wait_gone

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="reads the process tree from Linux's /proc")

POOLS = {
    "simulation pool": """
import sys, time
from clashofdecks.simulation.runner import LocalBackend, play_chunk
from clashofdecks.simulation.game import GameSpec
backend = LocalBackend(2)
chunks = backend.play_chunks([[]] * 4)
next(chunks)  # the pool runs
print("ready", flush=True)
time.sleep(600)
""",
    "executor with exit_with_parent": """
import multiprocessing, os, time
from concurrent.futures import ProcessPoolExecutor
from clashofdecks.worker_processes import exit_with_parent
ctx = multiprocessing.get_context("spawn")
pool = ProcessPoolExecutor(2, mp_context=ctx, initializer=exit_with_parent, initargs=(os.getpid(),))
list(pool.map(os.getpid, []))
pool.submit(os.getpid).result()
print("ready", flush=True)
time.sleep(600)
""",
}


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_workers_end_when_their_parent_is_killed(pool: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", POOLS[pool]], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        below = descendants(proc.pid)
        assert below, "the pool started no process"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        left = wait_gone(below)
        assert not left, [command_line(p) for p in left]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
