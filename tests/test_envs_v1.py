"""The -v1 environments: the libraries' stock checks with default options, the new defaults, state(),
the human render mode and the turn-based parallel duel; -v0 keeps its behaviour."""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("PIL")  # the rl extra's Pillow: the stock checks render rgb_array boards

from clashofdecks.envs import DUEL_V1_ID, OBSERVATION_LAYOUT, SOLO_V1_ID  # noqa: E402
from clashofdecks.errors import IllegalActionError  # noqa: E402

_PZ_KNOWN_WARNINGS = (
    "Observation space for each agent probably should be",  # every classic game's dict observation
    "Observation is not a NumPy array",
    "The old environment creation API has been deprecated",  # importing pettingzoo.test's examples
)


def _unexpected(caught: list[warnings.WarningMessage]) -> list[str]:
    # A ResourceWarning is the garbage collector finding a file an earlier test left open (it fires
    # wherever collection happens to run), not a warning of these checks.
    return [
        str(w.message)
        for w in caught
        if not str(w.message).startswith(_PZ_KNOWN_WARNINGS) and not issubclass(w.category, ResourceWarning)
    ]


# ---------------------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize("env_id", [SOLO_V1_ID, DUEL_V1_ID])
def test_check_env_passes_with_default_options(env_id: str) -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gym.make(env_id).unwrapped)


def test_check_env_refuses_v0_with_default_options() -> None:
    """-v0 is unchanged: its default is still the error, which Gymnasium's random actions hit."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        env = gym.make("ClashOfDecks/Solo-v0").unwrapped
    assert env.illegal_action == "error"
    with pytest.raises(IllegalActionError):
        check_env(env)


@pytest.mark.parametrize("env_id", [SOLO_V1_ID, DUEL_V1_ID])
def test_v1_penalises_an_illegal_action_by_default_and_errors_on_request(env_id: str) -> None:
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    history = list(env.game.history)
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated, info2["illegal_action"]) == (-1.0, False, False, True)
    np.testing.assert_array_equal(obs, obs2)
    assert env.game.history == history
    strict = gym.make(env_id, illegal_action="error").unwrapped
    _, info = strict.reset(seed=3)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_human_render_prints_the_board_on_v1_only() -> None:
    env = gym.make(SOLO_V1_ID, render_mode="human")
    env.reset(seed=2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert env.render() is None
    assert "learner" in out.getvalue().lower()  # the board printed, naming the learner
    from clashofdecks.envs.gym_env import SoloEnv

    with pytest.raises(ValueError, match="render_mode"):
        SoloEnv(render_mode="human")  # -v0 as it was


# ---------------------------------------------------------------------------- PettingZoo


@pytest.mark.parametrize(
    "kwargs", [{}, {"format": "precon"}, {"format": "custom", "observation": "infostate"}]
)
def test_pettingzoo_stock_tests_pass_with_default_options(kwargs: dict[str, Any]) -> None:
    from pettingzoo.test import (
        api_test,
        parallel_api_test,
        parallel_seed_test,
        render_test,
        seed_test,
        state_test,
    )

    from clashofdecks.envs.pettingzoo_v1 import env, parallel_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(**kwargs), num_cycles=200)
        seed_test(lambda: env(**kwargs), num_cycles=200)
        parallel_api_test(parallel_env(**kwargs), num_cycles=200)
        parallel_seed_test(lambda: parallel_env(**kwargs), num_cycles=200)
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            render_test(lambda render_mode: env(render_mode=render_mode, **kwargs))
        # state_test steps unmasked random actions: the penalty default keeps the game going.
        state_test(env(**kwargs), parallel_env(**kwargs), num_cycles=50)
    assert printed.getvalue()  # the human mode printed boards
    assert _unexpected(caught) == []


def test_state_is_both_seats_observations_and_shows_both_hands() -> None:
    from clashofdecks.envs.pettingzoo_v1 import STATE_SIZE, raw_env

    e = raw_env(format="random")
    e.reset(seed=5)
    while e.match.game.phase == "setup":
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    state = e.state()
    size = OBSERVATION_LAYOUT.size
    assert state.shape == (STATE_SIZE,) == (2 * size,) and e.state_space.contains(state)
    np.testing.assert_array_equal(state[:size], e.observe("player_0")["observation"])
    np.testing.assert_array_equal(state[size:], e.observe("player_1")["observation"])
    # Seat 1's hand, hidden from seat 0 (its 'hidden' column), is in the state by identity.
    mine = OBSERVATION_LAYOUT.split(state[size:])["hand_me"]
    theirs = OBSERVATION_LAYOUT.split(state[:size])["hand_opp"]
    assert mine[:, :32].sum() > theirs[:, :32].sum()


def test_parallel_env_plays_the_aec_game_and_ignores_the_other_seat() -> None:
    from clashofdecks.envs.pettingzoo_v1 import parallel_env, raw_env

    par, aec = parallel_env(), raw_env()
    obs, infos = par.reset(seed=9)
    aec.reset(seed=9)
    rng = np.random.default_rng(0)
    steps = 0
    while par.agents:
        mover = infos["player_0"]["to_move"]
        assert mover == aec.agent_selection and infos["player_1"]["to_move"] == mover
        other = "player_1" if mover == "player_0" else "player_0"
        assert not obs[other]["action_mask"].any()
        for agent in ("player_0", "player_1"):
            np.testing.assert_array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
        action = int(rng.choice(np.flatnonzero(obs[mover]["action_mask"])))
        obs, rewards, terms, truncs, infos = par.step({mover: action, other: 123})
        aec.step(action)
        steps += 1
    assert steps > 20
    assert set(rewards.values()) <= {-1.0, 0.0, 1.0} and sum(rewards.values()) == 0.0
    assert all(terms.values()) or all(truncs.values())
    with pytest.raises(RuntimeError, match="reset"):
        par.step({"player_0": 0})


def test_parallel_env_refuses_a_missing_decision_and_changes_nothing() -> None:
    from clashofdecks.envs.pettingzoo_v1 import parallel_env

    par = parallel_env()
    obs, infos = par.reset(seed=1)
    mover = infos["player_0"]["to_move"]
    other = "player_1" if mover == "player_0" else "player_0"
    before = par.state()
    with pytest.raises(ValueError, match="must choose"):
        par.step({other: 0})
    np.testing.assert_array_equal(before, par.state())
    illegal = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    _, rewards, _, _, infos = par.step({mover: illegal})
    assert rewards[mover] == -1.0 and infos[mover]["illegal_action"] and not infos[other]["illegal_action"]
    np.testing.assert_array_equal(before, par.state())
