"""The OpenSpiel game ``python_clash_of_decks`` (issue 11): OpenSpiel's own random_sim_test, chance
nodes one card at a time, information states (perfect recall, a seat's view only), resampling, and
full games of OpenSpiel's ISMCTS and MCTS bots against this project's agents."""

from __future__ import annotations

import json

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")  # clashofdecks.envs needs it (the rl extra)
pyspiel = pytest.importorskip("pyspiel")

from clashofdecks import actions as A  # noqa: E402
from clashofdecks.agents.registry import make_agent  # noqa: E402
from clashofdecks.envs import openspiel as O  # noqa: E402
from clashofdecks.envs.encoding import INFOSTATE_LAYOUT, OBSERVATION_LAYOUT, encode_observation  # noqa: E402


def _game(fmt: str = "draft", max_turns: int = 40) -> pyspiel.Game:
    return pyspiel.load_game(O.SHORT_NAME, {"format": fmt, "max_turns": max_turns})


def _random_state(game: pyspiel.Game, steps: int, seed: int = 0) -> pyspiel.State:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    return state


def test_registered_on_import_with_documented_flags() -> None:
    game = _game()
    kind = game.get_type()
    assert kind.short_name == "python_clash_of_decks"
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert kind.provides_observation_string and kind.provides_observation_tensor
    assert not kind.provides_factored_observation_string
    assert game.num_distinct_actions() == A.ACTION_SPACE
    assert game.max_chance_outcomes() == 34
    assert game.information_state_tensor_size() == INFOSTATE_LAYOUT.size
    assert game.observation_tensor_size() == OBSERVATION_LAYOUT.size
    with pytest.raises((ValueError, pyspiel.SpielError), match="format"):
        _game("custom")


@pytest.mark.parametrize("fmt", ["draft", "precon"])
def test_openspiel_random_sim_test(fmt: str) -> None:
    pyspiel.random_sim_test(_game(fmt, max_turns=30), num_sims=3, serialize=False, verbose=False)
    pyspiel.random_sim_test(_game(fmt, max_turns=30), num_sims=1, serialize=True, verbose=False)


def test_chance_nodes_draw_one_card_each() -> None:
    state = _game("draft").new_initial_state()
    assert state.is_chance_node()
    assert [o for o, _ in state.chance_outcomes()] == [0, 1]  # the coin toss (R2.3a)
    state.apply_action(1)
    sizes = []
    while state.is_chance_node():  # the first draft reveal (R2.4): 4 draws from 32, 31, 30, 29 cards
        outcomes = state.chance_outcomes()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        sizes.append(len(outcomes))
        state.apply_action(outcomes[0][0])
    assert sizes == [32, 31, 30, 29]
    assert not state.is_terminal() and state.current_player() in (0, 1)
    assert len(state.legal_actions()) == 4  # pick one of the 4 face-up cards


def test_information_state_is_perfect_recall_and_hides_the_opponents_deal() -> None:
    game = _game("precon")
    state = _random_state(game, 40, seed=2)
    assert state.current_player() in (0, 1)
    for seat in (0, 1):
        text = state.information_state_string(seat)
        lines = text.splitlines()
        assert lines[0] == f"seat {seat}"
        assert lines.count("chance ?") == 8  # the opponent's 8 deal draws (R2.6)
        assert len(lines) == 1 + len(state.history())  # every step, in order: perfect recall
    observation = json.loads(state.observation_string(0))
    assert "?" in observation["players"][1]["hand"]
    np.testing.assert_array_equal(
        np.array(state.observation_tensor(0), dtype=np.float32), encode_observation(state.engine, 0)
    )


def _hidden_count(state: pyspiel.State, seat: int) -> int:
    """How many of the opponent's cards ``seat`` cannot see (deal draws so far during the setup)."""
    engine = state.engine
    if engine.phase == "setup":
        return sum(1 for line in state.information_state_string(seat).splitlines() if line == "chance ?")
    return sum(engine.is_hidden(1 - seat, seat))


@pytest.mark.parametrize("fmt", ["draft", "precon"])
def test_resample_from_infostate_keeps_what_the_seat_knows(fmt: str) -> None:
    """States the seat cannot tell apart: same information state (string and tensor), same legal
    actions; and the opponent's hidden cards really are redrawn.  Checked at player decisions in the
    deal's wake and later, and at chance nodes in the middle of the deal."""
    game = _game(fmt)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while not state.is_terminal() and checked < 6:
        seat = state.current_player() if not state.is_chance_node() else 0
        if _hidden_count(state, seat) >= 2 and rng.random() < 0.3:
            others = set()
            for _ in range(10):
                sample = state.resample_from_infostate(seat, sampler)
                assert sample.information_state_string(seat) == state.information_state_string(seat)
                assert sample.information_state_tensor(seat) == state.information_state_tensor(seat)
                assert sample.observation_tensor(seat) == state.observation_tensor(seat)
                assert sample.legal_actions() == state.legal_actions()
                others.add(sample.information_state_string(1 - seat))
            assert len(others) > 1  # the opponent's hidden cards really are redrawn
            checked += 1
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
    assert checked >= 3


def test_full_game_of_openspiel_ismcts_bot_against_ours() -> None:
    """OpenSpiel's ISMCTS bot (its Python implementation: the C++ ISMCTSBot crashes on every Python
    game, OpenSpiel's own python_kuhn_poker included) against this project's greedy agent."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game("precon", max_turns=40)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        uct_c=2.0,
        max_simulations=15,
        random_state=rng,
    )
    ours = make_agent("greedy", 1)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            continue
        action = bot.step(state) if state.current_player() == 0 else O.agent_action(ours, state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions > 10
    assert sum(state.returns()) == 0 and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiel_mcts_bot_plays_moves() -> None:
    from open_spiel.python.algorithms import mcts

    game = _game("precon", max_turns=20)
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 2.0, 10, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = _random_state(game, 30, seed=3)
    for _ in range(3):
        if state.is_terminal() or state.is_chance_node():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
