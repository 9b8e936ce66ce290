"""``clash bench --web``: the web server under load (a measurement, not a timed test).

It starts ``clash serve`` in a subprocess on loopback with its default SQLite store (in a temporary
data directory) and rate limits above the bots' pace, creates ``duels`` friend duels over HTTP, and
connects two client bots per duel over WebSockets.  A bot answers every frame that gives it a
decision with a random legal action at once; the latency of an action is the time from sending it
to receiving the state frame that acknowledges it.  Reports actions/s and p50/p99 latency.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


async def _bot(
    ws_url: str,
    game: str,
    token: str,
    rng: random.Random,
    latencies: list[float],
    errors: list[str],
    max_actions: int,
    deadline: float,
) -> bool:
    """Play one seat until the game ends; True when it ended."""
    async with connect(ws_url, max_size=1 << 22) as ws:
        await ws.send(json.dumps({"type": "hello", "game": game, "tokens": [token]}))
        sent_at: float | None = None
        sent_index = -1
        while time.monotonic() < deadline:
            frame = json.loads(
                await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            )
            if frame["type"] == "error":
                if frame["code"] != "stale":
                    errors.append(f"{frame['code']}: {frame['message']}")
                sent_at = None
                continue
            if frame["type"] != "state":
                continue
            if sent_at is not None and frame["index"] > sent_index:
                latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if frame["result"] is not None:
                return True
            if frame["legal"] and sent_at is None and frame["index"] < max_actions:
                sent_index = frame["index"]
                sent_at = time.perf_counter()
                action = rng.choice(frame["legal"])
                await ws.send(json.dumps({"type": "act", "action": action, "index": sent_index}))
            elif frame["index"] >= max_actions:
                return False
    return False


async def _run(url: str, duels: int, seed: int, max_actions: int, seconds: float) -> WebBenchResult:
    loop = asyncio.get_running_loop()
    games = []
    for _ in range(duels):
        games.append(
            await loop.run_in_executor(None, _post, url + "/api/games", {"kind": "friend", "format": "draft"})
        )
    ws_url = url.replace("http://", "ws://") + "/ws"
    latencies: list[float] = []
    errors: list[str] = []
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    tasks = []
    for g in games:
        for token in (g["tokens"][0], g["invite"].split("#t=")[1]):
            bot_rng = random.Random(rng.getrandbits(32))
            tasks.append(_bot(ws_url, g["id"], token, bot_rng, latencies, errors, max_actions, deadline))
    start = time.perf_counter()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.perf_counter() - start
    finished = 0
    for i in range(0, len(results), 2):
        pair = results[i : i + 2]
        for r in pair:
            if isinstance(r, BaseException):
                errors.append(f"bot failed: {r!r}")
        if any(r is True for r in pair):
            finished += 1
    ms = sorted(x * 1000 for x in latencies)

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
        max_ms=ms[-1] if ms else 0.0,
        errors=errors[:20],
    )


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux ``/proc``), or None elsewhere."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        fields = text.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_web_bench(
    *, duels: int = 100, seed: int = 1, max_actions: int = 2000, seconds: float = 300.0
) -> WebBenchResult:
    """Start a server, play ``duels`` bot duels on it, stop it; see the module docstring."""
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="clash-web-bench-") as data:
        env = {**os.environ, "CLASH_DATA_DIR": data}
        cmd = [sys.executable, "-m", "clashofdecks", "serve", "--port", str(port)]
        cmd += ["--rate", "10000", "--create-rate", "100000", "--agent-workers", "0"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        try:
            started = time.monotonic()
            while True:
                if proc.poll() is not None:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"the server did not start: {err[-500:]}")
                try:
                    with urllib.request.urlopen(url + "/api/cards", timeout=1):
                        break
                except OSError:
                    if time.monotonic() - started > 60:
                        raise RuntimeError("the server did not start in 60 s") from None
                    time.sleep(0.1)
            cpu_before = _cpu_seconds(proc.pid)
            client_before = time.process_time()
            result = asyncio.run(_run(url, duels, seed, max_actions, seconds))
            client_cpu = time.process_time() - client_before
            cpu = _cpu_seconds(proc.pid)
            if cpu is not None and cpu_before is not None and result.actions:
                result.server_cpu_ms_per_action = (cpu - cpu_before) * 1000 / result.actions
            if result.actions:
                result.client_cpu_ms_per_action = client_cpu * 1000 / result.actions
            return result
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
