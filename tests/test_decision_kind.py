"""The decision a game waits for is an explicit value (``Game.decision_kind``), the same in both
engines, never told by the type of ``legal_actions()``."""

from __future__ import annotations

import random

import pytest

from clashofdecks import Game
from clashofdecks import native as native_mod
from clashofdecks.agents.base import is_build_stage
from clashofdecks.formats import new_game
from clashofdecks.rules import CHANCE, DecisionKind


def test_the_custom_build_stage_is_a_build_decision() -> None:
    game = new_game(mode="duel", format="custom", seed=2)
    assert game.decision_kind is DecisionKind.BUILD and is_build_stage(game)
    legal = game.legal_actions()
    game.apply(legal[12345])
    assert game.decision_kind is not DecisionKind.BUILD or game.current_player != 0


def test_external_chance_nodes_are_chance_decisions() -> None:
    game = new_game(mode="duel", format="draft", seed=0, external_chance=True)
    assert game.current_player == CHANCE
    assert game.decision_kind is DecisionKind.CHANCE
    kinds = set()
    rng = random.Random(1)
    while not game.is_over() and game.phase == "setup":
        kind = game.decision_kind
        kinds.add(kind)
        assert (kind is DecisionKind.CHANCE) == (game.current_player == CHANCE)
        outcomes = game.chance_outcomes()
        if kind is DecisionKind.CHANCE:
            game.apply(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
    assert kinds == {DecisionKind.CHANCE, DecisionKind.CHOOSE}


def test_play_and_the_end_of_a_game() -> None:
    game = Game.random_duel(seed=3)
    rng = random.Random(3)
    while not game.is_over():
        assert game.decision_kind is DecisionKind.CHOOSE
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert game.decision_kind is DecisionKind.OVER and game.legal_actions() == ()


@pytest.mark.skipif(not native_mod.AVAILABLE, reason="the compiled core is not built")
def test_the_compiled_core_reports_the_same_kind() -> None:
    game = Game.random_duel(seed=8)
    core = native_mod.NativeGame.from_game(game)
    rng = random.Random(8)
    while not game.is_over():
        assert core.decision_kind is game.decision_kind
        legal = game.legal_actions()
        action = legal[rng.randrange(len(legal))]
        game.apply(action)
        core.apply(action)
    assert core.decision_kind is game.decision_kind is DecisionKind.OVER
