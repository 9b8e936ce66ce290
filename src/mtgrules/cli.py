"""Command line: ``mtgrules scenario FILE...`` and ``mtgrules cards``."""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console

from mtgrules.carddb import CARDS
from mtgrules.cards import characteristics
from mtgrules.scenario import Status, run_files

#: Exit statuses of ``mtgrules scenario``.
EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_ERROR = 2


@click.group()
def main() -> None:
    """mtgrules: an exact rules kernel for banding (702.22) and Room cards (709.5)."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
def scenario(files: tuple[str, ...], as_json: bool) -> None:
    """Run JSON scenario FILES (a directory runs every *.json in it).

    Exit status: 0 if every scenario passes, 1 if any fails, 2 if any file is malformed or unreadable.
    """
    results = run_files(list(files))
    passed = sum(r.status is Status.PASS for r in results)
    failed = sum(r.status is Status.FAIL for r in results)
    errored = sum(r.status is Status.ERROR for r in results)
    if as_json:
        out = {
            "results": [r.to_json() for r in results],
            "summary": {"total": len(results), "passed": passed, "failed": failed, "errors": errored},
        }
        click.echo(json.dumps(out, indent=2))
    else:
        console = Console(highlight=False, soft_wrap=True)
        styles = {Status.PASS: "green", Status.FAIL: "red", Status.ERROR: "magenta"}
        for r in results:
            line = f"[{styles[r.status]}]{r.status.value}[/] {r.id} ({r.path})"
            if r.rules:
                line += f" [dim]{', '.join(r.rules)}[/]"
            console.print(line)
            if r.message:
                console.print(f"    {r.message}", markup=False)
        console.print(f"{passed} passed, {failed} failed, {errored} errors, {len(results)} total")
    if errored:
        sys.exit(EXIT_ERROR)
    if failed or not results:
        sys.exit(EXIT_FAIL)
    sys.exit(EXIT_PASS)


@main.command()
def cards() -> None:
    """List the cards the engine knows (printed cards and test cards)."""
    for name, card in CARDS.items():
        ch = characteristics(card, None)
        types = " ".join([*ch.supertypes, *sorted(t.value.capitalize() for t in ch.types)])
        if ch.subtypes:
            types += " - " + " ".join(ch.subtypes)
        pt = f" {ch.power}/{ch.toughness}" if ch.power is not None else ""
        cost = f" {ch.mana_cost} (MV {ch.mana_value})" if ch.mana_cost is not None else ""
        if card.is_room:
            text = " // ".join(f"[{f.name} {f.mana_cost}] {f.text}" for f in card.faces)
        else:
            text = card.faces[0].text
        test = " [test card]" if card.test_card else ""
        click.echo(f"{name}{cost} - {types}{pt}{test}" + (f": {text}" if text else ""))
