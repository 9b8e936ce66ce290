"""The batched -v1 environments (gymnasium.make_vec with vectorization_mode="vector_entry_point"):
sub-env i follows the single -v1 environment seeded seed + i exactly, autoreset, masks, seeds, bad
input."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
gym = pytest.importorskip("gymnasium")

from clashofdecks import actions as A  # noqa: E402
from clashofdecks.envs import DUEL_V1_ID, OBSERVATION_LAYOUT, SOLO_V1_ID  # noqa: E402
from clashofdecks.envs.vector import ClashOfDecksVectorEnv  # noqa: E402
from clashofdecks.errors import IllegalActionError  # noqa: E402
from clashofdecks.options import Ruleset  # noqa: E402


def _batch(env_id: str, n: int, **kwargs: Any) -> Any:
    return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def _random_actions(rng: Any, masks: Any) -> Any:
    return np.array([int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in masks])


class _SingleEnvs:
    """The reference: N single -v1 environments seeded seed + i, autoreset by hand (NEXT_STEP)."""

    def __init__(self, env_id: str, n: int, seed: int, **kwargs: Any) -> None:
        self.envs = [gym.make(env_id, **kwargs).unwrapped for _ in range(n)]
        results = [env.reset(seed=seed + i) for i, env in enumerate(self.envs)]
        self.obs = [r[0] for r in results]
        self.infos = [r[1] for r in results]
        self.done = [False] * n

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


@pytest.mark.parametrize(
    ("env_id", "kwargs", "n", "steps"),
    [
        (DUEL_V1_ID, {}, 6, 400),
        (DUEL_V1_ID, {"opponent": "greedy", "format": "precon"}, 3, 150),
        (SOLO_V1_ID, {"level": 2}, 4, 300),
        (SOLO_V1_ID, {"format": "precon", "max_turns": 3}, 4, 200),
    ],
)
def test_batch_follows_single_environments_seeded_seed_plus_i(
    env_id: str, kwargs: dict[str, Any], n: int, steps: int
) -> None:
    batch = _batch(env_id, n, **kwargs)
    assert isinstance(batch.unwrapped, ClashOfDecksVectorEnv)
    single = _SingleEnvs(env_id, n, 40, **kwargs)
    obs, info = batch.reset(seed=40)
    np.testing.assert_array_equal(obs, np.stack(single.obs))
    np.testing.assert_array_equal(info["action_mask"], np.stack([i["action_mask"] for i in single.infos]))
    rng = np.random.default_rng(1)
    ended = resets = 0
    was_done = np.zeros(n, dtype=bool)
    for _ in range(steps):
        actions = _random_actions(rng, info["action_mask"])
        if rng.random() < 0.05:
            actions[0] = int(np.flatnonzero(info["action_mask"][0] == 0)[0])  # penalised, or ignored
        obs, rewards, terminated, truncated, info = batch.step(actions)
        expected = single.step(actions)
        np.testing.assert_array_equal(obs, np.stack([e[0] for e in expected]))
        np.testing.assert_array_equal(rewards, [e[1] for e in expected])
        np.testing.assert_array_equal(terminated, [e[2] for e in expected])
        np.testing.assert_array_equal(truncated, [e[3] for e in expected])
        for key in ("action_mask", "seat", "turn", "illegal_action"):
            np.testing.assert_array_equal(info[key], np.stack([e[4][key] for e in expected]), err_msg=key)
            assert info[f"_{key}"].all()
        for i, e in enumerate(expected):
            assert bool(info.get("_winner", np.zeros(n))[i]) == ("winner" in e[4])
            if "winner" in e[4]:
                assert (info["winner"][i], info["termination"][i]) == (e[4]["winner"], e[4]["termination"])
        resets += int(was_done.sum())
        was_done = terminated | truncated
        ended += int(was_done.sum())
    assert ended >= 2 and resets >= 1  # autoreset was exercised
    batch.close()


def test_batch_equals_gymnasiums_sync_vector_env_including_infos() -> None:
    n = 5
    ours = _batch(DUEL_V1_ID, n)
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(DUEL_V1_ID).unwrapped for _ in range(n)])
    (o1, i1), (o2, i2) = ours.reset(seed=8), sync.reset(seed=8)
    rng = np.random.default_rng(2)
    for _ in range(250):
        np.testing.assert_array_equal(o1, o2)
        assert sorted(i1) == sorted(i2)
        for key in i1:
            assert i1[key].dtype == i2[key].dtype, key
            np.testing.assert_array_equal(i1[key], i2[key], err_msg=key)
        actions = _random_actions(rng, i1["action_mask"])
        o1, r1, t1, u1, i1 = ours.step(actions)
        o2, r2, t2, u2, i2 = sync.step(actions)
        for a, b in ((r1, r2), (t1, t2), (u1, u2)):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_autoreset_next_step_ignores_the_action_and_starts_a_new_game() -> None:
    batch = _batch(SOLO_V1_ID, 2, max_turns=1)
    _, info = batch.reset(seed=0)
    rng = np.random.default_rng(3)
    done = np.zeros(2, dtype=bool)
    while not done[0]:
        _, _, terminated, truncated, info = batch.step(_random_actions(rng, info["action_mask"]))
        done = terminated | truncated
    assert not info["action_mask"][0].any()  # the finished game has no legal action
    actions = _random_actions(rng, info["action_mask"])
    actions[0] = A.ACTION_SPACE + 5  # ignored: this sub-env resets
    _obs, rewards, terminated, truncated, info = batch.step(actions)
    assert (rewards[0], terminated[0], truncated[0]) == (0.0, False, False)
    assert info["action_mask"][0].any() and info["turn"][0] == 1


def test_masks_are_the_engines_legal_actions_and_seeds_reproduce() -> None:
    batch = _batch(DUEL_V1_ID, 4, format="random", backend="python")  # (reads the sub-envs' games)
    obs, info = batch.reset(seed=[5, 6, 7, 8])
    envs = batch.unwrapped.envs
    assert info["action_mask"].shape == (4, A.ACTION_SPACE) and info["action_mask"].dtype == np.int8
    assert obs.shape == (4, OBSERVATION_LAYOUT.size) and obs.dtype == np.float32
    for i, env in enumerate(envs):
        legal = set(env.game.legal_actions()) if env.game.current_player == env.seat else set()
        assert set(np.flatnonzero(info["action_mask"][i]).tolist()) == legal
    same_obs, _ = _batch(DUEL_V1_ID, 4, format="random").reset(seed=5)
    np.testing.assert_array_equal(obs, same_obs)
    other, _ = batch.reset(seed=6)
    assert not np.array_equal(obs, other)
    np.testing.assert_array_equal(obs[1:], other[:3])  # sub-env i is seeded seed + i


def test_bad_batches_are_refused_and_change_nothing() -> None:
    batch = _batch(DUEL_V1_ID, 3, illegal_action="error")
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(3, dtype=int))
    _obs, info = batch.reset(seed=2)
    histories = [list(env.game.history) for env in batch.unwrapped.envs]
    legal = _random_actions(np.random.default_rng(0), info["action_mask"])
    for bad, error in (
        (legal[:2], ValueError),
        (np.array([legal[0], legal[1], A.ACTION_SPACE]), ValueError),
        (
            np.array([legal[0], legal[1], int(np.flatnonzero(info["action_mask"][2] == 0)[0])]),
            IllegalActionError,
        ),
    ):
        with pytest.raises(error):
            batch.step(bad)
        assert [list(env.game.history) for env in batch.unwrapped.envs] == histories
    with pytest.raises(ValueError, match="num_envs"):
        _batch(DUEL_V1_ID, 0)
    with pytest.raises(ValueError, match="seeds"):
        batch.reset(seed=[1, 2])


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_the_vector_checks_seeds_as_the_self_play_batch_does(backend: str) -> None:
    """Issue 37, item 4: one seed check for both batches (the vector took a negative seed to its
    sub-environments, which refused it one by one after the first were reset)."""
    from clashofdecks.envs.selfplay import SelfPlayBatch

    if backend == "compiled" and _batch(SOLO_V1_ID, 1).unwrapped._compiled is None:
        pytest.skip("no compiled core here")
    batch = _batch(SOLO_V1_ID, 2, backend=backend)
    obs, _ = batch.reset(seed=5)
    selfplay = SelfPlayBatch(2)
    for bad in (-1, True, [3, -4], [1, 2.5]):
        with pytest.raises(ValueError, match="seed"):
            batch.reset(seed=bad)
        with pytest.raises(ValueError, match="seed"):
            selfplay.reset(seed=bad)
        np.testing.assert_array_equal(batch.unwrapped._observations(), obs)  # nothing changed


def test_one_module_calls_the_compiled_batch() -> None:
    """Issue 37, item 4: ``batch_reset`` and ``batch_step`` are called in envs/compiled_batch.py only;
    the vector environment and the self-play batch are its adapters."""
    from pathlib import Path

    import clashofdecks.envs as envs

    callers = sorted(
        path.name
        for path in Path(envs.__file__).parent.glob("*.py")
        if "_native.batch_reset(" in path.read_text(encoding="utf-8")
        or "_native.batch_step(" in path.read_text(encoding="utf-8")
    )
    assert callers == ["compiled_batch.py"]


def test_partial_reset_with_a_reset_mask() -> None:
    batch = _batch(SOLO_V1_ID, 3)
    obs, info = batch.reset(seed=1)
    obs, _, _, _, info = batch.step(_random_actions(np.random.default_rng(0), info["action_mask"]))
    again, info2 = batch.reset(seed=[None, 2, None], options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(again[[0, 2]], obs[[0, 2]])
    np.testing.assert_array_equal(again[1], gym.make(SOLO_V1_ID).reset(seed=2)[0])
    assert info2["_action_mask"].tolist() == [False, True, False]


def test_batched_benchmark_measures_every_batched_environment() -> None:
    from clashofdecks.envs.bench import BATCHED_ENVS, format_envs_bench, run_batched_bench

    results = run_batched_bench(num_envs=3, seconds=0.02, rounds=1)
    assert set(results["steps_per_second"]) == {label for label, _, _ in BATCHED_ENVS}
    assert all(v > 0 for v in results["steps_per_second"].values())
    text = format_envs_bench(
        {"definition": "-", "steps_per_second": {}, "goal_steps_per_second": 1, "batched": results}
    )
    assert "N = 3" in text and "500,000" in text


# ---------------------------------------------------------------------------- the compiled batch


def _compiled_or_skip() -> None:
    from clashofdecks import native

    if not native.AVAILABLE:
        pytest.skip(native.engine_notice())


@pytest.mark.parametrize(
    ("n", "seed", "kwargs"),
    [
        (8, 3, {}),
        (5, 100, {"max_turns": 4}),
        (3, 7, {"illegal_penalty": -0.25}),
        # another ruleset: the core deals under its configuration
        (4, 9, {"ruleset": Ruleset(protection="any_damage", incantation_timing="summon_only")}),
    ],
)
def test_compiled_batch_equals_the_python_batch(n: int, seed: int, kwargs: dict[str, Any]) -> None:
    """The differential test: the same seeds and actions (random legal ones, and illegal ones now and
    then) give the same observations, masks, rewards, flags and infos in both backends, over many
    games and autoresets."""
    _compiled_or_skip()
    compiled = _batch(DUEL_V1_ID, n, format="random", **kwargs)
    python = _batch(DUEL_V1_ID, n, format="random", backend="python", **kwargs)
    assert (compiled.unwrapped.backend, python.unwrapped.backend) == ("compiled", "python")
    (o1, i1), (o2, i2) = compiled.reset(seed=seed), python.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = illegal = 0
    for _ in range(600):
        np.testing.assert_array_equal(o1, o2)
        assert sorted(i1) == sorted(i2)
        for key in i1:
            assert i1[key].dtype == i2[key].dtype, key
            np.testing.assert_array_equal(i1[key], i2[key], err_msg=key)
        actions = _random_actions(rng, i1["action_mask"])
        if rng.random() < 0.1:
            actions[0] = int(np.flatnonzero(i1["action_mask"][0] == 0)[-1])
        o1, r1, t1, u1, i1 = compiled.step(actions)
        o2, r2, t2, u2, i2 = python.step(actions)
        for a, b in ((r1, r2), (t1, t2), (u1, u2)):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
        ended += int((t1 | u1).sum())
        illegal += int(i1["illegal_action"].sum())
    assert ended >= 10 and illegal >= 5


def test_compiled_batch_follows_single_environments() -> None:
    _compiled_or_skip()
    n = 4
    batch = _batch(DUEL_V1_ID, n, format="random")
    assert batch.unwrapped.backend == "compiled"
    single = _SingleEnvs(DUEL_V1_ID, n, 21, format="random")
    obs, info = batch.reset(seed=21)
    rng = np.random.default_rng(4)
    for _ in range(300):
        np.testing.assert_array_equal(obs, np.stack(single.obs))
        actions = _random_actions(rng, info["action_mask"])
        obs, rewards, terminated, truncated, info = batch.step(actions)
        expected = single.step(actions)
        single.obs = [e[0] for e in expected]
        np.testing.assert_array_equal(rewards, [e[1] for e in expected])
        np.testing.assert_array_equal(terminated | truncated, [e[2] or e[3] for e in expected])
        np.testing.assert_array_equal(info["action_mask"], np.stack([e[4]["action_mask"] for e in expected]))


def test_backend_choice_and_refusals() -> None:
    from clashofdecks import native

    python_only = _batch(DUEL_V1_ID, 2, opponent="mcts:10")  # a search agent: Python only
    assert python_only.unwrapped.backend == "python"
    with pytest.raises(ValueError, match="observation vector"):
        _batch(DUEL_V1_ID, 2, observation="infostate", backend="compiled")
    with pytest.raises(ValueError, match="random or the greedy agent"):
        _batch(DUEL_V1_ID, 2, format="random", opponent="mcts:10", backend="compiled")
    with pytest.raises(ValueError, match="observation_dtype"):
        _batch(DUEL_V1_ID, 2, observation_dtype="float16")
    with pytest.raises(ValueError, match="infostate"):
        _batch(DUEL_V1_ID, 2, observation_dtype="uint8", observation="infostate")
    with pytest.raises(ValueError, match="backend"):
        _batch(DUEL_V1_ID, 2, backend="gpu")
    if native.AVAILABLE:
        batch = _batch(DUEL_V1_ID, 3, format="random")
        _, info = batch.reset(seed=0)
        before = batch.unwrapped._compiled._batch.slots[:]
        with pytest.raises(ValueError, match="outside the action space"):
            batch.step(np.array([0, 780, 1]))
        assert batch.unwrapped._compiled._batch.slots == before  # nothing moved
        # Actions of another dtype are taken as the single environment takes them.
        legal = _random_actions(np.random.default_rng(1), info["action_mask"])
        twin = _batch(DUEL_V1_ID, 3, format="random")
        twin.reset(seed=0)
        np.testing.assert_array_equal(batch.step(legal.astype(float))[0], twin.step(legal)[0])


def test_compiled_batch_without_the_core_falls_back_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    from clashofdecks import native

    monkeypatch.setattr(native, "AVAILABLE", False)
    batch = _batch(DUEL_V1_ID, 2, format="random")
    assert batch.unwrapped.backend == "python"
    with pytest.raises(ValueError, match="compiled"):
        _batch(DUEL_V1_ID, 2, format="random", backend="compiled")


def test_the_cores_generator_seeding_is_pythons() -> None:
    """The agent's generator of a dealt game is random.Random(seed), seeded in the core."""
    import random

    _compiled_or_skip()
    from clashofdecks import _native

    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 2, 123_456_789_012_345_678):
        assert _native.mt_seeded_state(seed) == random.Random(seed).getstate()[1], seed


# ---------------------------------------------------------------------------- options of the batch


def _step_both(a: Any, b: Any, actions: Any) -> tuple[Any, Any]:
    return a.step(actions), b.step(actions)


def _assert_same_results(r1: Any, r2: Any) -> None:
    """Rewards, flags and infos (all keys, dtypes and values) of two batches' step results."""
    for x, y in zip(r1[1:4], r2[1:4], strict=True):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    _assert_same_infos(r1[4], r2[4])


def _assert_same_infos(i1: dict[str, Any], i2: dict[str, Any]) -> None:
    assert sorted(i1) == sorted(i2)
    for key in i1:
        assert i1[key].dtype == i2[key].dtype, key
        np.testing.assert_array_equal(i1[key], i2[key], err_msg=key)


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        (DUEL_V1_ID, {"format": "random"}),
        (DUEL_V1_ID, {"format": "random", "max_turns": 300}),  # turn counts beyond 255 are capped
        (DUEL_V1_ID, {"format": "precon", "opponent": "greedy"}),
        (SOLO_V1_ID, {"level": 3}),
    ],
)
def test_uint8_observation_is_the_float_observations_counts(env_id: str, kwargs: dict[str, Any]) -> None:
    """The compact observation: the same games, each feature's count; counts x units is the float
    observation (bit for bit but the turn fraction), in either backend."""
    from clashofdecks.envs.compact import count_scales

    n, seed = 4, 12
    compact = _batch(env_id, n, observation_dtype="uint8", **kwargs)
    floats = _batch(env_id, n, **kwargs)
    assert compact.single_observation_space.dtype == np.uint8
    assert compact.observation_space.shape == (n, OBSERVATION_LAYOUT.size)
    units = compact.unwrapped.observation_units
    turn = OBSERVATION_LAYOUT.slices["turn"].start
    cap = kwargs.get("max_turns", 100)
    assert units[turn] == np.float32(1 / cap)
    (o1, i1), (o2, i2) = compact.reset(seed=seed), floats.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(250):
        assert o1.dtype == np.uint8 and o1 in compact.observation_space
        rebuilt = o1.astype(np.float32) * units
        others = np.ones(OBSERVATION_LAYOUT.size, dtype=bool)
        others[turn] = False
        np.testing.assert_array_equal(rebuilt[:, others], o2[:, others], err_msg=f"step {step}")
        np.testing.assert_allclose(rebuilt[:, turn], o2[:, turn], rtol=1e-6)
        expected_turns = np.minimum(np.minimum(i2["turn"], cap), 255)
        np.testing.assert_array_equal(o1[:, turn], expected_turns)
        r1, r2 = _step_both(compact, floats, _random_actions(rng, i1["action_mask"]))
        _assert_same_results(r1, r2)
        (o1, i1), (o2, i2) = (r1[0], r1[4]), (r2[0], r2[4])
    assert count_scales(cap)[turn] == cap


def test_compiled_uint8_batch_equals_the_python_uint8_batch() -> None:
    _compiled_or_skip()
    n, seed = 6, 31
    compiled = _batch(DUEL_V1_ID, n, format="random", observation_dtype="uint8")
    python = _batch(DUEL_V1_ID, n, format="random", observation_dtype="uint8", backend="python")
    assert (compiled.unwrapped.backend, python.unwrapped.backend) == ("compiled", "python")
    (o1, i1), (o2, i2) = compiled.reset(seed=seed), python.reset(seed=seed)
    _assert_same_infos(i1, i2)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(400):
        np.testing.assert_array_equal(o1, o2)
        actions = _random_actions(rng, i1["action_mask"])
        if rng.random() < 0.1:
            actions[0] = int(np.flatnonzero(i1["action_mask"][0] == 0)[-1])
        r1, r2 = _step_both(compiled, python, actions)
        _assert_same_results(r1, r2)
        (o1, i1), o2 = (r1[0], r1[4]), r2[0]
        ended += int((r1[2] | r1[3]).sum())
    assert ended >= 10


@pytest.mark.parametrize(("n", "seed", "kwargs"), [(5, 3, {}), (4, 77, {"observation_dtype": "uint8"})])
def test_compiled_batch_against_greedy_equals_the_python_batch(
    n: int, seed: int, kwargs: dict[str, Any]
) -> None:
    """The greedy agent in the core's batch: the same sample, scores and tie-breaks as the agent of the
    single environment, so the same games (observations, masks, rewards, flags, infos)."""
    _compiled_or_skip()
    compiled = _batch(DUEL_V1_ID, n, format="random", opponent="greedy", **kwargs)
    python = _batch(DUEL_V1_ID, n, format="random", opponent="greedy", backend="python", **kwargs)
    assert (compiled.unwrapped.backend, python.unwrapped.backend) == ("compiled", "python")
    (o1, i1), (o2, i2) = compiled.reset(seed=seed), python.reset(seed=seed)
    _assert_same_infos(i1, i2)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(300):
        np.testing.assert_array_equal(o1, o2)
        r1, r2 = _step_both(compiled, python, _random_actions(rng, i1["action_mask"]))
        _assert_same_results(r1, r2)
        (o1, i1), o2 = (r1[0], r1[4]), r2[0]
        ended += int((r1[2] | r1[3]).sum())
    assert ended >= 5


def test_compiled_batch_against_greedy_follows_single_environments() -> None:
    _compiled_or_skip()
    n = 3
    batch = _batch(DUEL_V1_ID, n, format="random", opponent="greedy")
    assert batch.unwrapped.backend == "compiled"
    single = _SingleEnvs(DUEL_V1_ID, n, 5, format="random", opponent="greedy")
    obs, info = batch.reset(seed=5)
    rng = np.random.default_rng(6)
    wins = 0
    for _ in range(200):
        np.testing.assert_array_equal(obs, np.stack(single.obs))
        actions = _random_actions(rng, info["action_mask"])
        obs, rewards, terminated, truncated, info = batch.step(actions)
        expected = single.step(actions)
        single.obs = [e[0] for e in expected]
        np.testing.assert_array_equal(rewards, [e[1] for e in expected])
        np.testing.assert_array_equal(terminated | truncated, [e[2] or e[3] for e in expected])
        np.testing.assert_array_equal(info["action_mask"], np.stack([e[4]["action_mask"] for e in expected]))
        wins += int((rewards < 0).sum())
    assert wins >= 2  # greedy beats a random learner: its games ended


@pytest.mark.parametrize("backend", ["auto", "python"])
def test_copy_false_hands_out_the_batchs_buffers_with_the_same_values(backend: str) -> None:
    n = 3
    shared = _batch(DUEL_V1_ID, n, format="random", copy=False, backend=backend)
    fresh = _batch(DUEL_V1_ID, n, format="random", backend=backend)
    (o1, i1), (o2, i2) = shared.reset(seed=4), fresh.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):
        np.testing.assert_array_equal(o1, o2)
        actions = _random_actions(rng, i1["action_mask"])
        r1, r2 = _step_both(shared, fresh, actions)
        _assert_same_results(r1, r2)
        (o1, i1), (o2, i2) = (r1[0], r1[4]), (r2[0], r2[4])
    again = shared.step(_random_actions(rng, i1["action_mask"]))
    assert again[0] is o1 and again[4]["action_mask"] is i1["action_mask"]  # the batch's own buffers
    assert fresh.step(_random_actions(rng, i2["action_mask"]))[0] is not o2


def test_read_only_actions_are_accepted_and_never_written() -> None:
    _compiled_or_skip()
    batch = _batch(DUEL_V1_ID, 3, format="random")
    _, info = batch.reset(seed=1)
    rng = np.random.default_rng(2)
    for _ in range(80):  # through autoresets: the resetting sub-envs' actions are ignored, not zeroed
        actions = _random_actions(rng, info["action_mask"]).astype(np.int64)
        actions.flags.writeable = False
        kept = actions.copy()
        _, _, _, _, info = batch.step(actions)
        np.testing.assert_array_equal(actions, kept)
