"""The duel as PettingZoo environments, version 1 (``clash_of_decks_v1``): AEC and parallel.

What changed from :mod:`clashofdecks.envs.pettingzoo` (``clash_of_decks_v0``, kept as it was):

- an action of the action space that is illegal now gets the penalty by default
  (``illegal_action="penalty"``: the reward ``illegal_penalty``, nothing changes); ``"error"`` is an
  option.  PettingZoo's stock checks (``bombardment_test``, ``state_test``) step unmasked random actions;
- ``render_mode="human"`` prints the spectator's board to standard output (``render_test`` asks for it);
- :meth:`raw_env.state` is the full-information state: the observations of both seats, seat 0's then
  seat 1's (both hands, everything either seat sees; only the face-down draft pile, which no seat
  has seen, is not in it);
- :func:`parallel_env`: the duel as a turn-based parallel environment (see :class:`parallel_env`).

    from clashofdecks.envs.pettingzoo_v1 import env, parallel_env
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .encoding import OBS_HIGH, OBSERVATION_LAYOUT
from .gym_env import board_text
from .pettingzoo import AGENTS, _OrderEnforcing
from .pettingzoo import raw_env as raw_env_v0

#: The full-information state: seat 0's observation, then seat 1's.
STATE_SIZE: Final = 2 * OBSERVATION_LAYOUT.size


def env(**kwargs: Any) -> Any:
    """The AEC duel (version 1) with PettingZoo's order-enforcing checks."""
    return _OrderEnforcing(raw_env(**kwargs))


class raw_env(raw_env_v0):
    """The AEC duel, version 1: options as :class:`clashofdecks.envs.pettingzoo.raw_env`, with
    ``illegal_action="penalty"`` as the default, the ``human`` render mode and :meth:`state`."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "clash_of_decks_v1",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, *, illegal_action: str = "penalty", **kwargs: Any) -> None:
        super().__init__(illegal_action=illegal_action, **kwargs)
        self.state_space = spaces.Box(0.0, OBS_HIGH, shape=(STATE_SIZE,), dtype=np.float32)

    def state(self) -> npt.NDArray[np.float32]:
        """The full-information state: both seats' observations (seat 0's, then seat 1's)."""
        return full_state(self)

    def render(self) -> Any:
        """As version 0, and ``human``: the spectator's board printed to standard output."""
        if self.render_mode == "human":
            print(board_text(self.match, None))
            return None
        return super().render()


def full_state(aec: raw_env_v0) -> npt.NDArray[np.float32]:
    """Both seats' observations of ``aec``'s game, seat 0's then seat 1's."""
    match = aec.match
    return np.concatenate([match.observe(0, "observation"), match.observe(1, "observation")])


class parallel_env(ParallelEnv[str, dict[str, Any], int | None]):  # type: ignore[misc]
    """The duel as a **turn-based** parallel environment.

    The game is sequential (a turn has many decisions of the active seat, and a return order, R3.9,
    can be the other seat's decision in the middle of a turn), so a parallel step is one decision: the
    agent whose decision it is acts, and the other agent's action is ignored (its mask is all zeros;
    give it anything in the action space, ``None``, or leave it out).  Every step returns both agents'
    observations; rewards (+1/-1, 0/0 at the turn cap) come at the end, when both agents are
    terminated (or truncated) together.  ``infos[agent]["to_move"]`` says whose decision it is.
    Options as :class:`raw_env`.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "clash_of_decks_v1",
        "render_fps": 2,
    }

    def __init__(self, **kwargs: Any) -> None:
        self._aec = raw_env(**kwargs)
        self.render_mode = self._aec.render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces = self._aec.observation_spaces
        self.action_spaces = self._aec.action_spaces
        self.state_space = self._aec.state_space
        self._mover = ""  # who acted in the last step, and whether the action was refused
        self._illegal = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new duel, seeded as the AEC environment (the same seed gives the same game)."""
        self._aec.reset(seed=seed, options=options)
        self.agents = list(AGENTS)
        self._illegal = False
        self._mover = ""
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """Apply the action of the agent whose decision it is (the other agent's is ignored)."""
        if not self.agents:
            raise RuntimeError("the game is over: call reset() first")
        mover = self._aec.agent_selection
        if actions.get(mover) is None:
            raise ValueError(f"{mover} must choose an action: the decision is theirs")
        aec = self._aec
        aec.step(actions[mover])
        self._illegal = bool(aec.infos[mover].get("illegal_action", False))
        self._mover = mover
        rewards = {agent: float(aec.rewards[agent]) for agent in AGENTS}
        terminations = {agent: bool(aec.terminations[agent]) for agent in AGENTS}
        truncations = {agent: bool(aec.truncations[agent]) for agent in AGENTS}
        observations, infos = self._observations(), self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def state(self) -> npt.NDArray[np.float32]:
        """The full-information state (as :meth:`raw_env.state`)."""
        return full_state(self._aec)

    def render(self) -> Any:
        return self._aec.render()

    def close(self) -> None:
        self._aec.close()

    def _observations(self) -> dict[str, Any]:
        return {agent: self._aec.observe(agent) for agent in AGENTS}

    def _infos(self) -> dict[str, dict[str, Any]]:
        to_move = None if self._aec.match.over else self._aec.agent_selection
        return {
            agent: {
                **self._aec.infos[agent],
                "to_move": to_move,
                "illegal_action": self._illegal and agent == self._mover,
            }
            for agent in AGENTS
        }


__all__ = ["STATE_SIZE", "env", "full_state", "parallel_env", "raw_env"]
