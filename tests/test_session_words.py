"""What the web asks the session instead of reading its game (issues 26 and 37): the session says
its own sentences (``describe_action``, ``describe_actions``, ``describe_sequence``, ``prompt_line``,
from :mod:`clashofdecks.words`) and hands the game to no one; ``agent_decides_after`` plays an action
ahead on a copy.  None of them changes the session."""

from __future__ import annotations

import json

from clashofdecks.session import GameSession, Seat
from clashofdecks.words import describe_action, describe_actions, describe_sequence, prompt_line


def _against_the_ai() -> GameSession:
    return GameSession.new(
        mode="duel", format="precon", seed=3, participants=[Seat.human("Ada"), Seat.agent_seat("greedy")]
    )


def _snapshot(session: GameSession) -> tuple[str, int, int]:
    return json.dumps(session.record().to_dict()), len(session.steps), session.to_move


def test_the_session_says_its_sentences_and_changes_nothing() -> None:
    session = _against_the_ai()
    session.advance_agents()
    seat = session.to_move
    legal = session.legal_actions(seat)
    before = _snapshot(session)
    names = ("Ada", "AI")
    game = session.game  # the test compares with the words package read on the game itself
    labels = session.describe_actions(legal, "en", names=names)
    assert labels == describe_actions(game, legal, "en", names=names)
    assert len(labels) == len(legal) and all(isinstance(label, str) and label for label in labels)
    assert session.describe_action(legal[0], "en", names=names) == labels[0]
    assert session.describe_action(legal[0], "de", names=names) == describe_action(
        game, legal[0], "de", names=names
    )
    assert session.describe_sequence(legal[:1], "fr", names=names) == describe_sequence(
        game, legal[:1], "fr", names=names
    )
    line = session.prompt_line("en", seat, names=names, to_move=seat)
    assert line and line == prompt_line(game, "en", seat, names=names, to_move=seat)
    assert _snapshot(session) == before


def test_the_session_hands_its_game_to_no_callable() -> None:
    """Issue 37, item 3: ``session.words(writer, ...)`` gave the game to any function it was passed."""
    assert not hasattr(GameSession, "words")


def test_agent_decides_after_plays_one_action_ahead_on_a_copy() -> None:
    session = _against_the_ai()
    agent = next(s for s, seat in enumerate(session.seats) if seat.kind == "agent")
    answers: set[bool] = set()
    for _ in range(200):
        if session.is_over:
            break
        session.advance_agents()
        if session.is_over:
            break
        seat = session.to_move
        before = _snapshot(session)
        for text in session.legal_actions(seat):
            code = session.check(seat, text).action
            ahead = session.game.clone()
            ahead.apply(code)
            expected = not ahead.is_over() and ahead.current_player == agent
            assert session.agent_decides_after(code) is expected, text
            answers.add(expected)
        assert _snapshot(session) == before  # nothing applied here
        session.act(seat, session.legal_actions(seat)[0])
    assert answers == {True, False}  # both answers were met
