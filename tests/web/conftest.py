"""Fixtures of the web app's tests: a real server process on loopback, a WebSocket client, Chromium.

The server runs as ``python -m clashofdecks serve`` in a subprocess (as a player starts it), with its
own data directory; tests talk to it over real HTTP and WebSockets.  PostgreSQL tests use the server
named by ``CLASH_TEST_PG_URL`` (``.ci/run`` installs and starts one); on a developer machine without
it they are skipped with that reason, in CI (``CI`` set) its absence is an error.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

import sqlalchemy as sa
from websockets.sync.client import ClientConnection, connect

T = TypeVar("T")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The session of the identity that holds each seat, by data directory and the seat's token (a
#: restarted server keeps its sessions): a :class:`Client` given a known token plays as that
#: identity (seats belong to identities), one with new tokens as a new guest, which takes them.
SESSIONS: dict[str, dict[str, str]] = {}


class ServerProcess:
    """``clash serve`` in a subprocess; ``stop(kill=True)`` kills it like a crash."""

    def __init__(self, data_dir: Path, *args: str, database: str | None = None) -> None:
        self.data_dir = data_dir
        self.args = list(args)
        self.database = database
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"
        self.sessions = SESSIONS.setdefault(str(data_dir), {})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        env = {**os.environ, "CLASH_DATA_DIR": str(self.data_dir)}
        # Tests open many sockets and read many replays from one address and one identity: those
        # caps are loose unless a test sets its own (a later --limit wins).
        loose = ["--limit", "sockets_per_address=100000", "--limit", "sockets_per_identity=100000"]
        loose += ["--limit", "heavy_per_minute=0", "--limit", "socket_opens_per_minute=0"]
        cmd = [sys.executable, "-m", "clashofdecks", "serve", "--port", str(self.port), *loose, *self.args]
        if "--create-rate" not in self.args:  # tests create many games from one address
            cmd += ["--create-rate", "100000"]
        if "--analysis-iterations" not in self.args:  # every finished game is analysed: cheaply here
            cmd += ["--analysis-iterations", "30"]
        if "--login-rate" not in self.args:  # and sign in many times
            cmd += ["--login-rate", "100000"]
        if self.database:
            cmd += ["--database", self.database]
        self.data_dir.mkdir(parents=True, exist_ok=True)
        out = self.log.open("ab")
        self.proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/api/cards", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop(kill=True)  # not left running after the test that gave up on it
        raise RuntimeError("server did not start in 60 s")

    def stop(self, *, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    # HTTP helpers --------------------------------------------------------------

    def post(
        self,
        path: str,
        body: Any,
        *,
        raw: bytes | None = None,
        session: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """A POST with the session of ``session`` (None: the default guest of this server)."""
        data = raw if raw is not None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        if session is None and not path.startswith("/api/identities"):
            session = self.default_session()
        if session:
            sent["Authorization"] = f"Bearer {session}"
        req = urllib.request.Request(self.url + path, data=data, method="POST", headers=sent)
        return _open(req)

    def get(self, path: str, *, session: str | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {session}"} if session else {}
        return _open(urllib.request.Request(self.url + path, headers=headers))

    def guest(self) -> str:
        """A new guest identity's session id (the documented call for non-browser clients)."""
        status, body = self.post("/api/identities", {"bearer": True})
        assert status == 200, body
        return str(body["session"])

    def default_session(self) -> str:
        if not hasattr(self, "_default_session"):
            self._default_session = self.guest()
        return self._default_session

    def new_game(self, *, session: str | None = None, **options: Any) -> dict[str, Any]:
        """A new game created by ``session`` (None: a new guest); the answer gains ``session``."""
        session = session or self.guest()
        status, body = self.post("/api/games", options, session=session)
        assert status == 200, body
        for token in body["tokens"]:
            self.sessions[token] = session
        return {**body, "session": session}


def _open(req: urllib.request.Request) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


class Client:
    """A WebSocket client that keeps every frame it receives."""

    def __init__(
        self,
        server: ServerProcess,
        game: str,
        tokens: list[str],
        *,
        session: str | None = None,
        lang: str | None = None,
        rated: bool | None = None,
        hints: bool | None = None,
        name: str | None = None,
        presence: bool | None = None,
        **headers: str,
    ) -> None:
        if session is None:
            known = [server.sessions[t] for t in tokens if t in server.sessions]
            session = known[0] if known else server.guest()
        self.session = session
        if session:
            headers = {"Authorization": f"Bearer {session}", **headers}
        self._cm = connect(server.ws_url, additional_headers=headers or None, open_timeout=30)
        self.ws: ClientConnection = self._cm.__enter__()
        self.frames: list[dict[str, Any]] = []
        hello: dict[str, Any] = {"type": "hello", "game": game, "tokens": tokens}
        if lang is not None:
            hello["lang"] = lang
        if rated is not None:  # the invitee's answer to a duel offered as rated
            hello["rated"] = rated
        if hints is not None:  # the invitee's agreement to hints the creator offered
            hello["hints"] = hints
        if name is not None:  # the seat's name, for a seat taken now
            hello["name"] = name
        if presence is not None:  # presence messages asked for
            hello["presence"] = presence
        self.send(hello)
        self.state = self.wait_state()
        for token in tokens:
            server.sessions.setdefault(token, session)

    def send(self, msg: Any) -> None:
        self.ws.send(msg if isinstance(msg, str | bytes) else json.dumps(msg))

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        frame = json.loads(self.ws.recv(timeout=timeout))
        self.frames.append(frame)
        if frame["type"] == "state":
            self.state = frame
        return dict(frame)

    def wait_state(self, timeout: float = 30) -> dict[str, Any]:
        while True:
            frame = self.recv(timeout)
            if frame["type"] == "state":
                return frame
            if frame["type"] == "error":
                raise AssertionError(f"error frame: {frame}")

    def expect_error(self, code: str, timeout: float = 10) -> dict[str, Any]:
        while True:
            frame = self.recv(timeout)
            if frame["type"] == "error":
                assert frame["code"] == code, frame
                return frame

    def act(self, action: str) -> dict[str, Any]:
        self.send({"type": "act", "action": action, "index": self.state["index"]})
        return self.wait_state()

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("web"), "--rate", "200").start()
    yield proc
    proc.stop()


def pg_url() -> str | None:
    url = os.environ.get("CLASH_TEST_PG_URL")
    if not url and os.environ.get("CI"):
        pytest.fail("CLASH_TEST_PG_URL is not set: .ci/run must start PostgreSQL for the storage tests")
    return url


def pg_url_or_skip() -> str:
    url = pg_url()
    if not url:
        pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server)")
    return url


def reset_pg(url: str) -> None:
    """An empty database: every table of every revision (and any a newer branch adds) dropped."""
    from clashofdecks.web.store import normalize_url

    engine = sa.create_engine(normalize_url(url))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP SCHEMA public CASCADE"))
        conn.execute(sa.text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each test on both databases: a new SQLite file, and the PostgreSQL database emptied before and
    after (skipped without ``CLASH_TEST_PG_URL``)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    url = pg_url_or_skip()
    reset_pg(url)
    yield url
    reset_pg(url)


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    """The PostgreSQL database of a module's server processes, emptied before and after the module."""
    url = pg_url_or_skip()
    reset_pg(url)
    yield url
    reset_pg(url)


@pytest.fixture(scope="module")
def pg_processes(
    pg_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., list[ServerProcess]]]:
    """``start(n, *args)``: ``n`` server processes on the module's PostgreSQL database, each with its
    own data directory (nothing shared but the database); every one is stopped after the module."""
    started: list[ServerProcess] = []

    def start(n: int, *args: str) -> list[ServerProcess]:
        procs = []
        for _ in range(n):
            proc = ServerProcess(tmp_path_factory.mktemp("proc"), *args, database=pg_database)
            started.append(proc)
            procs.append(proc.start())
        return procs

    yield start
    for proc in started:
        proc.stop()


def run_async(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """``asyncio.run`` in a thread of its own: once a Playwright (sync API) test has run in this
    session, the test thread has a running event loop, and ``asyncio.run`` refuses to nest in it.
    The coroutine's exception is raised here; ``timeout``: a hang guard (TimeoutError)."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        return pool.submit(asyncio.run, coro).result(timeout)
    finally:
        pool.shutdown(wait=False)


def sign_in(context: Any, server: ServerProcess, session: str) -> None:
    """A browser context signed in as the identity of ``session`` (its HttpOnly session cookie)."""
    context.add_cookies([{"name": "clash_session", "value": session, "url": server.url, "httpOnly": True}])


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if shutil.which(CHROMIUM) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run must apt-get install chromium")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright (dev extra) is not installed")
    sync_playwright = sync_api.sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def through_first_turns(a: Client, b: Client) -> None:
    """Both players of a duel make their setup decisions and end their first turn of the play
    phase (``end`` whenever it is legal): a rated game ended after this counts (the abort rule,
    docs/web.md "Fair play in rated games")."""
    while a.state.get("can_abort") or b.state.get("can_abort"):
        while a.state["index"] != b.state["index"]:
            (a if a.state["index"] < b.state["index"] else b).wait_state()
        mover, other = (a, b) if a.state["legal"] else (b, a)
        legal = mover.state["legal"]
        mover.act("end" if "end" in legal else legal[0])
        other.wait_state()
