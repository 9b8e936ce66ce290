"""A game's typed origin (``Game.origin``) and ``record_game`` on every way a game can start.

Regression: ``Game.from_hands`` stored its start under another key than ``record_game`` read, so
recording such a game raised ``RecordError`` against ``record_game``'s docstring.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from clashofdecks import Game, load_position
from clashofdecks.errors import FormatError
from clashofdecks.formats import new_game, seat_of
from clashofdecks.position import dump_position
from clashofdecks.record import GameRecord, record_game, replay
from clashofdecks.rules import GameOrigin


def _play_randomly(game: Game, actions: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for _ in range(actions):
        if game.is_over():
            return
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


STARTS: dict[str, Callable[[], Game]] = {
    "from_hands": lambda: Game.from_hands(
        [["GRRR", "OGRE", "TROLL", "GNOME"], ["BRUTE", "ZOMBIE", "SCRIBE", "ALPHA"]], record_events=False
    ),
    "random_duel": lambda: Game.random_duel(seed=4),
    "new_game": lambda: new_game(mode="solo", format="draft", seed=2),
    "load_position": lambda: load_position(dump_position(Game.random_duel(seed=9))),
    "Game(state)": lambda: Game(Game.random_duel(seed=5).state()),
}


@pytest.mark.parametrize("start", sorted(STARTS))
def test_record_game_works_on_every_way_a_game_can_start(start: str) -> None:
    game = STARTS[start]()
    _play_randomly(game, 60)
    record = record_game(game, players=["a", "b" if not game.is_solo else "automaton"])
    again = replay(GameRecord.from_dict(record.to_dict()))
    assert dump_position(again, expanded=True) == dump_position(game, expanded=True)
    assert len(record.actions) == len(game.history)


def test_from_hands_records_its_start_as_a_position() -> None:
    game = STARTS["from_hands"]()
    assert game.origin.format == "position" and game.origin.start_state == game.state()
    record = record_game(game)
    assert record.format == "position" and record.position is not None
    assert dump_position(load_position(record.position)) == dump_position(game)


def test_origins_are_typed_and_survive_play_and_clone() -> None:
    game = new_game(mode="duel", format="draft", seed=7, external_chance=True)
    assert game.origin == GameOrigin(mode="duel", format="draft", seed=7, external_chance=True)
    _play_randomly(game, 5)
    assert game.clone().origin == game.origin
    assert Game.random_duel(seed=3).origin == GameOrigin(mode="duel", format="random", seed=3)
    loaded = load_position(dump_position(Game.random_duel(seed=3)))
    assert loaded.origin.format == "position" and loaded.origin.start_position is not None


def test_the_coin_toss_participant_is_kept_and_cloned() -> None:
    seats = set()
    for seed in range(12):
        game = new_game(mode="duel", format="precon", seed=seed)
        assert game.clone().first_participant == game.first_participant
        assert seat_of(game, game.first_participant) == 0
        seats.add(game.first_participant)
    assert seats == {0, 1}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": "sealed", "seed": 1}, "unknown game origin format"),
        ({"format": "draft"}, "needs its seed"),
        ({"format": "position"}, "start_position or start_state"),
    ],
)
def test_an_incomplete_origin_is_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(FormatError, match=message):
        GameOrigin(**kwargs)  # type: ignore[arg-type]
