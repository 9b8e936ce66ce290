"""``clash serve``: the browser app (lobby, solo, duels against the AI or a friend, replays).

The web app needs the ``web`` extra (``pip install 'clashofdecks[web]'``); without it this command
says so and exits, instead of failing with an import error.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from .common import missing_web_modules

if TYPE_CHECKING:
    from ..web.limits import Caps
    from ..web.routes_ops import OpsConfig
    from ..web.server import ServerConfig

#: Proxies trusted by default to forward the client's address: none (a proxy, on this machine or
#: another, is named with --forwarded-allow-ips; a local client must not pick its own address).
DEFAULT_TRUSTED_PROXIES = "none"
#: TEST ONLY (docs/web.md, "Clocks"): a file whose content is the time (seconds since the epoch) the
#: game clocks read instead of the system clock, so browser tests jump time without sleeping.
TEST_CLOCK_ENV = "CLASH_TEST_CLOCK_FILE"
#: Test only: seconds between the watcher's rounds (heartbeat, scans), so that a test counting the
#: SQL statements of actions (tests/web/test_cost_counters.py) sees none of the watcher's.
TEST_WATCH_ENV = "CLASH_TEST_WATCH_SECONDS"


def file_clock(path: Path) -> Callable[[], float]:
    """A clock that reads the time from ``path`` (test only); the system clock while the file is
    missing or does not hold a number."""

    def now() -> float:
        try:
            return float(path.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return time.time()

    return now


def _log_to_stderr() -> None:
    """The server's own lines (work taken over from a dead process, games lost on time or
    abandoned, failures) on stderr, one line each; uvicorn keeps its own settings."""
    logger = logging.getLogger("clashofdecks")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def _listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` and listening, made before anything says the server runs.

    Binding here (not inside uvicorn) lets a busy port fail with one clear line and no "running at";
    uvicorn then serves on this very socket, so no other process can take the port in between.
    Raises :class:`click.ClickException` (exit 1) when the port is taken or the address unusable."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise click.ClickException(f"cannot listen on {host}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    # As uvicorn does: a port held only by connections of a stopped server (TIME_WAIT) is reused at
    # once; a port another process listens on still fails below.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise click.ClickException(
                f"port {port} on {host} is already in use (another clash serve?); "
                "stop that server or choose another port with --port"
            ) from None
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)
    return sock


@click.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: the LAN)."
)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option(
    "--database",
    "database_url",
    default=None,
    help="Database URL (postgresql://user:pass@host/db); default: SQLite in the data directory.",
)
@click.option(
    "--public-url",
    default=None,
    help="The address players reach (https://cards.example.org behind a proxy): invite links, Origins.",
)
@click.option(
    "--abandon-after",
    default=600.0,
    show_default=True,
    help="Seconds an absent duel player has before losing.",
)
@click.option(
    "--agent-workers",
    default=1,
    show_default=True,
    type=click.IntRange(0, 64),
    help="Processes for AI moves and hints.",
)
@click.option(
    "--rate",
    default=20.0,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Messages per second allowed per connection.",
)
@click.option(
    "--create-rate",
    default=20.0,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Games a client address may create (or import) per minute; more get HTTP 429.",
)
@click.option(
    "--analysis-iterations",
    default=1000,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Search iterations per decision when the server analyses a finished game (clash analyze).",
)
@click.option(
    "--auto-analysis/--no-auto-analysis",
    default=True,
    show_default=True,
    help="Analyse every finished game at once; off: when its replay page first asks for it.",
)
@click.option(
    "--analyses",
    "analysis_running",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Game analyses run at once in the worker pool.",
)
@click.option(
    "--analysis-queue",
    default=8,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="Game analyses that may wait for a free slot; further requests are told to ask again later.",
)
@click.option(
    "--login-rate",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0, min_open=True),
    help="Login attempts a client address may make per minute (an account: 5 failures per 15 minutes); "
    "more get HTTP 429.",
)
@click.option(
    "--access-log",
    default="-",
    show_default=True,
    metavar="FILE|-|off",
    help="One line per request and per WebSocket: appended to FILE, - for stderr, off for none.",
)
@click.option(
    "--forwarded-allow-ips",
    default=DEFAULT_TRUSTED_PROXIES,
    show_default=True,
    help="Proxies (addresses or networks, comma-separated; * any, none no one) whose X-Forwarded-For "
    "and X-Forwarded-Proto are believed: the client address of rate limits and the access log.",
)
@click.option(
    "--metrics-port",
    default=None,
    type=click.IntRange(0, 65535),
    help="Serve Prometheus metrics at /metrics on this separate port (default: no metrics).",
)
@click.option(
    "--metrics-host", default="127.0.0.1", show_default=True, help="Address of the metrics listener."
)
@click.option(
    "--metrics-allow",
    default="",
    metavar="ADDRESSES",
    help="Client addresses or networks (comma-separated) that may read /metrics on the main port.",
)
@click.option(
    "--migrate-only",
    is_flag=True,
    help="Bring the database to the newest schema and exit (once, before starting several processes).",
)
@click.option(
    "--lease-seconds",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.5, 3600),
    help="How long work held by a server process (an AI move, the clock and queue scans) waits "
    "before another process sharing the database takes it over when that one dies.",
)
@click.option(
    "--tournament-schedule",
    multiple=True,
    # web/tournament_schedule.py SCHEDULES (not imported here: the web extra may be missing).
    type=click.Choice(("hourly-arena",)),
    help="Tournaments the server runs by itself (repeatable); none unless given. hourly-arena: a "
    "45-minute 3+2 draft arena at every full hour.",
)
@click.option(
    "--send-queue-frames",
    default=256,
    show_default=True,
    type=click.IntRange(16, 100_000),
    help="Frames a socket may have waiting unsent; a page that reads slower is closed (code 4008).",
)
@click.option(
    "--idle-game-seconds",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1, 7 * 86400),
    help="Seconds a game no page follows stays in memory; then it is let go (the database keeps it).",
)
@click.option(
    "--optional-workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Processes that hints and game analyses share (AI moves have --agent-workers of their own).",
)
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=VALUE",
    help="A cap against abuse (repeatable): sockets_per_address=64, record_actions=2000, ... "
    "(docs/web.md, 'Caps').",
)
@click.option(
    "--allowed-host",
    "allowed_host",
    multiple=True,
    metavar="NAME",
    help="A further Host name the server answers to (repeatable; besides localhost, the bound "
    "address and --public-url's host).",
)
def serve(
    host: str,
    port: int,
    database_url: str | None,
    public_url: str | None,
    abandon_after: float,
    agent_workers: int,
    rate: float,
    create_rate: float,
    analysis_iterations: int,
    auto_analysis: bool,
    analysis_running: int,
    analysis_queue: int,
    login_rate: float,
    access_log: str,
    forwarded_allow_ips: str,
    metrics_port: int | None,
    metrics_host: str,
    metrics_allow: str,
    migrate_only: bool,
    lease_seconds: float,
    limits: tuple[str, ...],
    allowed_host: tuple[str, ...],
    **tuning: Any,
) -> None:
    """Start the web app and print its address (stop with Ctrl-C)."""
    _require_web_extra()
    from ..web import fairplay
    from ..web.app import create_app
    from ..web.http_guard import allowed_hosts
    from ..web.server import ServerConfig

    config = ServerConfig(
        database_url=database_url,
        public_url=public_url,
        abandon_seconds=abandon_after,
        agent_workers=agent_workers,
        rate=rate,
        burst=rate * 2,
        create_rate=create_rate,
        create_burst=max(1.0, create_rate),
        analysis_iterations=analysis_iterations,
        auto_analysis=auto_analysis,
        analysis_running=analysis_running,
        analysis_waiting=analysis_queue,
        login_rate_address=login_rate,
        lease_seconds=lease_seconds,
        caps=_caps(limits),
        **tuning,  # --send-queue-frames, --idle-game-seconds, --optional-workers: same names
    )
    fairplay.configure(config.caps.rated_pair_per_day, config.caps.leaderboard_opponents)
    hosts = allowed_hosts(host, public_url, allowed_host)
    if metrics_port is not None and "*" not in hosts:
        hosts.append(metrics_host)
    config.allowed_hosts = tuple(hosts)
    _log_to_stderr()
    _use_test_clock(config)
    trusted = _trusted_proxies(forwarded_allow_ips)
    if migrate_only:
        _migrate(database_url)
        return
    sockets = _listening_sockets(host, port, metrics_host, metrics_port)
    # Held until the process ends: a second clash serve on this SQLite file is refused.
    sqlite_lock = _sqlite_lock(database_url)
    port = sockets[0].getsockname()[1]  # the port the system chose for --port 0
    if metrics_port is not None:
        metrics_port = sockets[1].getsockname()[1]
    ops = _ops_config(access_log, metrics_port, metrics_allow)
    everywhere = host in ("0.0.0.0", "::")
    shown = public_url or f"http://{'127.0.0.1' if everywhere else host}:{port}/"
    click.echo(f"Clash of Decks is running at {shown}  (Ctrl-C stops it)")
    if everywhere and not public_url:
        click.echo("Listening on every interface: pass --public-url http://THIS-MACHINE:PORT so that")
        click.echo("invite links work on other devices (docs/web.md, 'On a LAN').")
    if metrics_port is not None:
        click.echo(f"Prometheus metrics at http://{metrics_host}:{metrics_port}/metrics")
    _run(create_app(config, ops), config, host, port, trusted, sockets)
    del sqlite_lock  # the lock is released here, as the process ends


def _caps(limits: tuple[str, ...]) -> Caps:
    """``--limit NAME=VALUE``, each checked (a wrong name or value: a usage error)."""
    from ..web.limits import parse_caps

    try:
        return parse_caps(limits)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None


def _run(
    app: Any,
    config: ServerConfig,
    host: str,
    port: int,
    trusted: list[str] | str,
    sockets: list[socket.socket],
) -> None:
    """Serve ``app`` with uvicorn on the listening ``sockets`` until the process is stopped."""
    import uvicorn

    from ..web.http_guard import header_deadline_protocol
    from ..web.protocol import TRANSPORT_MAX_BYTES
    from ..words.catalog import pin_locale_dir

    pin_locale_dir()  # the catalogs' folder is read once, here (words/catalog.py)

    uvicorn_config = uvicorn.Config(
        app,
        host=host,
        port=port,
        ws_max_size=TRANSPORT_MAX_BYTES,
        # Frames are about 1-2 KB: compressing each costs more CPU than it saves on any real network.
        ws_per_message_deflate=False,
        proxy_headers=True,
        forwarded_allow_ips=trusted,
        log_level="warning",
        # Above the per-address and per-identity socket caps, which act first (web/limits.py).
        limit_concurrency=config.caps.concurrency or None,
        http=header_deadline_protocol(config.caps.header_seconds),
    )
    raise_open_file_limit()
    freeze_startup_heap()
    uvicorn.Server(uvicorn_config).run(sockets=sockets)


def freeze_startup_heap() -> None:
    """Leave the objects made before serving (modules, cards, catalogs, the app: most of the heap)
    out of every later garbage collection (``gc.freeze``).  Python's full collection walks every
    object tracked: under ``clash bench --web`` (100 duels) one took 110 ms of CPU in the middle of
    the run, and every action in flight waited for it (the bench's p99 is such a stall); with the
    start-up heap frozen, 28 ms (docs/performance.md)."""
    import gc

    gc.collect()
    gc.freeze()


def raise_open_file_limit() -> tuple[int, int]:
    """Raise the open-file limit to the hard limit (each player is a socket; shells start with a
    soft limit of 1,024).  Returns the (soft, hard) limits now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):  # a hard limit of "unlimited" some systems refuse as a soft one
            return soft, hard
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def _use_test_clock(config: ServerConfig) -> None:
    watch = os.environ.get(TEST_WATCH_ENV)
    if watch:
        config.watch_interval = float(watch)
        click.echo(f"TEST ONLY: the watcher runs every {watch} s ({TEST_WATCH_ENV})", err=True)
    test_clock = os.environ.get(TEST_CLOCK_ENV)
    if test_clock:
        config.clock = file_clock(Path(test_clock))
        click.echo(f"TEST ONLY: the game clocks read the time from {test_clock} ({TEST_CLOCK_ENV})", err=True)


def _migrate(database_url: str | None) -> None:
    """``--migrate-only``: the migrations every start runs, without serving."""
    from ..web.store import current_revision, open_store

    lock = _sqlite_lock(database_url)  # never under a server running on this SQLite file
    store = open_store(database_url)
    try:
        click.echo(f"The database is at revision {current_revision(store.engine)}.")
    finally:
        store.close()
        if lock is not None:
            lock.close()


def _require_web_extra() -> None:
    missing = missing_web_modules()
    if missing:
        click.echo(
            "clash serve needs the web extra (missing: "
            + ", ".join(missing)
            + "). Install it with:  pip install -e '.[web]'",
            err=True,
        )
        sys.exit(2)


def _listening_sockets(
    host: str, port: int, metrics_host: str, metrics_port: int | None
) -> list[socket.socket]:
    """The game's listening socket, and the metrics listener's when asked for."""
    if metrics_port is not None and metrics_port == port and port != 0 and metrics_host == host:
        raise click.ClickException("--metrics-port must differ from --port")
    sockets = [_listening_socket(host, port)]
    if metrics_port is not None:
        sockets.append(_listening_socket(metrics_host, metrics_port))
    return sockets


def _trusted_proxies(value: str) -> list[str] | str:
    """``--forwarded-allow-ips`` for uvicorn, checked: a mistyped address is an error, not a
    proxy silently distrusted."""
    from ..web.routes_ops import parse_networks

    text = value.strip()
    if text == "*":
        return "*"
    if text.lower() in ("", "none"):
        return []
    try:
        return [str(network) for network in parse_networks(text)]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--forwarded-allow-ips") from None


def _sqlite_lock(database_url: str | None) -> IO[str] | None:
    from ..web.sqlite_lock import DatabaseInUseError, hold_sqlite_lock

    try:
        return hold_sqlite_lock(database_url)
    except DatabaseInUseError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot lock the SQLite database: {exc}") from None


def _ops_config(access_log: str, metrics_port: int | None, metrics_allow: str) -> OpsConfig:
    from ..web.access_log import AccessLog
    from ..web.routes_ops import OpsConfig, parse_networks

    try:
        allowed = parse_networks(metrics_allow)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--metrics-allow") from None
    try:
        log = AccessLog.open(access_log)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot open {access_log}: {exc.strerror}", param_hint="--access-log"
        ) from None
    return OpsConfig(access_log=log, metrics_port=metrics_port, metrics_allow=allowed)
