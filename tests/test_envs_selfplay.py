"""SelfPlayBatch: N games where the caller decides for both seats (envs/selfplay.py).

The Python backend against the rules engine driven directly (same seeds, same actions), the compiled
backend against the Python one, the checks of a bad batch (nothing changes), hidden information (R9:
the row is the mover's view) and the setup stage's decisions of both seats."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from clashofdecks import actions as A  # noqa: E402
from clashofdecks.encoding import OBSERVATION_LAYOUT, encode_observation, legal_mask  # noqa: E402
from clashofdecks.envs.gym_env import DuelEnvV1, SoloEnvV1  # noqa: E402
from clashofdecks.envs.match import ruleset_with_cap  # noqa: E402
from clashofdecks.envs.selfplay import SelfPlayBatch, compiled_unsupported  # noqa: E402
from clashofdecks.formats import start_game  # noqa: E402
from clashofdecks.options import Threat  # noqa: E402
from clashofdecks.rules import Game  # noqa: E402

_REASON = compiled_unsupported(DuelEnvV1())
compiled = pytest.mark.skipif(_REASON is not None, reason=f"compiled self-play: {_REASON}")
_S = OBSERVATION_LAYOUT.slices
_SETUP_PHASE = _S["phase"].start


def _random_actions(rng: Any, masks: Any) -> Any:
    return np.array([int(rng.choice(np.flatnonzero(m))) for m in masks], dtype=np.int64)


def _snapshot(batch: SelfPlayBatch) -> tuple[Any, ...]:
    return batch.obs, batch.mask, batch.mover, batch.turn


class _Reference:
    """Game i as the rules engine plays it: seeded as the single -v1 env's reset(seed + i) (its first
    draw of np_random is the game seed), every decision applied directly; autoreset from the same
    generator."""

    def __init__(self, mode: str, seed: int, n: int, **options: Any) -> None:
        self.mode = mode
        self.format = options.get("format", "draft")
        self.threat = Threat.level(options.get("level", 0)) if mode == "solo" else None
        self.ruleset = ruleset_with_cap(None, options.get("max_turns"))
        self.rngs = [np.random.default_rng(seed + i) for i in range(n)]
        self.games = [self._deal(i) for i in range(n)]

    def _deal(self, i: int) -> Game:
        game_seed = int(self.rngs[i].integers(0, 2**63 - 1, size=3)[0])
        return start_game(
            mode=self.mode,
            format=self.format,
            seed=game_seed,
            ruleset=self.ruleset,
            threat=self.threat,
            record_events=False,
        )

    def rows(self) -> tuple[Any, Any, Any]:
        movers = [g.current_player for g in self.games]
        obs = np.stack([encode_observation(g, m) for g, m in zip(self.games, movers, strict=True)])
        masks = np.stack([legal_mask(g, m) for g, m in zip(self.games, movers, strict=True)]).astype(bool)
        return obs, masks, np.array(movers)

    def step(self, actions: Any) -> tuple[list[bool], list[int], list[str | None]]:
        done, winners, reasons = [], [], []
        for i, game in enumerate(self.games):
            game.apply(int(actions[i]))
            outcome = game.outcome
            done.append(outcome is not None)
            winners.append(-2 if outcome is None else (-1 if outcome.winner is None else outcome.winner))
            reasons.append(None if outcome is None else outcome.termination.value)
            if outcome is not None:
                self.games[i] = self._deal(i)
        return done, winners, reasons


@pytest.mark.parametrize(
    ("mode", "options", "seed"),
    [
        ("duel", {}, 3),
        ("duel", {"format": "precon"}, 40),
        ("duel", {"format": "random"}, 8),
        ("solo", {"level": 0}, 1),
        ("solo", {"level": 4, "format": "precon"}, 12),
    ],
)
def test_python_backend_plays_the_rules_engine_for_both_seats(
    mode: str, options: dict[str, Any], seed: int
) -> None:
    """(b) and (d): each row is encode_observation / legal_mask of the game's mover (its view only,
    R9) in the game the rules engine plays from the same seed and the same actions."""
    n = 8
    batch = SelfPlayBatch(n, mode, backend="python", **options)
    batch.reset(seed=seed)
    reference = _Reference(mode, seed, n, **options)
    rng = np.random.default_rng(seed)
    ended = 0
    movers_seen: set[int] = set()
    for _ in range(150):
        obs, masks, movers = reference.rows()
        np.testing.assert_array_equal(batch.obs, obs)
        np.testing.assert_array_equal(batch.mask, masks)
        np.testing.assert_array_equal(batch.mover, movers)
        movers_seen.update(movers.tolist())
        actions = _random_actions(rng, masks)
        result = batch.step(actions)
        done, winners, reasons = reference.step(actions)
        np.testing.assert_array_equal(result.done, done)
        np.testing.assert_array_equal(result.winner, winners)
        assert result.reason.tolist() == reasons
        ended += sum(done)
    assert ended >= n  # several autoresets
    assert movers_seen == ({0} if mode == "solo" else {0, 1})


def test_the_first_rows_are_the_single_environments_deal() -> None:
    """Game i is dealt as the single -v1 environment's reset(seed=seed + i): where the single env's
    learner decides first, its observation is the batch's row."""
    n, seed = 16, 21
    batch = SelfPlayBatch(n, "duel", backend="python")
    batch.reset(seed=seed)
    compared = 0
    for i in range(n):
        env = DuelEnvV1()
        obs, info = env.reset(seed=seed + i)
        assert env.record().seed == int(np.random.default_rng(seed + i).integers(0, 2**63 - 1, size=3)[0])
        if not env.record().actions:  # the learner decides first
            assert info["seat"] == batch.mover[i]
            np.testing.assert_array_equal(obs, batch.obs[i])
            compared += 1
    assert compared >= 3
    solo = SelfPlayBatch(4, "solo", level=2, backend="python")
    solo.reset(seed=seed)
    for i in range(4):
        obs, _info = SoloEnvV1(level=2).reset(seed=seed + i)
        np.testing.assert_array_equal(obs, solo.obs[i])


def _backends() -> list[Any]:
    return ["python", pytest.param("compiled", marks=compiled)]


@pytest.mark.parametrize("backend", _backends())
def test_a_bad_batch_names_the_game_and_changes_nothing(backend: str) -> None:
    """(c) every action is checked before any game moves: the illegal one, one outside the action
    space, a wrong shape or dtype is a ValueError naming the game, and the batch goes on as a twin
    that never saw it."""
    n = 8
    batch, twin = (SelfPlayBatch(n, "duel", format="precon", backend=backend) for _ in range(2))
    batch.reset(seed=4)
    twin.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(30):  # into the play phase
        actions = _random_actions(rng, batch.mask)
        batch.step(actions)
        twin.step(actions)
    before = _snapshot(batch)
    good = _random_actions(rng, batch.mask)
    illegal = good.copy()
    illegal[5] = int(np.flatnonzero(~batch.mask[5])[0])
    outside = good.copy()
    outside[2] = A.ACTION_SPACE
    cases = [
        (illegal, "game 5: seat"),
        (outside, "game 2: action 780 is outside"),
        (good[:-1], "shape"),
        (good.astype(np.float64), "integers"),
        (-good - 1, "game 0: action -"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            batch.step(bad)
        for a, b in zip(_snapshot(batch), before, strict=True):
            np.testing.assert_array_equal(a, b)
    for _ in range(40):
        r1, r2 = batch.step(good), twin.step(good)
        np.testing.assert_array_equal(r1.done, r2.done)
        np.testing.assert_array_equal(r1.winner, r2.winner)
        for a, b in zip(_snapshot(batch), _snapshot(twin), strict=True):
            np.testing.assert_array_equal(a, b)
        good = _random_actions(rng, batch.mask)


@pytest.mark.parametrize("backend", _backends())
def test_the_setup_decisions_of_both_seats_are_the_callers(backend: str) -> None:
    """(e) the draft  asks both seats for their picks, the precon format
    both seats for their deck (R2.6), in the batch's rows."""
    n = 6
    picks = np.zeros(A.ACTION_SPACE, dtype=bool)
    picks[A.PICK_BASE : A.BAN_BASE] = True
    batch = SelfPlayBatch(n, "duel", backend=backend)
    batch.reset(seed=9)
    rng = np.random.default_rng(9)
    movers: list[list[int]] = [[] for _ in range(n)]
    for _ in range(12):  # the 12 picks of the duel draft
        assert (batch.obs[:, _SETUP_PHASE] == 1).all()
        assert not batch.mask[:, ~picks].any()
        for i, m in enumerate(batch.mover):
            movers[i].append(int(m))
        batch.step(_random_actions(rng, batch.mask))
    assert (batch.obs[:, _SETUP_PHASE] == 0).all()  # the game has begun
    for seats in movers:
        a = seats[0]
        assert seats == [a, 1 - a, 1 - a, 1 - a, a, a] * 2

    decks = np.zeros(A.ACTION_SPACE, dtype=bool)
    decks[A.DECK_BASE + 1 : A.DECK_BASE + 5] = True
    precon = SelfPlayBatch(n, "duel", format="precon", backend=backend)
    precon.reset(seed=9)
    first = precon.mover.copy()
    assert not precon.mask[:, ~decks].any() and (precon.mask.sum(axis=1) == 4).all()
    precon.step(_random_actions(rng, precon.mask))
    np.testing.assert_array_equal(precon.mover, 1 - first)
    assert not precon.mask[:, ~decks].any() and (precon.mask.sum(axis=1) == 3).all()


@pytest.mark.parametrize("backend", _backends())
def test_the_uint8_observation_is_the_float_one_in_counts(backend: str) -> None:
    floats = SelfPlayBatch(4, "solo", level=3, backend=backend)
    counts = SelfPlayBatch(4, "solo", level=3, backend=backend, observation_dtype="uint8", copy=False)
    assert counts.obs.dtype == np.uint8 and not counts.obs.flags.writeable
    rng = np.random.default_rng(2)
    floats.reset(seed=2)
    counts.reset(seed=2)
    turn = _S["turn"].start
    for _ in range(40):
        as_floats = counts.obs.astype(np.float32) * counts.observation_units
        np.testing.assert_array_equal(np.delete(as_floats, turn, axis=1), np.delete(floats.obs, turn, axis=1))
        np.testing.assert_allclose(as_floats[:, turn], floats.obs[:, turn], rtol=1e-6)
        actions = _random_actions(rng, floats.mask)
        floats.step(actions)
        counts.step(actions)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="not a self-play option"):
        SelfPlayBatch(2, "duel", opponent="greedy")
    with pytest.raises(ValueError, match="mode"):
        SelfPlayBatch(2, "trio")
    with pytest.raises(ValueError, match="num_games"):
        SelfPlayBatch(0)
    with pytest.raises(ValueError, match="format"):
        SelfPlayBatch(2, "solo", format="random")
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayBatch(2).step(np.zeros(2, dtype=np.int64))
    batch = SelfPlayBatch(2, backend="python")
    batch.reset(seed=1)
    before = _snapshot(batch)
    bad_seeds: list[int | list[int | None]] = [[3, -1], -4, [1]]
    for seed in bad_seeds:
        with pytest.raises(ValueError, match="seed"):
            batch.reset(seed=seed)
    for a, b in zip(_snapshot(batch), before, strict=True):
        np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(1)
    twin = SelfPlayBatch(2, backend="python")
    twin.reset(seed=1)
    for _ in range(30):  # the games' seed streams were not touched either
        actions = _random_actions(rng, batch.mask)
        np.testing.assert_array_equal(batch.step(actions).done, twin.step(actions).done)
        np.testing.assert_array_equal(batch.obs, twin.obs)
    if _REASON is not None:
        with pytest.raises(ValueError, match="compiled self-play batch does not apply"):
            SelfPlayBatch(2, backend="compiled")
    with pytest.raises(ValueError, match="compiled self-play batch does not apply"):
        SelfPlayBatch(2, backend="compiled", observation="infostate")


_THREAT = Threat(
    extra_mana_per_creature=2,
    resilience="fort",
    defence="minus_one",
    starts="automaton",
    abilities=("splash", "rage", "berserk"),
)


@compiled
@pytest.mark.parametrize(
    ("mode", "options", "dtype", "steps"),
    [
        ("duel", {}, "float32", 250),
        ("duel", {"format": "precon"}, "uint8", 200),
        ("duel", {"format": "random"}, "float32", 200),
        ("duel", {"format": "custom", "max_turns": 6}, "float32", 150),
        ("solo", {"level": 1}, "float32", 200),
        ("solo", {"level": 5, "format": "precon"}, "uint8", 150),
        ("solo", {"threat": _THREAT}, "float32", 150),
    ],
)
def test_compiled_and_python_backends_play_the_same_games(
    mode: str, options: dict[str, Any], dtype: str, steps: int
) -> None:
    """(a) the same seed and the same actions: the same rows, movers, ends and winners, through
    several autoresets."""
    n = 8
    ours = SelfPlayBatch(n, mode, backend="compiled", observation_dtype=dtype, copy=False, **options)
    python = SelfPlayBatch(n, mode, backend="python", observation_dtype=dtype, **options)
    ours.reset(seed=17)
    python.reset(seed=17)
    rng = np.random.default_rng(17)
    ended = 0
    for _ in range(steps):
        for a, b in zip(_snapshot(ours), _snapshot(python), strict=True):
            np.testing.assert_array_equal(a, b)
        actions = _random_actions(rng, python.mask)
        r1, r2 = ours.step(actions), python.step(actions)
        np.testing.assert_array_equal(r1.done, r2.done)
        np.testing.assert_array_equal(r1.winner, r2.winner)
        assert r1.reason.tolist() == r2.reason.tolist()
        ended += int(r1.done.sum())
    assert ended >= 2 * n


@compiled
def test_auto_picks_the_compiled_backend_and_the_vector_env_is_unchanged() -> None:
    assert SelfPlayBatch(2).backend == "compiled"
    assert SelfPlayBatch(2, observation="infostate").backend == "python"


def test_the_benchmark_measures_every_self_play_batch() -> None:
    from clashofdecks.envs.bench import SELF_PLAY_BATCHES, format_envs_bench, run_batched_bench

    results = run_batched_bench(num_envs=3, seconds=0.02, rounds=1)
    figures = results["self_play_steps_per_second"]
    assert set(figures) == {label for label, _, _ in SELF_PLAY_BATCHES}
    assert all(v > 0 for v in figures.values())
    text = format_envs_bench(
        {"definition": "-", "steps_per_second": {}, "goal_steps_per_second": 1, "batched": results}
    )
    assert "self-play batch, N = 3" in text and "SelfPlayBatch solo (level 0, draft)" in text


@compiled
def test_the_core_refuses_an_illegal_self_play_action_before_any_game_moves() -> None:
    """The core's own check (behind the Python one): an illegal action in self-play is no penalty
    but a ValueError naming the game, and no slot changes."""
    batch = SelfPlayBatch(4, "duel", format="random", backend="compiled", copy=False)
    batch.reset(seed=6)
    rng = np.random.default_rng(6)
    actions = _random_actions(rng, batch.mask)
    actions[2] = int(np.flatnonzero(~batch.mask[2])[0])
    before = [np.array(a) for a in _snapshot(batch)]
    slots = bytes(batch._impl._batch.slots)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match=r"game 2: action \d+ is not legal for seat"):
        batch._impl.step(actions)
    assert bytes(batch._impl._batch.slots) == slots  # type: ignore[union-attr]
    for a, b in zip(_snapshot(batch), before, strict=True):
        np.testing.assert_array_equal(a, b)


@compiled
@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "options"),
    [
        ("duel", {}),
        ("duel", {"format": "custom"}),
        ("solo", {"level": 5}),
        ("solo", {"level": 2, "format": "precon"}),
    ],
)
def test_compiled_and_python_backends_agree_over_many_games(mode: str, options: dict[str, Any]) -> None:
    """The longer sweep of (a): 32 games, 1,500 decisions each, hundreds of autoresets."""
    n = 32
    ours = SelfPlayBatch(n, mode, backend="compiled", copy=False, **options)
    python = SelfPlayBatch(n, mode, backend="python", copy=False, **options)
    ours.reset(seed=1000)
    python.reset(seed=1000)
    rng = np.random.default_rng(1000)
    ended = 0
    for _ in range(1500):
        for a, b in zip(_snapshot(ours), _snapshot(python), strict=True):
            np.testing.assert_array_equal(a, b)
        actions = _random_actions(rng, python.mask)
        r1, r2 = ours.step(actions), python.step(actions)
        np.testing.assert_array_equal(r1.winner, r2.winner)
        assert r1.reason.tolist() == r2.reason.tolist()
        ended += int(r1.done.sum())
    assert ended >= 10 * n
