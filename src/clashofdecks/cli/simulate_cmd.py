"""``clash simulate``: many games between two agents (duel) or an agent and the automaton (solo).

A thin front end over :mod:`clashofdecks.simulation.batch`: options →
:class:`~clashofdecks.simulation.batch.SimConfig`, a backend (local processes or Ray), a progress
bar on stderr (games done, games per second), the store of games (``--out``) and a table (or
``--json``) of win rates with Wilson 95% intervals.

Exit codes: 0 done, 1 the run failed, 2 bad options, 130 interrupted by Ctrl-C (the summary of
the games finished so far is printed, marked as interrupted, and the store keeps them).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import ClashError
from ..options import Threat
from ..simulation.backends import open_backend
from ..simulation.batch import (
    ALL_DECK_PAIRS,
    DEFAULT_MAX_TURNS,
    MAX_BATCH_GAMES,
    SimConfig,
    Summary,
    Totals,
    run_games,
    summarize,
)
from ..simulation.game import GameResult
from ..simulation.runner import MAX_GAMES, MAX_WORKERS, Interrupted, default_workers
from ..simulation.store import RunInfo, StoreWriter, run_id
from .common import EXIT_INTERRUPTED, address_option, backend_option, progress_bar


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _table(summary: Summary, workers: int) -> Table:
    what = (
        f"duel, {summary.format}"
        if summary.mode == "duel"
        else f"solo level {summary.level if summary.level is not None else 'custom'}, {summary.format}"
    )
    table = Table(
        title=f"clash simulate: {summary.games} games ({what}), seed {summary.seed}",
        caption=(
            "win rate: wins / games, 95% CI: Wilson interval, won 1st: wins / games as starting player\n"
            f"draws (turn cap {summary.max_turns}): {summary.draws} · avg turns {summary.avg_turns:.2f} · "
            f"avg actions {summary.avg_actions:.1f} · first seat wins {_pct(summary.first_seat_win_rate)} · "
            f"{summary.elapsed_s:.1f} s on {workers} worker(s) · "
            f"{summary.games_on_core} of {summary.games} games on the compiled core (docs/native.md)"
        ),
    )
    table.add_column("side")
    table.add_column("agent")
    table.add_column("wins", justify="right")
    table.add_column("losses", justify="right")
    table.add_column("draws", justify="right")
    table.add_column("win rate", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("won 1st", justify="right")
    for a in summary.agents:
        table.add_row(
            a.label,
            a.name,
            str(a.wins),
            str(a.losses),
            str(a.draws),
            _pct(a.win_rate),
            f"{_pct(a.ci_low)}–{_pct(a.ci_high)}",
            f"{a.wins_first}/{a.games_first}",
        )
    return table


@click.command()
@click.option(
    "--mode", type=click.Choice(["duel", "solo"]), default="duel", show_default=True, help="Duel or solo."
)
@click.option("--agents", nargs=2, metavar="A B", help="Duel: the two agents (e.g. greedy random).")
@click.option("--agent", metavar="A", help="Solo: the agent that plays against the automaton.")
@click.option(
    "--level",
    type=click.IntRange(0, 5),
    default=0,
    show_default=True,
    help="Solo difficulty (R8.3): 0 quick game … 5 mythic.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["draft", "precon", "custom", "random"]),
    default="draft",
    show_default=True,
    help="Format (R2); 'random' is the benchmark deal (duel only).",
)
@click.option(
    "--games",
    type=click.IntRange(1, MAX_BATCH_GAMES),
    default=100,
    show_default=True,
    help=f"Number of games (at most {MAX_BATCH_GAMES:,}; memory does not grow with it, but "
    f"--games-json keeps every result: at most {MAX_GAMES:,} with it).",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Master seed (results depend only on it)."
)
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help=f"Worker processes (1 to {MAX_WORKERS}) [default: all cores]; results do not depend on it.",
)
@click.option(
    "--max-turns",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_TURNS,
    show_default=True,
    help="Turn cap: a game reaching it is a draw (the rules have none).",
)
@click.option(
    "--threat",
    default=None,
    help="Solo: any threat allocation (R8.2) instead of --level, as JSON or key=value pairs, e.g. "
    "'base_mana=8,starts=automaton,abilities=rage+splash'.",
)
@click.option(
    "--decks",
    "decks",
    default=None,
    metavar="A,B|rotate",
    help="Precon duels: give seat 0 deck A and seat 1 deck B, or 'rotate' through all 12 pairings "
    "(each from both seats) instead of letting the agents choose.",
)
@backend_option
@address_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Write the store of games (Parquet: one row per game and per card and seat) under this folder "
    "(pip install 'clashofdecks[analysis]'; see docs/simulation.md).",
)
@click.option(
    "--records", "records_dir", type=click.Path(file_okay=False), help="Write each game's record here."
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON (no progress bar).")
@click.option("--games-json", is_flag=True, help="With --json, include every game's result.")
@click.option(
    "--bench-scaling",
    is_flag=True,
    help="Benchmark: play this batch on local processes and on Ray with 1 and --workers (default 2) "
    "workers; print the times, scaling efficiency and Ray's overhead (docs/performance.md).",
)
def simulate(
    mode: str,
    agents: tuple[str, str] | None,
    agent: str | None,
    level: int,
    fmt: str,
    games: int,
    seed: int,
    workers: int | None,
    max_turns: int,
    threat: str | None,
    decks: str | None,
    backend: str,
    address: str | None,
    out_dir: str | None,
    records_dir: str | None,
    as_json: bool,
    games_json: bool,
    bench_scaling: bool,
) -> None:
    """Run many games and print win rates (Wilson 95% intervals), average turns and actions.

    \b
    Duel:  clash simulate --mode duel --agents greedy random --games 400
    Solo:  clash simulate --mode solo --agent greedy --level 2 --games 200
    Ray:   clash simulate --agents greedy greedy --games 100000 --backend ray --out games/

    In duel the agents swap seats every other game.  The results are identical for a given
    --seed whatever --workers and --backend are.  Ctrl-C stops the run, prints the summary of the
    games finished so far (marked as interrupted) and exits with code 130.
    """
    if address is not None and backend != "ray":
        raise click.UsageError("--address is for --backend ray")
    keep_results = as_json and games_json  # only --games-json prints every game
    if keep_results and games > MAX_GAMES:
        raise click.UsageError(f"--games-json keeps every game's result: at most {MAX_GAMES:,} games")
    err = Console(stderr=True)
    config = SimConfig(
        mode=mode,
        agents=_agent_names(mode, agents, agent),
        games=games,
        seed=seed,
        format=fmt,
        level=level,
        max_turns=max_turns,
        records_dir=records_dir,
        threat=_threat_option(mode, threat, err),
        card_stats=out_dir is not None,
        deck_pairs=_deck_pairs(decks),
    )
    _or_exit(config.check, err, 2)
    if bench_scaling:
        if out_dir is not None or records_dir is not None:
            raise click.UsageError("--bench-scaling writes nothing: leave out --out and --records")
        _bench_scaling(config, workers or 2, as_json, err)
        return
    writer = None if out_dir is None else _or_exit(lambda: _store_writer(config, out_dir), err, 2)
    run = _run(
        config,
        _Where(backend, workers, address),
        show_bar=not as_json and err.is_terminal,
        writer=writer,
        keep_results=keep_results,
        err=err,
    )
    _report(config, run, backend=backend, as_json=as_json, games_json=games_json, err=err)
    if records_dir is not None:
        err.print(f"records written to {records_dir}/game-NNNNNN.json", highlight=False)
    if writer is not None:
        err.print(f"{writer.games_written} games stored in {writer.folder}", highlight=False)
    if run.interrupted:
        sys.exit(EXIT_INTERRUPTED)


T = TypeVar("T")


def _or_exit(make: Callable[[], T], err: Console, status: int) -> T:
    """``make()``, or the error it raises printed (no traceback) and exit with ``status``."""
    try:
        return make()
    except ClashError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        sys.exit(status)


def _agent_names(mode: str, agents: tuple[str, str] | None, agent: str | None) -> tuple[str, ...]:
    """The agents of the run: a duel's two (``--agents``), or a solo's one (``--agent``)."""
    if mode == "duel":
        if agent is not None:
            raise click.UsageError("--agent is for solo; a duel takes --agents A B")
        return agents or ("greedy", "random")
    if agents is not None:
        raise click.UsageError("--agents is for duel; solo takes --agent A (the automaton is the other side)")
    return (agent or "greedy",)


def _threat_option(mode: str, threat: str | None, err: Console) -> Threat | None:
    """``--threat``'s allocation (R8.2), solo only."""
    if threat is None:
        return None
    from ..threat_text import parse_threat

    if mode != "solo":
        raise click.UsageError("--threat is a solo option (add --mode solo)")
    return _or_exit(lambda: parse_threat(threat), err, 2)


def _deck_pairs(decks: str | None) -> tuple[tuple[int, int], ...] | None:
    """``--decks A,B`` (one pairing) or ``rotate`` (all 12, each from both seats)."""
    if decks is None:
        return None
    if decks == "rotate":
        return ALL_DECK_PAIRS
    try:
        a, b = (int(x) for x in decks.split(","))
    except ValueError:
        raise click.UsageError(f"--decks takes A,B (e.g. 1,3) or rotate, not {decks!r}") from None
    return ((a, b),)


@dataclass(frozen=True)
class _Where:
    """Where the games are played: ``--backend``, ``--workers``, ``--address``."""

    backend: str
    workers: int | None
    address: str | None


@dataclass
class _Run:
    """What a run gave: the kept results (``--games-json``), the running totals, the workers used,
    the seconds it took and whether Ctrl-C stopped it."""

    results: list[GameResult]
    totals: Totals
    workers: int
    elapsed: float = 0.0
    interrupted: bool = False


def _run(
    config: SimConfig,
    where: _Where,
    *,
    show_bar: bool,
    writer: StoreWriter | None,
    keep_results: bool,
    err: Console,
) -> _Run:
    """Play the batch (a progress bar on a terminal); a failing backend exits with status 1."""
    start = time.perf_counter()
    on_chunk: Callable[[list[GameResult]], None] | None = writer.add if writer is not None else None
    # Running totals, not a list of every result: memory stays flat however many games are played.
    run = _Run([], Totals(config.mode), min(where.workers or default_workers(), config.games))
    try:
        with open_backend(where.backend, where.workers, where.address, config.games) as engine:
            run.workers = engine.workers
            if show_bar:
                with progress_bar(err, "simulating") as bar:
                    task = bar.add_task("games", total=config.games)

                    def tick(result: GameResult) -> None:
                        run.totals.add(result)
                        bar.advance(task)

                    run.results = run_games(
                        config, backend=engine, progress=tick, on_chunk=on_chunk, keep_results=keep_results
                    )
            else:
                run.results = run_games(
                    config,
                    backend=engine,
                    progress=run.totals.add,
                    on_chunk=on_chunk,
                    keep_results=keep_results,
                )
    except Interrupted as stop:
        run.results, run.interrupted = stop.results, True
    except KeyboardInterrupt:  # while the backend started, before any game
        run.interrupted = True
    except ClashError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    if writer is not None:
        writer.close(complete=not run.interrupted)
    run.elapsed = time.perf_counter() - start
    return run


def _report(
    config: SimConfig, run: _Run, *, backend: str, as_json: bool, games_json: bool, err: Console
) -> None:
    """The summary: a table, or JSON (``--json``; every game with ``--games-json``)."""
    # With --games-json the kept results are the summary's games (a Ctrl-C between a result being
    # kept and counted must not make the two disagree).
    keep_results = as_json and games_json
    summary = (
        summarize(config, run.results, run.elapsed)
        if keep_results
        else run.totals.summary(config, run.elapsed)
    )
    if run.interrupted:
        err.print(
            f"interrupted: {summary.games} of {config.games} games finished; the summary below covers them",
            highlight=False,
        )
    if as_json:
        out = summary.to_dict(include_games=games_json)
        out["workers"] = run.workers
        out["backend"] = backend
        out["interrupted"] = run.interrupted
        click.echo(json.dumps(out, indent=2))
    else:
        table = _table(summary, run.workers)
        if run.interrupted:
            table.title = f"INTERRUPTED {table.title}"
        Console().print(table)


def _bench_scaling(config: SimConfig, workers: int, as_json: bool, err: Console) -> None:
    import importlib.util

    from ..simulation.scaling import measure_scaling

    backends = ("local", "ray") if importlib.util.find_spec("ray") is not None else ("local",)
    if len(backends) == 1:
        err.print("Ray is not installed (pip install 'clashofdecks[cluster]'): local processes only")
    counts = (1, workers) if workers > 1 else (1,)
    try:
        result = measure_scaling(
            config, workers=counts, backends=backends, on_step=lambda text: err.print(f"measuring: {text}")
        )
    except ClashError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    table = Table(
        title=f"clash simulate --bench-scaling: {result.games} games ({config.mode}, {config.format}, "
        f"{' vs '.join(config.agents)})",
        caption=(
            "efficiency: T(1) / (n·T(n)); Ray overhead: T_ray(n) / T_local(n) − 1"
            + (
                f"; Ray start-up {result.ray_startup_seconds:.1f} s (not in the times)"
                if result.ray_startup_seconds
                else ""
            )
            + f"\nload average before {_load_text(result.load_before)}, after {_load_text(result.load_after)}"
            + f"; same games on every backend: {'yes' if result.identical else 'NO'}"
        ),
    )
    for col in ("backend", "workers", "seconds", "games/s", "efficiency", "Ray overhead"):
        table.add_column(col, justify="left" if col == "backend" else "right")
    for m in result.measurements:
        eff = result.efficiency.get(m.backend, {}).get(m.workers)
        over = result.ray_overhead.get(m.workers) if m.backend == "ray" else None
        table.add_row(
            m.backend,
            str(m.workers),
            f"{m.seconds:.2f}",
            f"{m.games_per_second:.1f}",
            "" if eff is None else f"{eff:.2f}",
            "" if over is None else f"{100 * over:+.0f}%",
        )
    Console().print(table)
    if not result.identical:
        sys.exit(1)


def _load_text(load: tuple[float, float, float] | None) -> str:
    return "unknown" if load is None else " / ".join(f"{x:.2f}" for x in load)


def _store_writer(config: SimConfig, out_dir: str) -> StoreWriter:
    threat = config.solo_threat()
    if config.mode != "solo":
        pairs = config.deck_pairs
        level = (
            None
            if pairs is None
            else "decks-rotate"
            if pairs == ALL_DECK_PAIRS
            else "decks{}-{}".format(*pairs[0])
        )
    elif config.threat is None:
        level = f"level{config.level}"
    else:
        level = f"threat{config.threat.threat_points()}"
    info = RunInfo(
        run=run_id(config.mode, config.format, config.agents, config.seed, config.games, level),
        mode=config.mode,
        format=config.format,
        max_turns=config.max_turns,
        threat=threat,
        settings={
            "agents": list(config.agents),
            "games": config.games,
            "seed": config.seed,
            "level": config.level if config.mode == "solo" and config.threat is None else None,
            "decks": None if config.deck_pairs is None else [list(p) for p in config.deck_pairs],
        },
    )
    return StoreWriter(out_dir, info)
