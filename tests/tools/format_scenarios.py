"""Rewrite scenario files in one readable layout: one key per line, one player per line.

Usage: ``.venv/bin/python tests/tools/format_scenarios.py FILE...`` (rewrites in place; the JSON
content is unchanged, only whitespace).  Appending scenarios from Python and formatting afterwards
keeps every file of the suite in the same shape.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

KEY_ORDER = ("name", "description", "rules", "position", "actions", "expect", "illegal", "refusal")


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _with_players(value: dict[str, Any], indent: str) -> str:
    """An object on one line, except that each entry of its ``players`` list gets its own line."""
    if not isinstance(value.get("players"), list):
        return _compact(value)
    head = ", ".join(f"{_compact(k)}: {_compact(v)}" for k, v in value.items() if k != "players")
    players = f",\n{indent}".join(_compact(p) for p in value["players"])
    return "{" + (head + ", " if head else "") + f'"players": [\n{indent}' + players + "]}"


def format_scenario(scenario: dict[str, Any]) -> str:
    keys = [k for k in KEY_ORDER if k in scenario] + [k for k in scenario if k not in KEY_ORDER]
    lines = []
    for key in keys:
        value = scenario[key]
        text = _with_players(value, "      ") if key in ("position", "expect") else _compact(value)
        lines.append(f"    {_compact(key)}: {text}")
    return "  {\n" + ",\n".join(lines) + "\n  }"


def format_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    items = data if isinstance(data, list) else [data]
    text = "[\n" + ",\n".join(format_scenario(item) for item in items) + "\n]\n"
    assert json.loads(text) == items
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        format_file(Path(name))
