"""The puzzle page's judge (``/puzzle/{id}``, docs/puzzles.md): the shipped puzzles by id, their themes,
the daily puzzle, the solver's view of a puzzle, and a move checked against the true position.

The server holds the true position (the puzzle file); a page sees only the solver's view (R9: the
opponent's hidden hand cards as ``"?"``).  A move is judged by :func:`clashofdecks.puzzles.keeps_the_win`
on the true position: any move that keeps the proven win is right.  The page sends every action of its
attempt so far (the server keeps no state between moves); the judge replays them, proving each, so
the first wrong move ends the attempt wherever it is in the list.  The proofs are CPU work:
:func:`judge` runs in the worker pool (web/routes_puzzles.py), never on the event loop.

Nothing here does I/O but reading the package's puzzle file once.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import ClashError
from ..position import load_position, view
from ..puzzles import THEMES as PUZZLE_THEMES
from ..puzzles import Puzzle, keeps_the_win, load_puzzles, winning_line
from ..rules import Game
from ..words.actions import describe_action
from ..words.i18n import t
from .games import event_json, game_abilities

#: The most actions one attempt may send (the longest shipped solution has 8; order decisions add a few).
MAX_ATTEMPT_ACTIONS: Final = 40
#: The longest action text accepted (the notation's longest is far shorter).
MAX_ACTION_CHARS: Final = 200
#: Steps the rest of a turn is played out for at most after a wrong move (a turn has far fewer).
PLAY_OUT_STEPS: Final = 500
#: The themes a page names (docs/puzzles.md); a puzzle file may carry others, shown as they are.
THEMES: Final = PUZZLE_THEMES

#: The solver's opponent in event sentences (the solver is ``t(lang, "player")``).
_OPPONENT: Final = {"en": "Opponent", "de": "Gegner", "fr": "Adversaire", "ja": "相手"}


class PuzzleMoveError(ClashError):
    """A move request that names no move of the puzzle (not legal, not text, too long); nothing is kept."""


@dataclass(frozen=True)
class BookEntry:
    puzzle: Puzzle
    themes: tuple[str, ...]


def puzzle_themes(puzzle: Puzzle) -> tuple[str, ...]:
    """The puzzle's themes (:func:`clashofdecks.puzzles.themes_of`: a file's own, else from its kind and
    its solution)."""
    return puzzle.themes


@functools.cache
def book() -> dict[str, BookEntry]:
    """The shipped puzzles by id, in the file's order, each with its themes (loaded once)."""
    return {p.id: BookEntry(p, puzzle_themes(p)) for p in load_puzzles()}


def daily_id(now: float) -> str:
    """The daily puzzle of the UTC date of ``now``: the same for every reader and process that day."""
    day = datetime.datetime.fromtimestamp(now, datetime.UTC).date().isoformat()
    ids = sorted(book())
    return ids[int(hashlib.sha256(day.encode()).hexdigest(), 16) % len(ids)]


def seat_names(seat: int, lang: str, solo: bool = False) -> tuple[str, str]:
    """The two seats' names in sentences: the solver is "you", the other the opponent (the automaton
    in solo)."""
    solver = t(lang, "player")
    other = t(lang, "automaton_name") if solo else _OPPONENT.get(lang, _OPPONENT["en"])
    return (solver, other) if seat == 0 else (other, solver)


def board_json(game: Game, seat: int, lang: str) -> dict[str, Any]:
    """What the page draws from, as a game frame carries it: ``position`` is the solver's view only
    (R9; never the opponent's hidden cards), with its legal actions when the solver is to move."""
    over = game.outcome is not None
    names = seat_names(seat, lang, game.is_solo)
    to_move = -1 if over else game.current_player
    other = "automaton" if game.is_solo else "remote"
    kinds = ("remote", other) if seat == 0 else (other, "remote")
    return {
        "seat": seat,
        "mode": "solo" if game.is_solo else "duel",
        "turn": game.turn,
        "phase": "over" if over else game.phase,
        "to_move": to_move,
        "position": view(game, seat),
        "playable": [] if over else game.playable_cards(seat),
        "legal": game.legal_action_texts() if to_move == seat else [],
        "abilities": game_abilities(game),
        "players": [{"name": names[0], "kind": kinds[0]}, {"name": names[1], "kind": kinds[1]}],
        "result": None if game.outcome is None else {"winner": game.outcome.winner},
    }


def puzzle_json(entry: BookEntry, lang: str) -> dict[str, Any]:
    """``GET /api/puzzles/{id}``: the puzzle before the first move."""
    puzzle = entry.puzzle
    return {
        "id": puzzle.id,
        "kind": puzzle.kind,
        "themes": list(entry.themes),
        **board_json(puzzle.game(), puzzle.seat, lang),
    }


def _game(puzzle: Puzzle) -> Game:
    return load_position(puzzle.position)  # events kept: the answer tells what happened


def _parse(game: Game, text: Any) -> int:
    if not isinstance(text, str) or not text or len(text) > MAX_ACTION_CHARS:
        raise PuzzleMoveError(f"each action is a text of at most {MAX_ACTION_CHARS} characters")
    code = game.parse_action(text)  # ActionSyntaxError (a ClashError) for text that names nothing
    if not game.is_legal(code):
        raise PuzzleMoveError(f"{text!r} is not legal here: {game.explain_illegal(code)}")
    return code


class _Telling:
    """The events and sentences of what is played, for the answer."""

    def __init__(self, game: Game, seat: int, lang: str) -> None:
        self.game, self.seat, self.lang = game, seat, lang
        self.names = seat_names(seat, lang, game.is_solo)
        self.events: list[dict[str, Any]] = []
        self.moves: list[dict[str, Any]] = []

    def play(self, code: int, told: bool) -> None:
        game = self.game
        text = game.action_text(code)
        if told:
            label = describe_action(game, text, self.lang, names=self.names, addressee=self.seat)
            self.moves.append({"seat": game.current_player, "action": text, "label": label})
        events = game.apply(code)
        if told:
            self.events.extend(event_json(e, self.lang, self.names) for e in events)

    def answers(self, told: bool, turn: int) -> None:
        """The opponent's decisions in the solver's turn (public return orders, R3.9): the first legal
        one (when the solver's win is proven, every one of them loses)."""
        game = self.game
        while not game.is_over() and game.current_player != self.seat and game.turn == turn:
            self.play(game.legal_actions()[0], told)


def _played_out(tell: _Telling, turn: int) -> None:
    """The rest of the turn after a wrong move: the solver ends each phase (the attacks happen on
    their own, R3.5), the opponent answers as in :meth:`_Telling.answers`."""
    game = tell.game
    for _ in range(PLAY_OUT_STEPS):
        if game.is_over() or game.turn != turn:
            return
        legal = game.legal_actions()
        if game.current_player == tell.seat:
            texts = [game.action_text(a) for a in legal]
            pick = next((legal[texts.index(w)] for w in ("end", "next") if w in texts), legal[0])
        else:
            pick = legal[0]
        tell.play(pick, True)


def judge(puzzle_data: dict[str, Any], actions: Sequence[Any], lang: str) -> dict[str, Any]:
    """``POST /api/puzzles/{id}/move``: the attempt's actions so far, judged on the true position (a
    worker-pool job).  ``status`` is "playing" (every move right, the puzzle goes on), "solved" (the
    last right move won; solo: the automaton's next turn has passed and the player is alive) or
    "failed" (the first wrong move ends the attempt: the answer shows the rest of the turn played out
    and one winning line from before that move).  Raises
    :class:`PuzzleMoveError` (or another :class:`ClashError`) for a request that names no move."""
    puzzle = Puzzle.from_dict(puzzle_data)
    if not actions or len(actions) > MAX_ATTEMPT_ACTIONS:
        raise PuzzleMoveError(f"send 1 to {MAX_ATTEMPT_ACTIONS} actions: the attempt's moves so far")
    game, seat = _game(puzzle), puzzle.seat
    turn = game.turn
    tell = _Telling(game, seat, lang)
    for i, text in enumerate(actions):
        if game.is_over():
            raise PuzzleMoveError("the puzzle is solved: no move comes after the winning one")
        code = _parse(game, text)
        last = i == len(actions) - 1
        if not keeps_the_win(game, seat, code):
            line = winning_line(game, seat)
            solution = _labels(game, line, seat, lang)
            tell.moves, tell.events = [], []
            tell.play(code, True)
            _played_out(tell, turn)
            return _answer("failed", tell, i + 1, wrong=str(actions[i]), solution=solution)
        tell.play(code, last)
        tell.answers(last, turn)
    return _answer("solved" if _solved(game, seat, turn) else "playing", tell, len(actions))


def _solved(game: Game, seat: int, turn: int) -> bool:
    """A duel puzzle is solved by the win; a solo one once the automaton's next turn has passed with the
    player alive (every move kept the survival proven over every order of its deck)."""
    if game.is_over():
        return game.winner == seat
    return game.is_solo and game.turn != turn and game.current_player == seat


def _labels(game: Game, line: Sequence[str], seat: int, lang: str) -> list[dict[str, Any]]:
    """A winning line as sentences (played on a copy of ``game``)."""
    copy = game.clone()
    copy.record_events = False
    names = seat_names(seat, lang, copy.is_solo)
    out = []
    for text in line:
        label = describe_action(copy, text, lang, names=names, addressee=seat)
        out.append({"seat": copy.current_player, "action": text, "label": label})
        copy.apply(copy.parse_action(text))
    return out


def _answer(status: str, tell: _Telling, moves: int, **extra: Any) -> dict[str, Any]:
    return {
        "status": status,
        "moves": moves,
        "played": tell.moves,
        "events": tell.events,
        **board_json(tell.game, tell.seat, tell.lang),
        **extra,
    }


__all__ = [
    "MAX_ATTEMPT_ACTIONS",
    "THEMES",
    "BookEntry",
    "PuzzleMoveError",
    "board_json",
    "book",
    "daily_id",
    "judge",
    "puzzle_json",
    "puzzle_themes",
]
