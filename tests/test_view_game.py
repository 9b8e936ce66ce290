"""A game built from one seat's view (clashofdecks.view_game, issue 39's bots): the seat cannot tell it
from the real game — its view of the built game is the view it was given (R9) — and it never knows
more: what was hidden is drawn at random, so different generators give different hidden cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clashofdecks.errors import InvalidPositionError
from clashofdecks.formats import new_game
from clashofdecks.position import view
from clashofdecks.view_game import game_from_view
from random_play import random_action

MODES_FORMATS = [
    ("duel", "draft"),
    ("duel", "precon"),
    ("duel", "custom"),
    ("solo", "draft"),
    ("solo", "precon"),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(MODES_FORMATS), st.integers(0, 2**31), st.integers(0, 400), st.integers(0, 2**31))
def test_the_seat_sees_the_view_it_was_given_r9(
    mode_format: tuple[str, str], seed: int, steps: int, draw: int
) -> None:
    mode, fmt = mode_format
    game = new_game(mode=mode, format=fmt, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over():
            break
        game.apply(random_action(game, rng))
    for seat in (0, 1) if mode == "duel" else (0,):
        seen = view(game, seat)
        built = game_from_view(seen, seat, random.Random(draw))
        assert view(built, seat) == seen
        if game.current_player == seat and not game.is_over():
            assert built.legal_actions() == game.legal_actions()


def test_the_random_duel_deal_is_refilled_from_unseen_cards() -> None:
    from clashofdecks import Game

    game = Game.random_duel(seed=4)
    seen = view(game, 0)
    hands = {tuple(game_from_view(seen, 0, random.Random(i)).state().hands[1]) for i in range(20)}
    assert len(hands) > 1  # the opponent's hidden cards differ from draw to draw
    for i in range(20):
        assert view(game_from_view(seen, 0, random.Random(i)), 0) == seen


def test_hidden_cards_are_drawn_never_copied_from_the_truth() -> None:
    game = new_game(mode="duel", format="draft", seed=7)
    rng = random.Random(1)
    while game.phase == "setup":
        game.apply(random_action(game, rng))
    truth = game.state().hands[1]
    seen = view(game, 0)
    built = [game_from_view(seen, 0, random.Random(i)).state().hands[1] for i in range(30)]
    assert any(hand != truth for hand in built)
    assert all(sorted(hand) == sorted(truth) for hand in built)  # drafted cards are known (R9.1)


def test_a_malformed_view_is_a_clear_error() -> None:
    with pytest.raises(InvalidPositionError):
        game_from_view({"players": []}, 0, random.Random(0))
    seen = view(new_game(mode="duel", format="precon", seed=1), 0)
    seen["players"][1]["hand"] = ["?"] * 40
    with pytest.raises(InvalidPositionError):
        game_from_view(seen, 0, random.Random(0))
    with pytest.raises(ValueError, match="seat 0 or 1"):
        game_from_view(seen, 2, random.Random(0))
