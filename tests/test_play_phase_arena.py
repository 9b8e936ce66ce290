"""The arena's duels with the setup played once (simulation/play_phase_arena.py; docs/ai.md, "Tuning
the network's search"): the book's games are the arena's games."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy")

from clashofdecks.options import Ruleset
from clashofdecks.simulation.arena import Task, _spec
from clashofdecks.simulation.game import play_game
from clashofdecks.simulation.play_phase_arena import (
    play_entry_game,
    read_book,
    setup_book,
)


@pytest.mark.slow
def test_a_book_game_is_the_arenas_game(tmp_path: Path) -> None:
    """The same winner after the same number of turns, from both seat orders (the arena's
    ``clash arena neural-search:40 strongest`` games of deal 500,000)."""
    book = tmp_path / "deals.book"
    setup_book(book, 500_000, 1)
    setup_book(book, 500_000, 1)  # resumed: nothing played twice
    [entry] = list(read_book(book))
    agents = ["neural-search:40", "strongest"]
    for swap in (False, True):
        result, arena_game = play_game(
            _spec(0, Task(0, 1, 500_000, swap), agents, "draft", Ruleset(max_turns=200), None)
        )
        points, game = play_entry_game(entry, agents[0], swap)
        assert game.outcome is not None and arena_game.outcome is not None
        assert game.turn == arena_game.turn and game.outcome.winner == arena_game.outcome.winner
        won = result.winner_participant == (1 if swap else 0)
        assert points == (0.5 if result.winner is None else float(won))


def test_a_file_that_is_no_book_is_refused(tmp_path: Path) -> None:
    import pickle

    bad = tmp_path / "bad.book"
    bad.write_bytes(pickle.dumps({"not": "a book"}))
    with pytest.raises(TypeError, match="not a setup book"):
        list(read_book(bad))
