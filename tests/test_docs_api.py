"""Every public function of the engine has a docstring, and the doctests in them run (issue 9)."""

from __future__ import annotations

import doctest
import importlib
import inspect
from types import ModuleType

import pytest

#: The engine (rules and notation layers) and the session layer every front end uses.
ENGINE_MODULES = (
    "clashofdecks",
    "clashofdecks.errors",
    "clashofdecks.events",
    "clashofdecks.cards",
    "clashofdecks.options",
    "clashofdecks.actions",
    "clashofdecks.setup",
    "clashofdecks.rules",
    # The engine package's rooms (docs/architecture.md): their classes and functions live there.
    "clashofdecks.rules.state",
    "clashofdecks.rules.tables",
    "clashofdecks.rules.core",
    "clashofdecks.rules.chance",
    "clashofdecks.rules.views",
    "clashofdecks.rules.legality",
    "clashofdecks.rules.notation",
    "clashofdecks.rules.start",
    "clashofdecks.rules.resolution",
    "clashofdecks.rules.combat",
    "clashofdecks.rules.automaton",
    "clashofdecks.rules.heuristic",
    "clashofdecks.rules.playout",
    "clashofdecks.rules.game",
    "clashofdecks.native",
    "clashofdecks.position",
    "clashofdecks.formats",
    "clashofdecks.record",
    "clashofdecks.session",
)


def _public_callables(module: ModuleType) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj) or inspect.isclass(obj):
            out.append((name, obj))
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(value, property):
                    value = value.fget
                elif isinstance(value, classmethod | staticmethod):
                    value = value.__func__
                if inspect.isfunction(value):
                    out.append((f"{name}.{attr}", value))
    return out


@pytest.mark.parametrize("name", ENGINE_MODULES)
def test_public_functions_have_docstrings(name: str) -> None:
    module = importlib.import_module(name)
    missing = [n for n, obj in _public_callables(module) if not inspect.getdoc(obj)]
    assert not missing, f"{name}: no docstring on {', '.join(missing)}"


@pytest.mark.parametrize("name", ENGINE_MODULES)
def test_doctests_pass(name: str) -> None:
    module = importlib.import_module(name)
    # A room's examples speak of the whole Game, as its reader does: they see the package's names.
    names = (
        vars(importlib.import_module("clashofdecks.rules")) if name.startswith("clashofdecks.rules.") else {}
    )
    result = doctest.testmod(
        module, extraglobs=dict(names), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0


def test_the_main_modules_carry_examples() -> None:
    """Doctests that can fail exist where a newcomer reads first."""
    for name in ("clashofdecks", "clashofdecks.rules", "clashofdecks.position", "clashofdecks.session"):
        finder = doctest.DocTestFinder()
        examples = sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
        assert examples >= 3, name
