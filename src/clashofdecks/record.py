"""Game records: everything needed to replay a game exactly, as a small JSON document.

Format (``docs/formats.md``, "Game records")::

    {"record_version": 1, "mode": "duel", "format": "draft", "seed": 7,
     "ruleset": {...}, "threat": {...},            # threat only in solo
     "position": {...},                            # only when format is "position"
     "players": ["greedy", "random"],              # by seat: players[0] started the game
     "actions": ["pick GRRR", "pick OGRE", ...],   # every decision, in order, as text
     "result": {"winner": 0, "reason": "...", "termination": "fort_rightmost", "turns": 14}}

``format`` is ``precon``, ``draft`` or ``custom`` (started with :func:`clashofdecks.formats.new_game`
from ``seed``), ``random`` (the benchmark deal :meth:`Game.random_duel` from ``seed``) or
``position`` (started from the stored ``position``).  Replaying reproduces every position and the
result; :func:`replay` checks the stored result.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ClashError, RecordError
from .formats import start_game as start_from_format
from .options import Ruleset, Threat
from .position import dump_position, load_position
from .rules import Game, Outcome

RECORD_VERSION = 1
#: The keys of a game the terminal autosaved (session.FileStore.save): a record wrapped with its seats.
AUTOSAVE_KEYS = frozenset({"session_id", "names", "record"})
_KEYS = {
    "record_version",
    "mode",
    "format",
    "seed",
    "ruleset",
    "threat",
    "position",
    "players",
    "actions",
    "result",
    "external_chance",
}


def write_json_atomically(path: Path, data: object) -> None:
    """Write ``data`` to ``path`` as UTF-8 JSON (one-space indent, a newline at the end) through a
    temporary file beside it, ``.NAME.XXXX.part``, that then replaces it: a process killed while
    writing leaves the old file or the whole new one, never half of one."""
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


@dataclass
class GameRecord:
    mode: str
    format: str
    seed: int | None
    ruleset: Ruleset
    threat: Threat | None = None
    position: dict[str, Any] | None = None
    players: list[str] = field(default_factory=lambda: ["player 0", "player 1"])
    actions: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    #: Chance outcomes are actions in ``actions`` (a game made with ``external_chance``).
    external_chance: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (``docs/formats.md``, "Game records")."""
        out: dict[str, Any] = {
            "record_version": RECORD_VERSION,
            "mode": self.mode,
            "format": self.format,
            "seed": self.seed,
            "ruleset": self.ruleset.to_dict(),
        }
        if self.threat is not None:
            out["threat"] = self.threat.to_dict()
        if self.position is not None:
            out["position"] = self.position
        if self.external_chance:
            out["external_chance"] = True
        out.update({"players": list(self.players), "actions": list(self.actions), "result": self.result})
        return out

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """A record from JSON data, checked; :class:`RecordError` names the first problem."""
        if not isinstance(data, dict):
            raise RecordError("a game record must be a JSON object")
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise RecordError(f"unknown key {unknown[0]!r} in game record")
        if data.get("record_version") != RECORD_VERSION:
            raise RecordError(
                f"unsupported record_version {data.get('record_version')!r} (expected {RECORD_VERSION})"
            )
        for key in ("mode", "format", "actions"):
            if key not in data:
                raise RecordError(f"game record is missing {key!r}")
        if data["format"] not in ("precon", "draft", "custom", "random", "position"):
            raise RecordError(f"unknown format {data['format']!r} in game record")
        if data["format"] == "position" and not isinstance(data.get("position"), dict):
            raise RecordError("a record of format 'position' needs its starting 'position'")
        if data["format"] != "position" and not isinstance(data.get("seed"), int):
            raise RecordError("a record needs an integer 'seed' to replay its format")
        actions = data["actions"]
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("'actions' must be a list of action strings")
        try:
            ruleset = Ruleset.from_dict(data.get("ruleset", {}))
            threat = Threat.from_dict(data["threat"]) if "threat" in data else None
        except ClashError as exc:
            raise RecordError(str(exc)) from None
        players = data.get("players", ["player 0", "player 1"])
        if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
            raise RecordError("'players' must be a list of two names")
        return cls(
            mode=data["mode"],
            format=data["format"],
            seed=data.get("seed"),
            ruleset=ruleset,
            threat=threat,
            position=data.get("position"),
            players=players,
            actions=list(actions),
            result=data.get("result"),
            external_chance=data.get("external_chance", False) is True,
        )

    def save(self, path: str | Path) -> None:
        """Write the record as UTF-8 JSON to ``path`` (``~`` expands), atomically
        (:func:`write_json_atomically`)."""
        write_json_atomically(Path(path).expanduser(), self.to_dict())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        """Read a record, or the record inside a game the terminal autosaved (the file
        :class:`~clashofdecks.session.FileStore` writes: ``session_id``, ``names``, ``record``); a missing,
        unreadable, binary or malformed file raises :class:`RecordError`."""
        try:
            data = json.loads(Path(path).expanduser().read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise RecordError(f"{path} is not a game record (not UTF-8 text)") from None
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path} is not valid JSON: {exc}") from None
        if isinstance(data, dict) and set(data) == AUTOSAVE_KEYS and isinstance(data["record"], dict):
            data = data["record"]
        return cls.from_dict(data)


def initial_game(record: GameRecord, *, record_events: bool = True) -> Game:
    """The game as it was before the record's first action."""
    try:
        if record.format == "position":
            assert record.position is not None
            return load_position(record.position, record_events=record_events)
        assert record.seed is not None
        return start_from_format(
            mode=record.mode,
            format=record.format,
            seed=record.seed,
            ruleset=record.ruleset,
            threat=record.threat,
            record_events=record_events,
            external_chance=record.external_chance,
        )
    except ClashError as exc:
        raise RecordError(f"cannot start the recorded game: {exc}") from None


def result_of(outcome: Outcome, turns: int) -> dict[str, Any]:
    """The ``result`` object of a record for ``outcome`` after ``turns`` turns."""
    return {
        "winner": "draw" if outcome.winner is None else outcome.winner,
        "reason": outcome.reason,
        "termination": outcome.termination.value,
        "turns": turns,
    }


def _result(game: Game) -> dict[str, Any] | None:
    outcome = game.outcome
    return None if outcome is None else result_of(outcome, game.turn)


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One action of a record being replayed: its index, its text and its integer, seen while
    :attr:`Replay.game` is still before it."""

    index: int
    text: str
    action: int


class Replay:
    """The one way a record's actions are stepped through: :func:`replay`, the session's resume, the
    analysis and the training data all iterate one.

    ``Replay(record)`` starts the game (:attr:`game`, :func:`initial_game`); iterating yields a
    :class:`ReplayStep` per action while :attr:`game` is before it, and applies it when the caller
    asks for the next.  A refused action raises :class:`RecordError` naming it.

    >>> from clashofdecks.formats import new_game
    >>> rec = record_game(new_game(mode="solo", format="precon", seed=1))
    >>> rec.actions = ["deck 2"]
    >>> steps = Replay(rec)
    >>> [(s.index, s.text, steps.game.phase) for s in steps], len(steps.game.history)
    ([(0, 'deck 2', 'setup')], 1)
    """

    def __init__(self, record: GameRecord, *, record_events: bool = False) -> None:
        self.record = record
        self.game = initial_game(record, record_events=record_events)

    def __iter__(self) -> Iterator[ReplayStep]:
        return self.steps()

    def steps(self, apply: Callable[[int], object] | None = None) -> Iterator[ReplayStep]:
        """The steps (see the class); ``apply``, when given, applies each action instead of
        :meth:`Game.apply` (a session applies them as its own steps)."""
        game = self.game
        apply = apply or game.apply
        for i, text in enumerate(self.record.actions):
            try:
                action = game.parse_action(text)
            except ClashError as exc:
                raise RecordError(f"action {i + 1} {text!r} does not replay: {exc}") from None
            yield ReplayStep(i, text, action)
            try:
                apply(action)
            except ClashError as exc:
                raise RecordError(f"action {i + 1} {text!r} does not replay: {exc}") from None

    def check_result(self) -> None:
        """Raise :class:`RecordError` when the game's end differs from the record's result (a
        resignation or a time loss, decided outside the rules, is not checked: the actions do not
        show it)."""
        result = self.record.result
        if result is None or result.get("termination") in ("resigned", "time"):
            return
        got = _result(self.game)
        if got is None or got["winner"] != result.get("winner"):
            raise RecordError(f"the replay ends with {got}, but the record says {result}")


def replay(record: GameRecord, *, record_events: bool = False, check_result: bool = True) -> Game:
    """Replay every action (raising :class:`RecordError` at the first refused one) and check the result."""
    steps = Replay(record, record_events=record_events)
    for _ in steps:
        pass
    if check_result:
        steps.check_result()
    return steps.game


def start_of(game: Game, players: list[str] | None = None) -> GameRecord:
    """The record of ``game``'s start (:attr:`Game.origin`), without actions or result: what
    :func:`initial_game` starts again.  Every way a game can start has one (a game built from a state
    is stored as the position of that state)."""
    origin = game.origin
    position: dict[str, Any] | None = None
    if origin.format == "position":
        if origin.start_position is not None:
            position = dict(origin.start_position)
        else:
            assert origin.start_state is not None  # GameOrigin checks that a position origin has one
            position = dump_position(Game(origin.start_state, record_events=False))
    return GameRecord(
        mode="solo" if game.is_solo else "duel",
        format=origin.format,
        seed=origin.seed,
        ruleset=game.ruleset,
        threat=game.threat if game.is_solo else None,
        position=position,
        players=list(players) if players else ["player 0", "player 1"],
        external_chance=origin.external_chance,
    )


def record_game(game: Game, players: list[str] | None = None) -> GameRecord:
    """The record of ``game`` so far (every action since its start), for a game started in any way:
    :func:`new_game`, :meth:`Game.random_duel`, :meth:`Game.from_hands`, ``Game(state)`` or
    :func:`load_position`.  It replays the game's actions once to write them as text (linear in the
    game's length); a session keeps its record's texts as it goes instead
    (:meth:`clashofdecks.session.GameSession.record`)."""
    record = start_of(game, players)
    start = initial_game(record, record_events=False)
    texts: list[str] = []
    for action in game.history:
        texts.append(start.action_text(action))
        start.apply(action)
    record.actions = texts
    record.result = _result(game)
    return record
