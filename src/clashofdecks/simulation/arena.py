"""``clash arena``: round-robin tournaments between agents, with win rates and Elo ratings, and
every agent against the solo automaton on the same deals.

Design, so that results mean what they say:

* **Shared deals, seats swapped.**  Every pairing plays the same list of deals (game seeds
  ``seed, seed+1, …``), and each deal twice: once with each agent as the first participant.  The
  seed fixes the coin toss (R2.3a), the draft pile and every shuffle, so the two games of a deal
  differ only in who sits where; luck of the deal cancels out within a pairing.  Agent seeds come
  from the deal and the participant (:func:`.seeds.deal_agent_seed`).
* **Win rates** count a draw (only possible with a ``max_turns`` cap) as half a win; the 95 %
  interval is Wilson's score interval over the games of the pairing (:mod:`.stats`).
* **Elo** is a Bradley–Terry fit over all games with percentile-bootstrap intervals (:mod:`.stats`).

Agents are named by specs (``ismcts:500``, ``mcts:seconds=0.5,c=1.0``; :mod:`clashofdecks.agents.spec`).
The games are played by :func:`.runner.run_specs`, so the results do not depend on the number of
workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..agents.registry import make_agent
from ..formats import FORMATS
from ..options import Ruleset, Threat
from .game import AUTOMATON, GameResult, GameSpec, SimulationError
from .runner import MAX_GAMES, Backend, LocalBackend, run_specs
from .seeds import deal_agent_seed
from .stats import Pairing, elo_with_intervals, wilson_interval

#: Called after each game with the result, the games done and the games in all.
OnResult = Callable[[GameResult, int, int], None]


@dataclass(frozen=True, slots=True)
class Task:
    """One game: agents ``a`` and ``b`` (indices into the tournament's list; ``b`` is -1 for the
    automaton in solo), deal ``seed``; ``swap`` makes ``b`` the first participant."""

    a: int
    b: int
    seed: int
    swap: bool

    def participants(self) -> tuple[int, int]:
        """The agents (indices) in participant order; -1 is the automaton."""
        return (self.b, self.a) if self.swap else (self.a, self.b)

    def winner(self, result: GameResult) -> int | None:
        """The index of the winning agent (-1: the automaton) or ``None`` for a draw."""
        won = result.winner_participant
        return None if won is None else self.participants()[won]


def _spec(
    index: int, task: Task, agents: Sequence[str], format: str, ruleset: Ruleset, threat: Threat | None
) -> GameSpec:
    first, second = task.participants()
    return GameSpec(
        index=index,
        mode="duel" if second >= 0 else "solo",
        format=format,
        seed=task.seed,
        participants=(agents[first], agents[second] if second >= 0 else AUTOMATON),
        agent_seeds=(deal_agent_seed(task.seed, 0), deal_agent_seed(task.seed, 1)),
        ruleset=ruleset,
        threat=threat if second < 0 else None,
        coin_toss_seats=True,
    )


def _play(
    agents: Sequence[str],
    tasks: Sequence[Task],
    *,
    format: str,
    workers: int,
    max_turns: int | None,
    threat: Threat | None,
    on_result: OnResult | None,
    backend: Backend | None = None,
) -> list[GameResult]:
    """Play ``tasks`` (one game each) and return the results in task order (on ``backend``, default
    ``workers`` local processes)."""
    if len(tasks) > MAX_GAMES:
        raise SimulationError(f"an arena plays at most {MAX_GAMES:,} games, not {len(tasks):,}")
    ruleset = Ruleset(max_turns=max_turns)
    specs = (_spec(i, t, agents, format, ruleset, threat) for i, t in enumerate(tasks))
    done = 0

    def count(result: GameResult) -> None:
        nonlocal done
        done += 1
        if on_result is not None:
            on_result(result, done, len(tasks))

    # One game per chunk: arena games are often long searches, so balance beats overhead.
    backend = backend or LocalBackend.for_games(workers, len(tasks))
    return run_specs(specs, games=len(tasks), backend=backend, chunk=1, on_result=count)


def _check_agents(agents: Sequence[str]) -> None:
    for spec in agents:
        make_agent(spec, 0)  # fail early on a bad spec, before any worker starts


# ---------------------------------------------------------------------------- duels


def tasks_for(n_agents: int, games: int, seed: int) -> list[Task]:
    """Every game of a round robin: ``games`` per pairing (an even number: each deal from both seats)."""
    if games < 2 or games % 2:
        raise SimulationError(
            f"games per pairing must be an even number >= 2 (each deal from both seats), not {games}"
        )
    pairs = n_agents * (n_agents - 1) // 2
    if pairs * games > MAX_GAMES:
        raise SimulationError(
            f"{pairs} pairings × {games:,} games is more than the {MAX_GAMES:,} games a run may play"
        )
    out = []
    for a in range(n_agents):
        for b in range(a + 1, n_agents):
            for k in range(games // 2):
                out.append(Task(a, b, seed + k, False))
                out.append(Task(a, b, seed + k, True))
    return out


@dataclass
class ArenaResult:
    agents: list[str]
    format: str
    games_per_pairing: int
    seed: int
    pairings: list[Pairing]
    elo: list[float]
    elo_low: list[float]
    elo_high: list[float]
    #: Every game, in task order (``results[i]`` is the game of ``tasks[i]``).
    results: list[GameResult]
    tasks: list[Task]
    draws: int = 0

    def table(self) -> list[dict[str, Any]]:
        rows = []
        for p in self.pairings:
            n = p.games
            low, high = wilson_interval(p.points_a, n)
            rows.append(
                {
                    "agent": self.agents[p.a],
                    "opponent": self.agents[p.b],
                    "games": n,
                    "points": p.points_a,
                    "win_rate": p.points_a / n if n else 0.0,
                    "ci95": [low, high],
                }
            )
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "agents": self.agents,
            "format": self.format,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "pairings": self.table(),
            # Without bootstrap resamples (--bootstrap 0) there is no interval: null, not NaN,
            # which JSON does not have.
            "elo": [
                {"agent": name, "elo": e, "ci95": None if math.isnan(lo) else [lo, hi]}
                for name, e, lo, hi in zip(self.agents, self.elo, self.elo_low, self.elo_high, strict=True)
            ],
            "draws": self.draws,
            "mean_turns": sum(r.turns for r in self.results) / max(1, len(self.results)),
        }


def run_arena(
    agents: Sequence[str],
    *,
    games: int = 20,
    seed: int = 1,
    format: str = "draft",
    workers: int = 1,
    max_turns: int | None = 200,
    bootstrap: int = 1000,
    on_result: OnResult | None = None,
    backend: Backend | None = None,
) -> ArenaResult:
    """Play the round robin between the agent specs ``agents`` and compute its statistics.
    ``on_result(result, done, total)`` is called after each game (for progress bars)."""
    if len(agents) < 2:
        raise SimulationError("an arena needs at least two agents")
    if format not in FORMATS:
        raise SimulationError(f"unknown format {format!r} (choose {', '.join(FORMATS)})")
    _check_agents(agents)
    tasks = tasks_for(len(agents), games, seed)
    results = _play(
        agents,
        tasks,
        format=format,
        workers=workers,
        max_turns=max_turns,
        threat=None,
        on_result=on_result,
        backend=backend,
    )
    pairings = {(a, b): Pairing(a, b) for a in range(len(agents)) for b in range(a + 1, len(agents))}
    draws = 0
    for task, result in zip(tasks, results, strict=True):
        winner = task.winner(result)
        draws += winner is None
        pairings[(task.a, task.b)].add(task.seed, 0.5 if winner is None else float(winner == task.a))
    ordered = list(pairings.values())
    elo, low, high = elo_with_intervals(len(agents), ordered, bootstrap=bootstrap, seed=seed)
    return ArenaResult(list(agents), format, games, seed, ordered, elo, low, high, results, tasks, draws)


# ---------------------------------------------------------------------------- solo


@dataclass
class SoloRow:
    agent: str
    games: int
    wins: int
    draws: int

    @property
    def win_rate(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        low, high = wilson_interval(self.wins + 0.5 * self.draws, self.games)
        return {
            "agent": self.agent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "win_rate": self.win_rate,
            "ci95": [low, high],
        }


@dataclass
class SoloResult:
    """Each agent against the automaton on the same deals."""

    agents: list[str]
    format: str
    games: int
    seed: int
    threat: Threat
    rows: list[SoloRow]
    #: Every game, in task order (``results[i]`` is the game of ``tasks[i]``).
    results: list[GameResult]
    tasks: list[Task]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": "solo",
            "agents": self.agents,
            "format": self.format,
            "games": self.games,
            "seed": self.seed,
            "threat": self.threat.to_dict(),
            "threat_points": self.threat.threat_points(),
            "rows": [r.to_dict() for r in self.rows],
            "mean_turns": sum(r.turns for r in self.results) / max(1, len(self.results)),
        }


def run_solo(
    agents: Sequence[str],
    *,
    games: int = 100,
    seed: int = 1,
    format: str = "draft",
    threat: Threat | None = None,
    workers: int = 1,
    max_turns: int | None = 200,
    on_result: OnResult | None = None,
    backend: Backend | None = None,
) -> SoloResult:
    """Every agent plays the same ``games`` solo deals (seeds ``seed, seed+1, …``) against the
    automaton with ``threat`` (default: the quick game, R7)."""
    if not agents:
        raise SimulationError("name at least one agent")
    if format not in ("draft", "precon"):
        raise SimulationError(f"the {format} format is not played in solo (R2.2): choose draft or precon")
    if not 1 <= games <= MAX_GAMES // len(agents):
        raise SimulationError(f"games must be 1 to {MAX_GAMES // len(agents):,} per agent, not {games:,}")
    _check_agents(agents)
    threat = threat or Threat()
    tasks = [Task(a, -1, seed + k, False) for a in range(len(agents)) for k in range(games)]
    results = _play(
        agents,
        tasks,
        format=format,
        workers=workers,
        max_turns=max_turns,
        threat=threat,
        on_result=on_result,
        backend=backend,
    )
    rows = [SoloRow(s, 0, 0, 0) for s in agents]
    for task, result in zip(tasks, results, strict=True):
        row = rows[task.a]
        winner = task.winner(result)
        row.games += 1
        row.wins += winner == task.a
        row.draws += winner is None
    return SoloResult(list(agents), format, games, seed, threat, rows, results, tasks)


__all__ = [
    "ArenaResult",
    "SoloResult",
    "SoloRow",
    "Task",
    "run_arena",
    "run_solo",
    "tasks_for",
]
