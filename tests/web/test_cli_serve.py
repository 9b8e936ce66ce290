"""``clash serve``: without the web extra it says what to install and exits, instead of a traceback; a
busy port fails with one line before anything claims the server runs; serving imports no heavy stack."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main, serve_cmd
from clashofdecks.words import catalog


@pytest.fixture(autouse=True)
def _catalogs_unpinned_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """``clash serve`` run in this test process pins the catalogs' folder (words/catalog.py): put
    back what was there after each test, so a later test that sets ``CLASH_LOCALE_DIR`` (the
    dummy language of tests/test_action_text.py) is not served the pinned folder."""
    monkeypatch.setattr(catalog, "_PINNED", catalog._PINNED)


def test_missing_web_extra_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_starlette(name: str, *args: object) -> object:
        return None if name == "starlette" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_starlette)
    result = CliRunner().invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 2
    assert "starlette" in result.output and "pip install" in result.output
    assert "Traceback" not in result.output


def test_serve_help_lists_the_options() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    options = ("--host", "--port", "--database", "--public-url", "--abandon-after", "--rate", "--create-rate")
    for option in options:
        assert option in result.output


def test_a_busy_port_gives_one_clear_line_and_a_failure(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        env = {**os.environ, "CLASH_DATA_DIR": str(tmp_path)}
        cmd = [sys.executable, "-m", "clashofdecks", "serve", "--port", str(port)]
        # The timeout only guards against a server that starts anyway (the failure this test catches).
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "running" not in done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"port {port}" in lines[0] and "already in use" in lines[0] and "--port" in lines[0]
    assert not (tmp_path / "web.sqlite3").exists()  # nothing was set up before the port was checked


def test_serving_imports_no_heavy_stack(tmp_path: Path) -> None:
    """The lean install (`make serve`: the web extra and the compiled core) must be enough to serve,
    and the server and its AI workers must not pull numpy, torch, Ray or the RL stacks."""
    probe = """
import sys
from clashofdecks.cli import main
from clashofdecks.cli import serve_cmd
from clashofdecks.agents.registry import make_agent
from clashofdecks.web import workers
from clashofdecks.web.games import AI_LEVELS
from clashofdecks.web.app import create_app
from clashofdecks.web.server import ServerConfig
create_app(ServerConfig())
workers.warm_up()
for strength in AI_LEVELS:
    make_agent(strength, 0)
heavy = ("numpy", "torch", "ray", "pyspiel", "gymnasium", "pettingzoo", "pyarrow", "duckdb", "matplotlib")
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""
    env = {**os.environ, "CLASH_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


@pytest.mark.parametrize(("flag", "expected"), [([], True), (["--no-auto-analysis"], False)])
def test_automatic_analysis_is_an_option_of_serve(
    flag: list[str], expected: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--no-auto-analysis`` reaches the server's settings (its effect: tests/web/test_analysis.py)."""
    import uvicorn

    from clashofdecks.web import app

    seen: list[bool] = []
    real = app.create_app

    def capture(config: object, *args: object) -> object:
        seen.append(config.auto_analysis)  # type: ignore[attr-defined]
        return real(config, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(app, "create_app", capture)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    # No logging set-up either: uvicorn's would point its handlers at CliRunner's stderr, which is
    # closed once the command returns, and every later log line of this test process would fail.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    monkeypatch.setattr(serve_cmd, "raise_open_file_limit", lambda: (0, 0))  # not this test process's
    monkeypatch.setenv("CLASH_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--access-log", "off", *flag])
    assert result.exit_code == 0, result.output
    assert seen == [expected]


def _served_config(
    flags: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[object, object]:
    """The ``ServerConfig`` ``clash serve FLAGS`` starts the app with (nothing served), or None,
    and the command's result."""
    import uvicorn

    from clashofdecks.web import app

    seen: list[object] = []
    real = app.create_app

    def capture(config: object, *args: object) -> object:
        seen.append(config)
        return real(config, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(app, "create_app", capture)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)  # see above
    monkeypatch.setattr(serve_cmd, "raise_open_file_limit", lambda: (0, 0))
    monkeypatch.setenv("CLASH_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--access-log", "off", *flags])
    return (seen[0] if seen else None), result


@pytest.mark.parametrize(
    ("flag", "value", "field", "expected", "default"),
    [
        ("--send-queue-frames", "64", "send_queue_frames", 64, 256),
        ("--idle-game-seconds", "30", "idle_game_seconds", 30.0, 600.0),
        ("--optional-workers", "3", "optional_workers", 3, 1),
    ],
)
def test_server_tuning_options_reach_the_server_s_settings(
    flag: str,
    value: str,
    field: str,
    expected: float,
    default: float,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each reaches ``ServerConfig`` (their effects: tests/web/test_live_games.py, the worker pool);
    without it, the setting keeps its default."""
    config, result = _served_config([flag, value], tmp_path, monkeypatch)
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert getattr(config, field) == expected
    config, _result = _served_config([], tmp_path, monkeypatch)
    assert getattr(config, field) == default
    assert flag in CliRunner().invoke(main, ["serve", "--help"]).output


@pytest.mark.parametrize(
    "flags",
    [
        ["--send-queue-frames", "0"],
        ["--send-queue-frames", "15"],
        ["--send-queue-frames", "lots"],
        ["--idle-game-seconds", "0"],
        ["--idle-game-seconds", "-5"],
        ["--optional-workers", "0"],
        ["--optional-workers", "65"],
    ],
)
def test_server_tuning_options_out_of_range_are_usage_errors(
    flags: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value out of range is a usage error naming the option, and nothing is served."""
    config, result = _served_config(flags, tmp_path, monkeypatch)
    assert config is None
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert f"Invalid value for '{flags[0]}'" in result.output  # type: ignore[attr-defined]


def test_serve_leaves_its_start_up_heap_out_of_later_garbage_collections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``clash serve`` freezes the objects made before it serves (``gc.freeze``): a full collection
    then walks only what serving made, a stall every action in flight waits for
    (docs/performance.md)."""
    import gc

    gc.unfreeze()
    try:
        _config, result = _served_config([], tmp_path, monkeypatch)
        assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # this test process collects as before
