"""Solo puzzles (issue 39): each shipped one survives the automaton's next turn (R7.2-R7.5, R7.8) for
every order of its hidden deck (R9.2), ending the turn at once is proven not to, and mining is
reproducible; puzzle kinds and themes, and the file format written before them still loads."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from clashofdecks.puzzles import (
    Puzzle,
    PuzzleError,
    check,
    keeps_the_win,
    load_puzzles,
    mine,
    solo_puzzle_at,
    themes_of,
)
from clashofdecks.rules import Game
from clashofdecks.survival import ends_the_turn, proven_survival, survives_after

ALL = load_puzzles()
SOLO = [p for p in ALL if p.kind == "solo"]


def test_at_least_50_solo_puzzles_ship_beside_the_duel_ones_and_each_is_proven_again() -> None:
    assert len(SOLO) >= 50
    assert len([p for p in ALL if p.kind == "duel"]) >= 250
    assert len({p.id for p in ALL}) == len(ALL)  # deduplicated by position
    for puzzle in SOLO:
        assert puzzle.seat == 0 and puzzle.theme == "survive" and "survive" in puzzle.themes
        check(puzzle, determinizations=1, seed=2)  # also in a game drawn from the player's view


def test_mining_the_shipped_solo_seeds_again_finds_the_same_puzzles() -> None:
    source = SOLO[0].source
    first = source["seed"] - 1  # the command's first seed: its first game gave no puzzle
    last_seed = SOLO[1].source["seed"] + 1
    expected = [p for p in SOLO if p.source["seed"] < last_seed]
    assert len(expected) >= 2
    agents = (source["agents"][0], "greedy")
    again = list(
        mine(range(first, last_seed), agents, mode="solo", level=source["level"], budget=source["budget"])
    )
    assert [p.to_dict() for p in again] == [p.to_dict() for p in expected]


def _survives_with_this_deck(game: Game, turn: int) -> bool:
    """Whether the player survives the automaton's turn with the game's own deck order (the player's
    decisions inside it tried one by one): a plain replay, not the proof."""
    if game.is_over():
        return game.winner == 0
    if game.turn >= turn + 2:
        return True
    for action in game.legal_actions():
        after = game.clone()
        after.apply(action)
        if _survives_with_this_deck(after, turn):
            return True
    return False


def test_the_solution_survives_every_sampled_deck_order_and_end_loses_to_one() -> None:
    rng = random.Random(5)
    end_would_survive_the_true_order = 0
    for puzzle in SOLO[:25]:
        game = puzzle.game()
        for _ in range(6):
            sample = game.sample_determinization(0, rng)
            turn = sample.turn
            for text in puzzle.solution:
                sample.apply_text(text)
            assert _survives_with_this_deck(sample, turn), puzzle.id
        natural = game.clone()
        turn = natural.turn
        while not natural.is_over() and natural.turn == turn:
            natural.apply(natural.legal_actions()[0])
        end_would_survive_the_true_order += _survives_with_this_deck(natural, turn)
    # the proof is over every order: some puzzles' `end` survives the deck as it lies, yet loses to
    # another order the player cannot rule out
    assert end_would_survive_the_true_order


def test_any_surviving_move_is_right_and_ending_the_turn_is_not() -> None:
    two_ways = 0
    for puzzle in SOLO[:8]:
        game = puzzle.game()
        legal = game.legal_actions()
        right = [a for a in legal if keeps_the_win(game, 0, a)]
        assert game.action_text(legal[0]) == "end" and legal[0] not in right
        assert puzzle.solution[0] in {game.action_text(a) for a in right}
        assert proven_survival(game) == 1.0 and survives_after(game, legal[0]) == 0.0
        two_ways += len(right) > 1
        assert ends_the_turn(game, game.parse_action("end")) is False  # `end` ends only the summoning
    assert two_ways


def test_a_solo_position_that_is_no_puzzle_is_refused() -> None:
    puzzle = SOLO[0]
    game = puzzle.game()
    assert solo_puzzle_at(game) is not None
    game.apply(game.legal_actions()[0])  # `end`: no longer the start of the turn
    assert solo_puzzle_at(game) is None
    broken = Puzzle.from_dict({**puzzle.to_dict(), "solution": ["end", "end"]})
    with pytest.raises(PuzzleError, match="does not survive"):
        check(broken)
    short = Puzzle.from_dict({**puzzle.to_dict(), "solution": list(puzzle.solution[:-1])})
    with pytest.raises(PuzzleError, match="end the turn"):
        check(short)
    duel = next(p for p in ALL if p.kind == "duel")
    assert proven_survival(duel.game()) is None  # a duel has no automaton
    with pytest.raises(PuzzleError, match="solo game"):
        check(Puzzle.from_dict({**duel.to_dict(), "kind": "solo"}))


def test_kinds_and_themes_and_the_file_format_before_them() -> None:
    duel = next(p for p in ALL if p.kind == "duel")
    old = {k: v for k, v in duel.to_dict().items() if k not in ("kind", "themes")}
    loaded = Puzzle.from_dict(old)
    assert loaded.kind == "duel" and loaded.themes[0] == "lethal" and loaded == duel
    assert themes_of("duel", ["order A B", "end"]) == ("lethal", "order")
    assert themes_of("solo", ["play OGRE top", "end", "end"]) == ("survive",)
    assert all(p.themes[0] == ("survive" if p.kind == "solo" else "lethal") for p in ALL)
    # "order": the solver decides a return order in the line (R3.9); the opponent's orders do not count.
    assert all(p.themes == themes_of(p.kind, p.solution, p.game(), p.seat) for p in ALL)
    ordered = [p for p in ALL if "order" in p.themes]
    assert all(any(a.startswith("order") for a in p.solution) for p in ordered)
    with pytest.raises(PuzzleError, match="kind"):
        Puzzle.from_dict({**old, "kind": "race"})
    with pytest.raises(PuzzleError, match="themes"):
        Puzzle.from_dict({**old, "themes": ["mate"]})


def _clash(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "clashofdecks", *args], capture_output=True, text=True, timeout=600
    )


def test_clash_puzzles_mine_solo_and_check(tmp_path: Path) -> None:
    seed = SOLO[0].source["seed"]
    out = tmp_path / "solo.json"
    mined = _clash(
        "puzzles",
        "mine",
        "--mode",
        "solo",
        "--games",
        "1",
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--budget",
        str(SOLO[0].source["budget"]),
    )
    assert mined.returncode == 0, mined.stderr
    assert "from 1 solo games" in mined.stdout
    found = load_puzzles(out)
    assert found and found[0].to_dict() == SOLO[0].to_dict()
    checked = _clash("puzzles", "check", str(out), "--determinizations", "1")
    assert checked.returncode == 0 and "proven again" in checked.stdout
