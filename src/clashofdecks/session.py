"""Game sessions: one game with its seats, shared by every front end (terminal, browser, environments).

A :class:`GameSession` owns a :class:`~clashofdecks.rules.Game` and knows who sits in each seat: a
``human`` at this front end, an ``agent`` the session moves for, or a ``remote`` player acting over a
network.  It takes turns (:meth:`GameSession.act` checks that the seat acting is the seat to move),
runs agent seats (:meth:`GameSession.advance_agents`), takes back a player's own decisions within the
reach the rules of fair play allow (:meth:`GameSession.undo`), gives hints, handles resignation,
keeps the running game record and saves it after every action to a :class:`SessionStore`.

Front ends only draw and read input; they never apply actions to the game directly.

>>> session = GameSession.new(mode="solo", format="precon", seed=3, participants=[Seat.human("Ada")])
>>> session.to_move, session.legal_actions(0)[:2]
(0, ['deck 1', 'deck 2'])
>>> step = session.act(0, "deck 2")
>>> step.action, step.index
('deck 2', 0)
>>> session.record().actions
['deck 2']
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Protocol

from .agents.base import Agent, is_build_stage
from .agents.registry import UnknownAgentError, make_agent
from .errors import ClashError, IllegalActionError, RecordError
from .events import Event, EventKind
from .formats import seat_of, start_game
from .game_loop import Decider, game_steps, next_decision
from .options import Ruleset, Threat
from .position import dump_position, view
from .record import GameRecord, Replay, record_game, result_of, start_of, write_json_atomically
from .rules import Game, Outcome, Termination, termination_reason
from .words import actions as sentences

#: Seat kinds.
HUMAN: Final = "human"
AGENT: Final = "agent"
REMOTE: Final = "remote"
AUTOMATON: Final = "automaton"
SEAT_KINDS: Final = (HUMAN, AGENT, REMOTE, AUTOMATON)

#: Setup events that show a player cards or an order they did not know (undo never goes back past them).
_REVEALING_SETUP_ROLES: Final = frozenset({"revealed", "gets", "reveals", "dealt"})


class SessionError(ClashError):
    """A request the session refuses (the game is unchanged); the message says why."""


class NotYourTurnError(SessionError):
    """A seat tried to act when the decision is another seat's."""


class UndoError(SessionError):
    """Undo is not possible now (nothing of this seat's to take back, or it would reveal too much)."""


class StaleActionError(SessionError):
    """A decision sent for an earlier moment of the game (its index is not the number of actions
    taken: the game moved on, or was taken back, since the sender looked)."""


@dataclass(frozen=True, slots=True)
class CheckedAction:
    """A decision :meth:`GameSession.check` accepted: the seat, the action as an integer and in its
    canonical notation, and the index it will have in the record."""

    seat: int
    action: int
    text: str
    index: int


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays a seat: ``kind`` is ``human``, ``agent``, ``remote`` or ``automaton`` (solo seat 1).

    ``agent`` is the agent spec for agent seats (``greedy``, ``ismcts:200,cutoff=2``); ``name`` a
    display name (front ends choose a word when it is empty).
    """

    kind: str
    name: str = ""
    agent: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in SEAT_KINDS:
            raise SessionError(f"unknown seat kind {self.kind!r} (choose {', '.join(SEAT_KINDS)})")
        if (self.kind == AGENT) != (self.agent is not None):
            raise SessionError("an agent seat needs an agent spec, and only an agent seat has one")

    @classmethod
    def human(cls, name: str = "") -> Seat:
        """A person at this front end."""
        return cls(HUMAN, name)

    @classmethod
    def remote(cls, name: str = "") -> Seat:
        """A person acting over a network (the browser)."""
        return cls(REMOTE, name)

    @classmethod
    def agent_seat(cls, spec: str, name: str = "") -> Seat:
        """A computer player by agent spec (``greedy``, ``ismcts:200``)."""
        return cls(AGENT, name, spec)

    @property
    def is_person(self) -> bool:
        """A person decides for this seat (here or over the network)."""
        return self.kind in (HUMAN, REMOTE)

    @property
    def word(self) -> str:
        """The word a game record stores for this seat (``human``, ``remote``, ``automaton`` or the spec)."""
        return self.agent if self.agent is not None else self.kind

    @classmethod
    def from_word(cls, word: str, name: str = "") -> Seat:
        """The seat a record's player word stands for; an unknown agent raises :class:`UnknownAgentError`."""
        if word in (HUMAN, REMOTE, AUTOMATON):
            return cls(word, name)
        make_agent(word, 0)  # validates the spec (UnknownAgentError names the known agents)
        return cls(AGENT, name, word)


@dataclass(frozen=True, slots=True)
class Step:
    """One applied decision: the seat that made it, its text, its events, its index in the record."""

    seat: int
    action: str
    events: tuple[Event, ...]
    index: int
    #: Whether it showed anyone hidden information (a reveal, a deal, a reshuffle): undo stops here.
    reveals: bool = False
    turn: int = 0
    setup: bool = False


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action with a score; ``label`` names what ``score`` is (never a mislabelled chance)."""

    action: str
    score: float
    label: str


class SessionStore(Protocol):
    """Where sessions are saved after every action (a folder of files, a database)."""

    def save(self, session: GameSession) -> None:
        """Store the session's record (after every action)."""
        ...

    def load(self, session_id: str) -> GameRecord:
        """The stored record of ``session_id`` (:class:`RecordError` if there is none)."""
        ...

    def latest(self) -> str | None:
        """The id of the most recently saved unfinished game, or ``None``."""
        ...


def abilities_of(game: Game) -> dict[str, list[list[list[str]]]]:
    """:meth:`GameSession.abilities` of a game without a session (the tutorial's positions)."""
    out: dict[str, list[list[list[str]]]] = {"have": [], "granted": []}
    for p in (0, 1):
        for ln in (0, 1):
            lane = game.lane(p, ln)
            out["have"].append([list(c["abilities"]) for c in lane])  # type: ignore[call-overload]
            out["granted"].append([list(c["granted"]) for c in lane])  # type: ignore[call-overload]
    return out


def default_data_dir() -> Path:
    """``$CLASH_DATA_DIR``, else ``$XDG_DATA_HOME/clashofdecks``, else ``~/.local/share/clashofdecks``."""
    explicit = os.environ.get("CLASH_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "clashofdecks"


class FileStore:
    """Sessions as JSON game records in a folder (one file per session, replaced atomically)."""

    SUFFIX: Final = ".json"

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder).expanduser() if folder is not None else default_data_dir() / "games"

    def path(self, session_id: str) -> Path:
        """The file of ``session_id`` (ids are letters, digits, ``-`` and ``_``: no path tricks)."""
        if not session_id or not all(ch.isalnum() or ch in "-_" for ch in session_id):
            raise SessionError(f"invalid session id {session_id!r}")
        return self.folder / f"{session_id}{self.SUFFIX}"

    def save(self, session: GameSession) -> None:
        """Write the session atomically (a temporary file replaced in one step: never half a file)."""
        data: dict[str, Any] = {
            "session_id": session.id,
            "names": [s.name for s in session.seats],
            "record": session.record().to_dict(),
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        write_json_atomically(self.path(session.id), data)

    def _read(self, path: Path) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise RecordError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise RecordError(f"{path} is not a saved game (not UTF-8 JSON)") from None
        if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
            raise RecordError(f"{path} is not a saved game")
        return data

    def load(self, session_id: str) -> GameRecord:
        """The stored record of ``session_id``."""
        return GameRecord.from_dict(self._read(self.path(session_id))["record"])

    def names(self, session_id: str) -> list[str]:
        """The display names stored with ``session_id``, by seat."""
        names = self._read(self.path(session_id)).get("names")
        return [str(n) for n in names] if isinstance(names, list) else []

    def latest(self) -> str | None:
        """The id of the most recently saved game that is not finished, or ``None``."""
        if not self.folder.is_dir():
            return None
        files = sorted(self.folder.glob(f"*{self.SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in files:
            if path.name.startswith("."):
                continue
            try:
                data = self._read(path)
            except RecordError:
                continue
            if data["record"].get("result") is None:
                return path.stem
        return None


class GameSession:
    """A game and its seats; see the module docstring.  Build with :meth:`new` or :meth:`from_record`."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[Seat],
        *,
        seed: int = 0,
        store: SessionStore | None = None,
        session_id: str | None = None,
        allow_undo_between_people: bool = False,
    ) -> None:
        if len(seats) != 2:
            raise SessionError("a session has two seats")
        if game.is_solo and seats[1].kind != AUTOMATON:
            raise SessionError("in solo, seat 1 is the automaton")
        if not game.is_solo and AUTOMATON in (seats[0].kind, seats[1].kind):
            raise SessionError("the automaton plays only in solo")
        if game.is_solo and seats[0].kind == AUTOMATON:
            raise SessionError("seat 0 of a solo game is the player")
        self.id = session_id or uuid.uuid4().hex
        self.game = game
        self.seats = (seats[0], seats[1])
        self.store = store
        self.seed = seed
        self.allow_undo_between_people = allow_undo_between_people
        self._agents: dict[int, Agent] = {}
        for s, seat in enumerate(self.seats):
            if seat.agent is not None:
                agent = make_agent(seat.agent, seed * 2 + s)
                agent.reset(seed * 2 + s)
                self._agents[s] = agent
        self._steps: list[Step] = []
        self._resigned: Outcome | None = None
        #: The record's start, with the texts of any actions the game had before this session (replayed
        #: once, here): :meth:`record` only adds the steps' texts, so a record, and each autosave, costs
        #: time linear in the game's length, never a replay from the start.
        words = [s.word for s in self.seats]
        self._record_start = record_game(game, players=words) if game.history else start_of(game, words)
        #: Events emitted when the game was created (first draft reveal, an automaton's first turn).
        self.initial_events: tuple[Event, ...] = game.take_events()

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        *,
        mode: str = "duel",
        format: str = "draft",
        seed: int | None = None,
        participants: Sequence[Seat],
        ruleset: Ruleset | None = None,
        threat: Threat | None = None,
        store: SessionStore | None = None,
        session_id: str | None = None,
        allow_undo_between_people: bool = False,
    ) -> GameSession:
        """A new game; ``participants`` in the caller's order (duel: two, solo: the player).

        The coin toss (R2.3a) decides which duel participant sits in seat 0 (see :meth:`participant_seat`).
        """
        if seed is None:
            seed = secrets.randbits(63)
        game = start_game(mode=mode, format=format, seed=seed, ruleset=ruleset, threat=threat)
        if game.is_solo:
            if len(participants) != 1:
                raise SessionError("a solo game has one participant (the automaton is seat 1)")
            seats = [participants[0], Seat(AUTOMATON)]
        else:
            if len(participants) != 2:
                raise SessionError("a duel has two participants")
            seats = [participants[0], participants[1]]
            if seat_of(game, 0) == 1:
                seats.reverse()
        return cls(
            game,
            seats,
            seed=seed,
            store=store,
            session_id=session_id,
            allow_undo_between_people=allow_undo_between_people,
        )

    @classmethod
    def from_record(
        cls,
        record: GameRecord | dict[str, Any],
        *,
        store: SessionStore | None = None,
        session_id: str | None = None,
        seats: Sequence[Seat] | None = None,
        names: Sequence[str] = (),
        allow_undo_between_people: bool = False,
    ) -> GameSession:
        """Resume a game from its record (every action replayed).

        The record's player words say who sits where; an unknown agent word raises
        :class:`~clashofdecks.agents.registry.UnknownAgentError` unless ``seats`` overrides them.
        """
        if isinstance(record, dict):
            record = GameRecord.from_dict(record)
        if seats is None:
            words = list(record.players)
            if record.mode == "solo":
                words[1] = AUTOMATON
            named = [*names, "", ""]
            try:
                seats = [Seat.from_word(w, named[i]) for i, w in enumerate(words)]
            except UnknownAgentError as exc:
                raise UnknownAgentError(f"the saved game names a player nobody can play: {exc}") from None
        replay = Replay(record, record_events=True)
        game = replay.game
        session = cls(
            game,
            seats,
            seed=record.seed or 0,
            store=store,
            session_id=session_id,
            allow_undo_between_people=allow_undo_between_people,
        )
        for _step in replay.steps(apply=lambda action: session._apply(game.current_player, action)):
            pass  # each action is applied as the session's own step
        result = record.result or {}
        conceded = {
            Termination.RESIGNED.value: Termination.RESIGNED,
            Termination.TIME.value: Termination.TIME,
        }
        termination = conceded.get(str(result.get("termination")))
        if termination is not None and not game.is_over():
            winner = result.get("winner")
            if winner in (0, 1):
                reason = str(result.get("reason", termination.value))
                session._end_by_resignation(Outcome(winner, reason, termination))
        return session

    # ------------------------------------------------------------------ queries

    def participant_seat(self, participant: int) -> int:
        """The seat of the caller's participant ``participant`` (0 or 1) after the coin toss."""
        return 0 if self.game.is_solo and participant == 0 else seat_of(self.game, participant)

    @property
    def to_move(self) -> int:
        """The seat whose decision it is; -1 when the game is over (also after a resignation)."""
        return -1 if self._resigned is not None else self.game.current_player

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (by the rules or by resignation)."""
        return self._resigned is not None or self.game.is_over()

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (by the rules or by resignation), or ``None`` while it goes on."""
        return self._resigned if self._resigned is not None else self.game.outcome

    @property
    def steps(self) -> list[Step]:
        """Every decision applied so far, oldest first."""
        return list(self._steps)

    @property
    def last_step(self) -> Step | None:
        """The latest decision applied, if any (``steps[-1]`` without copying them; its ``index``
        + 1 is ``len(steps)``)."""
        return self._steps[-1] if self._steps else None

    def is_agent_turn(self) -> bool:
        """Whether an agent seat is to move (:meth:`advance_agents` moves it)."""
        return self.to_move in self._agents

    def agent_decides_after(self, action: int | None = None) -> bool | None:
        """Whether an agent seat is to decide once ``action`` (an integer the seat to move may take,
        as :meth:`check` gives it) is applied, or now when ``action`` is ``None``; ``None`` in a game
        without an agent seat.  Nothing changes: the action is tried on a copy of the game.  (A host
        stores it with each action, so another process finds the agent moves to take over.)"""
        if not self._agents:
            return None
        if action is None:
            return self.is_agent_turn()
        ahead = self.game.clone()
        ahead.apply(action)
        return not ahead.is_over() and ahead.current_player in self._agents

    def legal_actions(self, seat: int) -> list[str]:
        """The legal actions of ``seat`` as text; empty when it is not that seat's decision, and in the
        custom build stage (C(32, 10) decks: a front end lets the player type ``build`` and ten cards)."""
        if seat != self.to_move or self.is_build_stage():
            return []
        return self.game.legal_action_texts()

    def is_build_stage(self) -> bool:
        """Whether the decision now is a custom deck build (R2.5: typed, not listed)."""
        return is_build_stage(self.game)

    def dump(self) -> dict[str, Any]:
        """The position now (``position.dump_position``), made once for several ``view``s."""
        return dump_position(self.game)

    def view(self, seat: int | None, dumped: dict[str, Any] | None = None) -> dict[str, Any]:
        """What ``seat`` may know (R9; ``None``: a spectator); ``dumped``: from :meth:`dump`."""
        return view(self.game, seat, dumped)

    # ------------------------------------------------------------------ acting

    def _apply(self, seat: int, action: int) -> Step:
        game = self.game
        turn, setup = game.turn, game.phase == "setup"
        text = game.action_text(action)
        events = game.apply(action)
        reveals = any(
            e.kind in (EventKind.REVEALED, EventKind.DECK_REBUILT)
            or (e.kind is EventKind.SETUP and e.role in _REVEALING_SETUP_ROLES)
            for e in events
        )
        step = Step(seat, text, events, len(self._steps), reveals, turn, setup)
        self._steps.append(step)
        return step

    def _check_can_act(self, seat: int, index: int | None = None) -> None:
        if self.is_over:
            raise SessionError("the game is over")
        if seat not in (0, 1):
            raise SessionError(f"there is no seat {seat!r}")
        if index is not None and index != len(self._steps):
            raise StaleActionError(
                f"the game has {len(self._steps)} actions; the decision was made at {index!r}"
            )
        if seat != self.to_move:
            raise NotYourTurnError(f"it is not seat {seat}'s decision (seat {self.to_move} is to move)")

    def check(self, seat: int, action: str | int, index: int | None = None) -> CheckedAction:
        """Whether ``seat`` may make the decision ``action`` (text or integer) now, changing nothing.

        ``index``, when given, is the number of actions the sender saw: another number is a
        :class:`StaleActionError`.  Refusals, in this order: the game is over (:class:`SessionError`),
        no such seat, a stale index, not this seat's decision (:class:`NotYourTurnError`), text that
        names no action (:class:`~clashofdecks.errors.ActionSyntaxError`), an action the rules do not
        allow now (:class:`~clashofdecks.errors.IllegalActionError`, saying why)."""
        self._check_can_act(seat, index)
        game = self.game
        code = game.parse_action(action) if isinstance(action, str) else action
        if not game.is_legal(code):
            raise IllegalActionError(game.explain_illegal(code))
        return CheckedAction(seat, code, game.action_text(code), len(self._steps))

    def act(self, seat: int, action: str | int, index: int | None = None) -> Step:
        """Apply ``seat``'s decision (text or integer); refused with nothing changed for the reasons
        :meth:`check` gives.  Saves the game afterwards."""
        checked = self.check(seat, action, index)
        step = self._apply(seat, checked.action)
        self._autosave()
        return step

    def _deciders(self) -> list[Decider[Game] | None]:
        """Each seat's decider for :func:`~clashofdecks.game_loop.game_steps`: its agent, or nobody."""
        return [agent.act if (agent := self._agents.get(s)) is not None else None for s in (0, 1)]

    def _resigned_stops(self, game: Game) -> bool:
        return self._resigned is not None

    def _apply_events(self, seat: int, action: int) -> Sequence[Event]:
        return self._apply(seat, action).events

    def advance_agents(self, max_steps: int | None = None) -> list[Step]:
        """While an agent seat is to move: it chooses and the session applies (saving after each)."""
        out: list[Step] = []
        loop = game_steps(
            self.game,
            self._deciders(),
            stop=self._resigned_stops,
            apply=self._apply_events,
            max_steps=max_steps,
        )
        for _played in loop:
            out.append(self._steps[-1])
            self._autosave()
        return out

    def agent_choice(self) -> int:
        """The action the agent seat to move would choose (without applying it): for front ends that
        run the agent in a worker and then call :meth:`act`."""
        decision = None if self._resigned is not None else next_decision(self.game, self._deciders())
        if decision is None:
            raise SessionError("no agent is to move")
        return decision[1]

    # ------------------------------------------------------------------ what front ends show

    @property
    def phase(self) -> str:
        """``setup``, ``summon``, ``combat`` or ``over`` (by the rules: a game resigned during its
        setup is still in ``setup``; :attr:`is_over` says whether it ended)."""
        return self.game.phase

    @property
    def turn(self) -> int:
        """The game's turn number."""
        return self.game.turn

    @property
    def active(self) -> int:
        """The seat whose turn it is (the seat to move may be the other, choosing a return order)."""
        return self.game.active

    @property
    def is_solo(self) -> bool:
        """A solo game (seat 1 is the automaton)."""
        return self.game.is_solo

    def playable_cards(self, seat: int) -> list[str]:
        """The cards of ``seat``'s hand it can play now (none for the automaton's seat)."""
        if self.game.is_solo and seat == 1:
            return []
        return list(self.game.playable_cards(seat))

    # ------------------------------------------------------------------ sentences (clashofdecks.words)

    def describe_action(
        self,
        action: str,
        lang: str = "en",
        *,
        names: tuple[str, str] | None = None,
        addressee: int | None = -1,
    ) -> str:
        """``action`` (notation, legal now) as a sentence in ``lang``
        (:func:`clashofdecks.words.describe_action`), said of the game as it stands."""
        return sentences.describe_action(self.game, action, lang, names=names, addressee=addressee)

    def describe_actions(
        self, actions: Sequence[str], lang: str = "en", *, names: tuple[str, str] | None = None
    ) -> list[str]:
        """Each of ``actions`` (all legal now) as a sentence, in order (the move list's labels)."""
        return sentences.describe_actions(self.game, actions, lang, names=names)

    def describe_sequence(
        self, actions: Sequence[str], lang: str = "en", *, names: tuple[str, str] | None = None
    ) -> list[str]:
        """Sentences for ``actions`` played one after the other from here, on a copy (how an undo
        says, right after it, what it took back)."""
        return sentences.describe_sequence(self.game, actions, lang, names=names)

    def prompt_line(
        self,
        lang: str,
        seat: int | None,
        *,
        names: tuple[str, str] | None = None,
        to_move: int | None = None,
        thinking: bool = False,
        build: bool = False,
    ) -> str:
        """One line for ``seat`` (``None``: a spectator): what it can do now, or whom it waits for
        (:func:`clashofdecks.words.prompt_line`)."""
        return sentences.prompt_line(
            self.game, lang, seat, names=names, to_move=to_move, thinking=thinking, build=build
        )

    def abilities(self) -> dict[str, list[list[list[str]]]]:
        """Per player and lane (player 0's lanes first), each creature's current abilities
        (``have``) and which of them are granted (``granted``: Aura, solo threat): public facts."""
        return abilities_of(self.game)

    def can_hint(self, seat: int, *, in_setup: bool = True) -> bool:
        """Whether :meth:`hint` would answer for ``seat`` now (its own decision in a game that goes
        on); ``in_setup=False`` also refuses the setup's decisions (the web's rule)."""
        try:
            self._check_can_act(seat)
        except SessionError:
            return False
        return in_setup or self.game.phase != "setup"

    # ------------------------------------------------------------------ undo, hint, resign

    def _undo_start(self, seat: int) -> int:
        """The index of the first step that undo for ``seat`` would take back (or raise UndoError)."""
        if self._resigned is not None or self.game.is_over():
            raise UndoError("the game is over")
        people = [s for s in self.seats if s.is_person]
        if len(people) == 2 and not self.allow_undo_between_people:
            raise UndoError("undo is only offered against the automaton or a computer player")
        if not self.seats[seat].is_person:
            raise UndoError(f"seat {seat} is not a player's seat")
        turn = self.game.turn
        for i in range(len(self._steps) - 1, -1, -1):
            step = self._steps[i]
            if step.seat == seat and step.turn == turn and not step.setup:
                if len(self._steps) - i > self.game.undo_depth:
                    break
                return i
            if step.reveals:
                raise UndoError("nothing of yours to take back since cards were revealed")
            if step.turn != turn or step.setup:
                break
        raise UndoError("nothing of yours to take back this turn")

    def can_undo(self, seat: int) -> bool:
        """Whether :meth:`undo` would take something back for ``seat`` now."""
        try:
            self._undo_start(seat)
        except UndoError:
            return False
        return True

    def undo(self, seat: int, index: int | None = None) -> list[str]:
        """Take back ``seat``'s last decision of this turn and every decision after it; returns the
        actions taken back, latest first.  Never past hidden information shown to anyone (a reveal,
        a deal, a reshuffle), never a setup decision, never into an earlier turn (:class:`UndoError`).
        ``index``, when given, is the number of actions the asker saw (:class:`StaleActionError` when
        the game has moved on since)."""
        if index is not None and index != len(self._steps) and not self.is_over:
            raise StaleActionError("the game moved on; undo refused")
        start = self._undo_start(seat)
        taken: list[str] = []
        while len(self._steps) > start:
            self.game.undo()
            taken.append(self._steps.pop().action)
        self._autosave()
        return taken

    def hint(self, seat: int, *, seconds: float = 1.0, iterations: int | None = None) -> Hint:
        """A suggested action for ``seat`` from a fair search (ISMCTS, the seat's view only; in a
        duel's setup it scores the decks with the deck evaluation, ``setup=learned``).

        Its score is the seat's chance of winning after that action by the learned evaluation
        (``agents/evaluation.py``, the seat's view only), labelled ``win chance`` when the shipped
        model passed its held-out calibration check for this mode (every decile within 5 points,
        docs/ai.md), else ``estimated win chance`` (a fitted probability whose check is not met).
        """
        import random

        from .agents.evaluation import chance_after, shipped_model, threat_level
        from .agents.mcts import Search

        self._check_can_act(seat)
        rng = random.Random(self.seed + len(self._steps))
        search = Search(setup="learned")  # a draft pick valued by the deck evaluation (duels)
        if iterations is not None:
            result = search.run(self.game, rng, iterations=iterations)
        else:
            result = search.run(self.game, rng, iterations=None, seconds=seconds)
        chance = chance_after(self.game, seat, result.action, seed=self.seed)
        if self.game.is_solo:
            label = shipped_model().chance_label("solo", threat_level(self.game.threat))
        else:
            label = shipped_model().chance_label("duel")
        return Hint(self.game.action_text(result.action), chance, label)

    def _end_by_resignation(self, outcome: Outcome) -> None:
        self._resigned = outcome

    def resign(self, seat: int) -> Outcome:
        """``seat`` gives up: the other seat wins (in solo, the automaton)."""
        return self._concede(seat, Termination.RESIGNED)

    def lose_on_time(self, seat: int) -> Outcome:
        """``seat``'s clock ran out: the other seat wins.  The host that keeps the clock (the web
        server) decides this; the session only ends the game, like a resignation."""
        return self._concede(seat, Termination.TIME)

    def _concede(self, seat: int, termination: Termination) -> Outcome:
        if self.is_over:
            raise SessionError("the game is over")
        if seat not in (0, 1) or not self.seats[seat].is_person:
            raise SessionError(f"seat {seat!r} is not a player's seat")
        outcome = Outcome(1 - seat, termination_reason(termination, 1 - seat, None), termination)
        self._end_by_resignation(outcome)
        self._autosave()
        return outcome

    # ------------------------------------------------------------------ records

    def record(self) -> GameRecord:
        """The game record so far (the result once over; a resignation is stored as such), from the
        session's steps: no replay."""
        start = self._record_start
        game = self.game
        if len(game.history) != len(start.actions) + len(self._steps):
            # Something applied actions to the game past the session (front ends must not): the
            # game's own history is the truth then.
            rec = record_game(game, players=list(start.players))
        else:
            outcome = game.outcome
            rec = replace(
                start,
                players=list(start.players),
                actions=[*start.actions, *(step.action for step in self._steps)],
                result=None if outcome is None else result_of(outcome, game.turn),
            )
        if self._resigned is not None:
            rec.result = result_of(self._resigned, game.turn)
        return rec

    def _autosave(self) -> None:
        if self.store is not None:
            self.store.save(self)


__all__ = [
    "AGENT",
    "AUTOMATON",
    "HUMAN",
    "REMOTE",
    "CheckedAction",
    "FileStore",
    "GameSession",
    "Hint",
    "NotYourTurnError",
    "Seat",
    "SessionError",
    "SessionStore",
    "StaleActionError",
    "Step",
    "UndoError",
    "abilities_of",
    "default_data_dir",
]
