"""Puzzles from real games (issue 39): each shipped puzzle is a proven win before the turn ends that
ending the turn at once misses (R3.5: attacks happen on their own), also in games consistent with the
solver's view (R9); any winning move is right; mining is reproducible."""

from __future__ import annotations

import json
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
    puzzle_at,
    wins_this_turn,
)

SHIPPED = [p for p in load_puzzles() if p.kind == "duel"]


def test_at_least_200_puzzles_ship_and_each_is_proven_again() -> None:
    assert len(SHIPPED) >= 200
    assert len({p.id for p in SHIPPED}) == len(SHIPPED)  # deduplicated by position
    for puzzle in SHIPPED:
        check(puzzle, determinizations=2, seed=1)


def test_mining_the_shipped_seeds_again_finds_the_same_puzzles() -> None:
    first = SHIPPED[0].source["seed"]
    last_seed = first + 12
    expected = [p for p in SHIPPED if p.source["seed"] < last_seed]
    assert expected
    again = list(
        mine(range(first, last_seed), tuple(SHIPPED[0].source["agents"]), SHIPPED[0].source["format"])
    )
    assert [p.to_dict() for p in again] == [p.to_dict() for p in expected]


def test_any_winning_move_is_right_and_ending_the_turn_is_not() -> None:
    two_ways = 0
    for puzzle in SHIPPED[:60]:
        game = puzzle.game()
        legal = game.legal_actions()
        winning = [a for a in legal if keeps_the_win(game, puzzle.seat, a)]
        assert puzzle.solution[0] in {game.action_text(a) for a in winning}
        assert legal[0] not in winning and game.action_text(legal[0]) == "end"
        two_ways += len(winning) > 1
    assert two_ways  # some puzzles have more than one right first move, and each is accepted


def test_a_position_that_is_no_puzzle_is_refused() -> None:
    puzzle = SHIPPED[0]
    game = puzzle.game()
    game.apply(game.legal_actions()[0])  # end: the win is gone, or it is the opponent's decision
    assert puzzle_at(game) is None or game.current_player != puzzle.seat
    assert not wins_this_turn(game, puzzle.seat) or game.current_player != puzzle.seat
    broken = Puzzle.from_dict({**puzzle.to_dict(), "solution": ["end", "end"]})
    with pytest.raises(PuzzleError, match=r"does not win|does not replay"):
        check(broken)
    with pytest.raises(PuzzleError, match="seat"):
        Puzzle.from_dict({**puzzle.to_dict(), "seat": 3})


def _clash(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "clashofdecks", *args], capture_output=True, text=True, timeout=300
    )


def test_clash_puzzles_mine_and_check(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    mined = _clash("puzzles", "mine", "--games", "6", "--seed", "9000000", "--out", str(out))
    assert mined.returncode == 0, mined.stderr
    assert "puzzles from 6 duels" in mined.stdout
    assert len(load_puzzles(out)) >= 1
    checked = _clash("puzzles", "check", str(out), "--determinizations", "1")
    assert checked.returncode == 0 and "proven again" in checked.stdout
    data = json.loads(out.read_text())
    data["puzzles"][0]["solution"] = ["end"]
    out.write_text(json.dumps(data))
    failed = _clash("puzzles", "check", str(out))
    assert failed.returncode == 1 and "does not" in failed.stderr and "Traceback" not in failed.stderr
    (tmp_path / "bad.json").write_text("{")
    bad = _clash("puzzles", "check", str(tmp_path / "bad.json"))
    assert bad.returncode == 1 and "cannot read the puzzles" in bad.stderr
    unknown = _clash("puzzles", "mine", "--agents", "nobody", "greedy", "--out", str(out))
    assert unknown.returncode == 2 and "unknown agent" in unknown.stderr
