"""Benchmarks as defined in ``engine.md`` ("Benchmark definitions"), measured on one core.

Every figure is a rate; the machine and Python version are reported beside them.  Times are CPU
time of this process (``time.process_time``), and each figure is the best of ``rounds`` rounds, so
other work on the machine lowers the figures as little as possible.  Nothing here is asserted in
tests: ``clash bench`` prints, ``docs/performance.md`` records.
"""

from __future__ import annotations

import platform
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Final

from . import native
from .agents.mcts import ismcts_iterations_per_second
from .rules import Game
from .session import FileStore, GameSession, Seat

#: The actions into a game at which the session's autosave is timed (docs/performance.md): a record
#: built from the session's steps costs about the same at both, never a replay from the start.
AUTOSAVE_EARLY: Final = 50
AUTOSAVE_LATE: Final = 400


@dataclass
class BenchResult:
    games_per_s_events_off: float = 0.0
    games_per_s_events_on: float = 0.0
    actions_per_s: float = 0.0
    actions_per_game: float = 0.0
    turns_per_game: float = 0.0
    clones_per_s: float = 0.0
    clone_us: float = 0.0
    apply_undo_pairs_per_s: float = 0.0
    apply_undo_us: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)
    #: Which engine runs (:func:`clashofdecks.native.engine_notice`).
    engine: str = field(default_factory=native.engine_notice)
    #: The compiled core (None when it is not available): random duel games with the deal and the
    #: whole playout inside C (SplitMix64 choices, docs/native.md), and driven from Python one
    #: ``apply`` at a time through :class:`~clashofdecks.native.NativeGame`.
    native_games_per_s: float | None = None
    native_actions_per_s: float | None = None
    native_actions_per_game: float | None = None
    native_turns_per_game: float | None = None
    native_games: int = 0
    native_from_python_games_per_s: float | None = None
    native_speedup: float | None = None
    #: ISMCTS with its random rollouts in the compiled core (``extra["ismcts_iterations_per_s"]``
    #: is the pure-Python search); the searches choose identically.
    native_ismcts_iterations_per_s: float | None = None
    #: CPU time of one autosave (the session's record written to a :class:`FileStore`) at
    #: :data:`AUTOSAVE_EARLY` and :data:`AUTOSAVE_LATE` actions into a game, in ms.
    autosave_ms_early: float = 0.0
    autosave_ms_late: float = 0.0
    machine: str = field(default_factory=lambda: f"{platform.machine()} {platform.processor() or ''}".strip())
    python: str = field(default_factory=platform.python_version)
    games: int = 0

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def random_game(seed: int, rng: random.Random, record_events: bool) -> tuple[int, int]:
    """Play one random duel game (every decision uniform among the legal actions)."""
    game = Game.random_duel(seed, record_events=record_events)
    actions = 0
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(legal[int(rng.random() * len(legal))])  # uniform; cheaper than randrange
        actions += 1
    return actions, game.turn


def _time_games(n: int, record_events: bool, seed: int) -> tuple[float, int, int]:
    rng = random.Random(seed)
    actions = turns = 0
    start = time.process_time()
    for i in range(n):
        a, t = random_game(seed + i, rng, record_events)
        actions += a
        turns += t
    return time.process_time() - start, actions, turns


def _action_lines(n: int, seed: int) -> list[tuple[int, list[int]]]:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        game = Game.random_duel(seed + i, record_events=False)
        line: list[int] = []
        while not game.is_over():
            legal = game.legal_actions()
            a = legal[rng.randrange(len(legal))]
            game.apply(a)
            line.append(a)
        lines.append((seed + i, line))
    return lines


#: The compiled core plays this many times the Python engine's games, so its time is measurable.
NATIVE_GAMES_FACTOR = 50


def native_random_game(seed: int, rng: random.Random) -> tuple[int, int]:
    """:func:`random_game` (events off) played by the compiled core, driven from Python."""
    game = native.NativeGame.random_duel(seed)
    game.keep_undo = False
    actions = 0
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(legal[int(rng.random() * len(legal))])
        actions += 1
    return actions, game.turn


def _bench_native(res: BenchResult, games: int, seed: int, rounds: int, say: Callable[[str], None]) -> None:
    say("compiled core: random games inside C")
    n = min(games * NATIVE_GAMES_FACTOR, 10_000_000)
    best = float("inf")
    actions = turns = 0
    for _ in range(rounds):
        start = time.process_time()
        actions, turns, _w0, _w1, _draws = native.random_duel_playouts(seed, n, seed)
        best = min(best, time.process_time() - start)
    best = max(best, 1e-9)
    res.native_games = n
    res.native_games_per_s = n / best
    res.native_actions_per_s = actions / best
    res.native_actions_per_game = actions / n
    res.native_turns_per_game = turns / n
    res.native_speedup = res.native_games_per_s / res.games_per_s_events_off
    say("compiled core: random games driven from Python")

    def driven() -> float:
        rng = random.Random(seed)
        start = time.process_time()
        for i in range(games):
            native_random_game(seed + i, rng)
        return time.process_time() - start

    res.native_from_python_games_per_s = games / max(min(driven() for _ in range(rounds)), 1e-9)


def _session_at(actions: int, seed: int) -> GameSession:
    """A duel session between two people ``actions`` actions in: a precon setup, then each ends their
    turn without playing (the rules have no turn cap by default, so the game goes on)."""
    session = GameSession.new(
        mode="duel", format="precon", seed=seed, participants=[Seat.human(), Seat.human()]
    )
    for _ in range(actions):
        seat = session.to_move
        legal = session.legal_actions(seat)
        session.act(seat, "end" if "end" in legal else legal[0])
    return session


def autosave_ms(actions: int, seed: int = 1, saves: int = 20, rounds: int = 3) -> float:
    """CPU ms of one autosave ``actions`` actions into a game (the mean of ``saves``, best of ``rounds``)."""
    session = _session_at(actions, seed)
    best = float("inf")
    with tempfile.TemporaryDirectory(prefix="clash-bench-") as folder:
        store = FileStore(folder)
        for _ in range(rounds):
            start = time.process_time()
            for _ in range(saves):
                store.save(session)
            best = min(best, (time.process_time() - start) / saves)
    return best * 1e3


def run_bench(
    games: int = 2000,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
    rounds: int = 3,
    ismcts_iterations: int = 3000,
) -> BenchResult:
    """Measure the engine's figures over ``games`` random duel games (best of ``rounds``)."""
    say = progress or (lambda _msg: None)
    res = BenchResult(games=games)
    say("random games, events off")
    dt, actions, turns = min(_time_games(games, False, seed) for _ in range(rounds))
    res.games_per_s_events_off = games / dt
    res.actions_per_s = actions / dt
    res.actions_per_game = actions / games
    res.turns_per_game = turns / games
    say("random games, events on")
    dt, _, _ = min(_time_games(max(1, games // 2), True, seed) for _ in range(rounds))
    res.games_per_s_events_on = max(1, games // 2) / dt

    say("apply+undo")
    lines = _action_lines(max(1, games // 4), seed)
    count = sum(len(line) for _, line in lines)
    start = time.process_time()
    for s, line in lines:
        g = Game.random_duel(s, record_events=False)
        for a in line:
            g.apply(a)
            g.undo()
            g.apply(a)
    t_triple = time.process_time() - start
    start = time.process_time()
    for s, line in lines:
        g = Game.random_duel(s, record_events=False)
        for a in line:
            g.apply(a)
    t_single = time.process_time() - start
    pair = max(t_triple - t_single, 1e-12) / count
    res.apply_undo_us = pair * 1e6
    res.apply_undo_pairs_per_s = 1 / pair

    say("clone")
    clones = 0
    start = time.process_time()
    for s, line in lines:
        g = Game.random_duel(s, record_events=False)
        for a in line:
            g.apply(a)
            g.clone()
            clones += 1
    t_clone = time.process_time() - start
    per_clone = max(t_clone - t_single, 1e-12) / clones
    res.clone_us = per_clone * 1e6
    res.clones_per_s = 1 / per_clone
    if native.AVAILABLE:
        _bench_native(res, games, seed, rounds, say)
    if ismcts_iterations:
        say("ISMCTS iterations (random rollouts)")
        res.extra["ismcts_iterations_per_s"] = max(
            ismcts_iterations_per_second(seed, ismcts_iterations) for _ in range(rounds)
        )
        if native.AVAILABLE:
            say("ISMCTS iterations, rollouts in the compiled core")
            res.native_ismcts_iterations_per_s = max(
                ismcts_iterations_per_second(seed, ismcts_iterations, native=True) for _ in range(rounds)
            )
    say("session autosave")
    res.autosave_ms_early = autosave_ms(AUTOSAVE_EARLY, seed, rounds=rounds)
    res.autosave_ms_late = autosave_ms(AUTOSAVE_LATE, seed, rounds=rounds)
    return res
