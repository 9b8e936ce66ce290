"""A test run fails when it leaves a process behind (tests/conftest.py, ``pytest_sessionfinish``):
checked on a small run of its own, in a subprocess, with this folder's conftest and helpers, so the
check itself is shown to fail on a leak and to pass without one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from process_tools import HAS_PROC

pytestmark = pytest.mark.slow  # two inner pytest runs, each importing the package
HERE = Path(__file__).parent

LEAKS = """
import subprocess


def test_a_child_left_running() -> None:
    subprocess.Popen(["sleep", "120"])


def test_an_orphaned_grandchild() -> None:
    # The shell ends at once; its background sleep is orphaned and adopted by the run (a subreaper).
    subprocess.run(["sh", "-c", "sleep 120 >/dev/null 2>&1 &"], check=True)
"""

CLEAN = """
import subprocess


def test_a_child_waited_for() -> None:
    subprocess.run(["true"], check=True)
"""


def _inner_run(tmp_path: Path, tests: str) -> subprocess.CompletedProcess[str]:
    for helper in ("conftest.py", "process_tools.py", "random_play.py"):
        shutil.copy(HERE / helper, tmp_path / helper)
    (tmp_path / "test_inner.py").write_text(tests, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard, not a timing
    )


@pytest.mark.skipif(not HAS_PROC, reason="reads the process tree from Linux's /proc")
def test_a_run_that_leaves_processes_behind_fails_naming_them(tmp_path: Path) -> None:
    result = _inner_run(tmp_path, LEAKS)
    out = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, out
    assert "2 passed" in out, out  # the tests themselves pass: the run fails for what they left
    assert "processes left behind by the tests (now stopped)" in out, out
    assert out.count("sleep 120") == 2, out


@pytest.mark.skipif(not HAS_PROC, reason="reads the process tree from Linux's /proc")
def test_a_run_that_leaves_nothing_passes(tmp_path: Path) -> None:
    result = _inner_run(tmp_path, CLEAN)
    out = result.stdout + result.stderr
    assert result.returncode == pytest.ExitCode.OK, out
    assert "left behind" not in out, out
