"""``clash report DIR -o FILE.html``: the balance report of a store of games (see
:mod:`clashofdecks.simulation.report` and docs/simulation.md).  Exit codes: 0 written, 2 a folder
without games, an unwritable output or the analysis extra missing."""

from __future__ import annotations

import shlex
import sys

import click

from ..errors import ClashError


@click.command()
@click.argument("folder", type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False),
    help="The HTML file to write (one self-contained file: plots embedded, no network).",
)
@click.option(
    "--command",
    "made_with",
    default=None,
    help="The command(s) that made the store, printed in the report (default: this command).",
)
def report(folder: str, output: str, made_with: str | None) -> None:
    """Write the balance report of the store of games in FOLDER to an HTML file.

    \b
    clash simulate --agents greedy greedy --games 100000 --out store/
    clash report store/ -o report.html

    Win rates per card (drafted, played), the preconstructed decks against each other, draft pick
    order, first-player advantage, game length, solo win rate by level and threat option, and the
    most lopsided findings in words; every figure names its sample size.
    """
    from ..simulation.report import write_report

    command = made_with or "clash report " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    try:
        result = write_report(folder, output, command=command)
    except ClashError as exc:
        click.echo(f"clash report: {exc}", err=True)
        sys.exit(2)
    shown = sum(1 for s in result.sections if s.image is not None)
    click.echo(
        f"wrote {output}: {result.games:,} games, {shown} of {len(result.sections)} figures, "
        f"{len(result.findings)} findings",
        err=True,
    )
