"""The tests' one random player: uniformly random legal actions until the game ends (issue 37, item 6).

``random.Random.choice(seq)`` and ``seq[rng.randrange(len(seq))]`` draw the same number from the same
generator, so a loop written either way plays the same game as these helpers for the same seed.  A
custom deck (R2.5: C(32, 10) choices, not listed) is drawn as ten distinct cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from clashofdecks import actions as A
from clashofdecks.cards import N_CARDS
from clashofdecks.events import Event
from clashofdecks.rules import DecisionKind, Game


def random_action(game: Game, rng: random.Random) -> int:
    """A uniformly random legal action of ``game`` (a random custom deck in the build stage)."""
    if game.decision_kind is DecisionKind.BUILD:
        return A.BUILD_BASE + A.build_rank(rng.sample(range(N_CARDS), A.DECK_SIZE_CUSTOM))
    legal = game.legal_actions()
    return legal[rng.randrange(len(legal))]


def random_steps(
    game: Game, rng: random.Random, max_actions: int | None = None
) -> Iterator[tuple[int, Sequence[Event]]]:
    """Apply random actions until the game ends (or ``max_actions`` were applied), yielding each action
    with its events after it was applied."""
    applied = 0
    while not game.is_over() and (max_actions is None or applied < max_actions):
        action = random_action(game, rng)
        events = game.apply(action)
        applied += 1
        yield action, events


def play_randomly(game: Game, rng: random.Random, max_actions: int | None = None) -> Game:
    """Play ``game`` with random actions to its end (or ``max_actions`` actions); returns it."""
    for _ in random_steps(game, rng, max_actions):
        pass
    return game
