"""``clash bench``: the engine's speed figures (definitions in engine.md / docs/performance.md)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final

import click
from rich.console import Console
from rich.table import Table

from .common import missing_loadtest_modules, missing_web_modules

if TYPE_CHECKING:
    from ..web.loadtest.bench import WebBenchResult

#: Bounds of the options: enough for any measurement, small enough to finish and fit in memory.
MAX_GAMES: Final = 1_000_000
MAX_ROUNDS: Final = 100
MAX_ISMCTS_ITERATIONS: Final = 1_000_000
MAX_WEB_PROCESSES: Final = 64


@click.command()
@click.option(
    "--games",
    default=2000,
    show_default=True,
    type=click.IntRange(1, MAX_GAMES),
    help=f"Random duel games to measure over (1 to {MAX_GAMES:,}).",
)
@click.option("--seed", default=1, show_default=True, help="Seed of the random games.")
@click.option(
    "--rounds",
    default=3,
    show_default=True,
    type=click.IntRange(1, MAX_ROUNDS),
    help=f"Repeat each measurement; report the best (1 to {MAX_ROUNDS}).",
)
@click.option(
    "--ismcts-iterations",
    default=3000,
    show_default=True,
    type=click.IntRange(0, MAX_ISMCTS_ITERATIONS),
    help=f"ISMCTS iterations to time (0: skip; at most {MAX_ISMCTS_ITERATIONS:,}).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--web", is_flag=True, help="Instead: the web server under load (bot duels over WebSockets).")
@click.option(
    "--attack",
    is_flag=True,
    help="Instead: an honest player's action latency and AI move time beside the same under each "
    "attack of issue 33 (a 1 MiB record, 4 and 40 flooding sockets, 12 hint sockets, 1,000 idle "
    "connections), on loopback.",
)
@click.option(
    "--attack-seconds",
    default=15.0,
    show_default=True,
    type=click.FloatRange(1, 600),
    help="Seconds each phase of --attack measures.",
)
@click.option("--attack-tiny", is_flag=True, hidden=True, help="--attack at tiny sizes (the test's).")
@click.option("--web-duels", default=100, show_default=True, help="Concurrent duels of --web.")
@click.option(
    "--processes",
    default=1,
    show_default=True,
    type=click.IntRange(1, MAX_WEB_PROCESSES),
    help="Server processes of --web, sharing the duels (more than 1 needs --database, PostgreSQL).",
)
@click.option(
    "--database",
    "database_url",
    default=None,
    help="Database URL of --web's servers (postgresql://user:pass@host/db); default: SQLite, one process.",
)
@click.option(
    "--analysis",
    is_flag=True,
    help="--web's servers analyse every finished game (off by default); reports its cost per game.",
)
@click.option(
    "--pace",
    default=None,
    metavar="LOW,HIGH",
    help="--web's bots think a time drawn uniformly between LOW and HIGH seconds before each decision "
    "(human-paced games); the run then ends after --duration with games still going.",
)
@click.option(
    "--duration",
    default=300.0,
    show_default=True,
    type=click.FloatRange(1, 86_400),
    help="Seconds --web plays at most (with --pace: exactly).",
)
@click.option(
    "--protocol",
    default=1,
    show_default=True,
    type=click.IntRange(1, 2),
    help="The protocol version --web's bots ask for in hello (2: a delta after each move, as the "
    "browser's page; docs/web.md).",
)
@click.option(
    "--baseline-venv",
    default=None,
    type=click.Path(exists=True, file_okay=False),
    help="--web also runs the servers of the version installed in this venv (make baseline REF=...) "
    "in the same run, and prints both.",
)
@click.option(
    "--envs",
    "with_envs",
    is_flag=True,
    help="Also measure the research environments: PettingZoo AEC steps/s beside PettingZoo's classic "
    "games (docs/envs.md; needs the rl extra, and the envbench extra for the classic games).",
)
@click.option(
    "--env-seconds",
    default=2.0,
    show_default=True,
    type=click.FloatRange(0.01, 600),
    help="CPU seconds per round for each environment measured by --envs.",
)
@click.option(
    "--vec-envs",
    default=1024,
    show_default=True,
    type=click.IntRange(0, 65_536),
    help="Games per batched environment measured by --envs (gymnasium.make_vec; 0: skip them).",
)
def bench(
    games: int,
    seed: int,
    rounds: int,
    ismcts_iterations: int,
    as_json: bool,
    web: bool,
    attack: bool,
    attack_seconds: float,
    attack_tiny: bool,
    web_duels: int,
    processes: int,
    database_url: str | None,
    analysis: bool,
    pace: str | None,
    duration: float,
    protocol: int,
    baseline_venv: str | None,
    with_envs: bool,
    env_seconds: float,
    vec_envs: int,
) -> None:
    """Measure random games/s, actions/s, clone() and apply+undo speed on one core."""
    if attack:
        from .attack_bench import attack_bench

        attack_bench(attack_seconds, attack_tiny, as_json)
        return
    if web:
        paced = _pace(pace)
        _web_bench(
            web_duels,
            seed,
            as_json,
            processes,
            database_url,
            analysis,
            baseline_venv,
            paced,
            duration,
            protocol,
        )
        return
    if processes != 1 or database_url is not None or analysis or baseline_venv is not None or pace:
        raise click.UsageError(
            "--processes, --database, --analysis, --pace and --baseline-venv belong to --web"
        )
    if protocol != 1:
        raise click.UsageError("--protocol belongs to --web")
    _engine_bench(games, seed, rounds, ismcts_iterations, as_json, with_envs, env_seconds, vec_envs)


def _engine_bench(
    games: int,
    seed: int,
    rounds: int,
    ismcts_iterations: int,
    as_json: bool,
    with_envs: bool,
    env_seconds: float,
    vec_envs: int,
) -> None:
    """The engine's figures (and with ``--envs`` the environments')."""
    from ..bench import AUTOSAVE_EARLY, AUTOSAVE_LATE, run_bench

    envs_figures = None
    if with_envs:
        try:
            from ..envs.bench import format_envs_bench, run_envs_bench
        except ImportError as exc:
            raise click.ClickException(str(exc)) from exc
        envs_figures = run_envs_bench(seconds=env_seconds, rounds=rounds, batched_envs=vec_envs)

    console = Console(stderr=True)
    res = run_bench(
        games=games,
        seed=seed,
        rounds=rounds,
        ismcts_iterations=ismcts_iterations,
        # Plain progress lines: rich's console.log would add the time and the source location.
        progress=None if as_json else lambda m: console.print(f"measuring: {m}", highlight=False),
    )
    if as_json:
        out = res.to_dict()
        if envs_figures is not None:
            out["envs"] = envs_figures
        click.echo(json.dumps(out, indent=2))
        return
    table = Table(
        title=f"clash bench ({res.games} random duel games, Python {res.python}, {res.machine})\n{res.engine}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("random games/s, events off", f"{res.games_per_s_events_off:,.0f}")
    table.add_row("random games/s, events on", f"{res.games_per_s_events_on:,.0f}")
    table.add_row("actions/s (events off)", f"{res.actions_per_s:,.0f}")
    table.add_row("actions/game · turns/game", f"{res.actions_per_game:.1f} · {res.turns_per_game:.1f}")
    table.add_row("clone()", f"{res.clone_us:.2f} µs ({res.clones_per_s:,.0f}/s)")
    table.add_row("apply+undo pair", f"{res.apply_undo_us:.2f} µs ({res.apply_undo_pairs_per_s:,.0f}/s)")
    if res.native_games_per_s is not None:
        table.add_row(
            f"native: random games/s, whole games in C ({res.native_games:,})",
            f"{res.native_games_per_s:,.0f} ({res.native_speedup or 0:.0f}×)",
        )
        table.add_row("native: actions/s (in C)", f"{res.native_actions_per_s or 0:,.0f}")
        table.add_row(
            "native: random games/s, driven from Python", f"{res.native_from_python_games_per_s or 0:,.0f}"
        )
    for key, value in res.extra.items():
        table.add_row(key.replace("_", " "), f"{value:,.0f}")
    if res.native_ismcts_iterations_per_s is not None:
        table.add_row(
            "native: ismcts iterations per s (search on the core)",
            f"{res.native_ismcts_iterations_per_s:,.0f}",
        )
    table.add_row(
        f"session autosave at action {AUTOSAVE_EARLY} · {AUTOSAVE_LATE}",
        f"{res.autosave_ms_early:.2f} ms · {res.autosave_ms_late:.2f} ms",
    )
    Console().print(table)
    if envs_figures is not None:
        click.echo(format_envs_bench(envs_figures))


def _web_bench(
    duels: int,
    seed: int,
    as_json: bool,
    processes: int,
    database_url: str | None,
    analysis: bool,
    baseline_venv: str | None,
    pace: tuple[float, float] | None = None,
    duration: float = 300.0,
    protocol: int = 1,
) -> None:
    """``--web``: docs/web.md, "Load"."""
    if missing_web_modules() or missing_loadtest_modules():
        # The bench lives with the load test (web/loadtest/), apart from what serves.
        raise click.UsageError("clash bench --web needs the loadtest extra: pip install -e '.[web,loadtest]'")
    if duels < 1:
        raise click.BadParameter("--web-duels must be at least 1")
    if processes > 1 and not (database_url or "").startswith(("postgresql://", "postgres://")):
        raise click.UsageError(
            "--processes above 1 needs --database postgresql://…: the processes share one database"
        )
    baseline = None
    if baseline_venv is not None:
        baseline = str(Path(baseline_venv) / "bin" / "python")
        if not Path(baseline).exists():
            raise click.BadParameter(f"{baseline} does not exist", param_hint="--baseline-venv")
    from ..web.loadtest.bench import run_web_bench

    runs = [None] if baseline is None else [None, baseline]
    try:
        results = [
            run_web_bench(
                duels=duels,
                seed=seed,
                processes=processes,
                database=database_url,
                analysis=analysis,
                python=python,
                pace=pace,
                seconds=duration,
                protocol=protocol,
            )
            for python in runs
        ]
    except RuntimeError as exc:  # a server that did not start: its log's end says why
        raise click.ClickException(str(exc)) from None
    if as_json:
        outs = []
        for res in results:
            out = res.to_dict()
            if processes > 1:
                out["processes"] = processes
            outs.append(out)
        click.echo(
            json.dumps(outs[0] if baseline is None else {"this": outs[0], "baseline": outs[1]}, indent=2)
        )
        return
    Console().print(_web_table(results, database_url, processes))


def _pace(text: str | None) -> tuple[float, float] | None:
    """``--pace LOW,HIGH`` as seconds (a usage error unless 0 <= LOW <= HIGH)."""
    if text is None:
        return None
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter(
            "give two numbers of seconds, LOW,HIGH (e.g. 2,8)", param_hint="--pace"
        ) from None
    if not 0 <= low <= high:
        raise click.BadParameter("needs 0 <= LOW <= HIGH", param_hint="--pace")
    return low, high


def _web_table(results: list[WebBenchResult], database_url: str | None, processes: int) -> Table:
    where = "PostgreSQL" if (database_url or "").startswith(("postgresql://", "postgres://")) else "SQLite"
    shared = "" if processes == 1 else f", {processes} server processes"
    res = results[0]
    if res.pace is not None:
        shared += f", paced {res.pace[0]:g}-{res.pace[1]:g} s"
    if res.protocol != 1:
        shared += f", protocol {res.protocol}"
    table = Table(title=f"clash bench --web ({res.duels} duels, two bots each, loopback, {where}{shared})")
    table.add_column("figure")
    for i, r in enumerate(results):
        table.add_column(("this version" if i == 0 else "baseline") + f" ({r.version})", justify="right")

    def row(name: str, cell: Callable[[WebBenchResult], str]) -> None:
        table.add_row(name, *[cell(r) for r in results])

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f} ms"

    row("duels finished", lambda r: f"{r.finished} / {r.duels}")
    row("actions", lambda r: f"{r.actions:,}")
    row("actions/s", lambda r: f"{r.actions_per_s:,.0f}")
    row("latency p50", lambda r: f"{r.p50_ms:.1f} ms")
    row("latency p99", lambda r: f"{r.p99_ms:.1f} ms")
    row("latency max", lambda r: f"{r.max_ms:.1f} ms")
    if res.pace is not None:
        row("second half: actions/s", lambda r: f"{r.steady_actions_per_s or 0:,.0f}")
        row("second half: latency p99", lambda r: f"{r.steady_p99_ms or 0:.1f} ms")
    row("server CPU per action (with its workers)", lambda r: ms(r.server_cpu_ms_per_action))
    row("— of which worker processes", lambda r: ms(r.workers_cpu_ms_per_action))
    row("bots' CPU per action", lambda r: ms(r.client_cpu_ms_per_action))
    if any(r.database_cpu_ms_per_action is not None for r in results):
        row("PostgreSQL's CPU per action", lambda r: ms(r.database_cpu_ms_per_action))
    for name in ("sql_statements", "frames_sent", "frame_bytes_sent", "sentence_renders", "position_dumps"):
        row(f"{name.replace('_', ' ')} per action", functools.partial(_counter, name=name))
    if any(r.analysis for r in results):
        row("analyses kept", lambda r: "-" if r.analyses is None else str(r.analyses))
        row(
            "analysis CPU per game",
            lambda r: "-" if r.analysis_cpu_s_per_game is None else f"{r.analysis_cpu_s_per_game:.2f} s",
        )
    row("load average before · after", lambda r: f"{r.load_before or 0:.2f} · {r.load_after or 0:.2f}")
    if any(r.unfinished_before is not None for r in results):
        row("unfinished games in the database before", lambda r: f"{r.unfinished_before or 0:,}")
        if any(r.unfinished_before for r in results):
            table.caption = (
                "The database held unfinished games of an earlier run: the servers' scans of them are "
                "counted in the CPU per action. Use an emptied database to compare runs."
            )
    row("errors", lambda r: str(len(r.errors)))
    return table


def _counter(result: WebBenchResult, *, name: str) -> str:
    value = (result.counters_per_action or {}).get(name)
    return "-" if value is None else f"{value:,.2f}"
