"""``clash bench --attack``: what one abusive client does to everyone else (issue 33; docs/web.md,
"Threats").  A measurement, not a timed test.

It starts ``clash serve`` on loopback with its default caps (only ``--metrics-allow`` added) and an
honest player on other loopback addresses (127.0.0.2-9: the per-address limits are the
attacker's alone) playing duels against the AI, acting at once on each of its turns.  It measures the honest
player's action latency (its ``act`` sent to the state frame that acknowledges it) and the AI's
move time (the frame that hands the move to the AI to the frame after its action) for
``seconds`` without an attack, then for ``seconds`` under each attack in turn, each attack run
by a process of its own from 127.0.0.1:

* ``record``: imports of a 1 MiB record (~173,000 actions) and replays of the longest record the
  server keeps, two requests at a time;
* ``flood 4`` / ``flood 40``: identity-less sockets sending messages as fast as they can,
  reconnecting when closed;
* ``hints 12``: twelve sockets of one identity asking hints on one solo game;
* ``idle 1000``: a thousand connections that send half a request and wait, reopened when closed.

Every run is bounded in time: each phase lasts ``seconds``, each attacker is stopped at its end.
The server's counters of refused, dropped and timed-out work are read from /metrics around each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Callable, Coroutine
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from .serveprocs import raise_open_file_limit, start_servers, stop_servers, wait_ready

#: The honest players' addresses (the attacker's is 127.0.0.1): Linux routes all of 127/8 to
#: loopback.  One for each new game in turn, as many players would come from many addresses: one
#: alone, playing at once, would reach its own address's 20 new games a minute.
HONEST_ADDRESSES: Final = tuple(f"127.0.0.{n}" for n in range(2, 10))


@dataclass(frozen=True)
class AttackSizes:
    """The attacks' sizes: the issue's (``full``), or tiny ones for the test that keeps this working."""

    record_bytes: int = 1 << 20
    floods: tuple[int, ...] = (4, 40)
    hint_sockets: int = 12
    idle_sockets: int = 1000

    @classmethod
    def tiny(cls) -> AttackSizes:
        return cls(record_bytes=4096, floods=(2,), hint_sockets=2, idle_sockets=5)


@dataclass
class PhaseResult:
    """One phase: the honest player's figures while the attack ran (``attack`` "none": without)."""

    attack: str
    actions: int = 0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    ai_moves: int = 0
    ai_p50_ms: float = 0.0
    ai_max_ms: float = 0.0
    #: Requests, messages or connections the attacker made.
    attack_requests: int = 0
    #: The server's ``clash_work_refused/dropped/timed_out`` and socket counts during the phase.
    refused: float = 0.0
    dropped: float = 0.0
    timed_out: float = 0.0
    errors: list[str] = field(default_factory=list)


@dataclass
class AttackBenchResult:
    seconds: float
    sizes: AttackSizes
    phases: list[PhaseResult]
    load_before: float
    load_after: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------ HTTP and WebSocket, plainly


async def http(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    session: str | None = None,
    source: str = "127.0.0.1",
) -> tuple[int, Any]:
    """One HTTP/1.1 request on a connection of its own (from ``source``); (status, parsed JSON)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        if session:
            head += f"Authorization: Bearer {session}\r\n"
        writer.write(head.encode() + b"\r\n" + body)
        raw = await reader.read()
    finally:
        writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    _head, _, payload = rest.partition(b"\r\n\r\n")
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = None
    return int(status_line.split()[1]) if status_line else 0, parsed


async def guest(port: int, source: str = "127.0.0.1") -> str:
    status, body = await http(port, "POST", "/api/identities", b'{"bearer": true}', source=source)
    if status != 200:
        raise RuntimeError(f"no identity: {status} {body}")
    return str(body["session"])


# ------------------------------------------------------------------ the honest player


async def honest_player(port: int, seconds: float, result: PhaseResult) -> None:
    """Play duels against the AI for ``seconds``, recording action latencies and AI move times."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    session = await guest(port, HONEST_ADDRESSES[0])
    rng = random.Random(1)
    games = 0
    latencies: list[float] = []
    ai_times: list[float] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        body = json.dumps({"kind": "ai", "format": "precon", "ai": "casual"}).encode()
        address = HONEST_ADDRESSES[games % len(HONEST_ADDRESSES)]
        games += 1
        status, game = await http(port, "POST", "/api/games", body, session, address)
        if status != 200:
            result.errors.append(f"new game: {status} {game}")
            await asyncio.sleep(1)
            continue
        url = f"ws://127.0.0.1:{port}/ws"
        try:
            async with connect(
                url,
                additional_headers={"Authorization": f"Bearer {session}"},
                local_addr=(address, 0),
                max_size=None,
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "game": game["id"], "tokens": game["tokens"]}))
                await _play(ws, rng, deadline, latencies, ai_times)
        except (ConnectionClosed, OSError, TimeoutError) as exc:
            result.errors.append(f"honest socket: {exc!r}")
    ms = sorted(x * 1000 for x in latencies)
    ai = sorted(x * 1000 for x in ai_times)
    result.actions, result.ai_moves = len(ms), len(ai)
    if ms:
        result.p50_ms, result.p99_ms = statistics.median(ms), ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    if ai:
        result.ai_p50_ms, result.ai_max_ms = statistics.median(ai), ai[-1]


async def _play(
    ws: Any, rng: random.Random, deadline: float, latencies: list[float], ai_times: list[float]
) -> None:
    """One game's frames until it ends or the phase does."""
    sent_at: float | None = None
    sent_index = -1
    previous: dict[str, Any] | None = None
    previous_at = 0.0
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return
        try:
            frame = json.loads(await asyncio.wait_for(ws.recv(), left))
        except TimeoutError:
            return
        now = time.perf_counter()
        if frame.get("type") != "state":
            if frame.get("type") == "error":
                sent_at = None
            continue
        if sent_at is not None and frame["index"] > sent_index:
            latencies.append(now - sent_at)
            sent_at = None
        me = frame["seat"]
        if (
            previous is not None
            and frame["index"] > previous["index"]
            and previous["to_move"] not in (me, -1)
        ):
            ai_times.append(now - previous_at)  # the AI moved: from the frame that gave it the move
        previous, previous_at = frame, now
        if frame["result"] is not None:
            return
        if frame["legal"] and sent_at is None:
            sent_at, sent_index = time.perf_counter(), frame["index"]
            await ws.send(
                json.dumps({"type": "act", "action": rng.choice(frame["legal"]), "index": sent_index})
            )


# ------------------------------------------------------------------ the attacks (each in a process)


async def _record_bomb(port: int, size: int, count: Callable[[], None]) -> None:
    session = await guest(port)
    actions = max(1, (size - 100) // 7)  # '"end", ' is 7 bytes: the record is close to ``size``
    head = {"record_version": 1, "mode": "duel", "format": "precon", "seed": 1}
    bomb = json.dumps({**head, "actions": ["end"] * actions}).encode()
    long_game = await _longest_import(port, session)

    async def imports() -> None:
        while True:
            with contextlib.suppress(OSError):  # refused before its body was read: a reset
                await http(port, "POST", "/api/import", bomb, session)
            count()

    async def replays() -> None:
        while True:
            with contextlib.suppress(OSError):
                await http(port, "GET", f"/api/games/{long_game or '0' * 24}/replay?from=0", session=session)
            count()

    await asyncio.gather(imports(), replays())


async def _longest_import(port: int, session: str) -> str | None:
    """A record of the most actions the server keeps (``record_actions``, 2,000), imported."""
    from ...options import Ruleset
    from ...session import GameSession, Seat

    s = GameSession.new(
        mode="duel",
        format="precon",
        seed=3,
        participants=[Seat.remote("a"), Seat.remote("b")],
        ruleset=Ruleset(max_turns=None),
        allow_undo_between_people=True,
    )
    while len(s.steps) < 2000:
        legal = s.legal_actions(s.to_move)
        s.act(s.to_move, "end" if "end" in legal else legal[0])
    status, body = await http(port, "POST", "/api/import", json.dumps(s.record().to_dict()).encode(), session)
    return str(body["id"]) if status == 200 else None


async def _flood(port: int, sockets: int, count: Callable[[], None]) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    async def one() -> None:
        while True:
            try:
                async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
                    while True:
                        await ws.send('{"type": "ping", "id": 1}')
                        count()
                        await asyncio.sleep(0)  # let the client read: it sees the close then
            except (ConnectionClosed, InvalidStatus, OSError):
                await asyncio.sleep(0.01)

    await asyncio.gather(*(one() for _ in range(sockets)))


async def _hints(port: int, sockets: int, count: Callable[[], None]) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    session = await guest(port)
    body = json.dumps({"kind": "solo", "format": "precon", "deck": 1}).encode()
    _status, game = await http(port, "POST", "/api/games", body, session)

    async def one(first: bool) -> None:
        while True:
            try:
                async with connect(
                    f"ws://127.0.0.1:{port}/ws", additional_headers={"Authorization": f"Bearer {session}"}
                ) as ws:
                    await ws.send(json.dumps({"type": "hello", "game": game["id"], "tokens": game["tokens"]}))
                    await asyncio.gather(_ask_hints(ws, count), _past_setup(ws, first))
            except (ConnectionClosed, InvalidStatus, OSError):
                await asyncio.sleep(0.5)

    await asyncio.gather(*(one(i == 0) for i in range(sockets)))


async def _ask_hints(ws: Any, count: Callable[[], None]) -> None:
    while True:
        await ws.send('{"type": "hint"}')
        count()
        await asyncio.sleep(0.06)  # within the socket's message rate: hints, not a flood


async def _past_setup(ws: Any, plays: bool) -> None:
    """Read every frame; the first socket plays the setup through (hints come after it)."""
    while True:
        frame = json.loads(await ws.recv())
        if plays and frame.get("type") == "state" and frame.get("setup") and frame.get("legal"):
            await ws.send(json.dumps({"type": "act", "action": frame["legal"][0], "index": frame["index"]}))


async def _idle(port: int, sockets: int, count: Callable[[], None]) -> None:
    raise_open_file_limit()

    async def one() -> None:
        while True:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"GET /api/cards HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never the blank line
                count()
                await reader.read()  # until the server closes it
                writer.close()
            except OSError:
                await asyncio.sleep(0.5)

    await asyncio.gather(*(one() for _ in range(sockets)))


_ATTACKS: Final[dict[str, Callable[[int, int, Callable[[], None]], Coroutine[Any, Any, None]]]] = {
    "record": _record_bomb,
    "flood": _flood,
    "hints": _hints,
    "idle": _idle,
}


def _attacker(kind: str, port: int, size: int, counter: Any) -> None:
    """The attacker process's body: the attack until it is terminated."""

    def count() -> None:
        counter.value += 1  # a lost update now and then does not matter: the figure is a rough size

    asyncio.run(_ATTACKS[kind](port, size, count))


# ------------------------------------------------------------------ the phases


def _counters(url: str) -> dict[str, float]:
    """The sums of the server's refused, dropped and timed-out work counters."""
    with urllib.request.urlopen(url + "/metrics", timeout=30) as r:
        text = r.read().decode()
    sums = {"refused": 0.0, "dropped": 0.0, "timed_out": 0.0}
    for line in text.splitlines():
        for name in sums:
            if line.startswith(f"clash_work_{name}_total"):
                sums[name] += float(line.rsplit(" ", 1)[1])
    return sums


def _phase(url: str, port: int, name: str, kind: str | None, size: int, seconds: float) -> PhaseResult:
    result = PhaseResult(name)
    ctx = multiprocessing.get_context("spawn")
    counter = ctx.Value("q", 0, lock=False)
    attacker = None
    if kind is not None:
        attacker = ctx.Process(target=_attacker, args=(kind, port, size, counter), daemon=True)
        attacker.start()
        time.sleep(min(3.0, seconds / 3))  # the attack under way before the measurement starts
    before = _counters(url)
    try:
        asyncio.run(honest_player(port, seconds, result))
    finally:
        if attacker is not None:
            if attacker.exitcode is not None:
                result.errors.append(f"the attacker stopped early (exit code {attacker.exitcode})")
            attacker.terminate()
            attacker.join(10)
            if attacker.is_alive():
                attacker.kill()
                attacker.join()
    after = _counters(url)
    result.refused, result.dropped, result.timed_out = (
        after[k] - before[k] for k in ("refused", "dropped", "timed_out")
    )
    result.attack_requests = int(counter.value)
    result.errors = result.errors[:10]
    return result


def run_attack_bench(sizes: AttackSizes | None = None, seconds: float = 15.0) -> AttackBenchResult:
    """Start a server, measure the honest player without an attack and under each; stop it."""
    sizes = sizes or AttackSizes()
    raise_open_file_limit()
    plan: list[tuple[str, str | None, int]] = [("none", None, 0), ("record", "record", sizes.record_bytes)]
    plan += [(f"flood {n}", "flood", n) for n in sizes.floods]
    plan += [(f"hints {sizes.hint_sockets}", "hints", sizes.hint_sockets)]
    plan += [(f"idle {sizes.idle_sockets}", "idle", sizes.idle_sockets)]
    with tempfile.TemporaryDirectory(prefix="clash-attack-bench-") as data:
        servers = start_servers(1, Path(data), extra=("--metrics-allow", "127.0.0.1"), load_args=())
        try:
            wait_ready(servers)
            server = servers[0]
            load_before = os.getloadavg()[0]
            phases = [_phase(server.url, server.port, *step, seconds) for step in plan]
            return AttackBenchResult(seconds, sizes, phases, load_before, os.getloadavg()[0])
        finally:
            stop_servers(servers)


__all__ = ["AttackBenchResult", "AttackSizes", "PhaseResult", "run_attack_bench"]
