"""Both engines satisfy one interface, ``clashofdecks.engine.GameEngine`` (mypy checks it statically in
``native.py``; here at run time), and code outside the engine package never asks which engine it holds:
no ``isinstance`` on ``Game``/``NativeGame`` and no ``Game | NativeGame`` union outside ``native.py``, and
no ``core_of``/``python_game_of``/``plays_native`` anywhere (issue 37: the fast paths are the engines'
own methods, the search primitives)."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from clashofdecks import Game, native
from clashofdecks.engine import GameEngine
from clashofdecks.native import in_engine

SRC = Path(__file__).resolve().parent.parent / "src" / "clashofdecks"
#: The engine package: the two engines (the Python one is the package rules/) and their interface.
ENGINE_MODULES = {"native.py", "engine.py"}


def test_the_python_engine_is_a_game_engine() -> None:
    game = Game.random_duel(seed=1)
    assert isinstance(game, GameEngine)
    assert in_engine(game, compiled=False) is game
    copy = game.to_game(record_events=False)
    assert copy is not game and copy.state() == game.state() and copy.origin == game.origin


@pytest.mark.skipif(not native.AVAILABLE, reason="the compiled core is not built")
def test_the_compiled_core_is_a_game_engine() -> None:
    game = Game.random_duel(seed=2)
    rng = random.Random(2)
    for _ in range(7):
        game.apply(rng.choice(game.legal_actions()))
    core = native.NativeGame.from_game(game)
    assert isinstance(core, GameEngine)
    assert in_engine(core, compiled=True) is core
    assert in_engine(core, compiled=False).state() == game.state()
    assert in_engine(game, compiled=True).state() == game.state()


def _isinstance_of_an_engine(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"):
        return False
    return len(node.args) == 2 and ast.unparse(node.args[1]) in ("Game", "NativeGame")


def _engine_checks(path: Path) -> list[str]:
    """``isinstance(x, Game/NativeGame)`` calls and ``Game | NativeGame`` unions in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if _isinstance_of_an_engine(node):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            names = {ast.unparse(node.left), ast.unparse(node.right)}
            if {"Game", "NativeGame"} <= names:
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_branch_on_the_engine_kind_outside_the_engine_package() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if (path.parent == SRC and path.name in ENGINE_MODULES) or path.parent == SRC / "rules":
            continue
        found += _engine_checks(path)
    assert found == []


#: The names of the old run-time choice of a fast path (issue 37), gone from the code and its tests.
RETIRED_NAMES = ("core_of", "python_game_of", "plays_native", "native_act", "act_on")


def _retired_names(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        name = None
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.alias | ast.FunctionDef | ast.ClassDef):
            name = node.name
        if name in RETIRED_NAMES:
            found.append(f"{path.name}:{getattr(node, 'lineno', '?')}: {name}")
    return found


def test_no_run_time_choice_of_the_engine_outside_the_engines() -> None:
    """An agent never asks which engine it holds: no ``core_of``/``python_game_of``/``plays_native``
    (nor their helpers) in the package or the tests; the engines' primitives are the fast paths."""
    tests = Path(__file__).resolve().parent
    found = []
    for path in sorted([*SRC.rglob("*.py"), *tests.rglob("*.py")]):
        if path != Path(__file__).resolve():
            found += _retired_names(path)
    assert found == []


def test_both_engines_offer_the_search_primitives() -> None:
    """The primitives the agents call (rollout, reward, greedy choice, search) are methods of both
    engines, so the interface the agents see has them."""
    for name in ("rollout", "reward", "greedy_action", "search"):
        assert callable(getattr(GameEngine, name, None)), name
        assert callable(getattr(Game, name, None)), name
        assert callable(getattr(native.NativeGame, name, None)), name
