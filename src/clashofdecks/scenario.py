"""Scenario files (``engine.md``): a position, actions, and an expectation or an illegal action.

:func:`run_scenario` returns a :class:`ScenarioResult`; a wrong expectation is reported as a
failure with the first difference (path, expected, actual).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ClashError, ScenarioError
from .position import dump_position, load_position

SCENARIO_KEYS = {"name", "rules", "position", "actions", "expect", "illegal", "description"}


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    name: str
    passed: bool
    message: str  # "" on success, else the first difference or the error
    rules: tuple[str, ...] = ()
    path: str | None = None
    error: bool = False  # the file itself is malformed

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "status": "PASS" if self.passed else ("ERROR" if self.error else "FAIL"),
            "message": self.message,
            "rules": list(self.rules),
        }


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """The first place where ``actual`` does not match ``expected`` (subset semantics), or None."""
    where = path or "(root)"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected an object {json.dumps(expected)}, got {json.dumps(actual)}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: expected {json.dumps(value)}, but the position has no such key"
            diff = first_difference(value, actual[key], f"{path}.{key}" if path else key)
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"{where}: expected a list, got {json.dumps(actual)}"
        if len(expected) != len(actual):
            return (
                f"{where}: expected {len(expected)} items {json.dumps(expected)}, "
                f"got {len(actual)} {json.dumps(actual)}"
            )
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            diff = first_difference(e, a, f"{path}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(expected, str) and isinstance(actual, dict) and "card" in actual:
        # A bare card id matches a creature of that card, whatever its per-turn fields.
        return None if actual["card"] == expected else f"{where}: expected {expected}, got {actual['card']}"
    if expected != actual or type(expected) is not type(actual):
        return f"{where}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
    return None


def _validate(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a JSON object")
    unknown = sorted(set(data) - SCENARIO_KEYS)
    if unknown:
        raise ScenarioError(f"unknown scenario key {unknown[0]!r}")
    for key in ("name", "position", "actions"):
        if key not in data:
            raise ScenarioError(f"scenario is missing {key!r}")
    if ("expect" in data) == ("illegal" in data):
        raise ScenarioError("a scenario has exactly one of 'expect' and 'illegal'")
    if not isinstance(data["actions"], list) or not all(isinstance(a, str) for a in data["actions"]):
        raise ScenarioError("'actions' must be a list of action strings")
    if not isinstance(data.get("rules", []), list):
        raise ScenarioError("'rules' must be a list of rule numbers")
    if "illegal" in data and not isinstance(data["illegal"], str):
        raise ScenarioError("'illegal' must be an action string")
    if "expect" in data and not isinstance(data["expect"], dict):
        raise ScenarioError("'expect' must be an object")
    return data


def run_scenario(data: Any, path: str | None = None) -> ScenarioResult:
    """Run one scenario (already parsed JSON)."""
    name = data.get("name", path or "?") if isinstance(data, dict) else (path or "?")
    try:
        data = _validate(data)
        game = load_position(data["position"], record_events=False)
    except ClashError as exc:
        return ScenarioResult(str(name), False, f"malformed scenario: {exc}", path=path, error=True)
    rules = tuple(data.get("rules", []))
    for i, text in enumerate(data["actions"]):
        try:
            game.apply_text(text)
        except ClashError as exc:
            return ScenarioResult(name, False, f"action {i + 1} {text!r} was refused: {exc}", rules, path)
    if "illegal" in data:
        game.legal_actions()  # fill the legal-action cache first: it is part of the snapshot
        before = dump_position(game)
        snapshot = game._snapshot()
        try:
            game.apply_text(data["illegal"])
        except ClashError:
            if dump_position(game) != before or game._snapshot() != snapshot:
                return ScenarioResult(name, False, "the refused action changed the game", rules, path)
            return ScenarioResult(name, True, "", rules, path)
        return ScenarioResult(
            name, False, f"{data['illegal']!r} was accepted but should be illegal", rules, path
        )
    diff = first_difference(data["expect"], dump_position(game, expanded=True))
    return ScenarioResult(name, diff is None, diff or "", rules, path)


def run_file(path: str | Path) -> list[ScenarioResult]:
    """Run a scenario file: one scenario object, or a list of them."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return [ScenarioResult(p.name, False, f"cannot read: {exc}", path=str(p), error=True)]
    except json.JSONDecodeError as exc:
        return [ScenarioResult(p.name, False, f"not valid JSON: {exc}", path=str(p), error=True)]
    items = data if isinstance(data, list) else [data]
    return [run_scenario(item, str(p)) for item in items]
