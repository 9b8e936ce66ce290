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

A solo puzzle (``kind`` ``solo``) is a position at the start of the player's turn in a solo game where
the player has a line in this turn that **survives or wins through the automaton's next turn** for
every order of the automaton's hidden deck, and ending the turn at once is proven not to
(:mod:`clashofdecks.survival`).  The package ships them in ``data/puzzles-solo.json``.  Every puzzle
has themes: ``lethal`` (a duel's win this turn) or ``survive`` (solo), and ``order`` when the solver
decides a return order in its solution (R3.9).
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
from .options import Threat
from .position import dump_position, load_position
from .record import GameRecord, Replay
from .rules import Game
from .survival import SURVIVAL_BUDGET, ends_the_turn, proven_survival, survives_after

#: Positions the exact search may visit to prove one puzzle (beyond it: no puzzle).
PUZZLE_BUDGET: Final = 20_000
#: The version of the puzzle file format.
PUZZLES_VERSION: Final = 1
#: The puzzles shipped with the package: the duel ones, then the solo ones.
SHIPPED: Final = "puzzles.json"
SHIPPED_SOLO: Final = "puzzles-solo.json"
#: A puzzle's kinds and themes.
KINDS: Final = ("duel", "solo")
THEMES: Final = ("lethal", "survive", "order")


class PuzzleError(ClashError):
    """A puzzle file that cannot be read, or a puzzle that is not one."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position (complete, the true state), the solver's seat, a winning line (solo: the
    player's turn that survives), its theme and where it was found (the seed and agents of the game it
    comes from, the turn); ``kind`` is ``duel`` or ``solo``, ``themes`` every theme (see the module)."""

    id: str
    position: dict[str, Any]
    seat: int
    theme: str
    solution: tuple[str, ...]
    source: dict[str, Any]
    kind: str = "duel"
    themes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.themes:  # a puzzle written before themes: its kind's theme and the solution's
            object.__setattr__(self, "themes", themes_of(self.kind, self.solution, self.game(), self.seat))

    def game(self) -> Game:
        """The puzzle's position as a game."""
        return load_position(self.position, record_events=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seat": self.seat,
            "theme": self.theme,
            "kind": self.kind,
            "themes": list(self.themes),
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
        kind = data.get("kind", "duel")
        if kind not in KINDS:
            raise PuzzleError(f"puzzle {data.get('id')!r}: kind must be duel or solo")
        themes = data.get("themes") or ()
        if not isinstance(themes, list | tuple) or not set(themes) <= set(THEMES):
            raise PuzzleError(f"puzzle {data.get('id')!r}: themes are among {', '.join(THEMES)}")
        return cls(
            id=str(data["id"]),
            position=dict(data["position"]),
            seat=int(seat),
            theme=str(data.get("theme", "lethal")),
            solution=tuple(str(a) for a in data["solution"]),
            source=dict(data.get("source") or {}),
            kind=kind,
            themes=tuple(themes),
        )


def themes_of(kind: str, solution: Sequence[str], game: Game | None = None, seat: int = 0) -> tuple[str, ...]:
    """A puzzle's themes: ``lethal`` (duel) or ``survive`` (solo), and ``order`` when the solver decides
    a return order (R3.9) in the solution: replayed on ``game`` (the puzzle's position) when given, so
    that the opponent's return orders in the line do not count; without it any return order counts."""
    main = "survive" if kind == "solo" else "lethal"
    ordered = False
    for text in solution:
        if game is not None and game.is_over():
            break
        if text.startswith("order") and (game is None or game.current_player == seat):
            ordered = True
            break
        if game is not None:
            game.apply(game.parse_action(text))
    return (main, "order") if ordered else (main,)


def wins_this_turn(game: GameEngine, seat: int, budget: int = PUZZLE_BUDGET) -> bool:
    """Whether ``seat`` is proven to win before the current turn ends (a finished game: whether it won)."""
    if game.is_over():
        return game.winner == seat
    return proven_result(game, seat, budget) == 1.0


def keeps_the_win(game: Game, seat: int, action: int, budget: int = PUZZLE_BUDGET) -> bool:
    """Whether ``seat`` playing ``action`` in ``game`` still wins before the turn ends (solo: still
    survives the automaton's next turn, proven over every order of its deck): the test of a move in a
    puzzle (any winning move is right)."""
    if game.is_solo:
        return seat == 0 and survives_after(game, action, max(budget, SURVIVAL_BUDGET)) == 1.0
    after = game.clone()
    after.record_events = False
    after.apply(action)
    return wins_this_turn(after, seat, budget)


def winning_line(game: Game, seat: int, budget: int = PUZZLE_BUDGET) -> list[str]:
    """One line that wins: at each of the solver's decisions the first action that keeps the win, at each
    of the opponent's its first action (every one of them loses); raises :class:`PuzzleError` if
    ``seat`` is not proven to win.  Solo: the player's actions up to the one that ends the turn, each
    keeping the survival proven."""
    if game.is_solo:
        return _surviving_line(game, budget)
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


def _surviving_line(game: Game, budget: int) -> list[str]:
    g = game.clone()
    g.record_events = False
    line: list[str] = []
    while True:
        action = next((a for a in g.legal_actions() if keeps_the_win(g, 0, a, budget)), None)
        if action is None:
            raise PuzzleError("the player has no move here that survives the automaton's next turn")
        line.append(g.action_text(action))
        if ends_the_turn(g, action):
            return line
        g.apply(action)


def solo_puzzle_at(game: Game, budget: int = SURVIVAL_BUDGET) -> tuple[int, list[str]] | None:
    """``(0, surviving line)`` when ``game`` is a solo puzzle (the start of the player's turn; see the
    module docstring), else ``None``."""
    return (0, _surviving_line(game, budget)) if is_solo_puzzle(game, budget) else None


def is_solo_puzzle(game: GameEngine, budget: int = SURVIVAL_BUDGET) -> bool:
    """Whether ``game`` is a solo puzzle (:func:`solo_puzzle_at` without its line)."""
    if not game.is_solo or game.is_over() or game.phase != "summon" or game.active != 0:
        return False
    legal = game.legal_actions()
    if game.current_player != 0 or len(legal) < 2 or proven_survival(game, budget) != 1.0:
        return False
    return survives_after(game, legal[0], budget) == 0.0  # `end` must be proven to lose


def puzzle_at(game: Game, budget: int = PUZZLE_BUDGET) -> tuple[int, list[str]] | None:
    """``(seat, winning line)`` when ``game`` is a puzzle for the player to move (see the module
    docstring), else ``None``."""
    if game.is_solo:
        return solo_puzzle_at(game, budget)
    if game.is_over() or game.phase == "setup":
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
    seeds: Sequence[int],
    agents: tuple[str, str] = ("greedy", "greedy"),
    fmt: str = "draft",
    *,
    mode: str = "duel",
    level: int = 0,
    budget: int | None = None,
) -> Iterator[Puzzle]:
    """Play a game per seed with ``agents`` (solo: the first plays against the automaton of threat
    ``level``, R8.3) and yield each puzzle met at the start of a play-phase turn (deduplicated by
    position); ``budget``: the positions a proof may visit while mining (default: the check's; a
    puzzle proven within fewer is proven within more), recorded in a solo puzzle's source."""
    from .agents.registry import make_agent

    seen: set[str] = set()
    for seed in seeds:
        solo = mode == "solo"
        threat = Threat.level(level) if solo else None
        game = new_game(mode=mode, format=fmt, seed=seed, threat=threat, record_events=False)
        players = [make_agent(agents[0], seed), make_agent(agents[1], seed + 1)]
        source = {"seed": seed, "format": fmt, "agents": list(agents[: 1 if solo else 2])}
        if solo:
            source |= {"mode": "solo", "level": level, "budget": budget or SURVIVAL_BUDGET}
        last_turn = None
        while not game.is_over():
            if game.phase != "setup" and game.turn != last_turn and game.active == game.current_player:
                last_turn = game.turn
                found = puzzle_at(game) if budget is None else puzzle_at(game, budget)
                position = dump_position(game) if found is not None else {}
                if found is not None and position_key(position) not in seen:
                    seen.add(position_key(position))
                    yield _puzzle(position, found, {**source, "turn": game.turn}, solo)
            game.apply(players[game.current_player].act(game))


def mine_record(record: GameRecord, source: dict[str, Any], seen: set[str] | None = None) -> Iterator[Puzzle]:
    """The puzzles met at the start of a play-phase turn of a recorded game (replayed from its
    record: a web game, a saved one), each with ``source`` and the turn; deduplicated by position
    against ``seen`` (updated).  Raises :class:`~clashofdecks.errors.RecordError` for a record that
    does not replay."""
    seen = set() if seen is None else seen
    steps = Replay(record)
    game = steps.game
    last_turn = None
    for _ in steps:
        if game.phase != "setup" and game.turn != last_turn and game.active == game.current_player:
            last_turn = game.turn
            found = puzzle_at(game)
            position = dump_position(game) if found is not None else {}
            if found is not None and position_key(position) not in seen:
                seen.add(position_key(position))
                yield _puzzle(position, found, {**source, "turn": game.turn}, game.is_solo)


def _puzzle(
    position: dict[str, Any], found: tuple[int, list[str]], source: dict[str, Any], solo: bool
) -> Puzzle:
    kind = "solo" if solo else "duel"
    theme = "survive" if solo else "lethal"
    return Puzzle(position_key(position), position, found[0], theme, tuple(found[1]), source, kind)


def check(puzzle: Puzzle, determinizations: int = 0, seed: int = 0) -> None:
    """Prove ``puzzle`` again (and in ``determinizations`` random games consistent with the solver's
    view); raises :class:`PuzzleError` naming what fails."""
    game = puzzle.game()
    if game.current_player != puzzle.seat:
        raise PuzzleError(f"puzzle {puzzle.id}: seat {puzzle.seat} is not to move")
    if puzzle.kind == "solo":
        _check_solo(puzzle, game, determinizations, seed)
        return
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


def _check_solo(puzzle: Puzzle, game: Game, determinizations: int, seed: int) -> None:
    if not game.is_solo or puzzle.seat != 0:
        raise PuzzleError(f"puzzle {puzzle.id}: a solo puzzle is the player's (seat 0) in a solo game")
    if not is_solo_puzzle(game):
        raise PuzzleError(f"puzzle {puzzle.id}: not a proven survival that `end` misses")
    replay = game.clone()
    try:
        for n, text in enumerate(puzzle.solution, 1):
            action = replay.parse_action(text)
            if not keeps_the_win(replay, 0, action):
                raise PuzzleError(f"puzzle {puzzle.id}: its solution does not survive ({text!r})")
            if ends_the_turn(replay, action) != (n == len(puzzle.solution)):
                raise PuzzleError(f"puzzle {puzzle.id}: its solution does not end the turn at its end")
            replay.apply(action)
    except PuzzleError:
        raise
    except ClashError as exc:
        raise PuzzleError(f"puzzle {puzzle.id}: its solution does not replay: {exc}") from None
    rng = random.Random(seed)
    for _ in range(determinizations):
        sample = game.sample_determinization(0, rng)
        if not is_solo_puzzle(sample):
            raise PuzzleError(f"puzzle {puzzle.id}: a game consistent with the player's view is no puzzle")


def load_puzzles(path: str | Path | None = None) -> list[Puzzle]:
    """The puzzles of a file written by ``clash puzzles mine`` (default: the shipped ones)."""
    if path is None:
        shipped = resources.files("clashofdecks").joinpath("data")
        return [p for name in (SHIPPED, SHIPPED_SOLO) for p in _read_puzzles(shipped.joinpath(name))]
    return _read_puzzles(Path(path))


def _read_puzzles(path: Any) -> list[Puzzle]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PuzzleError(f"cannot read the puzzles: {exc}") from None
    if not isinstance(data, dict) or data.get("puzzles_version") != PUZZLES_VERSION:
        raise PuzzleError(f"not a puzzle file of version {PUZZLES_VERSION}")
    return [Puzzle.from_dict(p) for p in data.get("puzzles", [])]


def dump_puzzles(puzzles: Sequence[Puzzle]) -> dict[str, Any]:
    """The JSON of a puzzle file."""
    return {"puzzles_version": PUZZLES_VERSION, "puzzles": [p.to_dict() for p in puzzles]}


__all__ = [
    "KINDS",
    "PUZZLE_BUDGET",
    "THEMES",
    "Puzzle",
    "PuzzleError",
    "check",
    "dump_puzzles",
    "is_solo_puzzle",
    "keeps_the_win",
    "load_puzzles",
    "mine",
    "mine_record",
    "position_key",
    "puzzle_at",
    "solo_puzzle_at",
    "themes_of",
    "winning_line",
    "wins_this_turn",
]
