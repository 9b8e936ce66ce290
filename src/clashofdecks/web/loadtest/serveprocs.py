"""Several ``clash serve`` processes on loopback, for the measurements (``clash bench --web``, the
Locust load test): started, waited for, killed like a crash, stopped.

Each process gets a free port and its log file; they share one store when ``database`` names one
(PostgreSQL for more than one process), else each uses the SQLite file of ``CLASH_DATA_DIR``.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

#: Rate limits far above any load generator's pace: the load comes from one address.
LOAD_ARGS = (
    *("--rate", "10000", "--create-rate", "100000", "--login-rate", "100000"),
    # One address and few identities open every socket: the per-address and per-identity caps off.
    *(
        "--limit",
        "sockets_per_address=0",
        "--limit",
        "sockets_per_identity=0",
        "--limit",
        "heavy_per_minute=0",
        "--limit",
        "socket_opens_per_minute=0",
    ),
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_open_file_limit() -> tuple[int, int]:
    """Raise this process's open-file limit to its hard limit, as a deployment would (each player is
    a socket); children started afterwards inherit it.  Returns the (soft, hard) limits now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux ``/proc``), or None elsewhere."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        fields = text.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def tree_cpu_seconds(pid: int) -> dict[int, float]:
    """CPU seconds so far of ``pid`` and of every process below it (its worker processes), by
    process id (Linux ``/proc``; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    out: dict[int, float] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        used = cpu_seconds(p)
        if used is not None:
            out[p] = used
        todo.extend(children.get(p, ()))
    return out


def database_cpu_seconds(database: str) -> dict[int, float]:
    """CPU seconds so far of the PostgreSQL server processes serving ``database`` (a
    ``postgresql://…/NAME`` URL on this machine: the backends whose title names NAME), by process id;
    empty elsewhere or for SQLite."""
    name = database.rsplit("/", 1)[-1].split("?", 1)[0]
    if not database.startswith(("postgresql", "postgres")) or not Path("/proc").is_dir():
        return {}
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("postgres: ") and f" {name} " in title:
            used = cpu_seconds(int(entry.name))
            if used is not None:
                out[int(entry.name)] = used
    return out


@dataclass
class ServeProcess:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, lines: int = 3) -> str:
        """The last lines of the server's log (its error, without the traceback above it)."""
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return " | ".join([line for line in text.splitlines() if line.strip()][-lines:])


def start_servers(
    count: int,
    data_dir: Path,
    *,
    database: str | None = None,
    extra: tuple[str, ...] = (),
    python: str = sys.executable,
    load_args: tuple[str, ...] = LOAD_ARGS,
) -> list[ServeProcess]:
    """Start ``count`` servers; the first is waited for before the others start, since each server
    migrates the database at its start and two first migrations of an empty PostgreSQL database at
    once collide (as in a deployment: one process migrates, then the others start).  The others are
    not yet waited for: :func:`wait_ready`.  ``python``: the interpreter (another venv's for a
    baseline version)."""
    env = {**os.environ, "CLASH_DATA_DIR": str(data_dir)}
    servers = []
    for i in range(count):
        port = free_port()
        cmd = [python, "-m", "clashofdecks", "serve", "--port", str(port), *load_args, *extra]
        if database is not None:
            cmd += ["--database", database]
        log = data_dir / f"server-{i}.log"
        with log.open("ab") as out:
            proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        servers.append(ServeProcess(proc, port, log))
        if i == 0:
            try:
                wait_ready(servers)
            except RuntimeError:
                stop_servers(servers)
                raise
    return servers


def wait_ready(servers: list[ServeProcess], timeout: float = 60.0) -> None:
    """Wait until every server answers; RuntimeError (with its log's end) if one exits or is late."""
    deadline = time.monotonic() + timeout
    for server in servers:
        while True:
            if not server.alive():
                raise RuntimeError(f"the server did not start: {server.log_tail()}")
            try:
                with urllib.request.urlopen(server.url + "/api/cards", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start in {timeout:g} s") from None
                time.sleep(0.1)


def kill(server: ServeProcess) -> None:
    """SIGKILL, like a crash: nothing of the server runs after this."""
    if server.alive():
        server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()


def stop_servers(servers: list[ServeProcess]) -> None:
    for server in servers:
        if server.alive():
            server.proc.terminate()
    for server in servers:
        try:
            server.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            kill(server)
