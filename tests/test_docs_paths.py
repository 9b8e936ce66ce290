"""Every file the docs name exists (issue 37, item 6: docs/architecture.md cited files that had moved),
and the web protocol's tables name each message once (docs/web.md listed ``hello`` and ``state`` twice).

A path is a backquoted name with a file extension (``web/games.py``, ``tests/test_session.py``,
``docs/native.md``, ``images/architecture-after.png``); it exists when some file of the repository is
that path or ends with it (docs name files relative to the package, the tests or the docs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXTENSIONS = "py|pyi|md|c|json|js|css|html|toml|po|mo|yml|yaml|txt|sql|sh|png"
PATH = re.compile(rf"`([A-Za-z0-9_./-]+\.(?:{EXTENSIONS}))(?::[A-Za-z0-9_:.]+)?`")
#: Files the docs name that a command writes, not the repository holds.
WRITTEN_BY_COMMANDS = frozenset(
    {
        "DIR/game-NNNNNN.json",  # clash simulate's games (docs/agents.md)
        "previous.json",  # a model file of clash train-eval's example (docs/ai.md)
        "results.json",  # the RL training's results (docs/envs.md)
        "summary.json",  # the load test's summary (docs/performance.md)
        "summary.md",
        "run.json",  # a simulation run's settings (docs/simulation.md)
        "curve.png",  # the RL training's curve, written beside results.json (docs/envs.md)
    }
)
SKIPPED_FOLDERS = {".git", ".venv", "node_modules", "build", "__pycache__", ".mypy_cache", ".ruff_cache"}


def _repository_files() -> list[str]:
    out = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if path.is_file() and not SKIPPED_FOLDERS.intersection(parts):
            out.append("/".join(parts))
    return out


def named_paths(text: str) -> set[str]:
    return {match.group(1) for match in PATH.finditer(text)}


def missing_paths(text: str, files: list[str]) -> list[str]:
    return sorted(
        p
        for p in named_paths(text) - WRITTEN_BY_COMMANDS
        if not any(f == p or f.endswith("/" + p) for f in files)
    )


def test_every_path_the_docs_name_exists() -> None:
    files = _repository_files()
    missing = {doc.name: missing_paths(doc.read_text(encoding="utf-8"), files) for doc in DOCS}
    assert not {doc: paths for doc, paths in missing.items() if paths}
    # The checker itself can fail: a moved file is found, a file of the package is not.
    assert missing_paths("see `ui/terminal.py` and `terminal/line_reader.py`", files) == ["ui/terminal.py"]


def _protocol_rows(text: str) -> list[list[str]]:
    """The first cells of each table under docs/web.md's "## Protocol" (one list per table)."""
    section = text.split("\n## Protocol", 1)[1].split("\n## ", 1)[0]
    tables: list[list[str]] = []
    current: list[str] | None = None
    for line in section.splitlines():
        if line.startswith("| type |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("| `"):
            current.append(line.split("|")[1].strip())
        elif not line.startswith("|"):
            current = None
    return tables


def test_the_web_protocol_names_each_message_once() -> None:
    tables = _protocol_rows((ROOT / "docs" / "web.md").read_text(encoding="utf-8"))
    assert len(tables) >= 2, "the client and server message tables"
    for rows in tables:
        twice = sorted({row for row in rows if rows.count(row) > 1})
        assert not twice, f"listed twice: {twice}"


@pytest.mark.parametrize("doc", ["architecture.md", "web.md"])
def test_the_docs_the_issue_named_are_read(doc: str) -> None:
    assert (ROOT / "docs" / doc) in DOCS
