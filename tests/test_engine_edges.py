"""Engine edge cases found by the solo and formats reviews (each names its rule)."""

from __future__ import annotations

import pytest

from clashofdecks import InvalidPositionError, load_position
from clashofdecks.events import Event, EventKind
from clashofdecks.position import dump_position
from random_play import random_steps


def _solo(deck: list[str], discard: list[str]) -> dict[str, object]:
    return {
        "mode": "solo",
        "turn": 1,
        "active": 0,
        "phase": "combat",
        "mana": 0,
        "players": [
            {
                "hand": ["BASTION", "TROLL", "GNOME", "GRRR", "OGRE"],
                "lanes": {"top": ["BRUTE"], "bottom": []},
            },
            {"automaton": True, "deck": deck, "discard": discard, "lanes": {"top": [], "bottom": []}},
        ],
    }


def test_r7_7_automaton_deck_empty_above_its_bastion_is_refused() -> None:
    """R7.7/R7.8a: the Bastion flips the moment the deck is empty above it; such a position cannot exist."""
    with pytest.raises(InvalidPositionError, match=r"R7\.7"):
        load_position(_solo(["BASTION"], ["ZOMBIE"]))
    load_position(_solo(["FORT"], ["ZOMBIE"]))  # empty above its Fort: the last turn is next (R7.8)


def test_r5_4a_pending_order_during_a_cast_names_the_resolving_incantation() -> None:
    """R5.4a/R3.9: while the owner chooses the order the incantation is in no zone: the dump says so."""
    game = load_position(
        {
            "active": 0,
            "phase": "summon",
            "mana": 9,
            "players": [
                {"hand": ["BASTION", "METEORITE", "ZOMBIE"], "lanes": {"top": [], "bottom": []}},
                {"hand": ["BASTION", "OGRE"], "lanes": {"top": ["ASSASSIN", "GNOME"], "bottom": []}},
            ],
        }
    )
    game.apply_text("cast METEORITE 1.top.0")
    pending = dump_position(game)["pending"]
    assert pending == {
        "player": 1,
        "decision": "order",
        "cards": ["ASSASSIN", "GNOME"],
        "resolving": {"player": 0, "card": "METEORITE"},
    }
    game.apply_text("order GNOME ASSASSIN")
    assert game.hand(0) == ["BASTION", "ZOMBIE", "METEORITE"]
    assert game.hand(1) == ["BASTION", "OGRE", "GNOME", "ASSASSIN"]


def test_r6_6_berserk_event_describes_the_reattack() -> None:
    event = Event(EventKind.ATTACKED, "R6.6", player=1, card="OGRE", role="berserk")
    assert event.describe() == "P1's OGRE destroyed a creature: Berserk, it attacks again"


def test_keep_undo_off_plays_the_same_game_without_undo_records() -> None:
    """Rollouts turn undo records off: the game is the same, and there is nothing to undo."""
    import random

    from clashofdecks import Game

    for seed in range(30):
        a, b = Game.random_duel(seed), Game.random_duel(seed)
        b.keep_undo = False
        rng = random.Random(seed)
        while not a.is_over():
            legal = a.legal_actions()
            assert list(b.legal_actions()) == list(legal)
            action = legal[rng.randrange(len(legal))]
            assert a.apply(action) == b.apply(action)
            assert dump_position(a) == dump_position(b)
        assert b.history == a.history  # the record never depends on undo records (issue 9)
        assert b.undo_depth == 0
        with pytest.raises(IndexError):
            b.undo()
        assert b.clone().keep_undo is False


def test_agent_names_may_carry_search_settings() -> None:
    """`clash simulate --agents ismcts:50 greedy` and `clash play --vs ismcts:50` take a budget."""
    from clashofdecks.agents.mcts import ISMCTSAgent
    from clashofdecks.agents.registry import make_agent
    from clashofdecks.errors import ClashError

    agent = make_agent("ismcts:50,cutoff=2", 1)
    assert isinstance(agent, ISMCTSAgent)
    with pytest.raises(ClashError, match="takes no settings"):
        make_agent("greedy:5", 1)


def test_take_events_returns_what_creation_emitted_once() -> None:
    """Events emitted before the first action (R2.4's first reveal) are handed out once."""
    from clashofdecks.formats import new_game

    game = new_game(mode="duel", format="draft", seed=5)
    first = game.take_events()
    assert [e.role for e in first] == ["revealed"] and len(first[0].cards or ()) == 4
    assert game.take_events() == ()
    picked = game.apply(game.legal_actions()[0])
    assert picked and all(e.kind is EventKind.SETUP for e in picked)


def test_api_edges_repr_constructor_and_immutable_legal_actions() -> None:
    """repr never raises (setup, play, pending, over); Game() needs a state; legal_actions is immutable."""
    import random

    from clashofdecks import Game
    from clashofdecks.formats import new_game

    with pytest.raises(TypeError):
        Game()  # type: ignore[call-arg]
    for fmt in ("precon", "draft", "custom"):
        game = new_game(mode="duel", format=fmt, seed=3)
        assert repr(game).startswith("<Game duel setup")
    game = Game.random_duel(4)
    rng = random.Random(4)
    while not game.is_over():
        assert repr(game).startswith("<Game duel")
        legal = game.legal_actions()
        with pytest.raises((TypeError, AttributeError)):
            legal.append(0)  # type: ignore[attr-defined]
        game.apply(legal[rng.randrange(len(legal))])
    assert "over" in repr(game)


def test_undo_records_are_bounded_but_the_record_is_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Endless games stay small: old undo records go, the action list (what records keep) stays."""
    import random

    from clashofdecks import Game
    from clashofdecks.rules import resolution

    monkeypatch.setattr(resolution, "UNDO_LIMIT", 8)  # where apply() reads the limit
    game = Game.random_duel(5)
    rng = random.Random(5)
    for _ in random_steps(game, rng):
        assert game.undo_depth <= 8 + 12  # the limit, plus at most one turn's light records
    assert len(game.history) > 20
    assert game.undo_depth < len(game.history)
