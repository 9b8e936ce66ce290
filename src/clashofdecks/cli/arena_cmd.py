"""``clash arena AGENT...``: a round robin with shared deals and swapped seats, or (``--mode solo``)
every agent against the automaton on the same deals (see :mod:`clashofdecks.simulation.arena`)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Final, NoReturn

import click
from rich.console import Console

from ..agents.registry import make_agent
from ..errors import ClashError
from ..options import Threat
from ..simulation import arena as arena_games
from ..simulation.backends import open_backend
from ..simulation.game import GameResult
from ..simulation.runner import MAX_GAMES, MAX_WORKERS, Backend, Interrupted
from ..threat_text import parse_threat
from .common import EXIT_INTERRUPTED, address_option, backend_option, progress_bar

#: Most bootstrap resamples (each refits the model; the samples are kept in memory).
MAX_BOOTSTRAP: Final = 100_000


@click.command()
@click.argument("agents", nargs=-1, required=True)
@click.option("--mode", default="duel", show_default=True, type=click.Choice(["duel", "solo"]))
@click.option(
    "--games",
    default=20,
    show_default=True,
    type=click.IntRange(1, MAX_GAMES),
    help="Duel: games per pairing (even: every deal is played from both seats).  Solo: games per agent.  "
    f"At most {MAX_GAMES:,} games in all.",
)
@click.option(
    "--format", "fmt", default="draft", show_default=True, type=click.Choice(["draft", "precon", "custom"])
)
@click.option("--seed", default=1, show_default=True, help="First deal seed (deals are seed, seed+1, …).")
@click.option("--level", default=None, type=click.IntRange(0, 5), help="Solo: difficulty level (R8.3), 0-5.")
@click.option(
    "--threat",
    default=None,
    help="Solo: any threat allocation (R8.2), as JSON or key=value pairs, e.g. "
    "'base_mana=8,starts=automaton,abilities=rage+splash'.",
)
@click.option(
    "--workers",
    default=0,
    type=click.IntRange(0, MAX_WORKERS),
    help=f"Worker processes (0: one per core; at most {MAX_WORKERS}).  Each game runs on one core; "
    "results do not depend on it.",
)
@click.option(
    "--max-turns",
    default=200,
    show_default=True,
    type=click.IntRange(min=0),
    help="Turn cap (a capped game is a draw); 0 for none.",
)
@click.option(
    "--bootstrap",
    default=1000,
    show_default=True,
    type=click.IntRange(0, MAX_BOOTSTRAP),
    help=f"Bootstrap resamples for the Elo intervals (at most {MAX_BOOTSTRAP:,}).",
)
@click.option(
    "--log",
    "log_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="Append one JSON line per finished game to this file (follow long runs, keep partial results).",
)
@backend_option
@address_option
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def arena(
    agents: tuple[str, ...],
    mode: str,
    games: int,
    fmt: str,
    seed: int,
    level: int | None,
    threat: str | None,
    workers: int,
    max_turns: int,
    bootstrap: int,
    log_path: str | None,
    backend: str,
    address: str | None,
    as_json: bool,
) -> None:
    """Play a round robin between AGENTS and print win rates and Elo ratings with 95% intervals.

    An agent is a name (random, greedy, mcts, ismcts) with optional search settings:
    `ismcts:1000` (iterations per decision), `ismcts:seconds=0.5`, `mcts:iterations=200,c=1.0`,
    `ismcts:100,cutoff=1` (rollouts stop one turn after the leaf and are scored by the heuristic),
    `ismcts:rollout=greedy`.  Every pairing plays the same deals, each from both seats.

    With --mode solo, each agent plays the same deals against the automaton (--level or --threat).
    --backend ray plays on Ray (a local instance, or the cluster at --address); the results are the
    same.  Ctrl-C stops the run and exits with code 130 (--log keeps every finished game).
    """
    threat_opts, total = _checked_options(mode, agents, games, seed, level, threat)
    err = Console(stderr=True)
    log = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
    progress = progress_bar(err, "[bold]arena")
    try:
        with progress:
            bar = progress.add_task("games", total=total)

            def on_result(r: GameResult, done: int, _total: int) -> None:
                progress.update(bar, completed=done)
                if log is not None:
                    log.write(json.dumps(_log_entry(r)) + "\n")
                    log.flush()

            def play(played_on: Backend) -> Any:
                if mode == "duel":
                    return arena_games.run_arena(
                        agents,
                        games=games,
                        seed=seed,
                        format=fmt,
                        max_turns=max_turns or None,
                        bootstrap=bootstrap,
                        on_result=on_result,
                        backend=played_on,
                    )
                return arena_games.run_solo(
                    agents,
                    games=games,
                    seed=seed,
                    format=fmt,
                    threat=threat_opts,
                    max_turns=max_turns or None,
                    on_result=on_result,
                    backend=played_on,
                )

            result = _played(play, open_backend(backend, workers or None, address, total), total, log_path)
    finally:
        if log is not None:
            log.close()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
        return
    if mode == "duel":
        _print_duel(result, agents, games, seed, fmt, max_turns)
    else:
        _print_solo(result, level)


def _fail(message: str) -> NoReturn:
    click.echo(f"clash arena: {message}", err=True)
    sys.exit(2)


def _checked_options(
    mode: str, agents: tuple[str, ...], games: int, seed: int, level: int | None, threat: str | None
) -> tuple[Threat | None, int]:
    """The solo threat (R8.2) and the number of games the run plays; a bad option exits with status 2."""
    threat_opts: Threat | None = None
    try:
        for spec in agents:
            make_agent(spec)
        if mode == "duel":
            if len(agents) < 2:
                _fail("a duel arena needs at least two agents (or use --mode solo)")
            if level is not None or threat is not None:
                _fail("--level and --threat are solo options (add --mode solo)")
            return None, len(arena_games.tasks_for(len(agents), games, seed))
        if level is not None and threat is not None:
            _fail("give --level or --threat, not both")
        threat_opts = parse_threat(threat) if threat is not None else Threat.level(level or 0)
        total = len(agents) * games
        if total > MAX_GAMES:
            _fail(f"{len(agents)} agents × {games:,} games is more than {MAX_GAMES:,} games")
    except ClashError as exc:
        _fail(str(exc))
    return threat_opts, total


def _log_entry(r: GameResult) -> dict[str, Any]:
    """The ``--log`` line of one finished game (its participants in the arena's order)."""
    players = list(reversed(r.seats) if r.participants_swapped else r.seats)
    entry: dict[str, Any] = {
        "deal": r.seed,
        "participants": players,
        "winner": r.winner_name,
        "turns": r.turns,
    }
    tallies = list(reversed(r.searches) if r.participants_swapped else r.searches)
    if any(t is not None for t in tallies):  # beside "participants", in their order
        entry["searches"] = [None if t is None else _tally_json(t) for t in tallies]
    return entry


def _played(
    play: Callable[[Backend], Any], backend: AbstractContextManager[Backend], total: int, log_path: str | None
) -> Any:
    """``play`` on the backend; Ctrl-C exits with status 130, a failure with 2 (no traceback)."""
    try:
        with backend as played_on:
            return play(played_on)
    except Interrupted as stop:
        click.echo(
            f"clash arena: interrupted: {len(stop.results)} of {total} games finished"
            + (f" (each is in {log_path})" if log_path else ""),
            err=True,
        )
        sys.exit(EXIT_INTERRUPTED)
    except ClashError as exc:
        _fail(str(exc))


def _tally_json(tally: Any) -> dict[str, Any]:
    """A search agent's cost in one game, as the ``--log`` line gives it."""
    return {"decisions": tally.decisions, "iterations": tally.iterations, "seconds": round(tally.seconds, 3)}


def _print_duel(
    result: Any, agents: tuple[str, ...], games: int, seed: int, fmt: str, max_turns: int
) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(
        title=f"clash arena: {fmt} duels, {games} games per pairing (deals {seed}…{seed + games // 2 - 1})"
    )
    for col in ("agent", "opponent", "games", "win rate", "95% interval"):
        table.add_column(col, justify="left" if col in ("agent", "opponent") else "right")
    for row in result.table():
        low, high = row["ci95"]
        table.add_row(
            row["agent"],
            row["opponent"],
            str(row["games"]),
            f"{100 * row['win_rate']:.1f}%",
            f"{100 * low:.1f}–{100 * high:.1f}%",
        )
    console.print(table)
    elo = Table(title="Elo (Bradley–Terry, mean 0; 95% bootstrap intervals)")
    for col in ("agent", "Elo", "95% interval"):
        elo.add_column(col, justify="left" if col == "agent" else "right")
    for i in sorted(range(len(agents)), key=lambda i: -result.elo[i]):
        low, high = result.elo_low[i], result.elo_high[i]
        interval = "none (--bootstrap 0)" if math.isnan(low) else f"{low:+.0f} … {high:+.0f}"
        elo.add_row(agents[i], f"{result.elo[i]:+.0f}", interval)
    console.print(elo)
    if result.draws:
        console.print(f"{result.draws} games reached the {max_turns}-turn cap (draws count half).")


def _print_solo(result: Any, level: int | None) -> None:
    from rich.console import Console
    from rich.table import Table

    data = result.to_dict()
    points = data["threat_points"]
    what = f"level {level}" if level is not None else f"{points} threat points"
    console = Console()
    table = Table(
        title=f"clash arena: solo {result.format}, {what}, {result.games} games per agent "
        f"(deals {result.seed}…{result.seed + result.games - 1})",
        caption="threat: " + json.dumps(data["threat"]),
    )
    for col in ("agent", "games", "wins", "win rate", "95% interval"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for row in data["rows"]:
        low, high = row["ci95"]
        table.add_row(
            row["agent"],
            str(row["games"]),
            str(row["wins"]),
            f"{100 * row['win_rate']:.1f}%",
            f"{100 * low:.1f}–{100 * high:.1f}%",
        )
    console.print(table)
