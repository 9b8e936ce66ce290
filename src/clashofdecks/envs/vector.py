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

This is the pure-Python batch: it runs N single environments and writes their results into batch
arrays.  (A batch in the compiled core, stepping the N games with no per-game Python, is not built yet:
see docs/envs.md.)
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import actions as A
from ..errors import IllegalActionError
from .gym_env import ClashOfDecksEnv, DuelEnvV1, SoloEnvV1, _as_action

#: Which implementation steps the batch (named by ``clash bench --envs``).
BACKEND: Final = "pure Python (N single environments; no compiled batch yet)"
#: The info keys every sub-environment has at every step (the rest only when its game ends).
_ALWAYS: Final = ("action_mask", "seat", "turn", "illegal_action")


class ClashOfDecksVectorEnv(VectorEnv[Any, Any, Any]):
    """``num_envs`` games of one ``-v1`` environment stepped together (see the module docstring).

    ``copy`` (default True): return fresh arrays; with False the observation array is the batch's own
    buffer, overwritten by the next call.
    """

    def __init__(self, envs: list[ClashOfDecksEnv], *, copy: bool = True) -> None:
        if not envs:
            raise ValueError("num_envs must be at least 1")
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


def make_solo_vector(num_envs: int = 1, *, copy: bool = True, **kwargs: Any) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Solo-v1``: ``num_envs`` solo games with the options of
    :class:`~.gym_env.SoloEnvV1`."""
    return ClashOfDecksVectorEnv([SoloEnvV1(**kwargs) for _ in range(_count(num_envs))], copy=copy)


def make_duel_vector(num_envs: int = 1, *, copy: bool = True, **kwargs: Any) -> ClashOfDecksVectorEnv:
    """``vector_entry_point`` of ``ClashOfDecks/Duel-v1``: ``num_envs`` duels with the options of
    :class:`~.gym_env.DuelEnvV1` (``opponent``: ``random`` by default, ``greedy``, any agent spec)."""
    return ClashOfDecksVectorEnv([DuelEnvV1(**kwargs) for _ in range(_count(num_envs))], copy=copy)


def _count(num_envs: object) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
    return int(num_envs)
