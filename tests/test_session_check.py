"""``GameSession.check``: the one place the terminal and the web ask whether a decision may be made
(turn, staleness, syntax, legality), every refusal with its own error and nothing changed; and the
session's other answers the web reads instead of the game (undo's staleness, hints, the facts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clashofdecks.cards import CARDS
from clashofdecks.errors import ActionSyntaxError, ClashError, IllegalActionError
from clashofdecks.session import (
    CheckedAction,
    FileStore,
    GameSession,
    NotYourTurnError,
    Seat,
    SessionError,
    StaleActionError,
    UndoError,
)


def _duel_in_play(store: FileStore | None = None) -> GameSession:
    """A precon duel between two people, past its setup (each took a deck)."""
    session = GameSession.new(
        mode="duel", format="precon", seed=5, participants=[Seat.human("A"), Seat.human("B")], store=store
    )
    while session.phase == "setup":
        seat = session.to_move
        session.act(seat, session.legal_actions(seat)[0])
    return session


def _snapshot(session: GameSession) -> tuple[str, int, int]:
    return json.dumps(session.record().to_dict()), len(session.steps), session.to_move


def test_check_accepts_a_legal_decision_with_its_canonical_text_and_index() -> None:
    session = _duel_in_play()
    seat = session.to_move
    before = _snapshot(session)
    text = session.legal_actions(seat)[0]
    checked = session.check(seat, text.upper() if text == "end" else text, len(session.steps))
    assert checked == CheckedAction(seat, checked.action, text, len(session.steps))
    assert session.check(seat, checked.action) == checked  # an integer is checked the same way
    assert _snapshot(session) == before  # checking changes nothing
    step = session.act(seat, text, len(session.steps))
    assert (step.action, step.index) == (text, checked.index)


@pytest.mark.parametrize(
    ("refusal", "error"),
    [
        ("other_seat", NotYourTurnError),
        ("no_seat", SessionError),
        ("stale", StaleActionError),
        ("syntax", ActionSyntaxError),
        ("illegal", IllegalActionError),
    ],
)
def test_every_refusal_has_its_error_and_changes_nothing(
    refusal: str, error: type[ClashError], tmp_path: Path
) -> None:
    store = FileStore(tmp_path)
    session = _duel_in_play(store)
    seat = session.to_move
    legal = session.legal_actions(seat)[0]
    saved = store.path(session.id).read_bytes()
    before = _snapshot(session)
    asks = {
        "other_seat": (1 - seat, legal, None),
        "no_seat": (2, legal, None),
        "stale": (seat, legal, len(session.steps) - 1),
        "syntax": (seat, "fly to the moon", None),
        "illegal": (seat, "", None),  # chosen below
    }
    who, action, index = asks[refusal]
    if refusal == "illegal":
        action = _an_illegal_action(session, seat)
    with pytest.raises(error) as caught:
        session.check(who, action, index)
    assert str(caught.value)  # a sentence for the player
    if refusal == "illegal":
        assert str(caught.value) == session.game.explain_illegal(session.game.parse_action(action))
    with pytest.raises(error):
        session.act(who, action, index)
    assert _snapshot(session) == before
    assert store.path(session.id).read_bytes() == saved  # nothing stored either


def _an_illegal_action(session: GameSession, seat: int) -> str:
    """Well-formed notation that the rules refuse now (a card the seat cannot play)."""
    playable = set(session.playable_cards(seat))
    for card in CARDS:
        if card.kind != "creature":
            continue
        text = f"play {card.id} top"
        if card.id not in playable and not session.game.is_legal(session.game.parse_action(text)):
            return text
    raise AssertionError("no illegal action found")


def test_a_finished_game_refuses_every_decision() -> None:
    session = _duel_in_play()
    seat = session.to_move
    legal = session.legal_actions(seat)[0]
    session.resign(1 - seat)
    before = _snapshot(session)
    for who in (0, 1):
        with pytest.raises(SessionError, match="over"):
            session.check(who, legal, len(session.steps))
    assert not session.can_hint(seat)
    assert _snapshot(session) == before


def test_undo_refuses_a_stale_index_before_anything_else() -> None:
    session = GameSession.new(mode="solo", format="precon", seed=3, participants=[Seat.human("Ada")])
    while session.phase == "setup":
        session.act(0, session.legal_actions(0)[0])
    session.act(0, session.legal_actions(0)[0])
    before = _snapshot(session)
    with pytest.raises(StaleActionError):
        session.undo(0, len(session.steps) + 1)
    assert _snapshot(session) == before
    assert session.undo(0, len(session.steps))  # the right index takes it back
    with pytest.raises(UndoError):
        session.undo(0, len(session.steps))


def test_hints_and_the_facts_the_frames_show() -> None:
    session = GameSession.new(
        mode="duel", format="precon", seed=5, participants=[Seat.human("A"), Seat.human("B")]
    )
    seat = session.to_move
    assert session.phase == "setup"
    assert session.can_hint(seat) and not session.can_hint(seat, in_setup=False)
    assert not session.can_hint(1 - seat)
    session = _duel_in_play()
    seat = session.to_move
    game = session.game
    assert session.can_hint(seat, in_setup=False) and not session.can_hint(1 - seat, in_setup=False)
    assert (session.phase, session.turn, session.active, session.is_solo) == (
        game.phase,
        game.turn,
        game.active,
        game.is_solo,
    )
    assert session.playable_cards(seat) == game.playable_cards(seat)
    abilities = session.abilities()
    assert set(abilities) == {"have", "granted"} and len(abilities["have"]) == 4
    solo = GameSession.new(mode="solo", format="precon", seed=3, participants=[Seat.human("Ada")])
    assert solo.is_solo and solo.playable_cards(1) == []
