"""The server's cost per action, counted instead of timed (issue 35; like Django's assertNumQueries):
SQL statements, frames and their bytes per action per seat, sentences rendered -- read from the
``clash_*_total`` counters of /metrics around a stretch of play, for a duel, a solo game and a duel
whose seats sit on two processes of one PostgreSQL database.  A change that makes an action cost
more statements, frames or renders fails here, on any machine, however loaded.

The watcher's rounds (heartbeat, scans) are put off for the test (``CLASH_TEST_WATCH_SECONDS``), so
every statement counted is an action's.  Frames and bytes are also checked against what the clients
received; the sentences against what the frames show (each rendered once per position and language,
whoever reads it).
"""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_several_processes import invite_token, joined, wait_index

from conftest import Client, ServerProcess

#: The counters /metrics exposes (web/metrics.py), without ``clash_`` and ``_total``.
NAMES = (
    "actions_accepted",
    "sql_statements",
    "frames_sent",
    "frame_bytes_sent",
    "sentence_renders",
    "position_dumps",
)

#: Pinned costs (measured when these tests were written; lower them when an optimisation lands).
#: SQL statements per action: the action's INSERT and the game's revision UPDATE (one process).
SQL_PER_ACTION_ONE_PROCESS = 2
#: Two processes on PostgreSQL: the UPDATE, the INSERT and the change's NOTIFY in one statement (a
#: lone action, committed alone: web/store_games.py ``append_alone``; three before).
SQL_PER_ACTION_TWO_PROCESSES = 1
#: Bytes of one state frame, at most (a duel in English; the frames carry whole views, version 1).
MAX_BYTES_PER_FRAME = 4_000

ARGS = ("--rate", "1000", "--metrics-allow", "127.0.0.1", "--no-auto-analysis", "--access-log", "off")


class CountingClient(Client):
    """A client that counts the frames it receives and their bytes."""

    received_frames = 0
    received_bytes = 0

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        raw = self.ws.recv(timeout=timeout)
        self.received_frames += 1
        self.received_bytes += len(raw.encode() if isinstance(raw, str) else raw)
        frame = json.loads(raw)
        self.frames.append(frame)
        if frame["type"] == "state":
            self.state = frame
        return dict(frame)

    def settle(self) -> None:
        """Receive every frame sent so far (a ping's answer comes after them), then count afresh."""
        self.send({"type": "ping", "id": 1})
        while self.recv()["type"] != "pong":
            pass
        self.received_frames = self.received_bytes = 0


def counters(procs: list[ServerProcess]) -> dict[str, float]:
    """The cost counters of ``procs``, summed."""
    total = dict.fromkeys(NAMES, 0.0)
    for proc in procs:
        with urllib.request.urlopen(proc.url + "/metrics", timeout=30) as r:
            for line in r.read().decode().splitlines():
                name, _, value = line.partition(" ")
                short = name.removeprefix("clash_").removesuffix("_total")
                if name.startswith("clash_") and short in total:
                    total[short] += float(value)
    return total


def grown(before: dict[str, float], after: dict[str, float]) -> dict[str, int]:
    return {name: round(after[name] - before[name]) for name in NAMES}


def play(
    movers: list[CountingClient], readers: list[CountingClient], count: int, seed: int
) -> list[dict[str, Any]]:
    """``count`` random actions, each sent by the mover that has legal actions and waited for on
    every reader; the state frames of the first reader after each."""
    rng = random.Random(seed)
    seen = []
    for _ in range(count):
        mover = next(c for c in movers if c.state["legal"])
        index = mover.state["index"]
        mover.send({"type": "act", "action": rng.choice(mover.state["legal"]), "index": index})
        for reader in readers:
            wait_index(reader, index + 1)
        seen.append(readers[0].state)
    assert readers[0].state["result"] is None  # still going: no end of game in the stretch counted
    return seen


@pytest.fixture
def quiet_watcher(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLASH_TEST_WATCH_SECONDS", "3600")


@pytest.fixture
def one_process(quiet_watcher: None, tmp_path: Path) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path, *ARGS).start()
    yield proc
    proc.stop()


def test_a_duel_costs_two_statements_one_frame_per_seat_and_each_sentence_once(
    one_process: ServerProcess,
) -> None:
    server = one_process
    game = server.new_game(kind="friend", format="precon")
    a = CountingClient(server, game["id"], game["tokens"], session=game["session"])
    b = CountingClient(server, game["id"], [invite_token(game)], session=server.guest())
    joined(a)
    watcher = CountingClient(server, game["id"], [], session=server.guest())  # a spectator, same language
    while not (a.state["legal"] or b.state["legal"]):
        a.wait_state()
    clients = [a, b, watcher]
    for c in clients:
        wait_index(c, a.state["index"])
        c.settle()
    before = counters([server])
    frames = play([a, b], clients, 12, seed=5)
    cost = grown(before, counters([server]))
    assert cost["actions_accepted"] == 12
    assert cost["sql_statements"] == 12 * SQL_PER_ACTION_ONE_PROCESS
    assert (
        cost["frames_sent"] == 12 * 3 == sum(c.received_frames for c in clients)
    )  # one per action per reader
    assert cost["frame_bytes_sent"] == sum(c.received_bytes for c in clients)
    assert cost["frame_bytes_sent"] <= 12 * 3 * MAX_BYTES_PER_FRAME
    # Each action: its events once (one language), the mover's labels and prompt once; the line of
    # the seat that waits and of the spectator ("waiting for …") once per mover, whatever the position.
    events = sum(len(f["events"]) for f in frames)
    prompts = 12 + _new_waiting_lines(clients, 12)
    assert prompts < 2 * 12  # not one per reader and position any more
    expected = events + prompts + sum(_labels_of_position(a, b, i) for i in range(12))
    assert cost["sentence_renders"] == expected
    # The position is dumped once per action for the three readers' views (not once per reader).
    assert cost["position_dumps"] == 12
    # A page opening the game now renders nothing: the log's events and a spectator's prompt are made.
    # Its one statement: the identity of its session, read once for the connection.
    session = server.guest()
    late_before = counters([server])
    late = CountingClient(server, game["id"], [], session=session)
    assert len(late.state["log"]) >= events
    late_cost = grown(late_before, counters([server]))
    assert late_cost["sentence_renders"] == 0 and late_cost["sql_statements"] == 1
    assert late_cost["position_dumps"] == 1
    for c in (*clients, late):
        c.close()


def _labels_of_position(a: CountingClient, b: CountingClient, i: int) -> int:
    """The labels the seat to move was shown after the i-th action counted (from the frames kept)."""
    states = [[f for f in c.frames if f["type"] == "state"] for c in (a, b)]
    return sum(len(s[-12 + i]["labels"]) for s in states)


def _new_waiting_lines(clients: list[CountingClient], window: int) -> int:
    """The "waiting for …" lines the last ``window`` state frames of ``clients`` (readers of one
    process, one language) showed that no frame before them had shown: each is rendered once."""
    seen: set[tuple[int, bool]] = set()
    new: set[tuple[int, bool]] = set()
    for c in clients:
        states = [f for f in c.frames if f["type"] == "state"]
        for i, f in enumerate(states):
            if f["result"] is None and f["to_move"] in (0, 1) and f["seat"] != f["to_move"]:
                (seen if i < len(states) - window else new).add((f["to_move"], f["thinking"]))
    return len(new - seen)


def test_a_solo_game_costs_two_statements_and_one_frame_per_action(one_process: ServerProcess) -> None:
    server = one_process
    game = server.new_game(kind="solo", format="precon")
    player = CountingClient(server, game["id"], game["tokens"], session=game["session"])
    while not player.state["legal"]:
        player.wait_state()
    player.settle()
    before = counters([server])
    frames = play([player], [player], 10, seed=3)
    cost = grown(before, counters([server]))
    assert cost["actions_accepted"] == 10
    assert cost["sql_statements"] == 10 * SQL_PER_ACTION_ONE_PROCESS
    assert cost["frames_sent"] == 10 == player.received_frames
    assert cost["frame_bytes_sent"] == player.received_bytes <= 10 * MAX_BYTES_PER_FRAME
    states = [f for f in player.frames if f["type"] == "state"][-10:]
    # The player's prompt when it is to move; a "waiting for …" line once per mover.
    movers = sum(f["seat"] == f["to_move"] for f in states)
    expected = sum(len(f["events"]) + len(f["labels"]) for f in states) + movers
    expected += _new_waiting_lines([player], 10)
    assert cost["sentence_renders"] == expected
    assert cost["position_dumps"] == 10
    assert len(frames) == 10
    player.close()


@pytest.fixture(scope="module")
def quiet_pair(pg_processes: Callable[..., list[ServerProcess]]) -> Iterator[list[ServerProcess]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLASH_TEST_WATCH_SECONDS", "3600")
        yield pg_processes(2, *ARGS)


def test_a_duel_across_two_processes_costs_one_statement_and_one_frame_per_seat(
    quiet_pair: list[ServerProcess],
) -> None:
    procs = quiet_pair
    game = procs[0].new_game(kind="friend", format="precon")
    a = CountingClient(procs[0], game["id"], game["tokens"], session=game["session"])
    b = CountingClient(procs[1], game["id"], [invite_token(game)], session=procs[1].guest())
    joined(a)
    while not (a.state["legal"] or b.state["legal"]):
        a.wait_state()
    wait_index(b, a.state["index"])
    for c in (a, b):
        c.settle()
    before = counters(procs)
    frames = play([a, b], [a, b], 12, seed=9)
    cost = grown(before, counters(procs))
    assert cost["actions_accepted"] == 12  # counted where the action was made
    assert cost["sql_statements"] == 12 * SQL_PER_ACTION_TWO_PROCESSES
    assert cost["frames_sent"] == 12 * 2 == a.received_frames + b.received_frames
    assert cost["frame_bytes_sent"] == a.received_bytes + b.received_bytes <= 12 * 2 * MAX_BYTES_PER_FRAME
    # Each process renders the events once for its page and the mover's labels; the mover's
    # process its prompt, the other its "waiting for …" line once per mover.
    events = sum(len(f["events"]) for f in frames)
    prompts = 12 + _new_waiting_lines([a], 12) + _new_waiting_lines([b], 12)
    expected = 2 * events + prompts + sum(_labels_of_position(a, b, i) for i in range(12))
    assert cost["sentence_renders"] == expected
    assert cost["position_dumps"] == 2 * 12  # each process once per action, for its seat's page
    a.close()
    b.close()
