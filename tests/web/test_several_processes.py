"""Several ``clash serve`` processes on one PostgreSQL database (docs/web.md, "Several processes"):
a duel whose seats sit on different processes is played to its end, a spectator on a third sees
every move; two processes racing on one game accept one action and answer the other ``stale``
(an undo racing an action too); a process killed mid-game loses no accepted action and applies
none twice, its player going on through another.  Real processes, real PostgreSQL; skipped without
``CLASH_TEST_PG_URL``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from clashofdecks.web.bus import BUS_NAME
from clashofdecks.web.store import normalize_url
from conftest import Client, ServerProcess


@pytest.fixture(scope="module")
def cluster(pg_processes: Callable[..., list[ServerProcess]]) -> list[ServerProcess]:
    """Three processes on the module's database."""
    return pg_processes(3, "--rate", "200")


def stored_actions(database: str, game: str) -> list[tuple[int, str]]:
    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT seat, action FROM actions WHERE game_id = :g ORDER BY idx"), {"g": game}
            )
            return [(r.seat, r.action) for r in rows]
    finally:
        engine.dispose()


def invite_token(game: dict[str, Any]) -> str:
    return str(game["invite"].split("#t=")[1])


def wait_index(client: Client, index: int, timeout: float = 30) -> dict[str, Any]:
    """The client's next state frames until one shows ``index`` actions or more."""
    deadline = time.monotonic() + timeout
    while client.state["index"] < index:
        assert time.monotonic() < deadline, f"index {client.state['index']}, waiting for {index}"
        client.wait_state(timeout=timeout)
    return client.state


def act(client: Client, action: str) -> dict[str, Any]:
    """Send an action and wait for its acknowledgement: the state frame one action further (a frame
    of another process's change, a seat claimed, may come first)."""
    index = client.state["index"]
    client.send({"type": "act", "action": action, "index": index})
    return wait_index(client, index + 1)


def joined(client: Client, timeout: float = 30) -> None:
    """Wait for the notice that the other seat's player opened the game (its seat is taken: a
    process that shows the notice has caught up with the claim)."""
    while True:
        frame = client.recv(timeout)
        if frame["type"] == "notice" and frame["code"] == "joined":
            return


def replies(client: Client, timeout: float = 30) -> dict[str, Any]:
    """The answer to the message just sent: its error frame if it was refused, else the last state
    frame (a connection's messages are answered in order: a ping after it marks the end)."""
    client.send({"type": "ping", "id": 77})
    answer: dict[str, Any] | None = None
    while True:
        frame = client.recv(timeout)
        if frame["type"] == "pong":
            assert answer is not None
            return answer
        if frame["type"] == "error" or (
            frame["type"] == "state" and (answer is None or answer["type"] != "error")
        ):
            answer = frame


def test_a_duel_across_processes_is_played_to_its_end_and_watched_from_a_third(
    cluster: list[ServerProcess], pg_database: str
) -> None:
    a_proc, b_proc, c_proc = cluster
    duel = a_proc.new_game(kind="friend", format="precon")
    a = Client(a_proc, duel["id"], duel["tokens"], session=duel["session"])
    b = Client(b_proc, duel["id"], [invite_token(duel)], session=b_proc.guest())
    joined(a)
    watcher = Client(c_proc, duel["id"], [], session=c_proc.guest())
    seen_at_hello = len(watcher.state["log"])
    rng = random.Random(3)
    acknowledged: list[tuple[int, str]] = []
    for _ in range(2000):
        if a.state["result"] is not None:
            break
        mover = a if a.state["legal"] else b
        other = b if mover is a else a
        if not mover.state["legal"]:  # the first frames: wait for the seat to move to show up
            mover.wait_state()
            continue
        action = rng.choice(mover.state["legal"])
        seat = mover.state["seat"]
        frame = act(mover, action)
        acknowledged.append((seat, action))
        wait_index(other, frame["index"])  # the other seat's process caught up from the bus
    assert a.state["result"] is not None and b.state["result"] == a.state["result"]
    final = wait_index(watcher, a.state["index"])
    assert final["result"] == a.state["result"]
    # The spectator was sent every move's events, not only the last position.
    followed = seen_at_hello + sum(len(f["events"]) for f in watcher.frames[1:] if f["type"] == "state")
    late = Client(c_proc, duel["id"], [], session=c_proc.guest())
    assert followed == len(late.state["log"])
    assert stored_actions(pg_database, duel["id"]) == acknowledged
    for c in (a, b, watcher, late):
        c.close()


def _solo_on_two(cluster: list[ServerProcess]) -> tuple[dict[str, Any], Client, Client]:
    """A solo game opened by one identity on two processes (two tabs behind a balancer)."""
    game = cluster[0].new_game(kind="solo", format="precon", deck=1)
    one = Client(cluster[0], game["id"], game["tokens"], session=game["session"])
    two = Client(cluster[1], game["id"], [], session=game["session"])
    assert one.state["seats"] == two.state["seats"] == [0]
    return game, one, two


def test_two_processes_racing_on_one_position_accept_one_action(
    cluster: list[ServerProcess], pg_database: str
) -> None:
    game, one, two = _solo_on_two(cluster)
    rng = random.Random(5)
    outcomes: list[tuple[str, str]] = []
    for _ in range(12):
        if one.state["result"] is not None or not one.state["legal"]:
            break
        wait_index(two, one.state["index"])
        index = one.state["index"]
        assert two.state["index"] == index
        legal = one.state["legal"]
        first, second = rng.choice(legal), rng.choice(legal)
        one.send({"type": "act", "action": first, "index": index})
        two.send({"type": "act", "action": second, "index": index})
        answers = [replies(one), replies(two)]
        kinds = sorted(f["type"] for f in answers)
        assert kinds == ["error", "state"], answers
        loser = answers[0] if answers[0]["type"] == "error" else answers[1]
        assert loser["code"] == "stale", loser
        winner_action = first if answers[0]["type"] == "state" else second
        stored = stored_actions(pg_database, game["id"])
        assert len(stored) == index + 1 and stored[index] == (0, winner_action)
        outcomes.append(("one" if answers[0]["type"] == "state" else "two", winner_action))
        for c in (one, two):  # both pages end up at the stored position
            wait_index(c, index + 1)
        while one.state["legal"] == [] and one.state["result"] is None:
            one.wait_state()
    assert len(outcomes) >= 6, outcomes
    one.close()
    two.close()


def test_an_undo_racing_an_action_on_another_process_wins_or_loses_whole(
    cluster: list[ServerProcess], pg_database: str
) -> None:
    rng = random.Random(7)
    for _round in range(4):
        game, one, two = _solo_on_two(cluster)
        while not one.state["can_undo"]:  # an action of this turn that may be taken back
            act(one, rng.choice([a for a in one.state["legal"] if a != "end"] or one.state["legal"]))
        wait_index(two, one.state["index"])
        index = one.state["index"]
        before = stored_actions(pg_database, game["id"])
        sent = two.state["legal"][0]
        one.send({"type": "undo", "index": index})
        two.send({"type": "act", "action": sent, "index": index})
        answers = [replies(one), replies(two)]
        errors = [f for f in answers if f["type"] == "error"]
        assert len(errors) == 1 and errors[0]["code"] == "stale", answers
        stored = stored_actions(pg_database, game["id"])
        if answers[0]["type"] == "state":  # the undo won: the action was not stored
            assert len(stored) < index and stored == before[: len(stored)]
        else:  # the action won: nothing was taken back
            assert stored == [*before, (0, sent)]
        final = len(stored)
        for c in (one, two):
            deadline = time.monotonic() + 30
            while c.state["index"] != final:
                assert time.monotonic() < deadline
                c.wait_state()
        one.close()
        two.close()


def test_killing_the_process_of_a_seat_loses_no_accepted_action(
    cluster: list[ServerProcess], pg_database: str, tmp_path: Path
) -> None:
    doomed = ServerProcess(tmp_path / "doomed", "--rate", "200", database=pg_database).start()
    survivor = cluster[1]
    duel = doomed.new_game(kind="friend", format="precon")
    a = Client(doomed, duel["id"], duel["tokens"], session=duel["session"])
    b = Client(survivor, duel["id"], [invite_token(duel)], session=survivor.guest())
    joined(a)
    rng = random.Random(11)
    acknowledged: list[tuple[int, str]] = []

    def play(a: Client, b: Client, moves: int, *, kill_after: bool = False) -> str | None:
        for _ in range(moves):
            if a.state["result"] is not None:
                return None
            mover = a if a.state["legal"] else b
            if not mover.state["legal"]:
                mover.wait_state()
                continue
            action: str = rng.choice(mover.state["legal"])
            if kill_after and mover is a:
                a.send({"type": "act", "action": action, "index": a.state["index"]})
                doomed.stop(kill=True)  # SIGKILL, maybe before the action was stored, maybe after
                return action
            seat = mover.state["seat"]
            frame = act(mover, action)
            acknowledged.append((seat, action))
            wait_index(b if mover is a else a, frame["index"])
        return None

    play(a, b, 8)  # into the first turns (a precon duel lasts a few dozen actions)
    in_flight = None
    while in_flight is None and a.state["result"] is None:
        in_flight = play(a, b, 200, kill_after=True)
    assert in_flight is not None
    # The player reconnects through the other process and finds every acknowledged action there.
    again = Client(survivor, duel["id"], [], session=duel["session"])
    stored = stored_actions(pg_database, duel["id"])
    # Every acknowledged action, once; the one in flight when the process died stored or not.
    assert stored in (acknowledged, [*acknowledged, (a.state["seat"], in_flight)]), (stored, acknowledged)
    assert again.state["index"] == len(stored)
    wait_index(b, len(stored))
    play(again, b, 3000)
    assert again.state["result"] is not None and b.state["result"] == again.state["result"]
    final = stored_actions(pg_database, duel["id"])
    assert final[: len(stored)] == stored and len(final) == again.state["index"]
    for c in (again, b):
        c.close()


BUSES = "application_name = :name AND datname = current_database()"
NAME = {"name": BUS_NAME}


def listening(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(sa.text(f"SELECT count(*) FROM pg_stat_activity WHERE {BUSES}"), NAME).scalar_one()
        )


def test_a_dropped_listening_connection_reconnects_and_misses_nothing(
    cluster: list[ServerProcess], pg_database: str
) -> None:
    """The bus's LISTEN connection is cut (as a database restart or a network cut would): a move made
    meanwhile on another process still reaches this process's pages, once it has listened again."""
    duel = cluster[0].new_game(kind="friend", format="precon")
    a = Client(cluster[0], duel["id"], duel["tokens"], session=duel["session"])
    b = Client(cluster[1], duel["id"], [invite_token(duel)], session=cluster[1].guest())
    joined(a)
    engine = sa.create_engine(normalize_url(pg_database))
    rng = random.Random(4)
    try:
        for _ in range(6):
            deadline = time.monotonic() + 30
            while listening(engine) < len(cluster):  # every process listens again after the last cut
                assert time.monotonic() < deadline
                time.sleep(0.1)
            with engine.begin() as conn:
                conn.execute(
                    sa.text(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {BUSES}"), NAME
                )
            mover, other = (a, b) if a.state["legal"] else (b, a)
            frame = act(mover, rng.choice(mover.state["legal"]))
            wait_index(other, frame["index"], timeout=10)
    finally:
        engine.dispose()
    for c in (a, b):
        c.close()


def test_a_clocked_duel_racing_across_processes_keeps_one_history_and_one_clock(
    cluster: list[ServerProcess], pg_database: str
) -> None:
    """A clocked action is applied in memory before it is stored (the clock's next state depends on
    it): a refused one is rolled back by the catch-up.  The player of seat 0 has the game open on two
    processes and acts on both at once; the opponent sits on the third."""
    duel = cluster[0].new_game(kind="friend", format="precon", time_control="10+5")
    first = Client(cluster[0], duel["id"], duel["tokens"], session=duel["session"])
    b = Client(cluster[2], duel["id"], [invite_token(duel)], session=cluster[2].guest())
    joined(first)
    second = Client(cluster[1], duel["id"], [], session=duel["session"])
    rng = random.Random(6)
    races = 0
    for _ in range(300):
        if first.state["result"] is not None or races >= 6:
            break
        index = first.state["index"]
        for c in (second, b):
            wait_index(c, index)
        if b.state["legal"]:
            act(b, rng.choice(b.state["legal"]))
            continue
        if not first.state["legal"]:
            first.wait_state()
            continue
        legal = first.state["legal"]
        first.send({"type": "act", "action": rng.choice(legal), "index": index})
        second.send({"type": "act", "action": rng.choice(legal), "index": index})
        answers = [replies(first), replies(second)]
        assert sorted(f["type"] for f in answers) == ["error", "state"], answers
        assert [f["code"] for f in answers if f["type"] == "error"] == ["stale"]
        races += 1
        stored = stored_actions(pg_database, duel["id"])
        assert len(stored) == index + 1
        for c in (first, second, b):
            state = wait_index(c, index + 1)
            assert state["index"] == index + 1 and state["clock"]["running"] == state["to_move"]
    assert races >= 6
    engine = sa.create_engine(normalize_url(pg_database))
    with engine.connect() as conn:
        running = conn.execute(
            sa.text("SELECT running FROM clocks WHERE game_id = :g"), {"g": duel["id"]}
        ).scalar()
    engine.dispose()
    assert running == first.state["to_move"]
    for c in (first, second, b):
        c.close()


def test_a_player_back_through_another_process_is_not_abandoned(pg_database: str, tmp_path: Path) -> None:
    """The player to move leaves process A (A counts them away and tells the opponent on B), then
    comes back through B: A must not end the duel as abandoned when its clock would have run out."""
    procs = [
        ServerProcess(
            tmp_path / f"a{i}", "--abandon-after", "3", "--agent-workers", "0", database=pg_database
        ).start()
        for i in range(2)
    ]
    try:
        duel = procs[0].new_game(kind="friend", format="precon")
        a = Client(procs[0], duel["id"], duel["tokens"], session=duel["session"])
        b = Client(procs[1], duel["id"], [invite_token(duel)], session=procs[1].guest())
        joined(a)
        while not (a.state["legal"] or b.state["legal"]):
            a.wait_state()
        mover, stayer = (a, b) if a.state["legal"] else (b, a)
        mover_proc, other_proc = (procs[0], procs[1]) if mover is a else (procs[1], procs[0])
        mover.close()  # away from its process...
        while True:  # ...which tells the opponent on the other process
            frame = stayer.recv(timeout=30)
            if frame["type"] == "notice" and frame["code"] == "opponent_away":
                break
        back = Client(other_proc, duel["id"], [], session=mover.session)  # ...and back through the other
        time.sleep(5)  # past the 3 s the first process counted
        assert back.state["legal"], back.state
        frame = act(back, back.state["legal"][0])
        assert frame["result"] is None
        assert all(f.get("code") != "abandoned" for f in stayer.frames + back.frames)
        assert mover_proc is not other_proc
        for c in (back, stayer):
            c.close()
    finally:
        for p in procs:
            p.stop()
