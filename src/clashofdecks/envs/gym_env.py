"""Gymnasium environments (single agent): the solo game against the automaton, and the duel against a
fixed opponent agent.

``import clashofdecks.envs`` registers them::

    env = gymnasium.make("ClashOfDecks/Solo-v1", level=2, format="draft")
    env = gymnasium.make("ClashOfDecks/Duel-v1", opponent="greedy", format="precon")

The action space is the engine's integer space (``Discrete(ACTION_SPACE)``) with its legal-action
mask in ``info["action_mask"]`` and :meth:`ClashOfDecksEnv.action_masks` (MaskablePPO).  An illegal
action raises :class:`~clashofdecks.errors.IllegalActionError` (nothing changes), or with
``illegal_action="penalty"`` gives ``illegal_penalty`` as the reward and changes nothing
(``info["illegal_action"]`` is then True); it is never replaced by another action.

The ``-v1`` ids (:class:`SoloEnvV1`, :class:`DuelEnvV1`) have the defaults the libraries' stock
checks expect: the penalty is the default (Gymnasium's ``check_env`` steps random actions of the
action space), the error an option; and ``render_mode="human"`` prints the board.  The ``-v0`` ids
keep their behaviour.
"""

from __future__ import annotations

from typing import Any, Final, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .. import actions as A
from ..agents.base import Agent
from ..agents.registry import make_agent
from ..errors import IllegalActionError
from ..game_loop import Decider, game_steps
from ..options import Ruleset, Threat
from ..record import GameRecord, record_game
from ..rules import Game
from .encoding import INFOSTATE_LAYOUT, OBS_HIGH, OBSERVATION_LAYOUT
from .match import (
    CUSTOM_BUILDS,
    ILLEGAL_ACTION_MODES,
    OBSERVATION_KINDS,
    Match,
    check_choice,
    ruleset_with_cap,
)

Obs = npt.NDArray[np.float32]
_SEED_LIMIT: Final = 2**63 - 1


class ClashOfDecksEnv(gym.Env[Obs, np.int64]):
    """A game seen by one seat (the "learner", participant 0); the other seat is the automaton (solo)
    or an opponent agent (duel), which moves inside :meth:`step`.

    Reward: +1 for a win, -1 for a loss, 0 otherwise (the turn cap ``max_turns`` ends a game as a
    draw, reported as ``truncated``).  Options: ``format`` (draft, precon; duel also custom and the
    benchmark's ``random`` deal), ``observation`` (``"observation"`` or the perfect-recall
    ``"infostate"``), ``illegal_action`` (``"error"`` or ``"penalty"``), ``ruleset`` (a
    :class:`~clashofdecks.options.Ruleset`), ``render_mode`` (``"ansi"``: the board as plain
    text, ``"rgb_array"``: an image of the board).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 - Gymnasium's attribute

    def __init__(
        self,
        *,
        mode: str,
        format: str = "draft",
        threat: Threat | None = None,
        opponent: str = "random",
        max_turns: int | None = None,
        observation: str = "observation",
        illegal_action: str = "error",
        illegal_penalty: float = -1.0,
        custom_build: str = "random",
        ruleset: Ruleset | None = None,
        render_mode: str | None = None,
        lang: str = "en",
    ) -> None:
        check_choice("observation", observation, OBSERVATION_KINDS)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        check_choice("custom_build", custom_build, CUSTOM_BUILDS)
        if render_mode is not None:
            check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.mode = mode
        self.format = format
        self.threat = threat
        self.ruleset = ruleset_with_cap(ruleset, max_turns)
        self.observation_kind = observation
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.lang = lang
        self.opponent_spec = opponent
        # Fail now, not at the first reset, on a bad opponent, format or threat.
        self._opponent: Agent | None = None if mode == "solo" else make_agent(opponent, 0)
        Match(mode=mode, format=format, seed=0, ruleset=self.ruleset, threat=threat)
        layout = INFOSTATE_LAYOUT if observation == "infostate" else OBSERVATION_LAYOUT
        self.observation_space = spaces.Box(0.0, OBS_HIGH, shape=(layout.size,), dtype=np.float32)
        self.action_space = spaces.Discrete(A.ACTION_SPACE)
        self._match: Match | None = None
        self.seat = 0

    # ------------------------------------------------------------------ Gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game: its seed, the opponent's and the build seed come from ``self.np_random``."""
        super().reset(seed=seed)
        game_seed, agent_seed, build_seed = (int(x) for x in self.np_random.integers(0, _SEED_LIMIT, size=3))
        self._match = Match(
            mode=self.mode,
            format=self.format,
            seed=game_seed,
            ruleset=self.ruleset,
            threat=self.threat,
            build_seed=build_seed,
        )
        self.seat = self._match.seat_of_participant(0)
        if self._opponent is not None:
            self._opponent.reset(agent_seed)
        self._advance_opponent()
        return self._observe(), self._info(illegal=False)

    def step(self, action: Any) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        """Apply the learner's action, then let the opponent move until the learner decides again."""
        match = self._require_match()
        if match.over:
            raise RuntimeError("the game is over: call reset() first")
        act = _as_action(action)
        if not match.game.is_legal(act):
            if self.illegal_action == "error":
                raise IllegalActionError(match.game.explain_illegal(act))
            return self._observe(), self.illegal_penalty, False, False, self._info(illegal=True)
        match.apply(act)
        self._advance_opponent()
        terminated = match.over and not match.truncated()
        truncated = match.truncated()
        return self._observe(), match.reward(self.seat), terminated, truncated, self._info(illegal=False)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action mask as booleans (what sb3-contrib's MaskablePPO asks for)."""
        return self._require_match().mask(self.seat).astype(bool)

    def render(self) -> Any:
        """``ansi``: the board as the learner sees it, as plain text (:mod:`clashofdecks.words.board`);
        ``rgb_array``: an image of it (height x width x 3, uint8); ``human`` (``-v1``): that text
        printed to standard output."""
        match = self._require_match()
        if self.render_mode == "ansi":
            return board_text(match, self.seat, self.lang)
        if self.render_mode == "rgb_array":
            from .image import board_image

            return board_image(match.game, self.seat)
        if self.render_mode == "human":
            print(board_text(match, self.seat, self.lang))
        return None

    # ------------------------------------------------------------------ helpers

    @property
    def game(self) -> Game:
        """The engine game being played (read it; act through :meth:`step`)."""
        return self._require_match().game

    def record(self) -> GameRecord:
        """The game so far as a game record (docs/formats.md): ``clash replay`` shows it, and
        :func:`clashofdecks.record.replay` plays it back exactly."""
        game = self._require_match().game
        names = ["learner", "automaton" if game.is_solo else self.opponent_spec]
        if self.seat == 1:
            names.reverse()
        return record_game(game, names)

    def _require_match(self) -> Match:
        if self._match is None:
            raise RuntimeError("call reset() before using the environment")
        return self._match

    def _advance_opponent(self) -> None:
        """The opponent's decisions through the game loop (each applied by the match, which records
        it and settles the builds nobody decides), until the learner decides or the game ends."""
        match = self._require_match()
        game = match.game
        opponent: Decider[Game] | None = None if self._opponent is None else self._opponent.act
        deciders = [None, opponent] if self.seat == 0 else [opponent, None]
        for _step in game_steps(game, deciders, apply=lambda _seat, action: match.apply(action)):
            pass
        if not game.is_over() and game.current_player != self.seat:
            raise RuntimeError(f"seat {game.current_player} has a decision but no agent")

    def _observe(self) -> Obs:
        return self._require_match().observe(self.seat, self.observation_kind)

    def _info(self, *, illegal: bool) -> dict[str, Any]:
        match = self._require_match()
        info: dict[str, Any] = {
            "action_mask": match.mask(self.seat),
            "seat": self.seat,
            "turn": match.game.turn,
            "illegal_action": illegal,
        }
        outcome = match.game.outcome
        if outcome is not None:
            info["winner"] = -1 if outcome.winner is None else outcome.winner
            info["termination"] = outcome.termination.value
        return info


def _as_action(action: Any) -> int:
    """An action integer from an int, a NumPy integer or a 0-d/1-element array; out of range refused."""
    try:
        value = int(np.asarray(action).reshape(()))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"an action is one integer in 0-{A.ACTION_SPACE - 1}, not {action!r}") from exc
    if not 0 <= value < A.ACTION_SPACE:
        raise ValueError(f"action {value} is outside the action space (0-{A.ACTION_SPACE - 1})")
    return value


def board_text(match: Match, seat: int | None, lang: str = "en") -> str:
    """The board as plain text (:func:`clashofdecks.words.plain_board`) for ``seat`` (``None``: a
    spectator)."""
    from ..words import Context, plain_board  # here: an environment that never renders never loads the words

    if seat is None:
        labels = ["player 0", "automaton" if match.game.is_solo else "player 1"]
    else:
        labels = [
            "learner" if s == seat else ("automaton" if match.game.is_solo else "opponent") for s in (0, 1)
        ]
    return plain_board(match.game, Context(lang=lang, names=(labels[0], labels[1]), viewer=seat))


class SoloEnv(ClashOfDecksEnv):
    """``ClashOfDecks/Solo-v0``: the solo game against the automaton (R7) at threat ``level`` 0-5
    (R8.3; 0 is the quick game) or with explicit ``threat`` options."""

    def __init__(
        self, *, level: int = 0, format: str = "draft", threat: Threat | None = None, **kwargs: Any
    ) -> None:
        super().__init__(mode="solo", format=format, threat=threat or Threat.level(level), **kwargs)
        self.level = level


class DuelEnv(ClashOfDecksEnv):
    """``ClashOfDecks/Duel-v0``: the duel against a fixed opponent agent (``opponent``: an agent spec
    such as ``random``, ``greedy`` or ``ismcts:200``); the coin toss decides the learner's seat."""

    def __init__(self, *, opponent: str = "random", format: str = "draft", **kwargs: Any) -> None:
        super().__init__(mode="duel", format=format, opponent=opponent, **kwargs)


_V1_METADATA: Final = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}


class SoloEnvV1(SoloEnv):
    """``ClashOfDecks/Solo-v1``: :class:`SoloEnv` with ``illegal_action="penalty"`` as the default
    (``"error"`` is an option) and the ``human`` render mode."""

    metadata = _V1_METADATA

    def __init__(self, *, illegal_action: str = "penalty", **kwargs: Any) -> None:
        super().__init__(illegal_action=illegal_action, **kwargs)


class DuelEnvV1(DuelEnv):
    """``ClashOfDecks/Duel-v1``: :class:`DuelEnv` with ``illegal_action="penalty"`` as the default
    (``"error"`` is an option) and the ``human`` render mode."""

    metadata = _V1_METADATA

    def __init__(self, *, illegal_action: str = "penalty", **kwargs: Any) -> None:
        super().__init__(illegal_action=illegal_action, **kwargs)
