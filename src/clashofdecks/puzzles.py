"""Puzzles from real games: positions whose win the engine proves exactly (issue 39).

A duel puzzle is a position at the start of a player's turn in the play phase where that player, the
solver, **wins before the turn ends** whatever the opponent decides (in the solver's turn the opponent
decides only the public return orders of destroyed creatures, R3.9), and where the natural move —
ending the turn at once, so that the attacks happen on their own (R3.5) — does not win.  The proof is
the exact search of the rest of the turn of :func:`clashofdecks.analyze.proven_result` (the solver's
choices existential, the opponent's universal), run on the true position.  The opponent's hidden hand
cards are known cards in an unknown order (R9.1, R9.2); :func:`check` proves a puzzle again in games
drawn at random from the solver's view, and the tests do so for every shipped puzzle.

Any move that keeps the proven win is right (:func:`keeps_the_win`): moves that reach the same end of
the turn are one move, and a different winning line is as good as the one stored, as lichess accepts
any mate.  ``clash puzzles mine`` finds puzzles in games it plays; ``clash puzzles check`` proves a
file of them again.  The package ships ``data/puzzles.json`` (docs/puzzles.md).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .analyze import proven_result
from .engine import GameEngine
from .errors import ClashError
from .formats import new_game
from .position import dump_position, load_position
from .rules import Game

#: Positions the exact search may visit to prove one puzzle (beyond it: no puzzle).
PUZZLE_BUDGET: Final = 20_000
#: The version of the puzzle file format.
PUZZLES_VERSION: Final = 1
#: The puzzles shipped with the package.
SHIPPED: Final = "puzzles.json"


class PuzzleError(ClashError):
    """A puzzle file that cannot be read, or a puzzle that is not one."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position (complete, the true state), the solver's seat, a winning line, its theme
    and where it was found (the seed and agents of the game it comes from, the turn)."""

    id: str
    position: dict[str, Any]
    seat: int
    theme: str
    solution: tuple[str, ...]
    source: dict[str, Any]

    def game(self) -> Game:
        """The puzzle's position as a game."""
        return load_position(self.position, record_events=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seat": self.seat,
            "theme": self.theme,
            "solution": list(self.solution),
            "source": self.source,
            "position": self.position,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Puzzle:
        if not isinstance(data, dict) or not {"id", "seat", "position", "solution"} <= set(data):
            raise PuzzleError("a puzzle is an object with id, seat, position and solution")
        seat = data["seat"]
        if seat not in (0, 1):
            raise PuzzleError(f"puzzle {data.get('id')!r}: seat must be 0 or 1")
        return cls(
            id=str(data["id"]),
            position=dict(data["position"]),
            seat=int(seat),
            theme=str(data.get("theme", "lethal")),
            solution=tuple(str(a) for a in data["solution"]),
            source=dict(data.get("source") or {}),
        )


def wins_this_turn(game: GameEngine, seat: int, budget: int = PUZZLE_BUDGET) -> bool:
    """Whether ``seat`` is proven to win before the current turn ends (a finished game: whether it won)."""
    if game.is_over():
        return game.winner == seat
    return proven_result(game, seat, budget) == 1.0


def keeps_the_win(game: Game, seat: int, action: int, budget: int = PUZZLE_BUDGET) -> bool:
    """Whether ``seat`` playing ``action`` in ``game`` still wins before the turn ends: the test of a
    move in a puzzle (any winning move is right)."""
    after = game.clone()
    after.record_events = False
    after.apply(action)
    return wins_this_turn(after, seat, budget)


def winning_line(game: Game, seat: int, budget: int = PUZZLE_BUDGET) -> list[str]:
    """One line that wins: at each of the solver's decisions the first action that keeps the win, at each
    of the opponent's its first action (every one of them loses); raises :class:`PuzzleError` if
    ``seat`` is not proven to win."""
    g = game.clone()
    g.record_events = False
    line: list[str] = []
    while not g.is_over():
        legal = g.legal_actions()
        if g.current_player == seat:
            action = next((a for a in legal if keeps_the_win(g, seat, a, budget)), None)
            if action is None:
                raise PuzzleError("the solver has no winning move here")
        else:
            action = legal[0]
        line.append(g.action_text(action))
        g.apply(action)
    if g.winner != seat:
        raise PuzzleError("the line does not end in the solver's win")
    return line


def puzzle_at(game: Game, budget: int = PUZZLE_BUDGET) -> tuple[int, list[str]] | None:
    """``(seat, winning line)`` when ``game`` is a duel puzzle for the player to move (see the module
    docstring), else ``None``."""
    if game.is_solo or game.is_over() or game.phase == "setup":
        return None
    seat = game.current_player
    legal = game.legal_actions()
    if len(legal) < 2 or not wins_this_turn(game, seat, budget):
        return None
    if keeps_the_win(game, seat, legal[0], budget):  # legal[0] is `end`: then it is no puzzle
        return None
    return seat, winning_line(game, seat, budget)


def position_key(position: dict[str, Any]) -> str:
    """A short stable id of a position (the same position, the same id: puzzles are deduplicated by it)."""
    text = json.dumps(position, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def mine(
    seeds: Sequence[int], agents: tuple[str, str] = ("greedy", "greedy"), fmt: str = "draft"
) -> Iterator[Puzzle]:
    """Play a duel per seed with ``agents`` and yield each puzzle met at the start of a play-phase turn
    (deduplicated by position)."""
    from .agents.registry import make_agent

    seen: set[str] = set()
    for seed in seeds:
        game = new_game(mode="duel", format=fmt, seed=seed)
        game.record_events = False
        players = [make_agent(agents[0], seed), make_agent(agents[1], seed + 1)]
        last_turn = None
        while not game.is_over():
            if game.phase != "setup" and game.turn != last_turn:
                last_turn = game.turn
                found = puzzle_at(game)
                if found is not None:
                    position = dump_position(game)
                    key = position_key(position)
                    if key not in seen:
                        seen.add(key)
                        source = {"seed": seed, "format": fmt, "agents": list(agents), "turn": game.turn}
                        yield Puzzle(key, position, found[0], "lethal", tuple(found[1]), source)
            game.apply(players[game.current_player].act(game))


def check(puzzle: Puzzle, determinizations: int = 0, seed: int = 0) -> None:
    """Prove ``puzzle`` again (and in ``determinizations`` random games consistent with the solver's
    view); raises :class:`PuzzleError` naming what fails."""
    game = puzzle.game()
    if game.current_player != puzzle.seat:
        raise PuzzleError(f"puzzle {puzzle.id}: seat {puzzle.seat} is not to move")
    found = puzzle_at(game)
    if found is None or found[0] != puzzle.seat:
        raise PuzzleError(f"puzzle {puzzle.id}: not a proven win that `end` misses")
    replay = game.clone()
    try:
        for text in puzzle.solution:
            replay.apply_text(text)
    except ClashError as exc:
        raise PuzzleError(f"puzzle {puzzle.id}: its solution does not replay: {exc}") from None
    if replay.winner != puzzle.seat:
        raise PuzzleError(f"puzzle {puzzle.id}: its solution does not win")
    rng = random.Random(seed)
    for _ in range(determinizations):
        sample = game.sample_determinization(puzzle.seat, rng)
        if not wins_this_turn(sample, puzzle.seat):
            raise PuzzleError(f"puzzle {puzzle.id}: a game consistent with the solver's view is no win")


def load_puzzles(path: str | Path | None = None) -> list[Puzzle]:
    """The puzzles of a file written by ``clash puzzles mine`` (default: the shipped ones)."""
    try:
        if path is None:
            text = resources.files("clashofdecks").joinpath("data", SHIPPED).read_text(encoding="utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PuzzleError(f"cannot read the puzzles: {exc}") from None
    if not isinstance(data, dict) or data.get("puzzles_version") != PUZZLES_VERSION:
        raise PuzzleError(f"not a puzzle file of version {PUZZLES_VERSION}")
    return [Puzzle.from_dict(p) for p in data.get("puzzles", [])]


def dump_puzzles(puzzles: Sequence[Puzzle]) -> dict[str, Any]:
    """The JSON of a puzzle file."""
    return {"puzzles_version": PUZZLES_VERSION, "puzzles": [p.to_dict() for p in puzzles]}


__all__ = [
    "PUZZLE_BUDGET",
    "Puzzle",
    "PuzzleError",
    "check",
    "dump_puzzles",
    "keeps_the_win",
    "load_puzzles",
    "mine",
    "position_key",
    "puzzle_at",
    "winning_line",
    "wins_this_turn",
]
