"""What the web asks the session instead of reading its game (issue 26, item 5): ``words`` hands the
game, read-only, to a front end's sentence writer; ``agent_decides_after`` plays an action ahead on a
copy.  Neither changes the session."""

from __future__ import annotations

import json

from clashofdecks.rules import Game
from clashofdecks.session import GameSession, Seat
from clashofdecks.ui.action_text import describe_action, describe_actions, prompt_line


def _against_the_ai() -> GameSession:
    return GameSession.new(
        mode="duel", format="precon", seed=3, participants=[Seat.human("Ada"), Seat.agent_seat("greedy")]
    )


def _snapshot(session: GameSession) -> tuple[str, int, int]:
    return json.dumps(session.record().to_dict()), len(session.steps), session.to_move


def test_words_hands_the_game_to_the_writer_and_changes_nothing() -> None:
    session = _against_the_ai()
    session.advance_agents()
    seat = session.to_move
    legal = session.legal_actions(seat)
    before = _snapshot(session)
    seen: list[Game] = []

    def writer(game: Game, suffix: str, *, times: int) -> str:
        seen.append(game)
        return game.action_text(game.legal_actions()[0]) + suffix * times

    assert session.words(writer, "!", times=2) == legal[0] + "!!"
    assert seen == [session.game]  # the session's own game, not a copy
    labels = session.words(describe_actions, legal, "en", names=("Ada", "AI"))
    assert len(labels) == len(legal) and all(isinstance(label, str) and label for label in labels)
    assert session.words(describe_action, legal[0], "en", names=("Ada", "AI")) == labels[0]
    assert session.words(prompt_line, "en", seat, names=("Ada", "AI"), to_move=seat)
    assert _snapshot(session) == before


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
