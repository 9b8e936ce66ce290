"""Command line: ``mtgrules scenario FILE...`` and ``mtgrules cards`` (needs the ``cli`` extra: Click)."""

from __future__ import annotations

import json
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import click

from mtgrules.carddb import CARDS
from mtgrules.cards import CardDef, characteristics
from mtgrules.scenario import ScenarioFormatError, Status, card_definitions, load_scenario, run_files

#: Exit statuses of ``mtgrules scenario`` (also stated in its help).
EXIT_PASS = 0
EXIT_FAIL = 1
EXIT_ERROR = 2

_CONTEXT = {"help_option_names": ["-h", "--help"]}


def _version() -> str:
    try:
        return version("mtgrules")
    except PackageNotFoundError:  # running from a source tree without installing
        return "unknown"


@click.group(context_settings=_CONTEXT)
@click.version_option(_version(), "-V", "--version", prog_name="mtgrules", message="%(prog)s %(version)s")
def main() -> None:
    """mtgrules: an exact rules kernel for banding (702.22) and Room cards (709.5).

    Run `mtgrules COMMAND -h` for a command's help and exit statuses. A wrong command line (including no
    command) exits with status 2.
    """


@main.command(context_settings=_CONTEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--json", "as_json", is_flag=True, help="Print results as JSON.")
def scenario(files: tuple[str, ...], as_json: bool) -> None:
    """Run JSON scenario FILES (a directory runs every *.json in it).

    \b
    Exit status:
      0  every scenario passes
      1  a scenario fails, or no scenario file was found
      2  a file is malformed, unreadable or not UTF-8 JSON, or the command line is wrong
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
        colours = {Status.PASS: "green", Status.FAIL: "red", Status.ERROR: "magenta"}
        for r in results:
            line = click.style(r.status.value, fg=colours[r.status]) + f" {r.id} ({r.path})"
            if r.rules:
                line += click.style(f" {', '.join(r.rules)}", dim=True)
            click.echo(line)
            if r.message:
                click.echo(f"    {r.message}")
        click.echo(f"{passed} passed, {failed} failed, {errored} errors, {len(results)} total")
    if errored:
        sys.exit(EXIT_ERROR)
    if failed or not results:
        sys.exit(EXIT_FAIL)
    sys.exit(EXIT_PASS)


def describe_card(card: CardDef) -> str:
    """One line: name, cost, type line, power/toughness and text."""
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
    return f"{card.name}{cost} - {types}{pt}{test}" + (f": {text}" if text else "")


@main.command(context_settings=_CONTEXT)
@click.argument("scenario_file", required=False, type=click.Path(path_type=str))
def cards(scenario_file: str | None) -> None:
    """List the built-in card pool (printed cards and test cards).

    With SCENARIO_FILE, list the cards that scenario defines itself ("card_definitions") instead.
    Exit status 2 if that file is malformed or unreadable.
    """
    if scenario_file is None:
        for card in CARDS.values():
            click.echo(describe_card(card))
        return
    try:
        data = load_scenario(Path(scenario_file))
        raw = data.get("card_definitions", []) if isinstance(data, dict) else None
        if raw is None:
            raise ScenarioFormatError("scenario: expected an object")
        defined = card_definitions(raw)
    except ScenarioFormatError as exc:
        click.echo(f"ERROR {scenario_file}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    for card in defined:
        click.echo(describe_card(card))
