"""Round-robin tournaments between agents, with win rates and Elo ratings (``clash arena``).

Design, so that results mean what they say:

* **Shared deals, seats swapped.**  Every pairing plays the same list of deals (game seeds
  ``seed, seed+1, …``), and each deal twice: once with each agent as the first participant.  The
  seed fixes the coin toss (R2.3a), the draft pile and every shuffle, so the two games of a deal
  differ only in who sits where; luck of the deal cancels out within a pairing.
* **Win rates** count a draw (only possible with a ``max_turns`` cap) as half a win; the 95 %
  interval is Wilson's score interval over the games of the pairing.
* **Elo** comes from a Bradley–Terry fit over all games (``P(i beats j) = π_i / (π_i + π_j)``,
  fitted by the MM algorithm of Hunter 2004), with one virtual draw per pairing as a weak prior so
  that a perfect score stays finite; ``Elo_i = 400·log10 π_i``, centred on a mean of 0.  The 95 %
  intervals are percentile bootstrap intervals: the deals of every pairing are resampled with
  replacement (both games of a deal together) and the model refitted, 1,000 times by default.

Agents are named by *specs*: a registered name (``random``, ``greedy``, ``ismcts`` …), optionally
with search settings, ``ismcts:iterations=1000``, ``ismcts:500`` (iterations),
``mcts:seconds=0.5,c=1.0,rollout=greedy``.  See :func:`agent_from_spec`.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .agents.base import Agent
from .errors import ClashError
from .formats import FORMATS, new_game, seat_of
from .options import Ruleset, Threat

#: Search settings an agent spec may give (``NAME:key=value,…``).
SEARCH_KEYS: Final = ("iterations", "seconds", "c", "rollout", "cutoff")
Z95: Final = 1.959963984540054


class ArenaError(ClashError):
    """A bad agent spec or tournament setting (the CLI prints the message)."""


# ---------------------------------------------------------------------------- agent specs


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME[:key=value,…]`` (or ``NAME:N`` for N iterations) into a name and settings."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if not name:
        raise ArenaError(f"empty agent name in {spec!r}")
    settings: dict[str, Any] = {}
    if not rest:
        return name, settings
    if name not in ("mcts", "ismcts"):
        raise ArenaError(f"agent {name!r} takes no settings (only mcts and ismcts do): {spec!r}")
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            key, value = "iterations", key
        if key not in SEARCH_KEYS:
            raise ArenaError(f"unknown setting {key!r} in {spec!r} (known: {', '.join(SEARCH_KEYS)})")
        try:
            if key == "cutoff" and value in ("auto", "none"):
                settings[key] = None if value == "none" else "auto"
            elif key in ("iterations", "cutoff"):
                settings[key] = int(value)
            elif key in ("seconds", "c"):
                settings[key] = float(value)
            else:
                settings[key] = value
        except ValueError:
            raise ArenaError(f"bad value {value!r} for {key} in {spec!r}") from None
    if "seconds" in settings and "iterations" not in settings:
        settings["iterations"] = None
    return name, settings


def agent_from_spec(spec: str, seed: int = 0) -> Agent:
    """A fresh agent for ``spec`` (see the module docstring), seeded with ``seed``."""
    from .agents.registry import make_agent

    name, settings = parse_spec(spec)
    if not settings:
        try:
            return make_agent(name, seed)
        except ClashError as exc:
            raise ArenaError(str(exc)) from None
    from .agents.mcts import ISMCTSAgent, MCTSAgent

    cls = ISMCTSAgent if name == "ismcts" else MCTSAgent
    try:
        return cls(seed, **settings)
    except ValueError as exc:
        raise ArenaError(f"{spec}: {exc}") from None


def parse_threat(text: str) -> Threat:
    """Solo threat options (R8.2) from a JSON object (the position format's ``threat``) or from
    ``key=value`` pairs separated by commas, abilities joined by ``+``:
    ``base_mana=8,starts=automaton,abilities=rage+splash``."""
    from .errors import InvalidPositionError

    text = text.strip()
    data: dict[str, Any] = {}
    if text.startswith("{"):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ArenaError(f"--threat is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise ArenaError("--threat must be a JSON object")
        data = loaded
    elif text:
        for item in text.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq:
                raise ArenaError(f"--threat: expected key=value, got {item!r}")
            if key == "abilities":
                data[key] = [a for a in value.split("+") if a]
            elif key in ("extra_mana_per_creature", "base_mana"):
                try:
                    data[key] = int(value)
                except ValueError:
                    raise ArenaError(f"--threat: {key} must be an integer, not {value!r}") from None
            else:
                data[key] = value
    try:
        return Threat.from_dict(data)
    except InvalidPositionError as exc:
        raise ArenaError(str(exc)) from None


# ---------------------------------------------------------------------------- one game


@dataclass(frozen=True, slots=True)
class Task:
    """One game: agents ``a`` and ``b`` (indices into the tournament's list), deal ``seed``;
    ``swap`` makes ``b`` the first participant."""

    a: int
    b: int
    seed: int
    swap: bool


@dataclass(frozen=True, slots=True)
class GameResult:
    task: Task
    #: Index (into the tournament's list) of the winning agent, -1 for the automaton (solo), or
    #: None for a draw (turn cap).
    winner: int | None
    turns: int
    actions: int


def play_duel(
    participants: Sequence[Agent], *, seed: int, format: str = "draft", ruleset: Ruleset | None = None
) -> tuple[int | None, int, int]:
    """Play one duel from ``new_game`` to the end; returns (winning participant or None, turns, actions).

    ``participants[k]`` is the caller's k-th player; the coin toss puts them in their seats
    (:func:`clashofdecks.formats.seat_of`).
    """
    game = new_game(mode="duel", format=format, seed=seed, ruleset=ruleset, record_events=False)
    by_seat: list[Agent] = [participants[0], participants[1]]
    by_seat[seat_of(game, 0)] = participants[0]
    by_seat[seat_of(game, 1)] = participants[1]
    actions = 0
    while not game.is_over():
        game.apply(by_seat[game.current_player].act(game))
        actions += 1
    w = game.winner
    winner = None if w is None else (0 if by_seat[w] is participants[0] else 1)
    return winner, game.turn, actions


def play_solo(
    agent: Agent,
    *,
    seed: int,
    format: str = "draft",
    threat: Threat | None = None,
    ruleset: Ruleset | None = None,
) -> tuple[bool | None, int, int]:
    """Play one solo game (the agent in seat 0 against the automaton, R7/R8); returns (the agent
    won, or None for a capped draw; turns; actions)."""
    game = new_game(
        mode="solo", format=format, seed=seed, ruleset=ruleset, threat=threat, record_events=False
    )
    actions = 0
    while not game.is_over():
        game.apply(agent.act(game))
        actions += 1
    w = game.winner
    return (None if w is None else w == 0), game.turn, actions


_TaskArgs = tuple[Task, tuple[str, ...], str, int | None, Threat | None]


def _run_task(args: _TaskArgs) -> GameResult:
    task, specs, fmt, max_turns, threat = args
    if task.b < 0:  # solo: agent a against the automaton
        agent = agent_from_spec(specs[task.a], task.seed * 2)
        agent.reset(task.seed * 2)
        won, turns, actions = play_solo(
            agent, seed=task.seed, format=fmt, threat=threat, ruleset=Ruleset(max_turns=max_turns)
        )
        return GameResult(task, None if won is None else (task.a if won else -1), turns, actions)
    first, second = (task.b, task.a) if task.swap else (task.a, task.b)
    # Agent seeds come from the deal and the seat taken, so a replayed task is the same game.
    agents = [agent_from_spec(specs[first], task.seed * 2), agent_from_spec(specs[second], task.seed * 2 + 1)]
    agents[0].reset(task.seed * 2)
    agents[1].reset(task.seed * 2 + 1)
    ruleset = Ruleset(max_turns=max_turns)
    winner, turns, actions = play_duel(agents, seed=task.seed, format=fmt, ruleset=ruleset)
    win_idx = None if winner is None else (first if winner == 0 else second)
    return GameResult(task, win_idx, turns, actions)


# ---------------------------------------------------------------------------- statistics


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``wins`` may hold halves for draws)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bradley_terry_elo(
    n_agents: int, scores: dict[tuple[int, int], tuple[float, int]], prior_draws: float = 1.0
) -> list[float]:
    """Elo ratings (mean 0) from pairwise results ``{(i, j): (points of i against j, games)}``.

    MM iterations on the Bradley–Terry model; ``prior_draws`` virtual draws per pairing keep an
    unbeaten (or winless) agent finite.
    """
    wins = [0.0] * n_agents
    games: dict[tuple[int, int], float] = {}
    for (i, j), (points, n) in scores.items():
        total = n + prior_draws
        wins[i] += points + prior_draws / 2
        wins[j] += n - points + prior_draws / 2
        key = (min(i, j), max(i, j))
        games[key] = games.get(key, 0.0) + total
    pi = [1.0] * n_agents
    for _ in range(10_000):
        new = []
        for i in range(n_agents):
            denom = 0.0
            for (a, b), m in games.items():
                if a == i:
                    denom += m / (pi[i] + pi[b])
                elif b == i:
                    denom += m / (pi[i] + pi[a])
            new.append(wins[i] / denom if denom > 0 else pi[i])
        log_mean = sum(math.log(x) for x in new) / n_agents
        new = [x / math.exp(log_mean) for x in new]
        change = max(abs(math.log(x) - math.log(y)) for x, y in zip(new, pi, strict=True))
        pi = new
        if change < 1e-10:
            break
    return [400.0 * math.log10(x) for x in pi]


@dataclass
class Pairing:
    a: int
    b: int
    #: Per deal: (points of ``a`` in the two games of the deal, games played of that deal).
    deals: dict[int, tuple[float, int]] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return sum(n for _, n in self.deals.values())

    @property
    def points_a(self) -> float:
        return sum(p for p, _ in self.deals.values())


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
    results: list[GameResult]
    draws: int = 0

    def table(self) -> list[dict[str, Any]]:
        rows = []
        for p in self.pairings:
            n = p.games
            low, high = wilson(p.points_a, n)
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
            "elo": [
                {"agent": name, "elo": e, "ci95": [lo, hi]}
                for name, e, lo, hi in zip(self.agents, self.elo, self.elo_low, self.elo_high, strict=True)
            ],
            "draws": self.draws,
            "mean_turns": sum(r.turns for r in self.results) / max(1, len(self.results)),
        }


def _scores(
    pairings: Sequence[Pairing], deal_lists: Sequence[Sequence[int]]
) -> dict[tuple[int, int], tuple[float, int]]:
    out: dict[tuple[int, int], tuple[float, int]] = {}
    for p, deals in zip(pairings, deal_lists, strict=True):
        pts = 0.0
        n = 0
        for d in deals:
            a, k = p.deals[d]
            pts += a
            n += k
        out[(p.a, p.b)] = (pts, n)
    return out


def elo_with_intervals(
    n_agents: int, pairings: Sequence[Pairing], *, bootstrap: int = 1000, seed: int = 0
) -> tuple[list[float], list[float], list[float]]:
    """Bradley–Terry Elo and 95 % percentile-bootstrap intervals (deals resampled per pairing)."""
    deal_lists = [sorted(p.deals) for p in pairings]
    elo = bradley_terry_elo(n_agents, _scores(pairings, deal_lists))
    rng = random.Random(seed)
    samples: list[list[float]] = [[] for _ in range(n_agents)]
    for _ in range(bootstrap):
        resampled = [[ds[rng.randrange(len(ds))] for _ in ds] if ds else [] for ds in deal_lists]
        for i, e in enumerate(bradley_terry_elo(n_agents, _scores(pairings, resampled))):
            samples[i].append(e)
    low, high = [], []
    for s in samples:
        if not s:
            low.append(math.nan)
            high.append(math.nan)
            continue
        s.sort()
        low.append(s[int(0.025 * (len(s) - 1))])
        high.append(s[math.ceil(0.975 * (len(s) - 1))])
    return elo, low, high


# ---------------------------------------------------------------------------- the tournament


def tasks_for(n_agents: int, games: int, seed: int) -> list[Task]:
    """Every game of a round robin: ``games`` per pairing (an even number: each deal from both seats)."""
    if games < 2 or games % 2:
        raise ArenaError(
            f"games per pairing must be an even number >= 2 (each deal from both seats), not {games}"
        )
    out = []
    for a in range(n_agents):
        for b in range(a + 1, n_agents):
            for k in range(games // 2):
                out.append(Task(a, b, seed + k, False))
                out.append(Task(a, b, seed + k, True))
    return out


def iter_results(
    specs: Sequence[str],
    tasks: Sequence[Task],
    *,
    format: str,
    workers: int,
    max_turns: int | None,
    threat: Threat | None = None,
) -> Iterator[GameResult]:
    """Play ``tasks`` (in this process when ``workers`` is 1, else in a pool), yielding as they end."""
    args: list[_TaskArgs] = [(t, tuple(specs), format, max_turns, threat) for t in tasks]
    if workers <= 1:
        for a in args:
            yield _run_task(a)
        return
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    with ctx.Pool(workers) as pool:
        yield from pool.imap_unordered(_run_task, args, chunksize=1)


def run_arena(
    specs: Sequence[str],
    *,
    games: int = 20,
    seed: int = 1,
    format: str = "draft",
    workers: int = 1,
    max_turns: int | None = 200,
    bootstrap: int = 1000,
    on_result: Callable[[GameResult, int, int], None] | None = None,
) -> ArenaResult:
    """Play the round robin and compute its statistics.  ``on_result(result, done, total)`` is
    called after each game (for progress bars)."""
    if len(specs) < 2:
        raise ArenaError("an arena needs at least two agents")
    if format not in FORMATS:
        raise ArenaError(f"unknown format {format!r} (choose {', '.join(FORMATS)})")
    for s in specs:
        agent_from_spec(s, 0)  # fail early on a bad spec, before any worker starts
    tasks = tasks_for(len(specs), games, seed)
    pairings = {(a, b): Pairing(a, b) for a in range(len(specs)) for b in range(a + 1, len(specs))}
    results: list[GameResult] = []
    draws = 0
    for done, r in enumerate(
        iter_results(specs, tasks, format=format, workers=workers, max_turns=max_turns), 1
    ):
        results.append(r)
        t = r.task
        p = pairings[(t.a, t.b)]
        pts = 0.5 if r.winner is None else (1.0 if r.winner == t.a else 0.0)
        draws += r.winner is None
        old = p.deals.get(t.seed, (0.0, 0))
        p.deals[t.seed] = (old[0] + pts, old[1] + 1)
        if on_result is not None:
            on_result(r, done, len(tasks))
    ordered = list(pairings.values())
    elo, low, high = elo_with_intervals(len(specs), ordered, bootstrap=bootstrap, seed=seed)
    results.sort(key=lambda r: (r.task.a, r.task.b, r.task.seed, r.task.swap))
    return ArenaResult(list(specs), format, games, seed, ordered, elo, low, high, results, draws)


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
        low, high = wilson(self.wins + 0.5 * self.draws, self.games)
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
    results: list[GameResult]

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
    specs: Sequence[str],
    *,
    games: int = 100,
    seed: int = 1,
    format: str = "draft",
    threat: Threat | None = None,
    workers: int = 1,
    max_turns: int | None = 200,
    on_result: Callable[[GameResult, int, int], None] | None = None,
) -> SoloResult:
    """Every agent plays the same ``games`` solo deals (seeds ``seed, seed+1, …``) against the
    automaton with ``threat`` (default: the quick game, R7)."""
    if not specs:
        raise ArenaError("name at least one agent")
    if format not in ("draft", "precon"):
        raise ArenaError(f"the {format} format is not played in solo (R2.2): choose draft or precon")
    if games < 1:
        raise ArenaError(f"games must be at least 1, not {games}")
    for s in specs:
        agent_from_spec(s, 0)
    threat = threat or Threat()
    tasks = [Task(a, -1, seed + k, False) for a in range(len(specs)) for k in range(games)]
    rows = [SoloRow(s, 0, 0, 0) for s in specs]
    results: list[GameResult] = []
    stream = iter_results(specs, tasks, format=format, workers=workers, max_turns=max_turns, threat=threat)
    for done, r in enumerate(stream, 1):
        results.append(r)
        row = rows[r.task.a]
        row.games += 1
        row.wins += r.winner == r.task.a
        row.draws += r.winner is None
        if on_result is not None:
            on_result(r, done, len(tasks))
    results.sort(key=lambda r: (r.task.a, r.task.seed))
    return SoloResult(list(specs), format, games, seed, threat, rows, results)


__all__ = [
    "ArenaError",
    "ArenaResult",
    "GameResult",
    "Pairing",
    "SoloResult",
    "SoloRow",
    "Task",
    "agent_from_spec",
    "bradley_terry_elo",
    "elo_with_intervals",
    "parse_spec",
    "parse_threat",
    "play_duel",
    "play_solo",
    "run_arena",
    "run_solo",
    "tasks_for",
    "wilson",
]
