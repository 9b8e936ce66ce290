"""The duel as a PettingZoo AEC environment, shaped like PettingZoo's classic games.

Agents ``player_0`` and ``player_1`` are the engine's seats (``player_0`` starts the game; the coin
toss of R2.3a is the seat order itself).  Each observation is ``{"observation": float32 vector,
"action_mask": int8 vector}``; the mask is all zeros for an agent whose decision it is not.  A turn
has many decisions, and a return order (R3.9) can be the other seat's decision in the middle of a
turn, so ``agent_selection`` follows the engine's ``current_player`` rather than alternating.

    from clashofdecks.envs.pettingzoo import env
    e = env(format="draft")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else policy(obs)
        e.step(action)
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import actions as A
from ..errors import IllegalActionError
from ..options import Ruleset
from .encoding import INFOSTATE_LAYOUT, OBS_HIGH, OBSERVATION_LAYOUT
from .gym_env import board_text
from .match import (
    CUSTOM_BUILDS,
    ILLEGAL_ACTION_MODES,
    OBSERVATION_KINDS,
    Match,
    check_choice,
    ruleset_with_cap,
)

AGENTS: Final = ("player_0", "player_1")
_SEAT_OF: Final = {agent: seat for seat, agent in enumerate(AGENTS)}
_SEED_LIMIT: Final = 2**63 - 1


def env(**kwargs: Any) -> Any:
    """The duel environment with PettingZoo's order-enforcing wrapper (the raw environment checks
    action bounds itself, with a clearer error than PettingZoo's bounds wrapper)."""
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper with the same checks, but ``last()`` and ``step()`` handed
    straight to the environment once it is reset: the generic ``last()`` reaches five attributes
    through the wrapper's ``__getattr__``, which cost about as much as encoding the observation."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's error or warning


class raw_env(AECEnv):  # type: ignore[misc]
    """The duel (R2) between two agents.  Options: ``format`` (draft, precon, custom, or the benchmark's
    ``random`` deal), ``max_turns`` (the turn cap: a draw, reported as truncation), ``observation``
    (``"observation"`` or the perfect-recall ``"infostate"``), ``illegal_action`` (``"error"``, or
    ``"penalty"``: the reward ``illegal_penalty`` and nothing changes), ``ruleset``, ``render_mode``
    (``"ansi"`` or ``"rgb_array"``, a spectator's view)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array"],
        "name": "clash_of_decks_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        *,
        format: str = "draft",
        max_turns: int | None = None,
        observation: str = "observation",
        illegal_action: str = "error",
        illegal_penalty: float = -1.0,
        custom_build: str = "random",
        ruleset: Ruleset | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_choice("observation", observation, OBSERVATION_KINDS)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        check_choice("custom_build", custom_build, CUSTOM_BUILDS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.format = format
        self.ruleset = ruleset_with_cap(ruleset, max_turns)
        Match(mode="duel", format=format, seed=0, ruleset=self.ruleset)  # refuse a bad format now
        self.observation_kind = observation
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        layout = INFOSTATE_LAYOUT if observation == "infostate" else OBSERVATION_LAYOUT
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, OBS_HIGH, shape=(layout.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(A.ACTION_SPACE,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(AGENTS, space)
        self.action_spaces = {agent: spaces.Discrete(A.ACTION_SPACE) for agent in AGENTS}
        self._rng = np.random.default_rng()
        self._match: Match | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def match(self) -> Match:
        """The game being played (read it; act through :meth:`step`)."""
        if self._match is None:
            raise RuntimeError("call reset() before using the environment")
        return self._match

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new duel; its seed and the build seed come from ``seed`` (or the environment's RNG)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed, build_seed = (int(x) for x in self._rng.integers(0, _SEED_LIMIT, size=2))
        self._match = Match(
            mode="duel", format=self.format, seed=game_seed, ruleset=self.ruleset, build_seed=build_seed
        )
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self._match.game.current_player]

    def observe(self, agent: str) -> dict[str, Any]:
        seat = _SEAT_OF[agent]
        match = self.match
        return {"observation": match.observe(seat, self.observation_kind), "action_mask": match.mask(seat)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self.match
        if action is None:
            raise ValueError(f"{agent} must choose an action (None is only for a finished agent)")
        act = int(action)
        if not 0 <= act < A.ACTION_SPACE:
            raise ValueError(f"action {act} is outside the action space (0-{A.ACTION_SPACE - 1})")
        self._cumulative_rewards[agent] = 0.0
        try:
            match.apply(act)  # the engine checks legality first: a refused action changes nothing
        except IllegalActionError:
            if self.illegal_action == "error":
                raise
            self._clear_rewards()
            self.rewards[agent] = self.illegal_penalty
            self.infos[agent] = {"illegal_action": True}
            self._accumulate_rewards()
            return
        if self.infos[agent]:
            self.infos[agent] = {}
        game = match.game
        if game.is_over():
            truncated = match.truncated()
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = match.reward(seat)
                if truncated:
                    self.truncations[name] = True
                else:
                    self.terminations[name] = True
                outcome = game.outcome
                assert outcome is not None
                self.infos[name] = {
                    "winner": -1 if outcome.winner is None else outcome.winner,
                    "termination": outcome.termination.value,
                }
            self._accumulate_rewards()
            # Every agent is done: they step with None in seat order (PettingZoo's dead steps).
            self.agent_selection = AGENTS[0]
            return
        if any(self.rewards.values()):
            self._clear_rewards()
        self.agent_selection = AGENTS[game.current_player]

    def render(self) -> Any:
        """``ansi``: the terminal board as a spectator sees it; ``rgb_array``: an image of it."""
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return board_text(self.match, None)
        from .image import board_image

        return board_image(self.match.game, None)

    def close(self) -> None:
        pass


def legal_actions(observation: dict[str, Any]) -> npt.NDArray[np.intp]:
    """The legal actions in an observation dict (where its mask is 1)."""
    return np.flatnonzero(observation["action_mask"])
