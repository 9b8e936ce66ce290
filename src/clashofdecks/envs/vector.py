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

Two implementations give the same results (``backend``):

- ``"compiled"`` (chosen by ``"auto"`` when the compiled core is available and the configuration is
  one it covers: a duel on the benchmark's ``random`` deal against the ``random`` agent, the
  observation vector, the penalty for an illegal action): ``_native.batch_step`` plays the learner's
  decision and the agent's replies in every game and writes observations, masks, rewards and flags
  with no per-game Python.  A reset draws the seeds from the sub-environment's ``np_random`` as the
  single environment does and deals in the core (``_native.batch_reset``, which reads each
  sub-environment's ``np_random`` through its bit generator's capsule).
- ``"python"`` (everything else, and ``"auto"`` without the compiled core): N single environments,
  their results written into batch arrays.
"""

from __future__ import annotations

from typing import Any, Final

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import actions as A
from .. import native
from ..errors import IllegalActionError
from ..rules import Termination
from .encoding import OBSERVATION_LAYOUT
from .gym_env import ClashOfDecksEnv, DuelEnvV1, SoloEnvV1, _as_action

#: The backends (see the module docstring); ``"auto"`` picks the compiled one where it applies.
BACKENDS: Final = ("auto", "compiled", "python")
#: The observation slices the compiled encoder writes, in ``_native.c``'s order (then the size).
_COMPILED_LAYOUT: Final = (
    *(
        OBSERVATION_LAYOUT.slices[name].start
        for name in (
            "seat",
            "phase",
            "to_move",
            "active",
            "turn",
            "mana",
            "hand_me",
            "hand_me_flags",
            "hand_opp",
            "hand_opp_flags",
            "opp_hidden_cards",
            "fortress",
            "lanes",
            "lane_sizes",
            "pending",
            "pending_cards",
        )
    ),
    OBSERVATION_LAYOUT.size,
)
# What _native.c's encoder relies on: the lanes are 4 slots of LANE_CAP creature rows of
# CREATURE_FEATURES floats, with every other slice it writes before or after them.
assert OBSERVATION_LAYOUT.slices["lanes"].shape == (2, 2, 12, 49)
_TERMINATION_NAMES: Final = np.array([t.value for t in Termination], dtype=object)
#: The info keys every sub-environment has at every step (the rest only when its game ends).
_ALWAYS: Final = ("action_mask", "seat", "turn", "illegal_action")


class ClashOfDecksVectorEnv(VectorEnv[Any, Any, Any]):
    """``num_envs`` games of one ``-v1`` environment stepped together (see the module docstring).

    ``copy`` (default True): return fresh arrays; with False the observation array is the batch's own
    buffer, overwritten by the next call (read it, do not write in it: the compiled backend updates
    the rows in place).  ``backend``: ``"auto"``, ``"compiled"`` (an error naming the
    reason where it does not apply) or ``"python"``; :attr:`backend` is the one in use.  With the
    compiled backend, :attr:`envs` only hold each sub-environment's ``np_random``: their games are not
    the ones being played.
    """

    def __init__(self, envs: list[ClashOfDecksEnv], *, copy: bool = True, backend: str = "auto") -> None:
        if not envs:
            raise ValueError("num_envs must be at least 1")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, not {backend!r}")
        reason = compiled_unsupported(envs[0])
        if backend == "compiled" and reason is not None:
            raise ValueError(f"the compiled batch does not apply: {reason}")
        self.backend = "compiled" if backend != "python" and reason is None else "python"
        super().__init__()
        self.envs = envs
        self.num_envs = len(envs)
        self.copy = copy
        first = envs[0]
        self.metadata = {**first.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n, shape = self.num_envs, first.observation_space.shape
        assert shape is not None  # a Box
        self._obs = np.zeros((n, *shape), dtype=np.float32)
        self._masks = np.zeros((n, A.ACTION_SPACE), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminations = np.zeros(n, dtype=np.bool_)
        self._truncations = np.zeros(n, dtype=np.bool_)
        self._autoreset = np.zeros(n, dtype=np.bool_)
        self._has_reset = False
        if self.backend == "compiled":
            from .. import _native

            self._slots = bytearray(_native.batch_slot_size() * n)
            self._seats = np.zeros(n, dtype=np.int64)
            self._turns = np.zeros(n, dtype=np.int64)
            self._illegal = np.zeros(n, dtype=np.bool_)
            self._winners = np.zeros(n, dtype=np.int64)
            self._terminations_code = np.zeros(n, dtype=np.int8)
            self._config = native.duel_config(first.ruleset)
            self._capsules: list[Any] = [None] * n

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Reset every sub-environment (or those of ``options["reset_mask"]``): sub-env i with
        ``seed + i``, the i-th seed of a list, or unseeded for ``None``."""
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, int | np.integer):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"a list of seeds needs one per sub-environment ({n}), not {len(seeds)}")
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if reset_mask is None:
            chosen = np.ones(n, dtype=np.bool_)
        else:
            chosen = np.asarray(reset_mask)
            if chosen.dtype != np.bool_ or chosen.shape != (n,) or not chosen.any():
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},) with a True")
        if not chosen.all() and not self._has_reset:
            raise RuntimeError("call reset() on every sub-environment first")
        infos = self._empty_infos()
        if self.backend == "compiled":
            indices = np.flatnonzero(chosen)
            for i in indices:
                gym.Env.reset(self.envs[i], seed=seeds[i])  # seeds np_random as its own reset does
                self._capsules[i] = self.envs[i].np_random.bit_generator.capsule
            self._deal(indices)
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
        npt.NDArray[np.float32],
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
            if batch.dtype.kind not in "iu":  # e.g. floats or objects: each checked as the single env does
                converted = np.zeros(self.num_envs, dtype=np.int64)
                for i in np.flatnonzero(~self._autoreset):
                    converted[i] = _as_action(batch[i])
                batch = converted
            return self._step_compiled(batch)
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
        self._autoreset = self._terminations | self._truncations
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            self._finish_infos(infos, np.ones(self.num_envs, dtype=np.bool_)),
        )

    def _deal(self, indices: npt.NDArray[np.intp]) -> None:
        """New games in the slots ``indices``, dealt in the core, exactly the single environment's
        reset: each sub-env's (game, agent, build) seeds drawn from its own ``np_random`` (through its
        bit generator's capsule, as ``integers(0, 2**63 - 1, size=3)`` draws them), the random deal,
        the agent's ``random.Random(agent seed)``."""
        from .. import _native

        if not len(indices):
            return
        _native.batch_reset(
            self._slots,
            np.ascontiguousarray(indices, dtype=np.int64),
            self._capsules,
            self._config,
            _COMPILED_LAYOUT,
            self._obs,
            self._masks,
            self._turns,
        )
        self._seats[indices] = 0  # the random deal has no coin toss: participant 0 is seat 0

    def _step_compiled(
        self, batch: npt.NDArray[Any]
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        from .. import _native

        resetting = self._autoreset
        stepping = batch[~resetting]
        if stepping.size and (stepping.min() < 0 or stepping.max() >= A.ACTION_SPACE):
            bad = int(stepping[(stepping < 0) | (stepping >= A.ACTION_SPACE)][0])
            raise ValueError(f"action {bad} is outside the action space (0-{A.ACTION_SPACE - 1})")
        actions = np.ascontiguousarray(batch, dtype=np.int64)
        actions[resetting] = 0
        _native.batch_step(
            self._slots,
            _COMPILED_LAYOUT,
            self.envs[0].illegal_penalty,
            actions,
            resetting.astype(np.uint8),
            self._obs,
            self._masks,
            self._rewards,
            self._terminations,
            self._truncations,
            self._turns,
            self._illegal,
            self._winners,
            self._terminations_code,
        )
        if resetting.any():
            self._deal(np.flatnonzero(resetting))
            self._rewards[resetting] = 0.0
            self._terminations[resetting] = self._truncations[resetting] = self._illegal[resetting] = False
            self._terminations_code[resetting] = -1
        self._autoreset = self._terminations | self._truncations
        infos: dict[str, Any] = {
            "seat": self._seats.copy(),
            "turn": self._turns.copy(),
            "illegal_action": self._illegal.copy(),
        }
        ended = self._terminations_code >= 0
        if ended.any():
            infos["winner"] = np.where(ended, self._winners, 0)
            infos["_winner"] = ended
            names = np.full(self.num_envs, None, dtype=object)
            names[ended] = _TERMINATION_NAMES[self._terminations_code[ended]]
            infos["termination"] = names
            infos["_termination"] = ended.copy()
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminations.copy(),
            self._truncations.copy(),
            self._finish_infos(infos, np.ones(self.num_envs, dtype=np.bool_)),
        )

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
        self._obs[i] = obs
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

    def _observations(self) -> npt.NDArray[np.float32]:
        return self._obs.copy() if self.copy else self._obs

    def _finish_infos(self, infos: dict[str, Any], present: npt.NDArray[np.bool_]) -> dict[str, Any]:
        """Add the mask array and the ``_key`` masks of the keys every written sub-env has."""
        if present.all():
            infos["action_mask"] = self._masks.copy()
        else:  # a partial reset: the others' entries are empty, as in SyncVectorEnv
            infos["action_mask"] = np.where(present[:, None], self._masks, 0).astype(np.int8)
            for key in ("seat", "turn", "illegal_action"):
                infos[key][~present] = 0
        for key in _ALWAYS:
            infos[f"_{key}"] = present.copy()
        return infos


def compiled_unsupported(env: ClashOfDecksEnv) -> str | None:
    """Why the compiled batch cannot run games of ``env``'s configuration (None: it can)."""
    if not native.AVAILABLE:
        return native.engine_notice().removeprefix("engine: ")
    from .. import _native

    if _native.BATCH_ACTION_SPACE != A.ACTION_SPACE:
        return "the compiled core's action space differs from actions.py's"
    checks = (
        (env.mode == "duel", "it plays the duel only (the solo game's setup stage stays in Python)"),
        (env.format == "random", "it plays the random deal only (the setup stage of R2 stays in Python)"),
        (env.opponent_spec == "random", "its opponent is the random agent only"),
        (env.observation_kind == "observation", "it writes the observation vector only"),
        (env.illegal_action == "penalty", "it gives the penalty for an illegal action only"),
        (env.render_mode is None, "it does not render"),
    )
    return next((reason for ok, reason in checks if not ok), None)


def make_solo_vector(
    num_envs: int = 1, *, copy: bool = True, backend: str = "auto", **kwargs: Any
) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Solo-v1``: ``num_envs`` solo games with the options of
    :class:`~.gym_env.SoloEnvV1`."""
    envs: list[ClashOfDecksEnv] = [SoloEnvV1(**kwargs) for _ in range(_count(num_envs))]
    return ClashOfDecksVectorEnv(envs, copy=copy, backend=backend)


def make_duel_vector(
    num_envs: int = 1, *, copy: bool = True, backend: str = "auto", **kwargs: Any
) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Duel-v1``: ``num_envs`` duels with the options of
    :class:`~.gym_env.DuelEnvV1` (``opponent``: ``random`` by default, ``greedy``, any agent spec)."""
    envs: list[ClashOfDecksEnv] = [DuelEnvV1(**kwargs) for _ in range(_count(num_envs))]
    return ClashOfDecksVectorEnv(envs, copy=copy, backend=backend)


def _count(num_envs: object) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
    return int(num_envs)
