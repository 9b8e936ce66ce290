"""``clash simulate``: a batch of games between two agents (duel) or an agent and the automaton
(solo), summarised as win rates with Wilson intervals.

Pure functions, no printing: ``cli/simulate_cmd.py`` is a thin front end.  Game ``i`` of a batch
has the game seed ``derive_seed(seed, i)`` and its agents ``derive_seed(game seed, seat)``
(:mod:`.seeds`); the games are played by :func:`.runner.run_specs`, so a batch gives the same
results for any number of workers.

Seats: in duel the two agents swap seats every other game (agent A sits in seat 0, the starting
seat, in even-numbered games), so neither profits from the starting player's advantage; the
setup's coin toss (R2.3a) only decides which *participant* is player A, and participants are
interchangeable here, so the seating is set by the game index instead.  In solo the agent is
seat 0 and the automaton seat 1 (R7).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from ..agents.registry import make_agent
from ..options import Ruleset, Threat
from .game import AUTOMATON, GameResult, GameSpec, SimulationError
from .runner import MAX_GAMES, Backend, LocalBackend, run_specs
from .seeds import derive_seed
from .stats import wilson_interval

DEFAULT_MAX_TURNS: Final = 200
#: Most games of one batch: a batch that keeps no per-game results (:class:`Totals`) runs in flat
#: memory, so this only keeps counts within reason (game indices fit the store's int32 column).
MAX_BATCH_GAMES: Final = 1_000_000_000
#: Every ordered pair of different preconstructed decks (``--decks rotate``).
ALL_DECK_PAIRS: Final = tuple((a, b) for a in range(1, 5) for b in range(1, 5) if a != b)
FORMATS: Final = ("draft", "precon", "custom", "random")


@dataclass(frozen=True, slots=True)
class SimConfig:
    """A batch: ``agents`` is two names in duel, one in solo (against the automaton)."""

    mode: str = "duel"
    agents: tuple[str, ...] = ("greedy", "random")
    games: int = 100
    seed: int = 0
    format: str = "draft"
    level: int = 0
    threat: Threat | None = None
    max_turns: int | None = DEFAULT_MAX_TURNS
    records_dir: str | None = None
    #: Count per-card figures in the workers (for the store of games, :mod:`.store`).
    card_stats: bool = False
    #: Precon duels: the decks by seat for game ``i`` are ``deck_pairs[(i // 2) % len]`` (both
    #: agents play each pairing from both seats); ``None``: the agents choose (R2.3).
    deck_pairs: tuple[tuple[int, int], ...] | None = None

    def check(self) -> None:
        """Raise :class:`SimulationError` / agent errors for a batch that cannot run."""
        if self.mode not in ("duel", "solo"):
            raise SimulationError(f"unknown mode {self.mode!r} (choose duel or solo)")
        want = 2 if self.mode == "duel" else 1
        if len(self.agents) != want:
            raise SimulationError(f"{self.mode} needs {want} agent name(s), got {len(self.agents)}")
        if not 1 <= self.games <= MAX_BATCH_GAMES:
            raise SimulationError(f"--games must be 1 to {MAX_BATCH_GAMES:,}, not {self.games:,}")
        if self.format not in FORMATS:
            raise SimulationError(f"unknown format {self.format!r} (choose draft, precon or custom)")
        if self.mode == "solo" and self.format in ("custom", "random"):
            raise SimulationError(f"the {self.format} format is not played in solo (R2.2)")
        if self.threat is None:
            Threat.level(self.level)  # raises ThreatError for a level outside 0-5
        for name in self.agents:
            make_agent(name, 0)  # raises UnknownAgentError listing the known names
        if self.deck_pairs is not None:
            if self.mode != "duel" or self.format != "precon":
                raise SimulationError("chosen decks are for precon duels (--mode duel --format precon)")
            for a, b in self.deck_pairs:
                if a == b or not {a, b} <= {1, 2, 3, 4}:
                    raise SimulationError(f"decks {a},{b}: two different decks of 1-4 (R2.3)")

    def ruleset(self) -> Ruleset:
        return Ruleset(max_turns=self.max_turns)

    def specs(self) -> Iterator[GameSpec]:
        """The games of the batch, in index order (each a pure function of the config and index)."""
        ruleset = self.ruleset()
        threat = (self.threat or Threat.level(self.level)) if self.mode == "solo" else None
        records = str(self.records_dir) if self.records_dir is not None else None
        for i in range(self.games):
            seed = derive_seed(self.seed, i)
            if self.mode == "duel":
                a, b = self.agents
                seats = (a, b) if i % 2 == 0 else (b, a)
                agent_seeds = (derive_seed(seed, 0), derive_seed(seed, 1))
            else:
                seats = (self.agents[0], AUTOMATON)
                agent_seeds = (derive_seed(seed, 0), 0)
            yield GameSpec(
                i,
                self.mode,
                self.format,
                seed,
                seats,
                agent_seeds,
                ruleset,
                threat,
                records,
                collect_stats=self.card_stats,
                decks=self.deck_pairs[(i // 2) % len(self.deck_pairs)] if self.deck_pairs else None,
            )

    def solo_threat(self) -> Threat | None:
        """The automaton's threat options (solo), ``None`` in duel."""
        return (self.threat or Threat.level(self.level)) if self.mode == "solo" else None


@dataclass(frozen=True, slots=True)
class AgentStats:
    """One side of the batch: wins, losses and draws over all its games, whatever its seat."""

    label: str  # "A"/"B" in duel (the order given), "agent"/"automaton" in solo
    name: str
    games: int
    wins: int
    losses: int
    draws: int
    win_rate: float
    ci_low: float
    ci_high: float
    wins_first: int  # wins when sitting in seat 0 (starting)
    games_first: int


@dataclass
class Summary:
    """The batch's figures (everything but ``elapsed_s`` is deterministic for a config)."""

    mode: str
    format: str
    level: int | None
    games: int
    seed: int
    max_turns: int | None
    agents: list[AgentStats]
    draws: int
    avg_turns: float
    avg_actions: float
    first_seat_win_rate: float
    elapsed_s: float = 0.0
    results: list[GameResult] = field(default_factory=list)
    #: Games whose play phase ran on the compiled core (:func:`.game.play_game`).
    games_on_core: int = 0

    def to_dict(self, *, include_games: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mode": self.mode,
            "format": self.format,
            "level": self.level,
            "games": self.games,
            "seed": self.seed,
            "max_turns": self.max_turns,
            "agents": [asdict(a) for a in self.agents],
            "draws": self.draws,
            "avg_turns": self.avg_turns,
            "avg_actions": self.avg_actions,
            "first_seat_win_rate": self.first_seat_win_rate,
            "elapsed_s": self.elapsed_s,
            "games_on_core": self.games_on_core,
        }
        if include_games:
            out["results"] = [r.to_dict() for r in self.results]
        return out


@dataclass
class Totals:
    """Running totals of a batch's results: everything its :class:`Summary` needs, in constant
    memory whatever the number of games (``clash simulate`` keeps these, not the results)."""

    mode: str
    games: int = 0
    draws: int = 0
    #: Per side (A, B in duel; agent, automaton in solo): wins, and wins and games in seat 0.
    wins: list[int] = field(default_factory=lambda: [0, 0])
    wins_first: list[int] = field(default_factory=lambda: [0, 0])
    games_first: list[int] = field(default_factory=lambda: [0, 0])
    turns: int = 0
    actions: int = 0
    seat0_wins: int = 0
    on_core: int = 0

    def add(self, result: GameResult) -> None:
        """Count one game."""
        self.games += 1
        winner = result.winner
        self.draws += winner is None
        self.seat0_wins += winner == 0
        for side in (0, 1):
            # Which seat the side sat in: duel alternates (A in seat 0 in even games); solo is fixed.
            seat = (side + result.index) % 2 if self.mode == "duel" else side
            self.wins[side] += winner == seat
            if seat == 0:
                self.games_first[side] += 1
                self.wins_first[side] += winner == 0
        self.turns += result.turns
        self.actions += result.actions
        self.on_core += result.on_core

    def summary(
        self, config: SimConfig, elapsed_s: float = 0.0, results: Sequence[GameResult] = ()
    ) -> Summary:
        """The batch's :class:`Summary` (win rates with Wilson 95% intervals); ``results`` are only
        carried along (``--games-json``)."""
        n = self.games
        if config.mode == "duel":
            sides = [("A", config.agents[0]), ("B", config.agents[1])]
        else:
            sides = [("agent", config.agents[0]), ("automaton", AUTOMATON)]
        stats: list[AgentStats] = []
        for k, (label, name) in enumerate(sides):
            wins = self.wins[k]
            low, high = wilson_interval(wins, n)
            stats.append(
                AgentStats(
                    label=label,
                    name=name,
                    games=n,
                    wins=wins,
                    losses=n - wins - self.draws,
                    draws=self.draws,
                    win_rate=wins / n if n else 0.0,
                    ci_low=low,
                    ci_high=high,
                    wins_first=self.wins_first[k],
                    games_first=self.games_first[k],
                )
            )
        return Summary(
            mode=config.mode,
            format=config.format,
            level=config.level if config.mode == "solo" and config.threat is None else None,
            games=n,
            seed=config.seed,
            max_turns=config.max_turns,
            agents=stats,
            draws=self.draws,
            avg_turns=self.turns / n if n else 0.0,
            avg_actions=self.actions / n if n else 0.0,
            first_seat_win_rate=self.seat0_wins / n if n else 0.0,
            elapsed_s=elapsed_s,
            results=list(results),
            games_on_core=self.on_core,
        )


def summarize(config: SimConfig, results: Sequence[GameResult], elapsed_s: float = 0.0) -> Summary:
    """Win rates (Wilson 95% intervals), draws, average turns and actions of ``results``."""
    totals = Totals(config.mode)
    for result in results:
        totals.add(result)
    return totals.summary(config, elapsed_s, results)


def run_games(
    config: SimConfig,
    *,
    workers: int | None = None,
    progress: Callable[[GameResult], None] | None = None,
    backend: Backend | None = None,
    on_chunk: Callable[[list[GameResult]], None] | None = None,
    keep_results: bool = True,
) -> list[GameResult]:
    """Play the batch's games and return their results in index order: on ``backend`` if given,
    else ``workers`` local processes (default all cores; 1 plays in this process).  The results do
    not depend on the backend or the number of workers.  ``on_chunk`` gets each chunk's results
    with their card rows (see :func:`.runner.run_specs`); Ctrl-C raises :class:`.runner.Interrupted`.
    With ``keep_results=False`` nothing is kept (an empty list): count with ``progress``
    (e.g. :meth:`Totals.add`), and memory stays flat however many games the batch has."""
    config.check()
    backend = backend or LocalBackend.for_games(workers, config.games)
    if config.records_dir is not None:
        Path(config.records_dir).mkdir(parents=True, exist_ok=True)
    return run_specs(
        config.specs(),
        games=config.games,
        backend=backend,
        on_result=progress,
        on_chunk=on_chunk,
        keep_results=keep_results,
    )


def simulate(
    config: SimConfig,
    *,
    workers: int | None = None,
    progress: Callable[[GameResult], None] | None = None,
    backend: Backend | None = None,
) -> Summary:
    """Run the batch and summarise it (see :func:`run_games`, :func:`summarize`); the summary keeps
    every result up to :data:`.runner.MAX_GAMES` games, none beyond (running totals only)."""
    start = time.perf_counter()
    totals = Totals(config.mode)

    def count(result: GameResult) -> None:
        totals.add(result)
        if progress is not None:
            progress(result)

    keep = config.games <= MAX_GAMES
    results = run_games(config, workers=workers, progress=count, backend=backend, keep_results=keep)
    return totals.summary(config, time.perf_counter() - start, results)


__all__ = [
    "DEFAULT_MAX_TURNS",
    "MAX_BATCH_GAMES",
    "AgentStats",
    "SimConfig",
    "Summary",
    "Totals",
    "run_games",
    "simulate",
    "summarize",
]
