"""``python -m clashofdecks.web.loadtest``: the load test's command line (driver.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import click

from .driver import LoadConfig, run_load


def _pace(text: str) -> tuple[float, float]:
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter("give LOW,HIGH seconds, e.g. 2,8") from None
    return low, high


@click.command()
@click.option(
    "--games", default=10, show_default=True, type=click.IntRange(1, 1_000_000), help="Games at once."
)
@click.option(
    "--processes", default=1, show_default=True, type=click.IntRange(1, 64), help="Server processes."
)
@click.option(
    "--duration", default=60.0, show_default=True, type=click.FloatRange(1, 86_400), help="Seconds."
)
@click.option("--kill", is_flag=True, help="SIGKILL the last server process halfway through.")
@click.option(
    "--database", default=None, help="postgresql://… shared by the servers (default: SQLite, 1 process)."
)
@click.option(
    "--assign",
    type=click.Choice(["split", "same"]),
    default="split",
    show_default=True,
    help="split: each connection to any server; same: both seats of a game on one server.",
)
@click.option(
    "--pace", default="2,8", show_default=True, help="LOW,HIGH seconds a player takes per decision."
)
@click.option(
    "--spawn-rate", default=50.0, show_default=True, type=click.FloatRange(0.01), help="New games a second."
)
@click.option(
    "--locust-processes",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Load generator processes.",
)
@click.option("--out", default="loadtest-results", show_default=True, type=click.Path(path_type=Path))
def main(
    games: int,
    processes: int,
    duration: float,
    kill: bool,
    database: str | None,
    assign: str,
    pace: str,
    spawn_rate: float,
    locust_processes: int,
    out: Path,
) -> None:
    """Run the Locust load test against N server processes and check that no acknowledged action
    was lost; prints the summary (also in OUT/summary.md and OUT/summary.json)."""
    if importlib.util.find_spec("locust") is None or importlib.util.find_spec("websocket") is None:
        raise click.UsageError("the load test needs the loadtest extra: pip install -e '.[web,loadtest]'")
    config = LoadConfig(
        games=games,
        processes=processes,
        duration=duration,
        kill=kill,
        database=database,
        assign=assign,
        pace=_pace(pace),
        spawn_rate=spawn_rate,
        locust_processes=locust_processes,
        out=out,
    )
    try:
        config.check()
        summary = run_load(config, say=lambda m: click.echo(m, err=True))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo((out / "summary.md").read_text(encoding="utf-8"))
    if summary["lost_actions"] or summary["mismatched_actions"]:
        click.echo(json.dumps(summary["lost_examples"]), err=True)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
