"""``clash replay FILE``: step through a saved game record, forward and back
(:func:`clashofdecks.terminal.replay.replay_in_terminal`)."""

from __future__ import annotations

import sys

import click

from ..terminal.replay import replay_in_terminal
from ..words.i18n import LANGUAGES


@click.command(
    epilog="Exit status: 0 at the end, 1 when FILE cannot be read or does not replay, 130 after Ctrl-C."
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--lang", type=click.Choice(list(LANGUAGES)), default="en", show_default=True)
@click.option("--no-color", is_flag=True, help="no colours (also when NO_COLOR is set).")
@click.option("--at", "at", type=int, default=None, help="start at action N (0 = before the first).")
@click.option("--all", "show_all", is_flag=True, help="print every step, then the result, and exit.")
@click.option("--rule-numbers", is_flag=True, help="show the rule number of each event, e.g. [R3.7].")
def replay(file: str, lang: str, no_color: bool, at: int | None, show_all: bool, rule_numbers: bool) -> None:
    """Step through a saved game FILE (a game record): Enter/n forward, b back, N jumps, q quits."""
    sys.exit(
        replay_in_terminal(
            file, lang=lang, no_color=no_color, at=at, show_all=show_all, rule_numbers=rule_numbers
        )
    )
