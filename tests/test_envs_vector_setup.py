"""The compiled batch through the setup stage (R2: draft, precon, custom; R7.1: the solo draft and deck
choice) and the solo game against the automaton: sub-env i follows the single -v1 environment seeded
seed + i exactly (observations, masks, rewards, flags, infos), through setup and play, with autoreset;
without the compiled core the Python batch gives the same results."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")

from clashofdecks import actions as A  # noqa: E402
from clashofdecks import native  # noqa: E402
from clashofdecks.envs import DUEL_V1_ID, OBSERVATION_LAYOUT, SOLO_V1_ID  # noqa: E402
from clashofdecks.options import Ruleset, Threat  # noqa: E402

compiled = pytest.mark.skipif(not native.AVAILABLE, reason=native.engine_notice())

_S = OBSERVATION_LAYOUT.slices
_SETUP_PHASE = _S["phase"].start  # the phase one-hot's first column: setup
_INFO_KEYS = ("action_mask", "seat", "turn", "illegal_action")
_THREAT = Threat(
    extra_mana_per_creature=2,
    resilience="fort",
    defence="minus_one",
    starts="automaton",
    abilities=("splash", "rage", "berserk"),
)


def _batch(env_id: str, n: int, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def _random_actions(rng: Any, masks: Any) -> Any:
    return np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])


class _SingleEnvs:
    """The reference: N single -v1 environments seeded seed + i, autoreset by hand (NEXT_STEP)."""

    def __init__(self, env_id: str, n: int, seed: int, **kwargs: Any) -> None:
        self.envs = [gym.make(env_id, **kwargs).unwrapped for _ in range(n)]
        results = [env.reset(seed=seed + i) for i, env in enumerate(self.envs)]
        self.obs = np.stack([r[0] for r in results])
        self.infos = [r[1] for r in results]
        self.done = [False] * len(self.envs)

    def step(self, actions: Any) -> list[tuple[Any, float, bool, bool, dict[str, Any]]]:
        out = []
        for i, env in enumerate(self.envs):
            if self.done[i]:
                obs, info = env.reset()
                result = (obs, 0.0, False, False, info)
            else:
                result = env.step(int(actions[i]))
            self.done[i] = result[2] or result[3]
            out.append(result)
        return out


def _assert_infos(info: dict[str, Any], expected: list[dict[str, Any]]) -> None:
    for key in _INFO_KEYS:
        np.testing.assert_array_equal(info[key], np.stack([e[key] for e in expected]), err_msg=key)
        assert info[f"_{key}"].all()
    for i, e in enumerate(expected):
        ended = "winner" in e
        assert bool(info.get("_winner", np.zeros(len(expected)))[i]) == ended
        if ended:
            assert (info["winner"][i], info["termination"][i]) == (e["winner"], e["termination"])


@compiled
@pytest.mark.parametrize(
    ("env_id", "kwargs", "n", "seed", "steps"),
    [
        (DUEL_V1_ID, {}, 6, 40, 300),  # the default: the draft against random
        (DUEL_V1_ID, {"opponent": "greedy"}, 3, 7, 200),
        (DUEL_V1_ID, {"format": "precon"}, 4, 1000, 200),
        (DUEL_V1_ID, {"format": "custom", "illegal_penalty": -0.5}, 4, 3, 200),
        (DUEL_V1_ID, {"opponent": "greedy", "format": "custom", "max_turns": 5}, 3, 12, 150),
        (DUEL_V1_ID, {"ruleset": Ruleset(first_player="last_draft_pick", lanes="rotated")}, 3, 91, 200),
        (SOLO_V1_ID, {}, 4, 40, 300),  # the default: the draft, level 0
        (SOLO_V1_ID, {"level": 5}, 3, 5, 200),
        (SOLO_V1_ID, {"format": "precon", "level": 3, "max_turns": 4}, 4, 77, 200),
        (SOLO_V1_ID, {"threat": _THREAT, "ruleset": Ruleset(automaton_lanes="per_card")}, 3, 2, 200),
    ],
)
def test_compiled_batch_follows_single_environments_through_setup_and_play(
    env_id: str, kwargs: dict[str, Any], n: int, seed: int, steps: int
) -> None:
    batch = _batch(env_id, n, **kwargs)
    assert batch.unwrapped.backend == "compiled"
    single = _SingleEnvs(env_id, n, seed, **kwargs)
    obs, info = batch.reset(seed=seed)
    np.testing.assert_array_equal(obs, single.obs)
    _assert_infos(info, single.infos)
    rng = np.random.default_rng(seed)
    ended = resets = setup_steps = illegal = 0
    was_done = np.zeros(n, dtype=bool)
    for _ in range(steps):
        setup_steps += int(obs[:, _SETUP_PHASE].sum())
        actions = _random_actions(rng, info["action_mask"])
        if rng.random() < 0.05:
            actions[0] = int(np.flatnonzero(info["action_mask"][0] == 0)[-1])  # penalised, or ignored
        obs, rewards, terminated, truncated, info = batch.step(actions)
        expected = single.step(actions)
        np.testing.assert_array_equal(obs, np.stack([e[0] for e in expected]))
        np.testing.assert_array_equal(rewards, [e[1] for e in expected])
        np.testing.assert_array_equal(terminated, [e[2] for e in expected])
        np.testing.assert_array_equal(truncated, [e[3] for e in expected])
        _assert_infos(info, [e[4] for e in expected])
        resets += int(was_done.sum())
        was_done = terminated | truncated
        ended += int(was_done.sum())
        illegal += int(info["illegal_action"].sum())
    assert ended >= 2 and resets >= 1 and setup_steps >= n  # autoreset and the setup were exercised
    assert illegal >= 1


@compiled
@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        (DUEL_V1_ID, {"opponent": "greedy"}),
        (DUEL_V1_ID, {"format": "custom", "copy": False}),
        (SOLO_V1_ID, {"threat": _THREAT, "max_turns": 300}),
    ],
)
def test_compiled_uint8_batch_equals_the_python_uint8_batch(env_id: str, kwargs: dict[str, Any]) -> None:
    ours = _batch(env_id, 4, observation_dtype="uint8", **kwargs)
    python = _batch(env_id, 4, observation_dtype="uint8", backend="python", **kwargs)
    assert (ours.unwrapped.backend, python.unwrapped.backend) == ("compiled", "python")
    (o1, i1), (o2, i2) = ours.reset(seed=11), python.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(200):
        assert o1.dtype == o2.dtype == np.uint8
        np.testing.assert_array_equal(o1, o2)
        assert sorted(i1) == sorted(i2)
        for key in i1:
            np.testing.assert_array_equal(i1[key], i2[key], err_msg=key)
        actions = _random_actions(rng, i1["action_mask"])
        o1, r1, t1, u1, i1 = ours.step(actions)
        o2, r2, t2, u2, i2 = python.step(actions)
        for a, b in ((r1, r2), (t1, t2), (u1, u2)):
            np.testing.assert_array_equal(a, b)


@compiled
def test_the_draft_is_the_learners_steps_and_the_coin_toss_decides_its_seat() -> None:
    """R2.3a/R2.4: the coin's winner is player A, seat 0, and picks first; as B the learner first sees
    the opponent's pick and 3 face-up cards.  In solo (R7.1) the learner picks 1 of 4 and the automaton
    gets the other 3."""
    n = 24
    batch = _batch(DUEL_V1_ID, n)
    obs, info = batch.reset(seed=5)
    picks = np.zeros(A.ACTION_SPACE, dtype=bool)
    picks[A.PICK_BASE : A.BAN_BASE] = True
    assert (obs[:, _SETUP_PHASE] == 1).all()
    assert not info["action_mask"][:, ~picks].any()
    seats = info["seat"]
    assert set(seats) == {0, 1}
    revealed = obs[:, _S["setup_revealed"].start : _S["setup_revealed"].stop].sum(axis=1)
    cards = obs[:, _S["setup_cards"].start : _S["setup_cards"].stop].reshape(n, 2, -1).sum(axis=2)
    np.testing.assert_array_equal(revealed, np.where(seats == 0, 4, 3))
    np.testing.assert_array_equal(cards[:, 1], np.where(seats == 0, 0, 1))
    np.testing.assert_array_equal(info["action_mask"].sum(axis=1), revealed)

    solo = _batch(SOLO_V1_ID, 2)
    obs, info = solo.reset(seed=5)
    assert (info["action_mask"].sum(axis=1) == 4).all() and (info["seat"] == 0).all()
    obs, *_ = solo.step(_random_actions(np.random.default_rng(0), info["action_mask"]))
    cards = obs[:, _S["setup_cards"].start : _S["setup_cards"].stop].reshape(2, 2, -1).sum(axis=2)
    np.testing.assert_array_equal(cards, [[1, 3], [1, 3]])


def test_without_the_core_the_python_batch_gives_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback: with the compiled core (where built) and without it, the same games."""
    runs = []
    for available in (native.AVAILABLE, False):
        monkeypatch.setattr(native, "AVAILABLE", available)
        duel, solo = _batch(DUEL_V1_ID, 3), _batch(SOLO_V1_ID, 3, level=4)
        results = []
        for batch in (duel, solo):
            assert batch.unwrapped.backend == ("compiled" if available else "python")
            rng = np.random.default_rng(3)
            obs, info = batch.reset(seed=3)
            for _ in range(60):
                obs, rewards, _t, _u, info = batch.step(_random_actions(rng, info["action_mask"]))
                results.append((obs, rewards, info["action_mask"], info["seat"]))
        runs.append(results)
    for a, b in zip(*runs, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


@compiled
def test_the_setup_constants_are_the_python_ones() -> None:
    from clashofdecks._native import LAYOUT
    from clashofdecks.envs.vector import SETUP_LAYOUT

    assert native.layout_differences(LAYOUT, SETUP_LAYOUT) == []
    assert native.layout_differences({**LAYOUT, "SETUP_VERB_BAN": 2}, SETUP_LAYOUT) == [
        "SETUP_VERB_BAN: C 2, Python 3"
    ]


@compiled
def test_importing_the_batch_with_a_changed_setup_constant_fails_clearly() -> None:
    """A Python definition changed without the C core (simulated: the setup verbs reordered before
    the batch is imported): the import fails and names the constants."""
    import subprocess
    import sys

    code = (
        "import clashofdecks.encoding as E\n"
        "E.SETUP_VERBS = ('pick', 'deck', 'build', 'ban')\n"
        "try:\n"
        "    import clashofdecks.envs.vector\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "SETUP_VERB_DECK: C 0, Python 1; SETUP_VERB_PICK: C 1, Python 0" in out, out


@compiled
def test_a_bad_game_start_is_refused_and_deals_nothing() -> None:
    from clashofdecks import _native

    batch = _batch(SOLO_V1_ID, 2)
    batch.reset(seed=0)
    inner = batch.unwrapped._compiled._batch  # the compiled batch (envs/compiled_batch.py)
    before = bytes(inner.slots)
    out = batch.unwrapped
    args = (inner.slots, np.arange(2, dtype=np.int64), inner.capsules, inner.config)
    arrays = (out._obs, out._masks, out._turns, out._seats)
    with pytest.raises(ValueError, match="83 numbers"):
        _native.batch_reset(*args, (0,) * 5, inner.spec, *arrays)
    duel_start = (1, 0, *inner.game[2:])  # a duel's start with a solo configuration
    with pytest.raises(ValueError, match="disagree on solo"):
        _native.batch_reset(*args, duel_start, inner.spec, *arrays)
    assert bytes(inner.slots) == before


@compiled
@pytest.mark.slow
@pytest.mark.parametrize(
    ("env_id", "opponent"), [(DUEL_V1_ID, "random"), (DUEL_V1_ID, "greedy"), (SOLO_V1_ID, "")]
)
def test_many_seeds_compiled_equals_the_python_batch(env_id: str, opponent: str) -> None:
    """The defaults over 48 seeds (1000 + i) and several games each: the compiled batch and the Python
    batch (single environments) give the same observations, masks, rewards, flags and infos."""
    kwargs = {"opponent": opponent} if opponent else {}
    ours = _batch(env_id, 48, **kwargs)
    python = _batch(env_id, 48, backend="python", **kwargs)
    assert ours.unwrapped.backend == "compiled"
    (o1, i1), (o2, i2) = ours.reset(seed=1000), python.reset(seed=1000)
    rng = np.random.default_rng(1000)
    ended = 0
    for _ in range(250):
        np.testing.assert_array_equal(o1, o2)
        assert sorted(i1) == sorted(i2)
        for key in i1:
            np.testing.assert_array_equal(i1[key], i2[key], err_msg=key)
        actions = _random_actions(rng, i1["action_mask"])
        o1, r1, t1, u1, i1 = ours.step(actions)
        o2, r2, t2, u2, i2 = python.step(actions)
        for a, b in ((r1, r2), (t1, t2), (u1, u2)):
            np.testing.assert_array_equal(a, b)
        ended += int((t1 | u1).sum())
    assert ended >= 48
