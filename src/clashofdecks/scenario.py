"""Scenario files (``engine.md``): a position, actions, and an expectation or an illegal action.

:func:`run_scenario` returns a :class:`ScenarioResult`; a wrong expectation is reported as a
failure with the first difference (path, expected, actual).  A scenario cannot pass by accident:
one that checks nothing (an ``expect`` without a value in it) and one whose actions or ``illegal``
action are not actions of the notation (a misspelt card, ``nxt``) are malformed (ERROR), not
passed; an optional ``refusal`` (a rule number the refusal must cite, or an error class) says
why the ``illegal`` action is refused, and another reason FAILs the scenario.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import parse_action
from .cards import CARD_INDEX, N_CARDS
from .errors import ActionSyntaxError, ClashError, ScenarioError
from .position import dump_position, load_position

SCENARIO_KEYS = {"name", "rules", "position", "actions", "expect", "illegal", "refusal", "description"}
#: A rule number of the digest: R3, R3.4, R3.4a.
RULE_NUMBER = re.compile(r"R[1-9][0-9]*(?:\.[0-9]+[a-z]?)?")


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


def notation_problem(text: str) -> str | None:
    """Why ``text`` is not a well-formed action of the notation (``docs/formats.md``), or None.

    Syntax only, whatever the game: verbs, card ids, lanes and targets must be right.  The
    engine numbers an ``order`` by the permutation of the cards it is waiting for, so an
    ``order`` is checked here against the cards it names (each a known card id, none twice);
    whether they are the destroyed cards is then the game's decision (a refusal).
    """
    words = text.split()
    pending: tuple[int, ...] | None = None
    if words and words[0].lower() == "order":
        if len(words) < 2:
            return "'order' names the destroyed cards: 'order CARD CARD...'"
        pending = tuple(CARD_INDEX.get(w.upper(), -1) for w in words[1:])
        unknown = [w for w, c in zip(words[1:], pending, strict=True) if not 0 <= c < N_CARDS]
        if unknown:
            return f"unknown card id {unknown[0]!r} in {text!r}"
        if len(set(pending)) != len(pending):
            return f"'order' names a card twice: {text!r}"
    try:
        parse_action(text, pending)
    except ActionSyntaxError as exc:
        return str(exc)
    return None


def error_classes() -> dict[str, type[ClashError]]:
    """The engine's error classes by name: :class:`ClashError` and its subclasses."""
    found: dict[str, type[ClashError]] = {}
    todo: list[type[ClashError]] = [ClashError]
    while todo:
        cls = todo.pop()
        found.setdefault(cls.__name__, cls)
        todo.extend(cls.__subclasses__())
    return found


def _cites(message: str, rule: str) -> bool:
    """``message`` cites rule number ``rule`` as a whole token: "R3.4" is cited by "... (R3.4)"
    but not by "R3.4a" or "R3.41"."""
    return re.search(rf"(?<![\w.]){re.escape(rule)}(?!\w|\.\d)", message) is not None


def refusal_mismatch(refusal: str, exc: Exception) -> str | None:
    """Why the refusal ``exc`` is not the ``refusal`` a scenario expects, or None if it is.

    A rule number matches when the refusal's message cites it as a whole token (see
    :func:`_cites`); an error class name matches the class of the refusal or one of its bases.
    """
    got = f"{type(exc).__name__}: {exc}"
    if RULE_NUMBER.fullmatch(refusal):
        return None if _cites(str(exc), refusal) else f"expected a refusal citing {refusal}, got {got}"
    names = {cls.__name__ for cls in type(exc).__mro__}
    return None if refusal in names else f"expected a refusal of class {refusal}, got {got}"


def _checks_nothing(expect: Any) -> bool:
    """An ``expect`` with no value to compare: ``{}``, or objects holding only such objects."""
    return isinstance(expect, dict) and all(_checks_nothing(v) for v in expect.values())


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
    for i, text in enumerate(data["actions"]):
        problem = notation_problem(text)
        if problem:
            raise ScenarioError(f"action {i + 1} {text!r} is not an action of the notation: {problem}")
    if not isinstance(data.get("rules", []), list):
        raise ScenarioError("'rules' must be a list of rule numbers")
    if "expect" in data:
        if not isinstance(data["expect"], dict):
            raise ScenarioError("'expect' must be an object")
        if _checks_nothing(data["expect"]):
            raise ScenarioError("'expect' checks nothing: state the outcome the scenario is about")
        if "refusal" in data:
            raise ScenarioError("'refusal' goes with 'illegal', not with 'expect'")
    if "illegal" in data:
        if not isinstance(data["illegal"], str):
            raise ScenarioError("'illegal' must be an action string")
        problem = notation_problem(data["illegal"])
        if problem:
            raise ScenarioError(
                f"'illegal' {data['illegal']!r} is not an action of the notation, so its refusal "
                f"would test nothing: {problem}"
            )
    if "refusal" in data:
        refusal = data["refusal"]
        if not isinstance(refusal, str) or not (RULE_NUMBER.fullmatch(refusal) or refusal in error_classes()):
            known = ", ".join(sorted(error_classes()))
            raise ScenarioError(
                f"'refusal' must be a rule number such as 'R3.2' or an error class ({known}), "
                f"got {json.dumps(refusal)}"
            )
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
        except Exception as exc:  # an engine bug: a failure to report, not a traceback
            return ScenarioResult(name, False, f"action {i + 1} {text!r} crashed: {exc!r}", rules, path)
    if "illegal" in data:
        game.legal_actions()  # fill the legal-action cache first: it is part of the snapshot
        before = dump_position(game)
        snapshot = game._snapshot()
        try:
            game.apply_text(data["illegal"])
        except ClashError as exc:
            if dump_position(game) != before or game._snapshot() != snapshot:
                return ScenarioResult(name, False, "the refused action changed the game", rules, path)
            mismatch = refusal_mismatch(data["refusal"], exc) if "refusal" in data else None
            if mismatch:
                message = f"{data['illegal']!r} was refused for another reason: {mismatch}"
                return ScenarioResult(name, False, message, rules, path)
            return ScenarioResult(name, True, "", rules, path)
        except Exception as exc:  # an engine bug: a refusal is a ClashError
            return ScenarioResult(name, False, f"{data['illegal']!r} crashed: {exc!r}", rules, path)
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
