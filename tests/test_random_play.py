"""The tests' random player (tests/random_play.py) plays the game the hand-written loops played."""

from __future__ import annotations

import random

from clashofdecks.formats import new_game
from clashofdecks.record import record_game
from random_play import play_randomly, random_steps


def test_it_plays_the_same_game_as_the_inline_loop_for_a_seed() -> None:
    for seed in range(3):
        by_hand = new_game(mode="duel", format="draft", seed=seed)
        rng = random.Random(seed)
        while not by_hand.is_over():
            by_hand.apply(rng.choice(by_hand.legal_actions()))
        helped = play_randomly(new_game(mode="duel", format="draft", seed=seed), random.Random(seed))
        assert helped.history == by_hand.history and helped.outcome == by_hand.outcome


def test_it_builds_custom_decks_and_stops_after_max_actions() -> None:
    game = new_game(mode="duel", format="custom", seed=1)
    steps = list(random_steps(game, random.Random(1), max_actions=5))
    assert len(steps) == 5 and all(events for _, events in steps)
    play_randomly(game, random.Random(2))
    assert game.is_over() and record_game(game).actions
