"""The differential test of the compiled core: random games played in lockstep in both engines.

Each game starts from a random position of the Python engine (the benchmark's random deal or a
rulebook format's setup played at random; duel or solo; random ruleset variants, turn caps and
threat options), is converted to :class:`~clashofdecks.native.NativeGame`, and is then played to the
end with uniformly random actions.  After every action the legal action sets, the whole states
(:class:`~clashofdecks.rules.GameState`, through conversion back), the current player and the
outcomes must be equal; on the way the check also compares apply+undo, clone, a fresh conversion,
the refusal of an illegal action, and view-based determinization with the same generator.  The
first difference raises :class:`NativeMismatch` with what reproduces it.

``python -m clashofdecks.native_check --games 1000000`` is the long run (docs/native.md).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from . import actions as A
from .errors import ClashError, IllegalActionError
from .native import AVAILABLE, NativeGame, engine_notice
from .options import THREAT_ABILITIES, THREAT_CHOICES, VARIANT_CHOICES, Ruleset, Threat
from .rules import SETUP, Game, GameState
from .worker_processes import exit_with_parent

#: The kinds of starting position, drawn uniformly.
KINDS = ("random_duel", "duel_precon", "duel_draft", "duel_custom", "solo_precon", "solo_draft")


class NativeMismatch(AssertionError):
    """The engines disagreed (the message says where and how to reproduce it)."""


@dataclass
class CheckReport:
    """What a run covered."""

    games: int = 0
    actions: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def random_ruleset(rng: random.Random) -> Ruleset:
    """Every variant drawn at random, and a turn cap one game in four."""
    choice = {name: rng.choice(values) for name, values in VARIANT_CHOICES.items()}
    cap = rng.choice((None, None, None, rng.randint(1, 30)))
    return Ruleset(max_turns=cap, **choice)


def random_threat(rng: random.Random) -> Threat:
    """Every threat option drawn at random (any total of threat points)."""
    options = {name: rng.choice(values) for name, values in THREAT_CHOICES.items()}
    abilities = tuple(a for a in THREAT_ABILITIES if rng.random() < 0.3)
    return Threat(abilities=abilities, **options)


def start_game(kind: str, seed: int, rng: random.Random) -> Game:
    """A Python game of ``kind`` at its first turn (the setup's decisions drawn from ``rng``)."""
    ruleset = random_ruleset(rng)
    if kind == "random_duel":
        return Game.random_duel(seed, ruleset=ruleset, record_events=False)
    mode, fmt = kind.split("_")
    threat = random_threat(rng) if mode == "solo" else None
    game = Game.new(mode=mode, format=fmt, seed=seed, ruleset=ruleset, threat=threat, record_events=False)
    while game.state().stage == SETUP:
        legal = game.legal_actions()
        game.apply(legal[int(rng.random() * len(legal))])
    return game


def _differences(a: GameState, b: GameState) -> str:
    return "; ".join(
        f"{f.name}: python {getattr(a, f.name)!r} native {getattr(b, f.name)!r}"
        for f in fields(GameState)
        if getattr(a, f.name) != getattr(b, f.name)
    )


def compare(py: Game, nat: NativeGame, where: Callable[[], str]) -> None:
    """Raise :class:`NativeMismatch` unless both games agree on legal actions, player, state, outcome."""
    if py.legal_actions() != nat.legal_actions():
        raise NativeMismatch(
            f"{where()}: legal actions python {py.legal_actions()} native {nat.legal_actions()}"
        )
    if py.current_player != nat.current_player:
        raise NativeMismatch(
            f"{where()}: current player python {py.current_player} native {nat.current_player}"
        )
    a, b = py.state(), nat.state()
    if not nat.config_matches():
        raise NativeMismatch(f"{where()}: the core's configuration is not its ruleset's and threat's")
    if a != b:
        raise NativeMismatch(f"{where()}: states differ: {_differences(a, b)}")
    if py.outcome != nat.outcome:
        raise NativeMismatch(f"{where()}: outcomes python {py.outcome} native {nat.outcome}")


def check_game(py: Game, rng: random.Random, label: str) -> int:
    """Play ``py`` to the end in lockstep with its compiled twin; returns the actions played."""
    nat = NativeGame.from_game(py)
    start = len(py.history)
    py.keep_undo = True

    def where(note: str = "") -> Callable[[], str]:
        return lambda: f"{label}, after actions {py.history[start:]}{note}"

    compare(py, nat, where(" (converted)"))
    while not py.is_over():
        legal = py.legal_actions()
        r = rng.random()
        if r < 0.05:
            nat = NativeGame.from_game(py)  # a fresh conversion mid-game
        elif r < 0.10:
            nat = nat.clone()
        elif r < 0.15:
            probe = rng.randrange(A.ORDER_BASE + A.ORDER_COUNT)
            if probe not in legal:
                _check_refusal(py, nat, probe, where(f", refusing {probe}"))
        elif r < 0.20:
            _check_determinization(py, nat, rng.randrange(2), rng.getrandbits(32), where)
        a = legal[int(rng.random() * len(legal))]
        if rng.random() < 0.1:
            py.apply(a)
            nat.apply(a)
            if py.undo() != a or nat.undo() != a:
                raise NativeMismatch(f"{where()()}: undo returned another action")
            compare(py, nat, where(f", apply+undo of {a}"))
        py.apply(a)
        nat.apply(a)
        compare(py, nat, where())
    return len(py.history) - start


def _check_determinization(
    py: Game, nat: NativeGame, player: int, seed: int, where: Callable[[str], Callable[[], str]]
) -> None:
    py_rng, nat_rng = random.Random(seed), random.Random(seed)
    a = py.sample_determinization(player, py_rng)
    b = nat.sample_determinization(player, nat_rng)
    compare(a, b, where(f", determinization for player {player} with seed {seed}"))
    if py_rng.getstate() != nat_rng.getstate():
        raise NativeMismatch(f"{where('')()}: the determinizations drew differently from the generator")


def _check_refusal(py: Game, nat: NativeGame, action: int, where: Callable[[], str]) -> None:
    messages = []
    for game in (py, nat):
        try:
            game.apply(action)
        except IllegalActionError as exc:
            messages.append(str(exc))
        else:
            raise NativeMismatch(f"{where()}: {type(game).__name__} accepted the illegal action")
    if messages[0] != messages[1]:
        raise NativeMismatch(f"{where()}: refusals differ: {messages}")
    compare(py, nat, where)


def run_check(games: int, seed: int = 0, kinds: tuple[str, ...] = KINDS) -> CheckReport:
    """Play ``games`` lockstep games (game ``i`` from seed ``seed + i``, of kind ``kinds[(seed + i) %
    len(kinds)]``, so a run split into seed ranges plays the same games); raises :class:`NativeMismatch`."""
    if not AVAILABLE:
        raise ClashError(engine_notice())
    report = CheckReport()
    start = time.process_time()
    for i in range(games):
        game_seed = seed + i
        rng = random.Random(game_seed)
        kind = kinds[game_seed % len(kinds)]
        py = start_game(kind, game_seed, rng)
        label = f"game {game_seed} ({kind}, ruleset {py.ruleset}, threat {py.threat if py.is_solo else '-'})"
        report.actions += check_game(py, rng, label)
        report.games += 1
        report.kinds[kind] += 1
        outcome = py.outcome
        assert outcome is not None
        report.terminations[outcome.termination.value] += 1
    report.seconds = time.process_time() - start
    return report


def _check_range(seed_and_games: tuple[int, int]) -> CheckReport | str:
    """One worker's share of :func:`run_check`: the report, or the mismatch's message."""
    seed, games = seed_and_games
    try:
        return run_check(games, seed)
    except NativeMismatch as exc:
        return str(exc)


def run_check_parallel(
    games: int,
    seed: int,
    workers: int,
    *,
    chunk: int = 2_000,
    progress: Callable[[CheckReport], None] | None = None,
) -> CheckReport:
    """:func:`run_check` over worker processes, in seed ranges of ``chunk`` games: the same games as
    one process plays.  The first mismatch (in seed order) raises :class:`NativeMismatch`."""
    from concurrent.futures import ProcessPoolExecutor

    ranges = [(s, min(chunk, seed + games - s)) for s in range(seed, seed + games, chunk)]
    total = CheckReport()
    with ProcessPoolExecutor(
        max_workers=workers, initializer=exit_with_parent, initargs=(os.getpid(),)
    ) as pool:
        for part in pool.map(_check_range, ranges):
            if isinstance(part, str):
                pool.shutdown(wait=False, cancel_futures=True)
                raise NativeMismatch(part)
            total.games += part.games
            total.actions += part.actions
            total.kinds.update(part.kinds)
            total.terminations.update(part.terminations)
            total.seconds += part.seconds
            if progress is not None:
                progress(total)
    return total


def main(argv: list[str] | None = None) -> int:
    """``python -m clashofdecks.native_check [--games N] [--seed S]``: exit 0 if the engines agree."""
    parser = argparse.ArgumentParser(prog="python -m clashofdecks.native_check", description=__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games to play in lockstep (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument(
        "--workers", type=int, default=1, help="processes; the games are the same for any number (default 1)"
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if not 1 <= args.workers <= 256:
        parser.error("--workers must be 1-256")
    print(engine_notice())
    if not AVAILABLE:
        return 2
    try:
        if args.workers == 1:
            report = run_check(args.games, args.seed)
        else:
            shown = [0]

            def show(done: CheckReport) -> None:  # about every tenth of the run
                if done.games - shown[0] >= args.games // 10 or done.games == args.games:
                    shown[0] = done.games
                    so_far = f"  {done.games} games agree so far ({done.seconds:.0f} s CPU)"
                    print(so_far, file=sys.stderr, flush=True)

            report = run_check_parallel(args.games, args.seed, args.workers, progress=show)
    except NativeMismatch as exc:
        print(f"MISMATCH: {exc}", file=sys.stderr)
        return 1
    print(
        f"{report.games} games, {report.actions} actions: both engines agree "
        f"({report.seconds:.1f} s CPU in the checking processes); kinds {dict(report.kinds)}; "
        f"endings {dict(report.terminations)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
