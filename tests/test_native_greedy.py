"""The greedy heuristic in the compiled core (issue 13) against the Python one.

``greedy.evaluate`` computed in C must be the very same double as in Python on every position
(duel and solo, every format, random rulesets and threats, random and greedy play), the greedy
agent must choose the same actions and draw the same numbers with and without the core, and a
search with greedy rollouts must give the same statistics.  Fairness (R9) rides along: the agent in
the core samples the same determinization from its own view as the Python agent does.

Skipped, with the reason, when the extension is not built (``CLASH_REQUIRE_NATIVE=1``: a failure).
"""

from __future__ import annotations

import os
import random
from dataclasses import fields, replace
from typing import Any

import pytest

from clashofdecks import native

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    pytest.skip(f"{native.engine_notice()}: the greedy heuristic in C is not tested", allow_module_level=True)

from clashofdecks.agents.greedy import (
    DEFAULT_WEIGHTS,
    GreedyAgent,
    Weights,
    evaluate,
    fortress_after,
    incoming_hits,
    weight_values,
)
from clashofdecks.agents.mcts import MAX_ROLLOUT_ACTIONS, Search, _greedy_choice
from clashofdecks.native import NativeGame
from clashofdecks.native_check import KINDS, random_threat, start_game
from clashofdecks.rules import Game


def _random_weights(rng: random.Random) -> Weights:
    """Weights that are not dyadic fractions, so any change of operation order shows in the last bit."""
    return Weights(*(rng.uniform(-3.0, 3.0) for _ in fields(Weights)))


def _positions(games: int, seed: int) -> list[Game]:
    """Positions of random games and of greedy games (richer boards), every kind of start."""
    out: list[Game] = []
    for i in range(games):
        rng = random.Random(seed + i)
        game = start_game(KINDS[i % len(KINDS)], seed + i, rng)
        agent = GreedyAgent(seed + i, native=False) if i % 3 == 0 else None
        while True:
            out.append(game.clone())
            if game.is_over():
                break
            game.apply(agent.act(game) if agent else rng.choice(game.legal_actions()))
    return out


POSITIONS = _positions(90, 7000)


def test_evaluate_in_the_core_is_the_python_double() -> None:
    rng = random.Random(1)
    reached = {"solo": 0, "over": 0, "hits": 0, "lethal": 0, "bastion": 0, "creatures": 0}
    compared = 0
    for game in POSITIONS:
        nat = NativeGame.from_game(game)
        for weights in (DEFAULT_WEIGHTS, _random_weights(rng)):
            values = weight_values(weights)
            for player in (0, 1):
                expected = evaluate(game, player, weights)
                assert nat.evaluate(player, values) == expected, (game.state(), player, weights)
                compared += 1
        # What the positions covered (so the comparison is not vacuous).
        reached["solo"] += game.is_solo
        reached["over"] += game.is_over()
        if game.is_over():
            continue
        lanes: list[list[Any]] = [[], [], [], []]
        for p, lane, _pos, cr in game.creatures():
            lanes[p * 2 + lane].append(cr)
        reached["creatures"] += any(lanes)
        for p in (0, 1):
            side, left, size = game.fortress(p)
            reached["bastion"] += side == "BASTION" and not (game.is_solo and p == 1)
            hits = incoming_hits(lanes, 1 - p)
            reached["hits"] += bool(hits)
            if hits and not (game.is_solo and p == 1):
                reached["lethal"] += fortress_after(side == "BASTION", left, size, hits) is None
    assert compared > 10_000
    assert all(count > 20 for count in reached.values()), reached


@pytest.mark.parametrize("field", [f.name for f in fields(Weights)])
def test_a_perturbed_weight_is_caught(field: str) -> None:
    """The comparison can fail: the core handed one weight a hair off scores some position differently."""
    weights = _random_weights(random.Random(2))
    off = replace(weights, **{field: getattr(weights, field) * (1 + 1e-12)})
    differ = 0
    for game in POSITIONS:
        if game.is_over():
            continue
        nat = NativeGame.from_game(game)
        differ += nat.evaluate(0, weight_values(off)) != evaluate(game, 0, weights)
    assert differ > 0


#: Greedy games per kind of start compared whole (``CLASH_NATIVE_GREEDY_GAMES`` for a longer run).
GREEDY_GAMES = int(os.environ.get("CLASH_NATIVE_GREEDY_GAMES", "3"))
#: Random weights can make both players avoid progress for ever: such a game is compared this far.
MAX_GAME_ACTIONS = 1500


def _greedy_game(start: Game, seed: int, use_core: bool, **settings: Any) -> tuple[list[int], list[Any]]:
    game = start.clone()
    agents = [GreedyAgent(seed * 2 + seat, native=use_core, **settings) for seat in (0, 1)]
    actions = []
    while not game.is_over() and len(actions) < MAX_GAME_ACTIONS:
        action = agents[game.current_player].act(game)
        game.apply(action)
        actions.append(action)
    return actions, [agent._rng.getstate() for agent in agents]


@pytest.mark.parametrize("kind", KINDS)
def test_the_greedy_agent_plays_the_same_games_with_and_without_the_core(kind: str) -> None:
    """Same seeds, same games: every action and the agents' generators after the game."""
    actions = 0
    for seed in range(GREEDY_GAMES):
        start = start_game(kind, seed, random.Random(seed))
        settings: dict[str, Any] = {}
        if seed % 3 == 1:
            settings["weights"] = _random_weights(random.Random(seed))
        if seed % 3 == 2:
            settings["finish_turn"] = False
        python = _greedy_game(start, seed, False, **settings)
        core = _greedy_game(start, seed, True, **settings)
        assert core == python, (kind, seed)
        actions += len(python[0])
    assert actions > 10 * GREEDY_GAMES


@pytest.mark.parametrize(("mode", "fmt"), [("duel", "draft"), ("duel", "custom"), ("solo", "precon")])
def test_greedy_games_from_the_setup_are_the_same(mode: str, fmt: str) -> None:
    """The setup's choices stay in Python; the play-phase ones move to the core; the game is the same."""
    for seed in range(2):
        threat = random_threat(random.Random(seed)) if mode == "solo" else None
        start = Game.new(mode=mode, format=fmt, seed=seed, threat=threat, record_events=False)
        assert _greedy_game(start, seed, True) == _greedy_game(start, seed, False)


def test_greedy_action_draws_the_agents_stream_exactly() -> None:
    """One decision: the same action and the same generator state after it, ties included."""
    ties = decisions = 0
    for seed, game in enumerate(POSITIONS[::5]):
        if game.is_over() or len(game.legal_actions()) < 2 or game.phase == "setup":
            continue
        agent = GreedyAgent(seed, native=False)
        expected = agent.act(game)
        rng = random.Random(seed)
        assert NativeGame.from_game(game).greedy_action(rng, weight_values(DEFAULT_WEIGHTS)) == expected
        assert rng.getstate() == agent._rng.getstate()
        sampled_only = random.Random(seed)
        game.sample_determinization(game.current_player, sampled_only)
        ties += rng.getstate() != sampled_only.getstate()  # the tie-break drew after the sample
        decisions += 1
    assert decisions > 100 and ties > 5, (decisions, ties)


def test_weights_replaced_after_construction_reach_the_core() -> None:
    other = _random_weights(random.Random(9))
    python, core = GreedyAgent(5, native=False), GreedyAgent(5, native=True)
    python.weights = core.weights = other
    differs_from_default = 0
    for game in POSITIONS[::9]:
        if game.is_over() or len(game.legal_actions()) < 2:
            continue
        assert core.act(game) == python.act(game)
        differs_from_default += evaluate(game, 0, other) != evaluate(game, 0)
    assert differs_from_default > 0


def test_greedy_rollouts_in_the_core_are_the_python_loops() -> None:
    """The search's greedy rollout: same final state, same generator state (with and without a limit)."""
    for i, game in enumerate(POSITIONS[::11]):
        if game.is_over():
            continue
        limit = None if i % 3 else game.turn + 1
        py, nat = game.clone(), NativeGame.from_game(game)
        py_rng, nat_rng = random.Random(i), random.Random(i)
        played = 0
        while played < 300 and not py.is_over() and (limit is None or py.turn <= limit):
            legal = py.legal_actions()
            py.apply(legal[0] if len(legal) == 1 else _greedy_choice(py, legal, py_rng.random))
            played += 1
        weights = weight_values(DEFAULT_WEIGHTS)
        assert nat.greedy_rollout(nat_rng.random, weights, 300, limit) == played
        assert nat.state() == py.state() and nat_rng.getstate() == py_rng.getstate()


def test_the_search_greedy_rollout_scores_the_same() -> None:
    for i, game in enumerate(POSITIONS[::13]):
        if game.is_over():
            continue
        rewards = []
        for use_core in (False, True):
            rng = random.Random(i)
            search = Search(rollout="greedy", native=use_core, cutoff=i % 3 if i % 2 else "auto")
            start = NativeGame.from_game(game) if use_core else game.clone()
            rewards.append((search._rollout(start, rng), rng.getstate()))
        assert rewards[0] == rewards[1]
        assert MAX_ROLLOUT_ACTIONS > 0


def test_bad_input_to_the_core_is_refused_and_changes_nothing() -> None:
    nat = NativeGame.random_duel(3)
    before = nat.state()
    weights = weight_values(DEFAULT_WEIGHTS)
    with pytest.raises(ValueError, match="9 numbers"):
        nat.evaluate(0, weights[:8])
    with pytest.raises(TypeError):
        nat.evaluate(0, (*weights[:8], "x"))
    with pytest.raises(ValueError, match="player is 0 or 1"):
        nat.evaluate(2, weights)
    with pytest.raises(TypeError, match=r"random\.Random"):
        nat.greedy_action(random.SystemRandom(), weights)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        nat.greedy_rollout(lambda: 1.5, weights, 50)  # the first decision ties: lane 0 or 1 of an empty board
    assert nat.state() == before
    over = NativeGame.random_duel(3)
    over.playout(1)
    with pytest.raises(ValueError, match="at least two actions"):
        over.greedy_action(random.Random(1), weights)
    assert over.evaluate(0, weights) == evaluate(over.to_game(), 0) in (1e9, -1e9, 0.0)


def test_clash_native_0_keeps_the_greedy_agent_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    from clashofdecks.agents import greedy

    monkeypatch.setattr(greedy, "NATIVE_AVAILABLE", False)
    assert GreedyAgent(1).native is False
    with pytest.raises(ValueError, match="compiled core"):
        GreedyAgent(1, native=True)
