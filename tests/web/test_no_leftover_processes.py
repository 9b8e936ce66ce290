"""A server killed with ``SIGKILL`` leaves no process behind: its AI worker processes and the
``multiprocessing`` resource tracker end with it (``clashofdecks.worker_processes``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import Client, ServerProcess
from process_tools import HAS_PROC, command_line, descendants, wait_gone


@pytest.mark.skipif(not HAS_PROC, reason="reads the process tree from Linux's /proc")
def test_a_killed_server_leaves_no_worker_or_tracker_running(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "1").start()
    try:
        game = proc.new_game(kind="ai", format="precon")
        c = Client(proc, game["id"], game["tokens"])
        rng = random.Random(2)
        moved = False
        while not moved and c.state["result"] is None:
            if c.state["legal"]:
                c.act(rng.choice(c.state["legal"]))
            else:
                before = c.state["index"]
                c.wait_state(timeout=120)
                moved = c.state["index"] > before
        c.close()
        assert proc.proc is not None
        below = descendants(proc.proc.pid)
        assert any("multiprocessing" in command_line(p) for p in below), [command_line(p) for p in below]
        proc.stop(kill=True)
        left = wait_gone(below)
        assert not left, [command_line(p) for p in left]
    finally:
        proc.stop(kill=True)
