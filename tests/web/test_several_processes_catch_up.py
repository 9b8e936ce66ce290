"""How a process catches up with a change another one stored (docs/web.md, "Several processes"): an
action whose notification carries it is applied with no read of the store, and gives the same
state as a copy loaded from the store; a gap in the notifications, or an undo made elsewhere, falls
back to a read and ends right; a malformed or forged message on the channel is logged and ignored.
The catch-ups are counted in /metrics (``clash_catch_ups_total`` by ``how``).  Real processes,
real PostgreSQL; skipped without ``CLASH_TEST_PG_URL``.
"""

from __future__ import annotations

import json
import random
import re
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from test_several_processes import act, invite_token, joined, stored_actions, wait_index

from clashofdecks.web.games import session_of_row
from clashofdecks.web.store import CHANGES_CHANNEL, ActionWrite, normalize_url, open_store
from conftest import Client, ServerProcess

HOWS = ("notified", "read", "whole")


@pytest.fixture(scope="module")
def pair(pg_processes: Callable[..., list[ServerProcess]]) -> list[ServerProcess]:
    """Two processes on the module's database whose metrics this test may read."""
    return pg_processes(2, "--metrics-allow", "127.0.0.1")


def catch_ups(proc: ServerProcess) -> dict[str, float]:
    with urllib.request.urlopen(proc.url + "/metrics", timeout=30) as r:
        text = r.read().decode()
    counts = {}
    for how in HOWS:
        match = re.search(rf'^clash_catch_ups_total{{how="{how}"}} (\S+)$', text, re.M)
        counts[how] = 0.0 if match is None else float(match.group(1))
    return counts


def grown(before: dict[str, float], after: dict[str, float]) -> dict[str, int]:
    return {how: int(after[how] - before[how]) for how in HOWS}


def same_view(procs: list[ServerProcess], game: str) -> None:
    """A spectator opening the game on each process is shown the same: the copy a process caught up
    in memory is the game the store holds (a process that does not hold it loads it whole)."""
    views = [Client(p, game, [], session=p.guest()) for p in procs]
    first, *others = [v.state for v in views]
    for other in others:
        assert other == first
    for v in views:
        v.close()


def duel(procs: list[ServerProcess]) -> tuple[dict[str, Any], Client, Client]:
    """A friend duel whose seat 0 sits on the first process and seat 1 on the second."""
    game = procs[0].new_game(kind="friend", format="precon")
    a = Client(procs[0], game["id"], game["tokens"], session=game["session"])
    b = Client(procs[1], game["id"], [invite_token(game)], session=procs[1].guest())
    joined(a)
    while not (a.state["legal"] or b.state["legal"]):
        a.wait_state()
    wait_index(b, a.state["index"])
    return game, a, b


def test_a_move_made_elsewhere_is_applied_from_its_notification_with_no_read(
    pair: list[ServerProcess], pg_database: str
) -> None:
    game, a, b = duel(pair)
    before = [catch_ups(p) for p in pair]
    rng = random.Random(8)
    moves = [0, 0]  # made through each process
    for _ in range(24):
        if a.state["result"] is not None:
            break
        mover, other = (a, b) if a.state["legal"] else (b, a)
        frame = act(mover, rng.choice(mover.state["legal"]))  # refused as stale if a revision were wrong
        moves[0 if mover is a else 1] += 1
        wait_index(other, frame["index"])
    assert min(moves) > 0, moves
    after = [catch_ups(p) for p in pair]
    ended = a.state["result"] is not None  # the end is stored apart from the last action: read
    for i, proc_moves in enumerate(reversed(moves)):  # what process i saw made through the other
        got = grown(before[i], after[i])
        assert got["notified"] == proc_moves and got["whole"] == 0, (i, got, moves)
        assert got["read"] <= (1 if ended else 0), (i, got)
    # Every copy holds the stored history, and shows what a copy loaded from the store shows.
    assert len(stored_actions(pg_database, game["id"])) == a.state["index"] == b.state["index"]
    same_view(pair, game["id"])
    for c in (a, b):
        c.close()


def _silent_then_notified(database: str, game_id: str) -> int:
    """Store the next two legal actions of the game: the first with no notification (as if it were
    lost), the second announced as usual -- a gap for every copy.  Returns the new action count."""
    store = open_store(database)
    try:
        row = store.load_game(game_id)
        assert row is not None
        session = session_of_row(row)
        k, revision = len(row.actions), row.revision
        first_seat = session.to_move
        first = session.legal_actions(first_seat)[0]
        session.act(first_seat, first)
        second_seat = session.to_move
        second = session.legal_actions(second_seat)[0]
        with store.engine.begin() as conn:  # what append_actions does, without the NOTIFY
            conn.execute(
                sa.text("UPDATE games SET revision = revision + 1, n_actions = :n WHERE id = :g"),
                {"n": k + 1, "g": game_id},
            )
            conn.execute(
                sa.text("INSERT INTO actions (game_id, idx, seat, action, at) VALUES (:g, :i, :s, :a, 0)"),
                {"g": game_id, "i": k, "s": first_seat, "a": first},
            )
        store.append_actions([ActionWrite(game_id, k + 1, second_seat, second, revision=revision + 1)])
        return k + 2
    finally:
        store.close()


def test_a_gap_in_the_notifications_is_read_from_the_store(
    pair: list[ServerProcess], pg_database: str
) -> None:
    game, a, b = duel(pair)
    before = [catch_ups(p) for p in pair]
    n = _silent_then_notified(pg_database, game["id"])
    for c in (a, b):
        assert wait_index(c, n)["index"] == n
    for i in range(2):
        got = grown(before[i], catch_ups(pair[i]))
        assert got == {"notified": 0, "read": 1, "whole": 0}, (i, got)
    same_view(pair, game["id"])
    # The copies are at the stored revision: the next moves are accepted on both processes.
    for _ in range(4):
        if a.state["result"] is not None:
            break
        mover, other = (a, b) if a.state["legal"] else (b, a)
        frame = act(mover, mover.state["legal"][0])
        wait_index(other, frame["index"])
    for c in (a, b):
        c.close()


def test_an_undo_made_elsewhere_is_read_whole_and_ends_right(
    pair: list[ServerProcess], pg_database: str
) -> None:
    """A solo game open on both processes (two tabs behind a balancer): an undo on one, which its
    notification does not carry, is caught up on the other by reading the game whole."""
    game = pair[0].new_game(kind="solo", format="precon", deck=1)
    one = Client(pair[0], game["id"], game["tokens"], session=game["session"])
    two = Client(pair[1], game["id"], [], session=game["session"])
    rng = random.Random(2)
    while not one.state["can_undo"]:
        act(one, rng.choice([x for x in one.state["legal"] if x != "end"] or one.state["legal"]))
    wait_index(two, one.state["index"])
    before = catch_ups(pair[1])
    one.send({"type": "undo", "index": one.state["index"]})
    undone = one.wait_state()["index"]
    assert undone < two.state["index"]
    while two.state["index"] != undone:
        two.wait_state()
    assert any(e["kind"] == "undo" for e in two.state["events"])  # its page animates the undo
    got = grown(before, catch_ups(pair[1]))
    assert got["whole"] == 1 and got["notified"] == 0, got
    same_view(pair, game["id"])
    frame = act(two, two.state["legal"][0])  # its copy's revision is right: accepted there
    wait_index(one, frame["index"])
    assert len(stored_actions(pg_database, game["id"])) == frame["index"]
    for c in (one, two):
        c.close()


def _notify(database: str, payloads: list[str]) -> None:
    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.begin() as conn:
            for payload in payloads:
                conn.execute(sa.text("SELECT pg_notify(:c, :p)"), {"c": CHANGES_CHANNEL, "p": payload})
    finally:
        engine.dispose()


def test_a_forged_or_malformed_message_on_the_channel_is_ignored(
    pair: list[ServerProcess], pg_database: str
) -> None:
    """Any client of the database may NOTIFY on the channel: garbage and forged notice frames are
    logged and ignored; a forged action the session refuses makes the process read the store, which
    has not moved.  The pages are sent nothing, and play goes on across the processes."""
    game, a, b = duel(pair)
    index = a.state["index"]
    row = open_store(pg_database)
    try:
        stored = row.load_game(game["id"])
        assert stored is not None
        revision = stored.revision
    finally:
        row.close()
    g = game["id"]
    _notify(
        pg_database,
        [
            "not json",
            json.dumps({"game": g, "revision": "x"}),
            json.dumps({"game": g, "revision": revision + 1, "index": index, "actions": "end"}),
            json.dumps({"game": g, "notice": {"type": "state", "index": 999, "legal": []}}),
            "[" * 3000 + "]" * 3000,
            json.dumps(
                {"game": g, "revision": revision + 1, "index": index, "actions": [[0, "no such move"]]}
            ),
        ],
    )
    for proc in pair:
        text = ""
        deadline = time.monotonic() + 30  # a hang guard, not a timed assertion
        while text.count("ignored a malformed change message") < 4 or "does not apply" not in text:
            assert time.monotonic() < deadline, text[-3000:]
            time.sleep(0.1)
            text = proc.log.read_text(encoding="utf-8")
        assert "Traceback" not in text
    for _ in range(4):
        if a.state["result"] is not None:
            break
        mover, other = (a, b) if a.state["legal"] else (b, a)
        frame = act(mover, mover.state["legal"][0])
        wait_index(other, frame["index"])
    for c in (a, b):
        assert all(f["type"] in ("state", "notice") and f.get("index") != 999 for f in c.frames), c.frames
        assert [f["index"] for f in c.frames if f["type"] == "state"] == sorted(
            f["index"] for f in c.frames if f["type"] == "state"
        )
    same_view(pair, g)
    for c in (a, b):
        c.close()
