"""Batch simulation: many games between agents (duel) or an agent and the automaton (solo).

Pure functions, no printing: the ``clash simulate`` command (``cli/simulate_cmd.py``) is a thin
front end.  Determinism is the design constraint: every game's seed (the deal, the draft pile,
the coin toss) and every agent's seed are derived from the master seed and the game's index
alone, and results are gathered in index order, so a run gives the same results whatever the
number of worker processes.

Seats: seat 0 is the player who starts (engine.md).  In duel the two agents swap seats every
other game (agent A sits in seat 0 in even-numbered games), so neither profits from the
starting player's advantage; the setup's coin toss (R2.3a) only decides which *participant*
is player A, and participants are interchangeable here, so the seating is set by the game
index instead.  In solo the agent is seat 0 and the automaton seat 1 (R7).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from .agents.base import Agent
from .agents.registry import make_agent
from .errors import ClashError
from .options import Ruleset, Threat
from .rules import Game, rng_next

DEFAULT_MAX_TURNS: Final = 200
AUTOMATON: Final = "automaton"
_MASK64: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
#: 95% two-sided normal quantile, for Wilson intervals.
Z95: Final = 1.959963984540054


class SimulationError(ClashError):
    """A simulation that cannot run as asked (bad mode, agents, counts)."""


# ---------------------------------------------------------------------------- seeds


def derive_seed(master: int, *path: int) -> int:
    """A 48-bit seed from ``master`` and a path of small integers (game index, seat, ...).

    SplitMix64 steps mix each component in, so neighbouring games get unrelated seeds; 48 bits
    keep seeds exact in JSON readers that use doubles.
    """
    state = master & _MASK64
    for part in path:
        state, z = rng_next((state ^ ((part + 1) * _GOLDEN)) & _MASK64)
        state = z
    _, z = rng_next(state)
    return z >> 16


# ---------------------------------------------------------------------------- one game


@dataclass(frozen=True, slots=True)
class GameSpec:
    """Everything one simulated game depends on (picklable: sent to worker processes)."""

    index: int
    mode: str
    format: str
    seed: int
    seats: tuple[str, str]  # agent names by seat; solo: (agent, "automaton")
    agent_seeds: tuple[int, int]
    ruleset: Ruleset
    threat: Threat | None = None
    records_dir: str | None = None


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one game.  ``winner`` is a seat (0 starts) or ``None`` for a capped draw."""

    index: int
    seed: int
    seats: tuple[str, str]
    winner: int | None
    reason: str
    turns: int
    actions: int
    record: str | None = None

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.seats[self.winner]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["seats"] = list(self.seats)
        return out


def start_game(spec: GameSpec) -> Game:
    """The game of ``spec`` at the start of its setup (``format`` ``random``: the benchmark deal)."""
    from .formats import start_game as start_from_format

    return start_from_format(
        mode=spec.mode,
        format=spec.format,
        seed=spec.seed,
        ruleset=spec.ruleset,
        threat=spec.threat,
        record_events=False,
    )


def play_game(spec: GameSpec, agents: Sequence[Agent | None] | None = None) -> tuple[GameResult, Game]:
    """Play the game of ``spec`` to its end; returns the result and the finished game.

    ``agents`` (by seat; ``None`` for the automaton) defaults to fresh agents made from the
    spec's names and seeds.  The turn cap of ``spec.ruleset.max_turns`` ends a game as a draw.
    """
    if agents is None:
        agents = [
            None if name == AUTOMATON else make_agent(name, s)
            for name, s in zip(spec.seats, spec.agent_seeds, strict=True)
        ]
    for agent, s in zip(agents, spec.agent_seeds, strict=True):
        if agent is not None:
            agent.reset(s)
    game = start_game(spec)
    actions = 0
    while not game.is_over():
        player = game.current_player
        agent = agents[player]
        if agent is None:
            raise SimulationError(f"seat {player} ({spec.seats[player]}) has a decision but no agent")
        game.apply(agent.act(game))
        actions += 1
    outcome = game.outcome
    assert outcome is not None
    record_path: str | None = None
    if spec.records_dir is not None:
        from .record import record_game

        path = Path(spec.records_dir) / f"game-{spec.index:06d}.json"
        record_game(game, players=list(spec.seats)).save(path)
        record_path = str(path)
    result = GameResult(
        index=spec.index,
        seed=spec.seed,
        seats=spec.seats,
        winner=outcome.winner,
        reason=outcome.reason,
        turns=game.turn,
        actions=actions,
        record=record_path,
    )
    return result, game


def _run_spec(spec: GameSpec) -> GameResult:
    """Worker entry point (module level, so spawned processes can import it)."""
    return play_game(spec)[0]


# ---------------------------------------------------------------------------- many games


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

    def check(self) -> None:
        """Raise :class:`SimulationError` / agent errors for a batch that cannot run."""
        if self.mode not in ("duel", "solo"):
            raise SimulationError(f"unknown mode {self.mode!r} (choose duel or solo)")
        want = 2 if self.mode == "duel" else 1
        if len(self.agents) != want:
            raise SimulationError(f"{self.mode} needs {want} agent name(s), got {len(self.agents)}")
        if self.games < 1:
            raise SimulationError(f"--games must be at least 1, not {self.games}")
        if self.format not in ("draft", "precon", "custom", "random"):
            raise SimulationError(f"unknown format {self.format!r} (choose draft, precon or custom)")
        if self.mode == "solo" and self.format in ("custom", "random"):
            raise SimulationError(f"the {self.format} format is not played in solo (R2.2)")
        if self.threat is None:
            Threat.level(self.level)  # raises ThreatError for a level outside 0-5
        for name in self.agents:
            make_agent(name, 0)  # raises UnknownAgentError listing the known names

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
            yield GameSpec(i, self.mode, self.format, seed, seats, agent_seeds, ruleset, threat, records)


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (better than p ± z·se near 0 and 1)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 and n successes the exact bounds are 0 and 1; rounding would leave 1e-16 gaps.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


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
        }
        if include_games:
            out["results"] = [r.to_dict() for r in self.results]
        return out


def summarize(config: SimConfig, results: Sequence[GameResult], elapsed_s: float = 0.0) -> Summary:
    """Win rates (Wilson 95% intervals), draws, average turns and actions of ``results``."""
    n = len(results)
    sides: list[tuple[str, str]]
    if config.mode == "duel":
        sides = [("A", config.agents[0]), ("B", config.agents[1])]
    else:
        sides = [("agent", config.agents[0]), ("automaton", AUTOMATON)]
    draws = sum(1 for r in results if r.winner is None)
    stats: list[AgentStats] = []
    for k, (label, name) in enumerate(sides):
        # Which seat side k sat in: duel alternates (A in seat 0 in even games); solo is fixed.
        def seat(r: GameResult, k: int = k) -> int:
            return (k + r.index) % 2 if config.mode == "duel" else k

        wins = sum(1 for r in results if r.winner is not None and r.winner == seat(r))
        firsts = [r for r in results if seat(r) == 0]
        low, high = wilson_interval(wins, n)
        stats.append(
            AgentStats(
                label=label,
                name=name,
                games=n,
                wins=wins,
                losses=n - wins - draws,
                draws=draws,
                win_rate=wins / n if n else 0.0,
                ci_low=low,
                ci_high=high,
                wins_first=sum(1 for r in firsts if r.winner == 0),
                games_first=len(firsts),
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
        draws=draws,
        avg_turns=sum(r.turns for r in results) / n if n else 0.0,
        avg_actions=sum(r.actions for r in results) / n if n else 0.0,
        first_seat_win_rate=sum(1 for r in results if r.winner == 0) / n if n else 0.0,
        elapsed_s=elapsed_s,
        results=list(results),
    )


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def run_games(
    config: SimConfig,
    *,
    workers: int | None = None,
    progress: Callable[[GameResult], None] | None = None,
) -> list[GameResult]:
    """Play the batch's games and return their results in index order.

    ``workers`` processes (default: all cores; 1 plays in this process).  Workers are started with
    the ``spawn`` method (safe with threads and on every platform) and take games in chunks;
    ``imap`` hands results back in index order, which with per-index seeds makes the output
    independent of the number of workers.
    """
    config.check()
    if config.records_dir is not None:
        Path(config.records_dir).mkdir(parents=True, exist_ok=True)
    n_workers = default_workers() if workers is None else workers
    if n_workers < 1:
        raise SimulationError(f"--workers must be at least 1, not {n_workers}")
    n_workers = min(n_workers, config.games)
    specs = list(config.specs())
    results: list[GameResult] = []
    if n_workers == 1:
        for spec in specs:
            res = _run_spec(spec)
            results.append(res)
            if progress is not None:
                progress(res)
        return results
    # Small chunks keep the progress bar moving and the load balanced; large ones cut overhead.
    chunk = max(1, min(32, config.games // (n_workers * 8)))
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(n_workers) as pool:
        for res in pool.imap(_run_spec, specs, chunksize=chunk):
            results.append(res)
            if progress is not None:
                progress(res)
    return results


def simulate(
    config: SimConfig,
    *,
    workers: int | None = None,
    progress: Callable[[GameResult], None] | None = None,
) -> Summary:
    """Run the batch and summarise it (see :func:`run_games`, :func:`summarize`)."""
    start = time.perf_counter()
    results = run_games(config, workers=workers, progress=progress)
    return summarize(config, results, time.perf_counter() - start)


__all__ = [
    "AUTOMATON",
    "DEFAULT_MAX_TURNS",
    "AgentStats",
    "GameResult",
    "GameSpec",
    "SimConfig",
    "SimulationError",
    "Summary",
    "default_workers",
    "derive_seed",
    "play_game",
    "run_games",
    "simulate",
    "start_game",
    "summarize",
    "wilson_interval",
]
