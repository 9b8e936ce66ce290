"""One game as the environments run it: the engine game, the decisions the environments take for
nobody in particular (custom deck building), and what the information-state encoding needs.

The custom format's build stage (R2.5: choose 10 of 32 cards, C(32, 10) choices) does not fit a flat
action space.  The environments exclude it: a seat's build is a uniformly random 10-card deck drawn
from the match's seeded RNG (``custom_build="random"``, the only option), and the seats then play the
bans and the game.  Everything else (deck choice, draft picks, bans, the game) is the seats' own
decisions in the engine's integer action space.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from .. import actions as A
from ..cards import CARD_INDEX, N_CARDS
from ..events import Event
from ..formats import seat_of, start_game
from ..game_loop import game_steps
from ..options import Ruleset, Threat
from ..rules import DecisionKind, Game, Termination
from .encoding import DEFAULT_MAX_TURNS, encode_infostate, encode_observation, legal_mask

#: What an environment's observation is: the observation vector or the information-state vector.
OBSERVATION_KINDS: Final = ("observation", "infostate")
#: How an illegal action is handled: an error, or a penalty with nothing changed.
ILLEGAL_ACTION_MODES: Final = ("error", "penalty")
#: How the custom format's build stage is decided (see the module docstring).
CUSTOM_BUILDS: Final = ("random",)


def ruleset_with_cap(ruleset: Ruleset | None, max_turns: int | None) -> Ruleset:
    """``ruleset`` with the turn cap the environments need (a finite game length for the encoding)."""
    base = ruleset or Ruleset()
    cap = max_turns if max_turns is not None else (base.max_turns or DEFAULT_MAX_TURNS)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ValueError(f"max_turns must be a positive integer, not {cap!r}")
    return Ruleset(**{**base.to_dict(), "max_turns": cap})


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """Refuse an option value that is not one of ``choices``, naming them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}")


def _not_building(game: Game) -> bool:
    return game.decision_kind is not DecisionKind.BUILD


class Match:
    """A game from its start, with the decisions of every seat recorded as ``(player, action)``."""

    def __init__(
        self,
        *,
        mode: str,
        format: str,
        seed: int,
        ruleset: Ruleset,
        threat: Threat | None = None,
        build_seed: int = 0,
    ) -> None:
        self.game: Game = start_game(
            mode=mode, format=format, seed=seed, ruleset=ruleset, threat=threat, record_events=False
        )
        self.history: list[tuple[int, int]] = []
        self.dealt: list[list[int] | None] = [None, None]
        self._in_setup = True
        self._build_seed = build_seed
        self._build_rng: random.Random | None = None  # made when a build is needed (seeding costs)
        self.settle()

    def seat_of_participant(self, participant: int) -> int:
        """The seat of participant 0 or 1 (the coin toss, R2.3a, decides; solo: the player is seat 0)."""
        return 0 if self.game.is_solo else seat_of(self.game, participant)

    def apply(self, action: int) -> Sequence[Event]:
        """Apply a legal action of the player to move (IllegalActionError otherwise, nothing changed);
        returns its events (none: the match's game does not record them)."""
        player = self.game.current_player
        events = self.game.apply(action)
        self.history.append((player, action))
        self.settle()
        return events

    def settle(self) -> None:
        """Take the decisions the environments take (custom builds) and note the hands as dealt."""
        if not self._in_setup:
            return
        game = self.game
        builder = self._random_build
        for step in game_steps(game, [builder, builder], stop=_not_building):
            self.history.append((step.seat, step.action))
        if game.phase != "setup":
            self._in_setup = False
            for seat in (0, 1):
                if self.dealt[seat] is None and not (game.is_solo and seat == 1):
                    self.dealt[seat] = [CARD_INDEX[c] for c in game.hand(seat)]

    def _random_build(self, game: Game) -> int:
        """A uniformly random 10-card deck from the match's build RNG (see the module)."""
        if self._build_rng is None:
            self._build_rng = random.Random(self._build_seed)
        cards = self._build_rng.sample(range(N_CARDS), A.DECK_SIZE_CUSTOM)
        return A.BUILD_BASE + A.build_rank(cards)

    @property
    def over(self) -> bool:
        return self.game.is_over()

    def truncated(self) -> bool:
        """Whether the game ended by the turn cap (a draw the rules do not have: a truncation)."""
        outcome = self.game.outcome
        return outcome is not None and outcome.termination is Termination.TURN_CAP

    def reward(self, seat: int) -> float:
        """+1 if ``seat`` won, -1 if it lost, 0 while playing or for a capped game."""
        outcome = self.game.outcome
        if outcome is None or outcome.winner is None:
            return 0.0
        return 1.0 if outcome.winner == seat else -1.0

    def observe(self, seat: int, kind: str) -> npt.NDArray[np.float32]:
        """The observation (or information-state) vector of ``seat``."""
        if kind == "infostate":
            return encode_infostate(self.game, seat, self.dealt[seat], self.history)
        return encode_observation(self.game, seat)

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """The legal-action mask of ``seat`` (all zeros when it is not its decision)."""
        return legal_mask(self.game, seat)
