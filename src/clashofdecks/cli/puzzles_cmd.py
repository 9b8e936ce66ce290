"""``clash puzzles``: mine puzzles from games the engine plays, and prove a file of them again
(:mod:`clashofdecks.puzzles`, docs/puzzles.md)."""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING

import click

from ..agents.registry import UnknownAgentError, make_agent
from ..errors import ClashError

if TYPE_CHECKING:
    from ..puzzles import Puzzle


@click.group()
def puzzles() -> None:
    """Puzzles from real games: positions whose win before the turn ends the engine proves exactly."""


@puzzles.command()
@click.option(
    "--games", type=click.IntRange(1, 1_000_000), default=300, show_default=True, help="games to play."
)
@click.option(
    "--seed", type=click.IntRange(0, 2**62), default=0, show_default=True, help="first deal's seed."
)
@click.option(
    "--agents", nargs=2, default=("greedy", "greedy"), show_default=True, help="the two players' agent specs."
)
@click.option("--format", "fmt", type=click.Choice(["draft", "precon"]), default="draft", show_default=True)
@click.option(
    "--mode",
    type=click.Choice(["duel", "solo"]),
    default="duel",
    show_default=True,
    help="solo: the first agent against the automaton (survival puzzles).",
)
@click.option(
    "--level", type=click.IntRange(0, 5), default=0, show_default=True, help="solo threat level (R8.3)."
)
@click.option(
    "--from-store",
    "store_url",
    default=None,
    metavar="DATABASE_URL",
    help="mine the finished games of a web store instead of playing games.",
)
@click.option(
    "--budget",
    type=click.IntRange(100, 10**7),
    default=None,
    help="positions a proof may visit while mining (default 20,000; a puzzle proven within fewer is "
    "proven within more).",
)
@click.option("--limit", type=click.IntRange(1), default=None, help="stop after this many puzzles.")
@click.option("--out", type=click.Path(dir_okay=False, writable=True), required=True, help="the puzzle file.")
def mine(
    games: int,
    seed: int,
    agents: tuple[str, str],
    fmt: str,
    mode: str,
    level: int,
    store_url: str | None,
    budget: int | None,
    limit: int | None,
    out: str,
) -> None:
    """Play games from SEED on (or read a web store's finished games) and write the puzzles met at the
    start of a turn to OUT."""
    from ..puzzles import mine as mine_puzzles

    started = time.process_time()
    if store_url is not None:
        found, what = _mine_store(store_url, limit)
    else:
        try:
            for spec in agents:
                make_agent(spec, 0)
        except (UnknownAgentError, ClashError) as exc:
            raise click.UsageError(str(exc)) from None
        found = []
        for puzzle in mine_puzzles(
            range(seed, seed + games), agents, fmt, mode=mode, level=level, budget=budget
        ):
            found.append(puzzle)
            if limit is not None and len(found) >= limit:
                break
        played = found[-1].source["seed"] - seed + 1 if limit is not None and len(found) >= limit else games
        what = f"{played} {'duels' if mode == 'duel' else 'solo games'} (seeds from {seed})"
    seconds = time.process_time() - started
    _write(found, out)
    click.echo(f"{len(found)} puzzles from {what} in {seconds:.1f} CPU s -> {out}")


def _mine_store(url: str, limit: int | None) -> tuple[list[Puzzle], str]:
    from ..web.puzzle_mining import mine_store
    from ..web.store import open_store

    try:
        store = open_store(url)
    except Exception as exc:  # a bad URL or an unreachable database: said, never a traceback
        raise click.UsageError(f"cannot open the store: {exc}") from None  # never the URL: a password
    try:
        found: list[Puzzle] = []
        games = 0
        for game_puzzles in mine_store(store):
            games += 1
            found.extend(game_puzzles)
            if limit is not None and len(found) >= limit:
                found = found[:limit]
                break
    except ClashError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()
    return found, f"{games} finished web games"


def _write(found: list[Puzzle], out: str) -> None:
    from ..puzzles import dump_puzzles

    data = dump_puzzles(found)
    lines = [json.dumps(p, separators=(",", ":"), sort_keys=True) for p in data["puzzles"]]
    with open(out, "w", encoding="utf-8") as fh:  # one puzzle a line: small, and diffs read well
        fh.write(f'{{"puzzles_version": {data["puzzles_version"]}, "puzzles": [\n')
        fh.write(",\n".join(lines))
        fh.write("\n]}\n")


@puzzles.command()
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("--determinizations", type=click.IntRange(0, 1000), default=4, show_default=True)
def check(file: str | None, determinizations: int) -> None:
    """Prove every puzzle of FILE again (default: the shipped ones); exit 1 naming the first that fails."""
    from ..puzzles import PuzzleError, load_puzzles
    from ..puzzles import check as check_puzzle

    started = time.process_time()
    try:
        found = load_puzzles(file)
        for puzzle in found:
            check_puzzle(puzzle, determinizations)
    except PuzzleError as exc:
        click.echo(f"clash puzzles check: {exc}", err=True)
        sys.exit(1)
    seconds = time.process_time() - started
    click.echo(f"{len(found)} puzzles proven again in {seconds:.1f} CPU s")
