"""The server builds each ``state`` frame from a part per seat and a public part serialised once per
broadcast: the text it sends is exactly the frame built whole, for every seat at every step."""

from __future__ import annotations

import json
import random

import pytest

from clashofdecks.session import GameSession, Seat
from clashofdecks.web.games import (
    GameState,
    board_abilities,
    common_part,
    dumps,
    events_json,
    final_result,
    frame_for,
    join_frame,
    seat_part,
)
from clashofdecks.web.store import SeatRow


@pytest.mark.parametrize(("mode", "fmt"), [("duel", "draft"), ("duel", "custom"), ("solo", "precon")])
def test_joined_frames_equal_whole_frames(mode: str, fmt: str) -> None:
    rng = random.Random(3)
    if mode == "duel":
        people = [Seat.remote("Ann"), Seat.remote("Bo")]
        rows = [SeatRow(0, "remote", "Ann"), SeatRow(1, "remote", "Bo")]
    else:
        people = [Seat.remote("Ann")]
        rows = [SeatRow(0, "remote", "Ann"), SeatRow(1, "automaton", "Automaton")]
    session = GameSession.new(mode=mode, format=fmt, seed=11, participants=people, session_id="frames1")
    live = GameState("frames1", "friend" if mode == "duel" else "solo", session, rows)
    viewers: list[set[int]] = [{0}, {1}, set(), {0, 1}] if mode == "duel" else [{0}, set()]
    steps = 0
    while not session.is_over and steps < 400:
        seat = session.to_move
        legal = session.legal_actions(seat)
        if not legal:  # a custom deck to build: ten of the cards
            from clashofdecks.cards import CARDS

            action = "build " + " ".join(c.id for c in rng.sample(list(CARDS), 10))
        else:
            action = rng.choice(legal)
        events = list(session.act(seat, action).events)
        steps += 1
        abilities = None if session.game.phase == "setup" else board_abilities(session)
        for lang in ("en", "ja"):
            ev = events_json(live, events, lang)
            common = dumps(common_part(live, ev, abilities))
            for seats in viewers:
                text = join_frame(seat_part(live, seats), common)
                assert json.loads(text) == frame_for(live, seats, ev, abilities)
    assert steps > 20
    assert session.is_over
    assert final_result(session) == session.record().result  # stored at the end, without a replay


def test_final_result_of_a_resignation() -> None:
    session = GameSession.new(
        mode="duel", format="precon", seed=5, participants=[Seat.remote(), Seat.remote()]
    )
    session.resign(session.to_move)
    assert final_result(session) == session.record().result
    assert final_result(session)["termination"] == "resigned"


def test_frames_json_is_the_standard_librarys_up_to_escapes() -> None:
    """``dumps`` (orjson when installed) gives text that parses to what the standard library's
    encoder gives, non-ASCII words, integer keys and integers beyond 64 bits included (those
    through the standard library's encoder)."""
    frame = {
        "prompt": "Attendez… Félin, 猫",
        "clock": {0: 12.5, 1: 0.1},
        "seed": 2**70,
        "legal": ["play 1 top", "end"],
        "nested": [[1, None, True], {"x": -3}],
    }
    text = dumps(frame)
    assert json.loads(text) == json.loads(json.dumps(frame))
    assert '": ' not in text and ', "' not in text  # compact separators
    small = {k: v for k, v in frame.items() if k != "seed"}
    assert json.loads(dumps(small)) == json.loads(json.dumps(small))
