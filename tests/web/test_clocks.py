"""Game clocks (docs/web.md, "Clocks"): the clock's arithmetic, a real-time duel lost on time, a
correspondence duel whose deadline survives a kill-and-restart, the lobby's "your turn" mark, hostile
time controls, and the solo campaign.  Time is moved with the test-only ``CLASH_TEST_CLOCK_FILE``
(never a sleep): the server's watcher sees a passed deadline within its interval."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from clashofdecks.record import GameRecord
from clashofdecks.session import GameSession, Seat
from clashofdecks.web.bodies import campaign_json
from clashofdecks.web.clocks import DAY, TIME_CONTROLS, ClockState, TimeControlError, time_control
from clashofdecks.web.store import CampaignLevel, open_store
from conftest import Client, ServerProcess

T0 = 2_000_000_000.0


def test_clock_arithmetic() -> None:
    clock = ClockState.new(TIME_CONTROLS["3+2"])
    assert not clock.started and clock.expired(T0 + 10**6) is None  # not started: never runs out
    clock.start(0, T0)
    assert clock.left(0, T0 + 10) == 170 and clock.left(1, T0 + 10) == 180
    clock.moved(0, T0 + 10)  # the same player decides again: the clock keeps running, no increment
    assert clock.running == 0 and clock.left(0, T0 + 20) == 160
    clock.moved(1, T0 + 20)  # the turn passes: +2 s for the player who handed it over
    assert clock.running == 1 and clock.remaining[0] == 162 and clock.left(1, T0 + 200) == 0
    assert clock.expired(T0 + 199.9) is None and clock.expired(T0 + 200) == 1
    clock.moved(-1, T0 + 30)  # the game ended
    assert clock.running is None and clock.left(1, T0 + 10**6) == 170

    day = ClockState.new(TIME_CONTROLS["1d"])
    day.start(1, T0)
    day.moved(0, T0 + DAY - 1)  # correspondence: every turn has a day of its own, nothing banked
    assert day.left(0, T0 + DAY - 1) == DAY and day.remaining[1] == DAY
    assert day.expired(T0 + 2 * DAY - 1) == 0

    assert time_control(None) is None and time_control("none") is None
    for bad in ("5+0", "", "3+2 ", "1D"):
        with pytest.raises(TimeControlError):
            time_control(bad)


def test_a_time_loss_is_a_record_termination_of_its_own() -> None:
    session = GameSession.new(
        mode="duel", format="draft", seed=3, participants=[Seat.remote("A"), Seat.remote("B")]
    )
    seat = session.to_move
    outcome = session.lose_on_time(seat)
    assert outcome.winner == 1 - seat and outcome.termination.value == "time"
    record = session.record()
    assert record.result is not None and record.result["termination"] == "time"
    again = GameSession.from_record(
        GameRecord.from_dict(record.to_dict()), seats=[Seat.remote(), Seat.remote()]
    )
    assert again.is_over and again.outcome == outcome


def test_campaign_json_opens_a_level_after_a_win() -> None:
    fresh = campaign_json([])
    assert fresh["next"] == 0 and [c["open"] for c in fresh["levels"]] == [True] + [False] * 5
    lost = campaign_json([CampaignLevel(0, "lost", 2, 0)])
    assert lost["next"] == 0 and not lost["levels"][1]["open"]
    won = campaign_json([CampaignLevel(0, "won", 3, 1)])
    assert won["next"] == 1 and won["levels"][1]["open"] and not won["levels"][2]["open"]
    assert won["levels"][0] == {"level": 0, "best": "won", "played": 3, "won": 1, "open": True}


def test_campaign_store_keeps_the_best_result(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'c.sqlite3'}")
    from clashofdecks.web.store import IdentityRow

    store.create_identity(IdentityRow("id1", "guest-abc", ""), "h" * 64)
    store.record_campaign("id1", 0, False)
    store.record_campaign("id1", 0, True)
    store.record_campaign("id1", 0, False)  # a later loss does not undo the win
    assert store.campaign_of("guest-abc") == [CampaignLevel(0, "won", 3, 1)]
    assert store.campaign_of("guest-nobody") is None
    store.close()


# ---------------------------------------------------------------------------- a real server


class FileClock:
    """A file the server reads as its time (``CLASH_TEST_CLOCK_FILE``, test only)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.set(T0)

    def set(self, now: float) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(repr(now))
        tmp.replace(self.path)  # atomic: the server never reads half a number


@pytest.fixture
def clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FileClock:
    c = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(c.path))
    return c


def _duel(proc: ServerProcess, control: str) -> tuple[dict[str, Any], Client, Client]:
    game = proc.new_game(kind="friend", format="draft", time_control=control)
    a = Client(proc, game["id"], game["tokens"])
    assert a.state["clock"]["control"] == control and a.state["clock"]["running"] is None  # friend not here
    b = Client(proc, game["id"], [game["invite"].split("#t=")[1]])
    assert b.state["clock"]["running"] == b.state["to_move"]  # both seats held: it runs
    _until(a, lambda s: s["clock"]["running"] is not None)  # the creator is sent the start too
    return game, a, b


def _until(c: Client, pred: Any) -> dict[str, Any]:
    while not pred(c.state):
        c.recv(timeout=30)
    return c.state


def _mover(a: Client, b: Client) -> Client:
    return a if a.state["legal"] else b


def _play(a: Client, b: Client, rng: random.Random, n: int) -> None:
    for _ in range(n):
        mover = _mover(a, b)
        mover.act(rng.choice(mover.state["legal"]))
        other = b if mover is a else a
        _until(other, lambda s, i=mover.state["index"]: s["index"] >= i)


def test_a_realtime_duel_is_lost_on_time(tmp_path: Path, clock: FileClock) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        game, a, b = _duel(proc, "3+2")
        assert a.state["clock"]["left"] == [180.0, 180.0]
        first = _mover(a, b)
        seat = first.state["seat"]
        clock.set(T0 + 30)  # the first decision takes 30 s of the server's time
        _play(a, b, random.Random(1), 1)
        passed = first.state["clock"]["running"] != seat
        assert first.state["clock"]["left"][seat] == (152.0 if passed else 150.0)  # +2 s once handed over
        _play(a, b, random.Random(1), 3)
        running = a.state["clock"]["running"]
        late = _mover(a, b)
        clock.set(T0 + 3600)  # far past every deadline
        end = _until(a, lambda s: s["result"] is not None)
        assert end["result"]["termination"] == "time" and end["result"]["winner"] == 1 - running
        assert end["clock"]["left"][running] == 0 and end["clock"]["running"] is None
        assert any(e["kind"] == "time" for e in end["events"])
        late.send({"type": "act", "action": "next", "index": end["index"]})
        late.expect_error("game_over")
        status, rec = proc.get(f"/api/games/{game['id']}/record")
        assert status == 200 and rec["result"]["termination"] == "time"
        GameSession.from_record(GameRecord.from_dict(rec), seats=[Seat.remote(), Seat.remote()])
    finally:
        proc.stop()


def test_an_action_after_the_deadline_is_refused_and_loses(tmp_path: Path, clock: FileClock) -> None:
    # Whichever comes first, the action (which checks the deadline itself) or the watcher, the
    # late action is not applied and the game is lost on time.
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        _game, a, b = _duel(proc, "10+5")
        mover = _mover(a, b)
        clock.set(T0 + 601)
        mover.send({"type": "act", "action": mover.state["legal"][0], "index": mover.state["index"]})
        while True:
            frame = mover.recv()
            if frame["type"] == "error":
                assert frame["code"] == "game_over"
                break
            if frame["type"] == "state" and frame["result"] is not None:
                break  # the watcher was first: the same end
        end = _until(mover, lambda s: s["result"] is not None)
        assert end["result"]["termination"] == "time" and end["result"]["winner"] != mover.state["seat"]
        assert end["index"] == 0  # the late action was not applied
    finally:
        proc.stop()


def test_a_correspondence_duel_keeps_its_deadline_across_a_restart(tmp_path: Path, clock: FileClock) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        game, a, b = _duel(proc, "1d")
        _play(a, b, random.Random(2), 3)
        running = a.state["clock"]["running"]
        waiting = a if running == a.state["seat"] else b
        other = b if waiting is a else a
        clock.set(T0 + 3600)
        _status, lobby = proc.get("/api/lobby", session=waiting.session)
        mine = next(g for g in lobby["mine"] if g["id"] == game["id"])
        assert mine["your_turn"] and mine["clock"]["kind"] == "correspondence"
        _status, lobby = proc.get("/api/lobby", session=other.session)
        assert not next(g for g in lobby["mine"] if g["id"] == game["id"])["your_turn"]
        index = a.state["index"]
        a.close()
        b.close()
        proc.stop(kill=True)
        clock.set(T0 + 7200)
        proc.start()
        back = Client(proc, game["id"], [], session=waiting.session)
        assert back.state["index"] == index and back.state["clock"]["running"] == running
        assert back.state["clock"]["left"][running] == pytest.approx(DAY - 7200, abs=1)
        clock.set(T0 + 2 * DAY)
        end = _until(back, lambda s: s["result"] is not None)
        assert end["result"]["termination"] == "time" and end["result"]["winner"] == 1 - running
    finally:
        proc.stop()


def test_hostile_time_controls_change_nothing(tmp_path: Path, clock: FileClock) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        session = proc.guest()
        _status, before = proc.get("/api/lobby", session=session)
        for bad in (
            {"kind": "friend", "time_control": "5+0"},
            {"kind": "friend", "time_control": 180},
            {"kind": "friend", "time_control": {"initial": 1e9}},
            {"kind": "friend", "time_control": "x" * 5000},
            {"kind": "solo", "time_control": "3+2"},
            {"kind": "hotseat", "time_control": "1d"},
            {"kind": "ai", "time_control": "10+5"},
            {"kind": "friend", "time_control": "3+2", "clock": [1, 1]},
        ):
            status, body = proc.post("/api/games", bad, session=session)
            assert status in (400, 413) and "error" in body, (bad, status, body)
        _status, after = proc.get("/api/lobby", session=session)
        assert after["mine"] == before["mine"] == []
        _game, a, b = _duel(proc, "3+2")
        mover = _mover(a, b)
        left = mover.state["clock"]["left"]
        for msg in (
            {"type": "act", "action": mover.state["legal"][0], "index": mover.state["index"], "clock": 999},
            {"type": "act", "action": mover.state["legal"][0], "index": mover.state["index"], "time": 1},
            {"type": "clock", "left": [999, 0]},
            {"type": "ping", "now": T0 + 10**6},
        ):
            mover.send(msg)
            frame = mover.recv()
            while frame["type"] != "error":  # a notice or the frame of the clock starting, sent before
                assert frame["type"] in ("notice", "state") and frame.get("index", 0) == 0, frame
                frame = mover.recv()
            assert frame["code"] in ("bad_field", "unknown_type"), frame
        mover.send({"type": "ping", "id": 1})
        assert mover.recv()["type"] == "pong"
        assert mover.state["clock"]["left"] == left and mover.state["index"] == 0
        # Resigning a clocked game is a loss like anywhere, and stops both clocks.
        mover.send({"type": "resign"})
        end = _until(mover, lambda s: s["result"] is not None)
        assert end["result"]["termination"] == "resigned" and end["result"]["winner"] == 1 - end["seat"]
        assert end["clock"]["running"] is None
        for c in (a, b):
            c.close()
    finally:
        proc.stop()


def test_solo_games_at_rulebook_levels_count_for_the_campaign(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        session = proc.guest()
        _status, me = proc.get("/api/me", session=session)
        assert proc.get("/api/campaign", session=session) == (200, campaign_json([]))
        # A custom threat counts only when its options are exactly a level's (base mana 6: level 0).
        for options in (
            {"level": 0},
            {"threat": {"base_mana": 8, "defence": "minus_one"}},
            {"threat": {"base_mana": 6}},
            {"level": 2},
        ):
            game = proc.new_game(session=session, kind="solo", **options)
            c = Client(proc, game["id"], game["tokens"], session=session)
            c.send({"type": "resign"})
            _until(c, lambda s: s["result"] is not None)
            c.close()
        status, mine = proc.get("/api/campaign", session=session)
        assert status == 200
        assert [(x["level"], x["best"], x["played"]) for x in mine["levels"] if x["played"]] == [
            (0, "lost", 2),
            (2, "lost", 1),
        ]
        assert mine["next"] == 0
        assert proc.get(f"/api/players/{me['identity']}/campaign") == (200, mine)
        assert proc.get("/api/players/guest-0000000000/campaign")[0] == 404
        assert proc.get("/api/players/Guest%20X/campaign")[0] == 404
        assert proc.get("/api/campaign")[0] == 401
    finally:
        proc.stop()


def test_threat_options_of_a_level_are_that_level() -> None:
    from clashofdecks.options import LEVELS
    from clashofdecks.web.games import rulebook_level

    for level, threat in LEVELS.items():
        assert rulebook_level(json.loads(json.dumps(threat.to_dict()))) == level
    assert rulebook_level(None) is None
