"""The network inside the compiled search (issue 38, docs/ai.md "The network inside the search"): the
core's encoder, trunk, policy and calibrated value head against the Python encoder and numpy, to float
tolerance, over positions of every start; ``neural-search`` in the core and in its numpy fallback."""

from __future__ import annotations

import os
import random

import pytest

from clashofdecks import native
from clashofdecks.rules import Game

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    pytest.skip(f"{native.engine_notice()}: the network in C is not there to test", allow_module_level=True)

from clashofdecks.agents import neural
from clashofdecks.agents.neural_search import (
    NeuralSearchAgent,
    net_view,
    payload_of,
)
from clashofdecks.agents.registry import make_agent
from clashofdecks.encoding import encode_observation
from clashofdecks.native import NativeGame
from clashofdecks.native_check import KINDS, start_game

np = pytest.importorskip("numpy")


def play_positions(kind: str, seed: int, count: int) -> list[Game]:
    """Up to ``count`` positions of the play phase of a random game of ``kind`` (random ruleset and
    threat), a few random actions apart."""
    rng = random.Random(seed)
    game = start_game(kind, seed, rng)
    out: list[Game] = []
    while not game.is_over() and len(out) < count:
        if game.phase != "setup" and rng.random() < 0.3:
            out.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return out


@pytest.fixture(scope="module")
def net() -> object:
    return native.net_new(*payload_of(neural.shipped_model()))


@pytest.mark.parametrize("kind", KINDS)
def test_the_core_computes_the_network_as_numpy_does(kind: str, net: object) -> None:
    model = neural.shipped_model()
    checked = 0
    for seed in range(3):
        for game in play_positions(kind, seed, 4):
            core = NativeGame.from_state(game.state())
            for seat in (0, 1) if not game.is_solo else (0,):
                obs, logits, chance = native.net_evaluate(core, net, seat, net_view(game))
                expected = encode_observation(game, seat)
                assert np.array_equal(np.frombuffer(obs, dtype=np.float32), expected)
                numpy_logits, _ = model.forward(expected[None, :])
                assert np.allclose(np.array(logits), numpy_logits[0], rtol=1e-5, atol=1e-4)
                assert chance == pytest.approx(neural.win_chance(game, seat, model), abs=1e-5)
                checked += 1
    assert checked > 0


def test_the_core_reads_the_encoders_layout() -> None:
    from clashofdecks.encoding import COMPILED_LAYOUT
    from clashofdecks.envs.compiled_batch import COMPILED_LAYOUT as BATCH_LAYOUT

    assert net_view(Game.random_duel(seed=1))[0] == COMPILED_LAYOUT == BATCH_LAYOUT


def test_a_wrong_payload_is_refused(net: object) -> None:
    payload, sizes = payload_of(neural.shipped_model())
    with pytest.raises(ValueError, match="payload"):
        native.net_new(payload[:-4], sizes)
    with pytest.raises(ValueError, match="sizes"):
        native.net_new(payload, (sizes[0], sizes[1], sizes[2], 10, sizes[4]))


def test_the_search_in_the_core_and_in_numpy_choose_legal_moves_reproducibly() -> None:
    [game] = play_positions("duel_draft", 1, 1)
    for native_core in (True, False):
        picks = set()
        for _ in range(2):
            agent = NeuralSearchAgent(5, iterations=40, native_core=native_core)
            picks.add(agent.act(game))
            assert agent.last is not None
            result, evaluations = agent.last
            # the first iteration evaluates the root itself; each other one visits a root child
            assert sum(visits for _, visits, _ in result.stats) == 39
            assert 0 < evaluations <= 40
        assert len(picks) == 1 and picks <= set(game.legal_actions())


def test_the_search_never_reads_the_opponents_hidden_hand() -> None:
    """R9.2: two games that differ only in the order of the opponent's hand give the same statistics:
    every determinization, and so every network input, is built from the player's view."""
    hands = [
        ["OGRE", "BOOM", "GRRR", "SHAMAN", "BRUTE", "ZOMBIE", "VORTEX", "REPTILE"],
        ["TROLL", "MICROCTOPUS", "ASSASSIN", "COMBUSTION", "MACHINE", "LIEUTENANT", "BARON", "GNOME"],
    ]
    one = Game.from_hands(hands, record_events=False)
    two = Game.from_hands([hands[0], list(reversed(hands[1]))], record_events=False)
    assert one.hand(1) != two.hand(1)
    a1, a2 = NeuralSearchAgent(7, iterations=100), NeuralSearchAgent(7, iterations=100)
    assert a1.act(one) == a2.act(two)
    assert a1.last is not None and a2.last is not None
    assert a1.last[0].stats == a2.last[0].stats


def test_neural_search_is_registered_with_its_settings() -> None:
    agent = make_agent("neural-search:iterations=20,c=1.0,value=0.25", 1)
    assert isinstance(agent, NeuralSearchAgent)
    assert (agent.iterations, agent.c, agent.value_weight, agent.fpu_cut) == (20, 1.0, 0.25, 0.0)
    with pytest.raises(ValueError, match="value_weight"):
        NeuralSearchAgent(0, value_weight=1.5)


def _root_shares(game: Game, net: object, **settings: float) -> dict[int, float]:
    """The root's visit shares of a search whose PUCT term dominates (c huge: visits follow the prior)."""
    core = NativeGame.from_state(game.state())
    found = native.net_search(
        core,
        net,
        random.Random(3),
        net_view(game),
        iterations=3000,
        c=1e6,
        cutoff_turns=2,
        max_rollout_actions=200,
        value_weight=1.0,
        **settings,
    )
    assert found is not None
    _, stats, _ = found
    total = sum(visits for _, visits, _ in stats)
    return {action: visits / total for action, visits, _ in stats}


def test_root_noise_is_off_at_play_and_changes_the_root_prior_when_on(net: object) -> None:
    game = next(g for g in play_positions("duel_draft", 4, 20) if len(g.legal_actions()) >= 5)
    core = NativeGame.from_state(game.state())
    _, logits, _ = native.net_evaluate(core, net, game.current_player, net_view(game))
    legal = list(game.legal_actions())
    weights = np.exp(np.array([logits[a] for a in legal]) - max(logits[a] for a in legal))
    prior = dict(zip(legal, weights / weights.sum(), strict=True))
    off = _root_shares(game, net)
    assert _root_shares(game, net, noise=0.0) == off  # no argument: no noise, not one draw more
    assert max(abs(off[a] - prior[a]) for a in legal) < 0.02
    on = _root_shares(game, net, noise=0.5, noise_alpha=0.3)
    assert max(abs(on[a] - prior[a]) for a in legal) > 0.05
    assert NeuralSearchAgent(0).noise == 0.0  # the agent plays without it unless asked
    with pytest.raises(ValueError, match="noise"):
        native.net_search(
            core,
            net,
            random.Random(3),
            net_view(game),
            iterations=10,
            c=1.5,
            cutoff_turns=2,
            max_rollout_actions=200,
            value_weight=1.0,
            noise=1.5,
        )


def test_the_python_search_mixes_the_same_noise() -> None:
    from clashofdecks.agents.neural_search import root_noise

    mixed = root_noise([0.7, 0.2, 0.1], random.Random(1), 0.25, 0.3)
    assert sum(mixed) == pytest.approx(1.0)
    assert mixed != [0.7, 0.2, 0.1] and all(
        m >= 0.75 * p for m, p in zip(mixed, [0.7, 0.2, 0.1], strict=True)
    )


def test_first_play_urgency_is_a_setting(net: object) -> None:
    game = next(g for g in play_positions("duel_draft", 4, 20) if len(g.legal_actions()) >= 5)
    agent = make_agent("neural-search:iterations=200,fpu=0.3", 1)
    assert isinstance(agent, NeuralSearchAgent) and agent.fpu_cut == 0.3
    core = NativeGame.from_state(game.state())
    common = {"iterations": 400, "c": 1.5, "cutoff_turns": 2, "max_rollout_actions": 200, "value_weight": 1.0}
    searched = [
        native.net_search(core, net, random.Random(3), net_view(game), fpu_cut=cut, **common)  # type: ignore[arg-type]
        for cut in (0.0, 0.0, 0.5)
    ]
    assert searched[0] == searched[1] != searched[2]


def test_the_decision_is_the_most_visited_unless_a_visit_floor_is_set() -> None:
    from clashofdecks.agents.neural_search import decide

    # (action, visits, summed rewards): 1 is the most visited, 2 the best mean above half its visits,
    # 3 the best mean of all but visited too little
    stats = [(1, 10, 6.0), (2, 6, 5.0), (3, 2, 2.0)]
    assert decide(stats, 18, 0.0, 0.0).action == 1
    picked = decide(stats, 18, 0.0, 0.5)
    assert picked.action == 2 and picked.win_chance == pytest.approx(5 / 6)
    assert decide(stats, 18, 0.0, 0.1).action == 3
    assert decide(stats, 18, 0.0, 1.0).action == 1
    assert decide(stats, 18, 0.0, 0.5).stats == decide(stats, 18, 0.0, 0.0).stats


@pytest.mark.parametrize("native_core", [True, False])
def test_the_rollouts_cut_off_and_the_decision_rule_are_settings(native_core: bool) -> None:
    [game] = play_positions("duel_draft", 1, 1)
    agent = make_agent("neural-search:iterations=60,cutoff=0,floor=0.5", 1)
    assert isinstance(agent, NeuralSearchAgent) and (agent.cutoff, agent.floor) == (0, 0.5)
    assert NeuralSearchAgent(0).cutoff == 2 and NeuralSearchAgent(0).floor == 0.0
    searched = []
    for cutoff in (2, 2, 0):
        one = NeuralSearchAgent(5, iterations=60, cutoff=cutoff, native_core=native_core)
        one.act(game)
        assert one.last is not None
        searched.append(one.last[0].stats)
    assert searched[0] == searched[1] != searched[2]  # a shorter rollout scores other positions
    with pytest.raises(ValueError, match="cutoff"):
        NeuralSearchAgent(0, cutoff=-1)
    with pytest.raises(ValueError, match="floor"):
        NeuralSearchAgent(0, floor=1.5)
