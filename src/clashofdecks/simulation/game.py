"""One simulated game: what it depends on (:class:`GameSpec`), how it is played (:func:`play_game`,
the one game loop of ``clash simulate`` and ``clash arena``) and what comes out (:class:`GameResult`).

Seats: seat 0 is the player who starts (engine.md).  A spec names its *participants* in the
caller's order.  By default participant ``k`` sits in seat ``k`` (``clash simulate`` alternates the
order itself so each agent starts half the games).  With ``coin_toss_seats`` the setup's coin toss
(R2.3a, :func:`clashofdecks.formats.seat_of`) seats them, as at a real table (``clash arena``,
which plays every deal twice with the participants' order swapped).  In solo the agent is
participant 0 in seat 0 and the automaton seat 1 (R7).

Engines: the setup stage (R2) is always played by the Python engine; at the first turn the game
moves once to the compiled core (:class:`~clashofdecks.native.NativeGame`) when it is available
(not with ``CLASH_NATIVE=0``): every agent acts on either engine (the automaton has no agent: its
turn is part of the rules).  Games that need the Python engine stay there from start to end: per-card
counts (``collect_stats`` reads the engine's events), records (``records_dir``: a record is the
Python game's history) and any position the core refuses (:class:`NativeUnsupportedError`).  The
engines' legal action tuples and chance are equal and the agents choose identically on both, so
a game's result does not depend on where it was played (``tests/test_simulate_core.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from ..agents.base import Agent
from ..agents.mcts import SearchTally
from ..agents.registry import make_agent
from ..engine import GameEngine
from ..errors import ClashError
from ..formats import seat_of, setup_summary, start_game
from ..game_loop import Decider, game_steps, play_out
from ..native import AVAILABLE as NATIVE_AVAILABLE
from ..native import NativeGame, NativeUnsupportedError
from ..options import Ruleset, Threat
from ..record import record_game
from ..rules import Game
from .cardstats import CardRow, CardTally

#: The name of the solo automaton's side (it is no agent: its turn resolves inside ``end``, R7).
AUTOMATON: Final = "automaton"


class SimulationError(ClashError):
    """A simulation that cannot run as asked (bad mode, agents, counts)."""


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything one simulated game depends on (picklable: sent to worker processes)."""

    index: int
    mode: str
    format: str
    seed: int
    #: Agent specs in the caller's order; solo: (agent, "automaton").
    participants: tuple[str, str]
    #: One seed per participant (see :mod:`.seeds`).
    agent_seeds: tuple[int, int]
    ruleset: Ruleset
    threat: Threat | None = None
    records_dir: str | None = None
    #: Seat the participants by the coin toss (R2.3a) instead of participant k in seat k.
    coin_toss_seats: bool = False
    #: Count per-card figures (:mod:`.cardstats`) into :attr:`GameResult.cards`; the game is the same.
    collect_stats: bool = False
    #: Preconstructed decks (R2.3) by seat, chosen for the agents (``clash simulate --decks``).
    decks: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one game.  ``winner`` is a seat (0 starts) or ``None`` for a capped draw."""

    index: int
    seed: int
    #: Agent specs by seat.
    seats: tuple[str, str]
    winner: int | None
    reason: str
    turns: int
    actions: int
    record: str | None = None
    #: The coin toss put participant 0 in seat 1 (only with ``coin_toss_seats``).
    participants_swapped: bool = False
    #: How it ended, machine-readable (:class:`~clashofdecks.rules.Termination` values).
    termination: str = ""
    #: Per card and seat (only with ``collect_stats``; the runner hands them on, then drops them).
    cards: tuple[CardRow, ...] = ()
    #: Each seat's preconstructed deck number (R2.3), ``None`` for other decks (with ``collect_stats``).
    decks: tuple[int | None, int | None] = (None, None)
    #: By seat: what a search agent's searches cost in this game (``None`` for other agents).  Not
    #: compared: its seconds are the clock's, the game is the same without them.
    searches: tuple[SearchTally | None, SearchTally | None] = field(default=(None, None), compare=False)
    #: Whether the play phase ran on the compiled core (not compared: the game is the same).
    on_core: bool = field(default=False, compare=False)

    def without_cards(self) -> GameResult:
        """This result without its card rows (what a long run keeps in memory)."""
        return replace(self, cards=()) if self.cards else self

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.seats[self.winner]

    @property
    def winner_participant(self) -> int | None:
        """The winner as a participant (the spec's order), or ``None`` for a draw."""
        return None if self.winner is None else self.winner ^ int(self.participants_swapped)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``clash simulate --games-json`` prints."""
        return {
            "index": self.index,
            "seed": self.seed,
            "seats": list(self.seats),
            "winner": self.winner,
            "reason": self.reason,
            "turns": self.turns,
            "actions": self.actions,
            "record": self.record,
        }


def record_file(records_dir: str, index: int) -> Path:
    """Where the record of game ``index`` of a run goes (``--records DIR``)."""
    return Path(records_dir) / f"game-{index:06d}.json"


def _search_tally(agent: Agent | None) -> SearchTally | None:
    tally = getattr(agent, "tally", None)
    return tally if isinstance(tally, SearchTally) else None


def plays_on_core(spec: GameSpec, agents: Sequence[Agent | None]) -> bool:
    """Whether :func:`play_game` moves this game to the compiled core at its first turn (see the
    module): the core is available and the game needs nothing only the Python engine gives (events
    for per-card counts, a history for the record).  ``agents`` play on either engine."""
    return NATIVE_AVAILABLE and not spec.collect_stats and spec.records_dir is None


def _to_core(game: Game) -> NativeGame | None:
    """The game on the compiled core, or ``None`` where the core refuses it (the Python engine then
    plays the whole game: never a failure)."""
    try:
        core = NativeGame.from_game(game)
    except NativeUnsupportedError:
        return None
    core.keep_undo = False  # the game only goes forward: no state copy per action
    return core


def _deciders(spec: GameSpec, by_seat: Sequence[Agent | None]) -> list[Decider[Game] | None]:
    """Each seat's decider in the Python engine: its agent, except that a batch that chose the decks
    (``spec.decks``: every pairing gets played) takes the deck decision for it."""
    deciders: list[Decider[Game] | None] = []
    for seat, agent in enumerate(by_seat):
        if agent is None:
            deciders.append(None)
        elif spec.decks is None:
            deciders.append(agent.act)
        else:
            deciders.append(_deck_chooser(agent, spec.decks[seat]))
    return deciders


def _deck_chooser(agent: Agent, deck: int) -> Decider[Game]:
    def decide(game: Game) -> int:
        if game.phase == "setup" and setup_summary(game)["decision"] == "deck":
            return game.parse_action(f"deck {deck}")
        return agent.act(game)

    return decide


def _play_python(
    game: Game, deciders: Sequence[Decider[Game] | None], tally: CardTally | None, to_core: bool
) -> int:
    """Step the Python engine's game (:func:`game_steps`) to its end, or only through the setup when
    it moves to the compiled core at the first turn (``to_core``); returns the actions taken."""
    stop = _past_setup if to_core else None
    actions = 0
    for step in game_steps(game, deciders, stop=stop):
        if tally is not None:
            tally.observe(game, step.events)
        actions += 1
    return actions


def _past_setup(game: Game) -> bool:
    return game.phase != "setup"


def _check_finished(game: GameEngine, seats: tuple[str, str]) -> None:
    if not game.is_over():
        player = game.current_player
        raise SimulationError(f"seat {player} ({seats[player]}) has a decision but no agent")


def play_game(spec: GameSpec, agents: Sequence[Agent | None] | None = None) -> tuple[GameResult, GameEngine]:
    """Play the game of ``spec`` to its end; returns the result and the finished game (a
    :class:`NativeGame` when its play phase ran on the compiled core, see the module).

    ``agents`` (by participant; ``None`` for the automaton) defaults to fresh agents made from the
    spec's names and seeds; every agent is reset with its seed first.  The turn cap of
    ``spec.ruleset.max_turns`` ends a game as a draw.
    """
    if agents is None:
        agents = [
            None if name == AUTOMATON else make_agent(name, s)
            for name, s in zip(spec.participants, spec.agent_seeds, strict=True)
        ]
    for agent, s in zip(agents, spec.agent_seeds, strict=True):
        if agent is not None:
            agent.reset(s)
    python_game = start_game(
        mode=spec.mode,
        format=spec.format,
        seed=spec.seed,
        ruleset=spec.ruleset,
        threat=spec.threat,
        record_events=spec.collect_stats,
    )
    tally = CardTally() if spec.collect_stats else None
    if tally is not None:
        tally.begin(python_game)
    swapped = spec.coin_toss_seats and seat_of(python_game, 0) == 1
    by_seat = [agents[1], agents[0]] if swapped else [agents[0], agents[1]]
    seats = (spec.participants[1], spec.participants[0]) if swapped else spec.participants
    to_core = plays_on_core(spec, agents)
    deciders = _deciders(spec, by_seat)
    actions = _play_python(python_game, deciders, tally, to_core)
    game: GameEngine = python_game
    core = _to_core(python_game) if to_core and not python_game.is_over() else None
    if core is not None:
        game = core
        core_deciders = [None if agent is None else agent.act for agent in by_seat]
        actions += play_out(core, core_deciders)
    elif to_core:
        actions += _play_python(python_game, deciders, tally, False)  # the core refused the position
    _check_finished(game, seats)
    return _result(spec, python_game, game, actions, by_seat, seats, swapped, tally), game


def _result(
    spec: GameSpec,
    python_game: Game,
    game: GameEngine,
    actions: int,
    by_seat: Sequence[Agent | None],
    seats: tuple[str, str],
    swapped: bool,
    tally: CardTally | None,
) -> GameResult:
    """The result of the finished ``game`` (with its record written when the spec asks for one)."""
    on_core = game is not python_game
    outcome = game.outcome
    assert outcome is not None
    record_path: str | None = None
    if spec.records_dir is not None:
        assert not on_core  # records keep the game in the Python engine (plays_on_core)
        path = record_file(spec.records_dir, spec.index)
        record_game(python_game, players=list(seats)).save(path)
        record_path = str(path)
    cards: tuple[CardRow, ...] = ()
    if tally is not None:
        assert not on_core  # so do per-card counts
        cards = tally.finish(python_game)
    return GameResult(
        index=spec.index,
        seed=spec.seed,
        seats=seats,
        winner=outcome.winner,
        reason=outcome.reason,
        turns=game.turn,
        actions=actions,
        record=record_path,
        participants_swapped=swapped,
        termination=outcome.termination.value,
        cards=cards,
        decks=tally.decks if tally is not None else (None, None),
        searches=(_search_tally(by_seat[0]), _search_tally(by_seat[1])),
        on_core=on_core,
    )


__all__ = [
    "AUTOMATON",
    "GameResult",
    "GameSpec",
    "SimulationError",
    "play_game",
    "plays_on_core",
    "record_file",
]
