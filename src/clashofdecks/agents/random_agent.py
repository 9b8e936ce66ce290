"""``random``: uniform over the legal actions, seeded (the benchmark's random player).

In the custom format's build stage (R2.5) the 10-card sets are too many to enumerate; the random
agent then draws a uniformly random 10-card deck from its 32 cards.

On the compiled core the legal action tuples equal the Python engine's, so the same generator makes
the same choice in either engine.
"""

from __future__ import annotations

import random

from ..actions import BUILD_BASE, DECK_SIZE_CUSTOM, build_rank
from ..cards import N_CARDS
from ..engine import GameEngine
from .base import Agent, is_build_stage, no_decision_error


class RandomAgent(Agent):
    """Chooses uniformly among ``game.legal_actions()`` with its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int | None = 0) -> None:
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, game: GameEngine) -> int:
        if is_build_stage(game):
            # The build stage (R2.5): any 10 different cards make a legal deck.
            return BUILD_BASE + build_rank(self._rng.sample(range(N_CARDS), DECK_SIZE_CUSTOM))
        legal = game.legal_actions()
        if not legal:
            raise no_decision_error(game, self.name)
        return legal[self._rng.randrange(len(legal))]
