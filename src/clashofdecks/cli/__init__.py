"""The ``clash`` command line: one Click group; each command lives in its own module."""

from __future__ import annotations

import click

from .. import __version__
from ..native import engine_notice


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, prog_name="clash", message=f"%(prog)s, version %(version)s\n{engine_notice()}"
)
def main() -> None:
    """Clash of Decks: play, simulate, analyse and test the two-lane card game.

    Start with `clash play` (a solo quick game against the automaton).
    """


def _register() -> None:
    from .scenario_cmd import scenario

    main.add_command(scenario)
    from .bench_cmd import bench

    main.add_command(bench)
    from .play_cmd import play

    main.add_command(play)
    from .replay_cmd import replay

    main.add_command(replay)
    from .simulate_cmd import simulate

    main.add_command(simulate)
    from .arena_cmd import arena

    main.add_command(arena)
    from .analyze_cmd import analyze

    main.add_command(analyze)
    from .admin_cmd import admin
    from .serve_cmd import serve

    main.add_command(admin)

    main.add_command(serve)
    from .bot_cmd import bot

    main.add_command(bot)
    from .puzzles_cmd import puzzles

    main.add_command(puzzles)
    from .stats_cmd import stats

    main.add_command(stats)
    from .report_cmd import report

    main.add_command(report)
    from .train_eval_cmd import train_eval

    main.add_command(train_eval)
    from .train_decks_cmd import train_decks

    main.add_command(train_decks)
    from .train_neural_cmd import train_neural

    main.add_command(train_neural)
    from .neural_value_cmd import neural_value

    main.add_command(neural_value)
    from .neural_curve_cmd import neural_curve

    main.add_command(neural_curve)


_register()
