"""``clash serve`` without the web extra says what to install and exits, instead of a traceback."""

from __future__ import annotations

import importlib.util

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main, serve_cmd


def test_missing_web_extra_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_starlette(name: str, *args: object) -> object:
        return None if name == "starlette" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(serve_cmd.importlib.util, "find_spec", without_starlette)
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
