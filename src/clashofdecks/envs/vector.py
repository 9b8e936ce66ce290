"""N games stepped by one call: the batched ``-v1`` environments (``vector_entry_point``).

    envs = gymnasium.make_vec("ClashOfDecks/Duel-v1", num_envs=1024, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=7)          # sub-env i is seeded with 7 + i
    obs, rewards, terminated, truncated, info = envs.step(actions)   # info["action_mask"]: (N, 780) int8

Sub-environment ``i`` follows the single ``-v1`` environment (:class:`~.gym_env.SoloEnvV1`,
:class:`~.gym_env.DuelEnvV1`) with the same options exactly: reset with ``seed + i`` (or the i-th seed
of a list), the same observations, masks, rewards, flags and infos for the same actions.  A step is
one decision of the learner; the opponent (the automaton, or a duel agent: ``random`` by default,
``greedy``, any agent spec) moves inside the step.  Autoreset is Gymnasium's default, ``NEXT_STEP``:
the step after a game ends resets that sub-environment (its action is ignored, its reward 0, its flags
False), exactly as :class:`gymnasium.vector.SyncVectorEnv` does.

Infos are arrays in Gymnasium's vector layout (each key with its ``_key`` mask): ``action_mask``
(N, 780) int8, ``seat``, ``turn``, ``illegal_action`` for every sub-environment, and ``winner`` (-1 a
draw) and ``termination`` (strings) for those whose game ended at this step.

``observation_dtype="uint8"`` (the observation vector only) gives the compact observation of
:mod:`.compact`: each feature's count instead of its float (a quarter of the bytes written and
copied per step); :attr:`ClashOfDecksVectorEnv.observation_units` turns it back into the float
observation (``obs * units``).

Two implementations give the same results (``backend``):

- ``"compiled"`` (chosen by ``"auto"`` when the compiled core is available and the configuration is
  one it covers: the solo game against the automaton at any threat, draft or precon; the duel in
  every format (draft, precon, custom, the benchmark's ``random`` deal) against the ``random`` or
  the ``greedy`` agent; the observation vector, the penalty for an illegal action):
  ``_native.batch_step`` plays the learner's decision and the opponent's replies in every game, the
  setup stage's (R2: coin toss, deck choice, draft picks, bans; R7.1) as well as the play phase's,
  and writes observations, masks, rewards and flags with no per-game Python.  A reset draws the seeds
  from the sub-environment's ``np_random`` as the single environment does and starts the game in the
  core with the Python engine's chance draws (``_native.batch_reset``, which reads each
  sub-environment's ``np_random`` through its bit generator's capsule).
- ``"python"`` (everything else, and ``"auto"`` without the compiled core): N single environments,
  their results written into batch arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import actions as A
from ..errors import IllegalActionError
from .compact import COUNT_CAP, OBSERVATION_DTYPES, count_scales, to_counts, unit_vector
from .compiled_batch import (
    COMPILED_LAYOUT,
    SETUP_LAYOUT,
    BatchRows,
    CompiledBatch,
    chosen_backend,
    core_unsupported,
    game_start,
    seeds_of,
)
from .encoding import DEFAULT_MAX_TURNS
from .gym_env import ClashOfDecksEnv, DuelEnvV1, SoloEnvV1, _as_action
from .match import check_choice

#: The backends (see the module docstring); ``"auto"`` picks the compiled one where it applies.
BACKENDS: Final = ("auto", "compiled", "python")
#: The info keys every sub-environment has at every step (the rest only when its game ends).
_ALWAYS: Final = ("action_mask", "seat", "turn", "illegal_action")
#: The opponents the compiled batch plays (agent specs).
_COMPILED_OPPONENTS: Final = ("random", "greedy")


class ClashOfDecksVectorEnv(VectorEnv[Any, Any, Any]):
    """``num_envs`` games of one ``-v1`` environment stepped together (see the module docstring).

    ``copy`` (default True): return fresh arrays; with False the observation array and the info
    arrays of every sub-environment (``action_mask``, ``seat``, ``turn``, ``illegal_action``) are the
    batch's own buffers, overwritten by the next call (read them, do not write in them: the compiled
    backend updates the rows in place).  ``observation_dtype``: ``"float32"`` or the compact
    ``"uint8"`` counts (:mod:`.compact`; :attr:`observation_units` converts them back).
    ``backend``: ``"auto"``, ``"compiled"`` (an error naming the reason where it does not apply) or
    ``"python"``; :attr:`backend` is the one in use.  With the compiled backend, :attr:`envs` only
    hold each sub-environment's ``np_random``: their games are not the ones being played.
    """

    def __init__(
        self,
        envs: list[ClashOfDecksEnv],
        *,
        copy: bool = True,
        backend: str = "auto",
        observation_dtype: str = "float32",
    ) -> None:
        if not envs:
            raise ValueError("num_envs must be at least 1")
        check_choice("backend", backend, BACKENDS)
        check_choice("observation_dtype", observation_dtype, OBSERVATION_DTYPES)
        first = envs[0]
        reason = compiled_unsupported(first)
        self.backend = chosen_backend(first, backend, observation_dtype, reason, "the compiled batch")
        super().__init__()
        self.envs = envs
        self.num_envs = n = len(envs)
        self.copy = copy
        self.observation_dtype = observation_dtype
        self.metadata = {**first.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.render_mode = first.render_mode
        self.single_observation_space = self._row_space(first, observation_dtype)
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        shape = self.single_observation_space.shape
        assert shape is not None  # a Box
        self._obs = np.zeros((n, *shape), dtype=np.dtype(observation_dtype))
        self._masks = np.zeros((n, A.ACTION_SPACE), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminations = np.zeros(n, dtype=np.bool_)
        self._truncations = np.zeros(n, dtype=np.bool_)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._seats = np.zeros(n, dtype=np.int64)
        self._turns = np.zeros(n, dtype=np.int64)
        self._illegal = np.zeros(n, dtype=np.bool_)
        self._all = np.ones(n, dtype=np.bool_)
        self._has_reset = False
        cap = first.ruleset.max_turns or DEFAULT_MAX_TURNS
        self._scales = count_scales(cap) if observation_dtype == "uint8" else None
        if self.backend == "compiled":
            arrays = BatchArrays(
                self._obs,
                self._masks,
                self._rewards,
                self._terminations,
                self._truncations,
                self._seats,
                self._turns,
                self._illegal,
            )
            self._compiled = _CompiledBatch(envs, arrays, observation_dtype == "uint8")

    @staticmethod
    def _row_space(first: ClashOfDecksEnv, observation_dtype: str) -> spaces.Box:
        space = first.observation_space
        assert isinstance(space, spaces.Box)
        if observation_dtype == "float32":
            return space
        return spaces.Box(0, COUNT_CAP, shape=space.shape, dtype=np.uint8)

    @property
    def observation_units(self) -> npt.NDArray[np.float32]:
        """Per feature, the float a count of 1 stands for: ``obs * units`` is the float observation
        (:mod:`.compact`; all ones for the float32 observation)."""
        if self._scales is None:
            return np.ones(self._obs.shape[1], dtype=np.float32)
        return unit_vector(self.envs[0].ruleset.max_turns or DEFAULT_MAX_TURNS)

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Reset every sub-environment (or those of ``options["reset_mask"]``): sub-env i with
        ``seed + i``, the i-th seed of a list, or unseeded for ``None``."""
        n = self.num_envs
        seeds = seeds_of(seed, n)
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if reset_mask is None:
            chosen = self._all
        else:
            chosen = np.asarray(reset_mask)
            if chosen.dtype != np.bool_ or chosen.shape != (n,) or not chosen.any():
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},) with a True")
        if not chosen.all() and not self._has_reset:
            raise RuntimeError("call reset() on every sub-environment first")
        infos = self._empty_infos()
        if self.backend == "compiled":
            indices = np.flatnonzero(chosen)
            self._compiled.reset(indices, seeds)
            infos["seat"][indices] = self._seats[indices]
            infos["turn"][indices] = self._turns[indices]
        else:
            for i in np.flatnonzero(chosen):
                obs, info = self.envs[i].reset(seed=seeds[i], options=options or None)
                self._write(int(i), obs, info, infos)
        self._terminations[chosen] = False
        self._truncations[chosen] = False
        self._autoreset[chosen] = False
        self._has_reset = True
        return self._observations(), self._finish_infos(infos, chosen)

    def step(
        self, actions: Any
    ) -> tuple[
        npt.NDArray[Any],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """One decision of the learner in every game (a finished game is reset instead)."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        batch = np.asarray(actions)
        if batch.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {batch.shape}")
        if self.backend == "compiled":
            infos = self._compiled.step(batch, self._autoreset, self.copy)
        else:
            infos = self._step_python(batch)
        self._autoreset = self._terminations | self._truncations
        return (
            self._observations(),
            self._fresh(self._rewards),
            self._fresh(self._terminations),
            self._fresh(self._truncations),
            self._finish_infos(infos, self._all),
        )

    def _step_python(self, batch: npt.NDArray[Any]) -> dict[str, Any]:
        stepping = np.flatnonzero(~self._autoreset)
        # Check every action before any game moves: a bad batch changes nothing.
        chosen = [_as_action(batch[i]) for i in stepping]
        for i, action in zip(stepping, chosen, strict=True):
            env = self.envs[i]
            if env.illegal_action == "error" and not env.game.is_legal(action):
                raise IllegalActionError(f"sub-environment {i}: {env.game.explain_illegal(action)}")
        infos = self._empty_infos()
        for i in np.flatnonzero(self._autoreset):
            obs, info = self.envs[i].reset()
            self._rewards[i] = 0.0
            self._terminations[i] = self._truncations[i] = False
            self._write(int(i), obs, info, infos)
        for i, action in zip(stepping, chosen, strict=True):
            obs, reward, terminated, truncated, info = self.envs[i].step(action)
            self._rewards[i] = float(reward)
            self._terminations[i] = terminated
            self._truncations[i] = truncated
            self._write(int(i), obs, info, infos)
        return infos

    def render(self) -> tuple[Any, ...]:
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    # ------------------------------------------------------------------ helpers

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The current legal-action masks as booleans, (N, 780) (sb3-contrib's MaskablePPO)."""
        return self._masks.astype(bool)

    def _empty_infos(self) -> dict[str, Any]:
        n = self.num_envs
        return {
            "seat": np.zeros(n, dtype=np.int64),
            "turn": np.zeros(n, dtype=np.int64),
            "illegal_action": np.zeros(n, dtype=np.bool_),
        }

    def _write(
        self, i: int, obs: npt.NDArray[np.float32], info: dict[str, Any], infos: dict[str, Any]
    ) -> None:
        if self._scales is None:
            self._obs[i] = obs
        else:
            to_counts(obs, self._scales, self._obs[i])
        self._masks[i] = info["action_mask"]
        infos["seat"][i] = info["seat"]
        infos["turn"][i] = info["turn"]
        infos["illegal_action"][i] = info["illegal_action"]
        if "winner" in info:
            if "winner" not in infos:
                infos["winner"] = np.zeros(self.num_envs, dtype=np.int64)
                infos["_winner"] = np.zeros(self.num_envs, dtype=np.bool_)
                infos["termination"] = np.full(self.num_envs, None, dtype=object)
                infos["_termination"] = np.zeros(self.num_envs, dtype=np.bool_)
            infos["winner"][i] = info["winner"]
            infos["termination"][i] = info["termination"]
            infos["_winner"][i] = infos["_termination"][i] = True

    def _fresh(self, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """``array`` itself with ``copy=False``, else a copy."""
        return array.copy() if self.copy else array

    def _observations(self) -> npt.NDArray[Any]:
        return self._fresh(self._obs)

    def _finish_infos(self, infos: dict[str, Any], present: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """Add the mask array and the ``_key`` masks of the keys every written sub-env has."""
        if present.all():
            infos["action_mask"] = self._fresh(self._masks)
            for key in _ALWAYS:
                infos[f"_{key}"] = self._fresh(self._all)
            return infos
        # A partial reset: the others' entries are empty, as in SyncVectorEnv.
        infos["action_mask"] = np.where(present[:, None], self._masks, 0).astype(np.int8)
        for key in ("seat", "turn", "illegal_action"):
            infos[key][~present] = 0
        for key in _ALWAYS:
            infos[f"_{key}"] = present.copy()
        return infos


@dataclass(frozen=True, slots=True)
class BatchArrays:
    """The arrays a batch writes its results into (one row per sub-environment), shared by the
    :class:`ClashOfDecksVectorEnv` and its compiled backend."""

    obs: npt.NDArray[Any]
    masks: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float64]
    terminations: npt.NDArray[np.bool_]
    truncations: npt.NDArray[np.bool_]
    seats: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    illegal: npt.NDArray[np.bool_]


class _CompiledBatch:
    """The compiled backend of a :class:`ClashOfDecksVectorEnv`: a :class:`.compiled_batch.CompiledBatch`
    whose seeds are the sub-environments' own ``np_random`` and whose steps answer with the infos."""

    def __init__(self, envs: list[ClashOfDecksEnv], arrays: BatchArrays, compact: bool) -> None:
        first = envs[0]
        self._envs = envs
        self._arrays = arrays
        self._rows = BatchRows(
            arrays.obs,
            arrays.masks,
            arrays.rewards,
            arrays.terminations,
            arrays.truncations,
            arrays.turns,
            arrays.illegal,
        )
        self._penalty = first.illegal_penalty
        weights = None
        if first.opponent_spec == "greedy":
            from ..agents.greedy import DEFAULT_WEIGHTS, weight_values

            weights = weight_values(DEFAULT_WEIGHTS)
        self._batch = CompiledBatch(first, len(envs), (COMPILED_LAYOUT, compact, weights))

    def reset(self, indices: npt.NDArray[np.intp], seeds: list[int | None]) -> None:
        """Seed the sub-environments ``indices`` (``np_random`` as their own reset seeds it) and deal."""
        for i in indices:
            env = self._envs[i]
            gym.Env.reset(env, seed=seeds[i])
            self._batch.capsules[i] = env.np_random.bit_generator.capsule
        self.deal(indices)

    def deal(self, indices: npt.NDArray[np.intp]) -> None:
        """New games in the slots ``indices``, dealt in the core, exactly the single environment's
        reset: each sub-env's (game, agent, build) seeds drawn from its own ``np_random`` (through its
        bit generator's capsule, as ``integers(0, 2**63 - 1, size=3)`` draws them), the random deal,
        the agent's ``random.Random(agent seed)``."""
        out = self._arrays
        self._batch.deal(indices, out.obs, out.masks, out.turns, out.seats)

    def step(self, actions: npt.NDArray[Any], resetting: npt.NDArray[np.bool_], copy: bool) -> dict[str, Any]:
        """One learner decision in every game but those ``resetting`` (the core checks every action
        first: a bad batch changes nothing), then those dealt anew.  The infos of the step (with
        ``copy``, arrays of their own)."""
        if actions.dtype.kind not in "iu":  # e.g. floats or objects: each checked as the single env does
            converted = np.zeros(len(actions), dtype=np.int64)
            for i in np.flatnonzero(~resetting):
                converted[i] = _as_action(actions[i])
            actions = converted
        out = self._arrays
        self._batch.step(self._penalty, actions, resetting, self._rows)
        codes = self._batch.terminations
        if resetting.any():
            self.deal(np.flatnonzero(resetting))
            out.rewards[resetting] = 0.0
            out.terminations[resetting] = out.truncations[resetting] = out.illegal[resetting] = False
            codes[resetting] = -1
        infos: dict[str, Any] = {
            "seat": out.seats.copy() if copy else out.seats,
            "turn": out.turns.copy() if copy else out.turns,
            "illegal_action": out.illegal.copy() if copy else out.illegal,
        }
        ended = codes >= 0
        if ended.any():
            infos["winner"] = np.where(ended, self._batch.winners, 0)
            infos["_winner"] = ended
            infos["termination"] = self._batch.termination_names(ended)
            infos["_termination"] = ended.copy()
        return infos


def compiled_unsupported(env: ClashOfDecksEnv) -> str | None:
    """Why the compiled batch cannot run games of ``env``'s configuration (None: it can)."""
    unsupported = core_unsupported()
    if unsupported is not None:
        return unsupported
    checks = (
        (
            env.mode == "solo" or env.opponent_spec in _COMPILED_OPPONENTS,
            "its opponent is the random or the greedy agent only",
        ),
        (env.observation_kind == "observation", "it writes the observation vector only"),
        (env.illegal_action == "penalty", "it gives the penalty for an illegal action only"),
        (env.render_mode is None, "it does not render"),
    )
    return next((reason for ok, reason in checks if not ok), None)


def make_solo_vector(
    num_envs: int = 1,
    *,
    copy: bool = True,
    backend: str = "auto",
    observation_dtype: str = "float32",
    **kwargs: Any,
) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Solo-v1``: ``num_envs`` solo games with the options of
    :class:`~.gym_env.SoloEnvV1`."""
    envs: list[ClashOfDecksEnv] = [SoloEnvV1(**kwargs) for _ in range(_count(num_envs))]
    return ClashOfDecksVectorEnv(envs, copy=copy, backend=backend, observation_dtype=observation_dtype)


def make_duel_vector(
    num_envs: int = 1,
    *,
    copy: bool = True,
    backend: str = "auto",
    observation_dtype: str = "float32",
    **kwargs: Any,
) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Duel-v1``: ``num_envs`` duels with the options of
    :class:`~.gym_env.DuelEnvV1` (``opponent``: ``random`` by default, ``greedy``, any agent spec)."""
    envs: list[ClashOfDecksEnv] = [DuelEnvV1(**kwargs) for _ in range(_count(num_envs))]
    return ClashOfDecksVectorEnv(envs, copy=copy, backend=backend, observation_dtype=observation_dtype)


def _count(num_envs: object) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
    return int(num_envs)


#: Kept importable here (the compiled batch's own module is :mod:`.compiled_batch`).
__all__ = [
    "BACKENDS",
    "SETUP_LAYOUT",
    "BatchArrays",
    "ClashOfDecksVectorEnv",
    "compiled_unsupported",
    "game_start",
    "make_duel_vector",
    "make_solo_vector",
]
