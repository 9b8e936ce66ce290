"""``clash bench --web``: the web server under load (a measurement, not a timed test).

It starts ``clash serve`` in a subprocess on loopback with its default SQLite store (in a temporary
data directory) and rate limits above the bots' pace, creates ``duels`` friend duels over HTTP, and
connects two client bots per duel over WebSockets.  With ``processes`` > 1 it starts that many
servers on one PostgreSQL database and gives each a share of the duels (both seats of a duel on
the process that created it: the bots measure how far processes scale, the Locust load test in
``web/loadtest`` how moves travel between them).  A bot answers every frame that gives it a
decision with a random legal action at once; the latency of an action is the time from sending it
to receiving the state frame that acknowledges it.  Reports actions/s and p50/p99 latency.

The servers run as in production (a worker process for AI moves and analyses), with automatic
analysis of finished games off unless ``analysis`` is set; the CPU per action is that of the
servers and their worker processes together.  The servers' cost counters (``/metrics``: SQL
statements, frames and their bytes, sentences rendered) are reported per action when the
version measured has them.  ``python`` runs the servers with another installed version (a
baseline: ``make baseline REF=...``).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, cast
from urllib.parse import urlsplit

from ..deltas import apply_delta, base_of
from .serveprocs import (
    LOAD_ARGS,
    ServeProcess,
    database_cpu_seconds,
    raise_open_file_limit,
    start_servers,
    stop_servers,
    tree_cpu_seconds,
    wait_ready,
)


@dataclass
class WebBenchResult:
    duels: int
    finished: int
    actions: int
    seconds: float
    actions_per_s: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    #: CPU time the server process used per action while the duels ran (user + system; its start
    #: is not counted), when the OS tells it (Linux).
    server_cpu_ms_per_action: float | None = None
    #: CPU time of this process (the bots) per action: on one machine, bots and server share the cores.
    client_cpu_ms_per_action: float | None = None
    errors: list[str] = field(default_factory=list)
    #: The part of ``server_cpu_ms_per_action`` spent in the servers' worker processes.
    workers_cpu_ms_per_action: float | None = None
    #: Whether the servers analysed finished games automatically, how many analyses were kept
    #: (those under way when the duels ended are waited for), and their mean CPU seconds.
    analysis: bool = False
    analyses: int | None = None
    analysis_cpu_s_per_game: float | None = None
    #: The machine's 1-minute load average before and after the run (the machine may be shared).
    load_before: float | None = None
    load_after: float | None = None
    #: CPU of the PostgreSQL backends serving the database per action (on this machine; None for SQLite).
    database_cpu_ms_per_action: float | None = None
    #: The servers' cost counters per action (``clash_*_total`` of /metrics; web/counters.py).
    counters_per_action: dict[str, float] | None = None
    #: Paced mode: p99 latency and actions/s of the run's second half (every game open by then).
    steady_p99_ms: float | None = None
    steady_actions_per_s: float | None = None
    #: Paced mode: each decision's think time, drawn uniformly between these seconds (None: at once).
    pace: tuple[float, float] | None = None
    #: The Python that ran the servers (another venv for a baseline), and the version it imports.
    python: str = ""
    version: str = ""
    #: The protocol version the bots asked for (2: a ``delta`` after each change; docs/web.md).
    protocol: int = 1
    #: Games the given database already held unfinished before the run (None: a fresh SQLite one).
    #: An earlier paced run leaves its games open with away seats: the servers' abandonment scan then
    #: reads them every second, and that work is counted in this run's CPU per action.
    unfinished_before: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _post(url: str, body: dict[str, Any], session: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if session:
        headers["Authorization"] = f"Bearer {session}"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


_WS_GUID: Final = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _masked(data: bytes, mask: bytes) -> bytes:
    n = len(data)
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")


class BotProtocol(asyncio.Protocol):
    """One bot seat over one WebSocket, as plain callbacks (no task or coroutine per message): the
    least of RFC 6455 a bot needs (the opening handshake, masked text frames out, text frames in,
    pings answered, close).  The load generator shares the machine's cores with the server, so it
    should cost little CPU per message.  ``done`` gets True when the game ended."""

    def __init__(
        self,
        host: str,
        port: int,
        game: str,
        token: str,
        session: str,
        rng: random.Random,
        latencies: list[float],
        errors: list[str],
        max_actions: int,
    ) -> None:
        self.host, self.port = host, port
        self.game, self.token, self.session, self.rng = game, token, session, rng
        self.latencies, self.errors, self.max_actions = latencies, errors, max_actions
        self.done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.parts: list[bytes] = []
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.upgraded = False
        self.sent_at: float | None = None
        self.sent_index = -1
        #: Paced mode: a think time drawn uniformly from (low, high) seconds before each decision.
        self.pace: tuple[float, float] | None = None
        self.latest_index = -1
        self.thinking_about = -1
        #: When each measured action was sent (``latencies`` in the same order), for the paced
        #: mode's steady state; shared by the bots like ``latencies``.
        self.sent_times: list[float] = []
        #: The protocol version asked for in ``hello``; version 2: the state the next delta applies to.
        self.protocol = 1
        self.state: dict[str, Any] | None = None

    # -- transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's does not subclass asyncio's
        self.transport.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {self.key}\r\nSec-WebSocket-Version: 13\r\n"
                + (f"Authorization: Bearer {self.session}\r\n" if self.session else "")
                + "\r\n"
            ).encode()
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish(False)

    def _finish(self, ended: bool) -> None:
        if not self.done.done():
            self.done.set_result(ended)
        if self.transport is not None and not self.transport.is_closing():
            self._frame(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()

    def _frame(self, opcode: int, data: bytes) -> None:
        assert self.transport is not None
        n = len(data)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        mask = os.urandom(4)
        self.transport.write(head + mask + _masked(data, mask))

    def send(self, message: dict[str, Any]) -> None:
        self._frame(0x1, json.dumps(message).encode())

    def data_received(self, data: bytes) -> None:
        try:
            self._read(data)
        except Exception as exc:  # a bot's failure is a reported error, not a silent stall
            self.errors.append(f"bot failed: {exc!r}")
            self._finish(False)

    def _read(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[: end + 4]).decode("latin-1")
            del buf[: end + 4]
            accept = base64.b64encode(hashlib.sha1((self.key + _WS_GUID).encode()).digest()).decode()
            if not head.startswith("HTTP/1.1 101") or accept not in head:
                self.errors.append(f"handshake refused: {head.splitlines()[0]!r}")
                self._finish(False)
                return
            self.upgraded = True
            hello = {"type": "hello", "game": self.game, "tokens": [self.token]}
            self.send(hello if self.protocol == 1 else {**hello, "protocol": self.protocol})
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode == 0x8:
                self._finish(False)
                return
            elif opcode in (0x0, 0x1):
                self.parts.append(payload)
                if b0 & 0x80:
                    text = b"".join(self.parts)
                    self.parts = []
                    self.on_message(json.loads(text))

    # -- the bot

    def on_message(self, frame: dict[str, Any]) -> None:
        if self.done.done():
            return
        if frame["type"] == "error":
            if frame["code"] != "stale":
                self.errors.append(f"{frame['code']}: {frame['message']}")
            self.sent_at = None
            return
        if frame["type"] == "delta":
            if self.state is None:
                self.errors.append("a delta before the answer to hello")
                return
            frame = self.state = apply_delta(self.state, frame)  # what version 1 would have sent
        elif frame["type"] == "state" and self.protocol == 2:
            self.state = base_of(frame)
        if frame["type"] != "state":
            return
        if self.sent_at is not None and frame["index"] > self.sent_index:
            self.latencies.append(time.perf_counter() - self.sent_at)
            self.sent_times.append(self.sent_at)
            self.sent_at = None
        self.latest_index = frame["index"]
        if frame["result"] is not None:
            self._finish(True)
        elif frame["index"] >= self.max_actions:
            self._finish(False)
        elif frame["legal"] and self.sent_at is None:
            if self.pace is None:
                self._act(frame["index"], frame["legal"])
            elif self.thinking_about != frame["index"]:
                self.thinking_about = frame["index"]
                think = self.rng.uniform(*self.pace)
                asyncio.get_running_loop().call_later(think, self._act, frame["index"], frame["legal"])

    def _act(self, index: int, legal: list[str]) -> None:
        if self.done.done() or self.latest_index != index or self.sent_at is not None:
            return  # the game moved on while this bot thought (or it acted already)
        self.sent_index = index
        self.sent_at = time.perf_counter()
        self.send({"type": "act", "action": self.rng.choice(legal), "index": index})


async def _open_duels(urls: list[str], duels: int) -> tuple[str, str, list[tuple[str, dict[str, Any]]]]:
    """The two identities' sessions and the duels created (each with the url of its server)."""
    loop = asyncio.get_running_loop()
    # Seats belong to identities: one identity creates (and plays the first seat of) every duel,
    # another takes every second seat through its invite token (docs/web.md, "Identities").
    # A baseline from before identities (83c13d6) has none: its seats go by their tokens alone.
    try:
        hosts, guests = [
            (await loop.run_in_executor(None, _post, urls[0] + "/api/identities", {"bearer": True}))[
                "session"
            ]
            for _ in range(2)
        ]
    except urllib.error.HTTPError as exc:
        if exc.code not in (404, 405):
            raise
        hosts = guests = ""

    async def create(i: int) -> tuple[str, dict[str, Any]]:
        url = urls[i % len(urls)]
        body = {"kind": "friend", "format": "draft"}
        return url, await loop.run_in_executor(None, _post, url + "/api/games", body, hosts)

    games = await asyncio.gather(*(create(i) for i in range(duels)))
    return hosts, guests, games


async def _run(
    urls: list[str],
    duels: int,
    seed: int,
    max_actions: int,
    seconds: float,
    pace: tuple[float, float] | None = None,
    protocol: int = 1,
) -> WebBenchResult:
    """Play ``duels`` duels, duel i wholly (its creation and both seats) on ``urls[i % len(urls)]``:
    with several processes on one database, each owns a share of the games.  ``pace``: each bot
    thinks a time drawn uniformly from (low, high) seconds before each decision, and the run ends
    after ``seconds`` with games still going (not an error then)."""
    loop = asyncio.get_running_loop()
    hosts, guests, games = await _open_duels(urls, duels)
    latencies: list[float] = []
    sent_times: list[float] = []
    errors: list[str] = []
    rng = random.Random(seed)
    bots: list[BotProtocol] = []
    start = time.perf_counter()
    for url, g in games:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        for token, session in ((g["tokens"][0], hosts), (g["invite"].split("#t=")[1], guests)):
            bot = BotProtocol(
                host,
                port,
                g["id"],
                token,
                session,
                random.Random(rng.getrandbits(32)),
                latencies,
                errors,
                max_actions,
            )
            bot.pace, bot.sent_times, bot.protocol = pace, sent_times, protocol
            try:
                await loop.create_connection(lambda b=bot: b, host, port)  # type: ignore[misc]
            except OSError as exc:
                errors.append(f"bot failed to connect: {exc!r}")
                bot.done.set_result(False)
            bots.append(bot)
    await asyncio.wait([b.done for b in bots], timeout=seconds)
    elapsed = time.perf_counter() - start
    finished = 0
    for i in range(0, len(bots), 2):
        pair = bots[i : i + 2]
        if any(b.done.done() and b.done.result() for b in pair):
            finished += 1
    stalled = sum(1 for b in bots if not b.done.done())
    if stalled and pace is None:
        errors.append(f"{stalled} bots were still playing after {seconds:g} s")
    for b in bots:
        b._finish(False)
    ms = sorted(x * 1000 for x in latencies)
    # Paced: the second half of the run alone, once every game is open (the first half has the
    # creation of the games and their pages opening).
    half = start + elapsed / 2
    steady = sorted(x * 1000 for x, at in zip(latencies, sent_times, strict=True) if at >= half)

    def pct(p: float) -> float:
        return ms[min(len(ms) - 1, int(p * len(ms)))] if ms else 0.0

    return WebBenchResult(
        duels=duels,
        finished=finished,
        actions=len(ms),
        seconds=elapsed,
        actions_per_s=len(ms) / elapsed if elapsed else 0.0,
        p50_ms=statistics.median(ms) if ms else 0.0,
        p99_ms=pct(0.99),
        steady_p99_ms=steady[min(len(steady) - 1, int(0.99 * len(steady)))] if pace and steady else None,
        steady_actions_per_s=len(steady) / (elapsed / 2) if pace and elapsed else None,
        max_ms=ms[-1] if ms else 0.0,
        errors=errors[:20],
    )


def _fast_loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (uvicorn's standard extra brings it, and the server
    uses it too): the bots then cost less CPU; else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


#: The cost counters of /metrics the bench reports per action (web/counters.py).
COUNTERS: Final = (
    "clash_sql_statements_total",
    "clash_frames_sent_total",
    "clash_frame_bytes_sent_total",
    "clash_sentence_renders_total",
    "clash_position_dumps_total",
)


def _serve_options(python: str) -> str:
    """The ``clash serve --help`` text of the version ``python`` runs (a baseline may lack options)."""
    out = subprocess.run(
        [python, "-m", "clashofdecks", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return out.stdout


def _cap_names(python: str) -> set[str]:
    """The ``--limit`` names the version ``python`` runs knows (a baseline may lack newer caps)."""
    code = "from clashofdecks.web.limits import CAP_NAMES; print(' '.join(CAP_NAMES))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    return set(out.stdout.split())


def _version_of(python: str) -> str:
    """The git commit of the clashofdecks ``python`` imports (its source folder), else its folder."""
    code = "import clashofdecks, os; print(os.path.dirname(clashofdecks.__file__))"
    folder = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    where = folder.stdout.strip()
    commit = subprocess.run(
        ["git", "-C", where or ".", "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return commit.stdout.strip() or where


def scrape_counters(url: str) -> dict[str, float] | None:
    """The cost counters of a server's /metrics (None when it has none, as older versions)."""
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=30) as r:
            text = r.read().decode()
    except OSError:
        return None
    found: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in COUNTERS or name == "clash_actions_accepted_total":
            found[name] = float(value)
    return found or None


def _counters_per_action(
    before: list[dict[str, float] | None], after: list[dict[str, float] | None]
) -> dict[str, float] | None:
    if any(c is None for c in (*before, *after)):
        return None
    total: dict[str, float] = {}
    for b, a in zip(before, after, strict=True):
        assert a is not None and b is not None
        for name in a:
            total[name] = total.get(name, 0.0) + a[name] - b.get(name, 0.0)
    actions = total.pop("clash_actions_accepted_total", 0.0)
    if not actions:
        return None
    return {name.removeprefix("clash_").removesuffix("_total"): n / actions for name, n in total.items()}


def _tree_cpu(servers: list[ServeProcess]) -> dict[int, float]:
    out: dict[int, float] = {}
    for server in servers:
        out.update(tree_cpu_seconds(server.proc.pid))
    return out


def _wait_for_analyses(servers: list[ServeProcess], idle_seconds: float = 3.0, limit: float = 300.0) -> None:
    """Wait until the servers' worker processes have used no CPU for ``idle_seconds`` (the analyses
    queued when the duels ended are done), at most ``limit`` seconds."""
    deadline = time.monotonic() + limit
    last = sum(_tree_cpu(servers).values())
    quiet_since = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - quiet_since < idle_seconds:
        time.sleep(0.5)
        now = sum(_tree_cpu(servers).values())
        if now - last > 0.05:
            quiet_since = time.monotonic()
        last = now


def _analyses_kept(database: str) -> tuple[int, float | None]:
    """How many analyses the store keeps as done, and their mean CPU seconds."""
    import sqlalchemy as sa

    from ..store import normalize_url

    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.connect() as conn:
            n, seconds = conn.execute(
                sa.text("SELECT COUNT(*), AVG(seconds) FROM analyses WHERE status = 'done'")
            ).one()
    finally:
        engine.dispose()
    return int(n), (float(seconds) if seconds is not None else None)


def unfinished_games(database: str) -> int:
    """How many games ``database`` holds unfinished (0 for one with no schema yet)."""
    import sqlalchemy as sa

    from ..store import normalize_url

    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.connect() as conn:
            if not sa.inspect(conn).has_table("games"):
                return 0
            count = sa.text("SELECT COUNT(*) FROM games WHERE status = 'active'")
            return int(conn.execute(count).scalar_one())
    finally:
        engine.dispose()


def run_web_bench(
    *,
    duels: int = 100,
    seed: int = 1,
    max_actions: int = 2000,
    seconds: float = 300.0,
    processes: int = 1,
    database: str | None = None,
    analysis: bool = False,
    python: str | None = None,
    pace: tuple[float, float] | None = None,
    protocol: int = 1,
) -> WebBenchResult:
    """Start ``processes`` servers (on ``database``, else each on SQLite in a temporary data
    directory: one process only), play ``duels`` bot duels on them, stop them; see the module
    docstring.  The server CPU per action is that of every process and its workers together."""
    if processes > 1 and database is None:
        raise ValueError("several server processes need a shared database (PostgreSQL)")
    python = python or sys.executable
    options = _serve_options(python)
    # A baseline may predate some of the load options: those it lacks are left out.
    pairs = [LOAD_ARGS[i : i + 2] for i in range(0, len(LOAD_ARGS), 2)]
    caps = _cap_names(python)
    load = tuple(
        x
        for pair in pairs
        if pair[0] in options and (pair[0] != "--limit" or pair[1].partition("=")[0] in caps)
        for x in pair
    )
    extra: list[str] = []
    if "--metrics-allow" in options:
        extra += ["--metrics-allow", "127.0.0.1"]
    if "--no-auto-analysis" in options and not analysis:
        extra.append("--no-auto-analysis")
    raise_open_file_limit()  # each bot is a socket, and so is each of its server's ends
    unfinished = unfinished_games(database) if database else None
    with tempfile.TemporaryDirectory(prefix="clash-web-bench-") as data:
        servers = start_servers(
            processes, Path(data), database=database, extra=tuple(extra), python=python, load_args=load
        )
        try:
            wait_ready(servers)
            counters_before = [scrape_counters(s.url) for s in servers]
            load_before = os.getloadavg()[0]
            cpu_before = _tree_cpu(servers)
            db_before = database_cpu_seconds(database) if database else {}
            main_pids = {s.proc.pid for s in servers}
            client_before = time.process_time()
            with asyncio.Runner(loop_factory=_fast_loop_factory()) as runner:
                urls = [s.url for s in servers]
                result = runner.run(_run(urls, duels, seed, max_actions, seconds, pace, protocol))
            client_cpu = time.process_time() - client_before
            counters_after = [scrape_counters(s.url) for s in servers]
            if analysis:
                _wait_for_analyses(servers)
            cpu_after = _tree_cpu(servers)
            db_after = database_cpu_seconds(database) if database else {}
            result.load_before, result.load_after = load_before, os.getloadavg()[0]
            result.python, result.version, result.analysis = python, _version_of(python), analysis
            result.pace, result.protocol = pace, protocol
            result.unfinished_before = unfinished
            if cpu_after and result.actions:
                used = {pid: cpu_after[pid] - cpu_before.get(pid, 0.0) for pid in cpu_after}
                result.server_cpu_ms_per_action = sum(used.values()) * 1000 / result.actions
                workers = sum(v for pid, v in used.items() if pid not in main_pids)
                result.workers_cpu_ms_per_action = workers * 1000 / result.actions
                result.client_cpu_ms_per_action = client_cpu * 1000 / result.actions
            if db_after and result.actions:
                db_used = sum(v - db_before.get(pid, 0.0) for pid, v in db_after.items())
                result.database_cpu_ms_per_action = db_used * 1000 / result.actions
            result.counters_per_action = _counters_per_action(counters_before, counters_after)
            if analysis:
                kept = database or f"sqlite:///{Path(data) / 'web.sqlite3'}"
                result.analyses, result.analysis_cpu_s_per_game = _analyses_kept(kept)
            return result
        finally:
            stop_servers(servers)
