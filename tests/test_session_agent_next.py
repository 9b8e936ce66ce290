"""``GameSession.agent_decides_after``: whether an agent seat decides next, asked of the session (the
web stores it with each action) instead of a front end playing the session's game ahead itself."""

from __future__ import annotations

import random

from clashofdecks.session import AGENT, GameSession, Seat


def _duel(participants: list[Seat], seed: int = 3) -> GameSession:
    return GameSession.new(mode="duel", format="precon", seed=seed, participants=participants)


def _agent_seat(session: GameSession) -> int:
    """The agent's seat (the coin toss, R2.3a, decides who sits where)."""
    return next(s for s, seat in enumerate(session.seats) if seat.kind == AGENT)


def test_every_action_of_a_person_is_answered_as_a_copy_played_ahead_says_and_nothing_changes() -> None:
    session = _duel([Seat.human(), Seat.agent_seat("random")])
    agent = _agent_seat(session)
    rng = random.Random(5)
    checked = 0
    while not session.is_over and checked < 400:
        if session.is_agent_turn():
            assert session.agent_decides_after() is True
            session.advance_agents()
            continue
        assert session.agent_decides_after() is False
        me = session.to_move
        game = session.game
        history, state = game.history, game.state()
        for text in session.legal_actions(me):
            code = game.parse_action(text)
            ahead = game.clone()
            ahead.apply(code)
            expected = not ahead.is_over() and ahead.current_player == agent
            assert session.agent_decides_after(code) is expected, text
            checked += 1
        assert game.history == history and game.state() == state  # tried on a copy only
        legal = session.legal_actions(me)
        session.act(me, legal[rng.randrange(len(legal))])
    assert checked > 20


def test_ending_a_turn_hands_the_decision_to_the_agent() -> None:
    session = _duel([Seat.human(), Seat.agent_seat("random")])
    me = 1 - _agent_seat(session)
    while session.game.phase != "summon" or session.to_move != me:
        if session.is_agent_turn():
            session.advance_agents()
        else:
            session.act(me, session.legal_actions(me)[0])  # the first: a deck, or `end`
    game = session.game
    end = game.parse_action("end")
    assert session.agent_decides_after(end) is False  # the summoning ends: the same person fights
    session.act(me, "end")
    while session.game.phase == "combat" and session.to_move == me and not session.is_over:
        end = session.game.parse_action("end")
        ahead = session.game.clone()
        ahead.apply(end)
        if ahead.current_player != me:
            assert session.agent_decides_after(end) is (not ahead.is_over())
            return
        session.act(me, "end")
    raise AssertionError("no end of a turn reached")


def test_without_an_agent_seat_there_is_nothing_to_keep() -> None:
    session = _duel([Seat.human(), Seat.human()])
    assert session.agent_decides_after() is None
    assert session.agent_decides_after(session.game.legal_actions()[0]) is None
