"""What several ``clash`` commands share: the exit code of an interrupted run, the progress bar of
long runs, the options that choose where games are played (``clash simulate``, ``clash arena``), and
whether the web extra is installed (``clash serve``, ``clash bench --web``).  Command modules import
this, never each other (tests/test_command_modules.py)."""

from __future__ import annotations

import importlib.util
from typing import Final

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

#: The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED: Final = 130
#: What serving needs of the web extra (checked before anything is started).
WEB_MODULES: Final = ("starlette", "uvicorn", "sqlalchemy", "alembic", "prometheus_client")


def missing_web_modules() -> list[str]:
    """The modules of :data:`WEB_MODULES` that are not installed."""
    return [m for m in WEB_MODULES if importlib.util.find_spec(m) is None]


#: The modules of the ``loadtest`` extra (Locust and websocket-client), which ``clash bench --web``
#: and the load test under ``clashofdecks.web.loadtest`` ask for.
LOADTEST_MODULES = ("locust", "websocket")


def missing_loadtest_modules() -> list[str]:
    return [m for m in LOADTEST_MODULES if importlib.util.find_spec(m) is None]


class RateColumn(ProgressColumn):
    """Games per second, from the bar's own speed estimate."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} games/s")


def progress_bar(console: Console, label: str) -> Progress:
    """The bar of ``clash simulate`` and ``clash arena``: done/total, rate, time left."""
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


backend_option = click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="Where games are played: local processes, or Ray (pip install 'clashofdecks[cluster]').",
)
address_option = click.option(
    "--address",
    default=None,
    metavar="ADDR",
    help="With --backend ray: join this Ray cluster (e.g. auto, or ray://head:10001) instead of "
    "starting a local Ray instance.",
)


__all__ = ["EXIT_INTERRUPTED", "RateColumn", "address_option", "backend_option", "progress_bar"]
