"""``record.Replay``: the one stepper over a record's actions (replay, a session's resume, the analysis,
the training data)."""

from __future__ import annotations

import random

import pytest

from clashofdecks import Game
from clashofdecks.errors import RecordError
from clashofdecks.formats import new_game
from clashofdecks.record import Replay, record_game, replay
from clashofdecks.session import GameSession


def _played(seed: int, actions: int) -> Game:
    game = new_game(mode="duel", format="draft", seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if game.is_over():
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    return game


def test_each_step_is_seen_before_it_is_applied() -> None:
    game = _played(3, 40)
    record = record_game(game)
    steps = Replay(record)
    seen = []
    for step in steps:
        assert len(steps.game.history) == step.index
        assert steps.game.action_text(step.action) == step.text
        seen.append(step.action)
    assert seen == game.history
    assert steps.game.state() == game.state() == replay(record).state()


def test_a_refused_action_names_its_index() -> None:
    record = record_game(_played(4, 10))
    record.actions[6] = "pick NOSUCHCARD"
    with pytest.raises(RecordError, match=r"action 7 'pick NOSUCHCARD' does not replay"):
        for _ in Replay(record):
            pass


def test_a_session_resumes_through_the_same_steps() -> None:
    record = record_game(_played(5, 30), players=["human", "human"])
    session = GameSession.from_record(record)
    assert [s.action for s in session.steps] == record.actions
    assert session.game.state() == replay(record).state()
