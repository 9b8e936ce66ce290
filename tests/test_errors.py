"""Bad input: every refusal is a specific ``ValueError`` subclass naming the reason, and leaves the
game exactly as it was.

* :class:`IllegalActionError`: a well-formed action the rules do not allow now (with the rule).
* :class:`ActionSyntaxError`: text (or an integer) that names no action at all.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from clashofdecks import (
    ACTION_SPACE,
    ActionSyntaxError,
    ClashError,
    Game,
    IllegalActionError,
    InvalidPositionError,
    Ruleset,
    dump_position,
    load_position,
    view,
)
from clashofdecks.actions import CHANCE_END
from clashofdecks.formats import new_game, setup_summary


def state(game: Game) -> tuple[Any, ...]:
    """Everything observable, to compare before and after a refused action."""
    if game.phase == "setup":
        position = json.dumps(setup_summary(game), sort_keys=True)
        views = ""
    else:
        position = json.dumps(dump_position(game, expanded=True), sort_keys=True)
        views = json.dumps([view(game, 0), view(game, 1)], sort_keys=True)
    return (
        position,
        views,
        tuple(game.legal_actions()),
        tuple(game.history),
        game.pending,
        game.current_player,
        game.phase,
        game.mana,
        game.turn,
        game.outcome,
    )


@contextmanager
def unchanged(game: Game) -> Iterator[None]:
    """Assert that the block leaves ``game`` exactly as it was (and still playable: the legal
    actions apply as before)."""
    before = state(game)
    yield
    assert state(game) == before, "a refused action changed the game"


def refuse(game: Game, text: str, error: type[ClashError], message: str) -> None:
    """``text`` is refused with ``error`` whose message matches ``message`` exactly; the game is
    unchanged.  Illegal actions are also refused the same way as integers."""
    with unchanged(game), pytest.raises(error) as info:
        game.apply_text(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)
    if error is IllegalActionError:
        action = game.parse_action(text)
        assert not game.is_legal(action) and action not in game.legal_actions()
        with unchanged(game), pytest.raises(IllegalActionError, match=f"^{re.escape(message)}$"):
            game.apply(action)


def duel(
    hand0: list[str],
    hand1: list[str] | None = None,
    *,
    phase: str = "summon",
    mana: int = 6,
    lanes0: dict[str, list[Any]] | None = None,
    lanes1: dict[str, list[Any]] | None = None,
    ruleset: dict[str, Any] | None = None,
) -> Game:
    """A duel position with player 0 to act."""
    position: dict[str, Any] = {
        "turn": 3,
        "active": 0,
        "phase": phase,
        "mana": mana,
        "players": [
            {"hand": hand0, "lanes": lanes0 or {}},
            {"hand": hand1 or ["BASTION", "TROLL", "BRIGAND"], "lanes": lanes1 or {}},
        ],
    }
    if ruleset:
        position["ruleset"] = ruleset
    return load_position(position)


# ----------------------------------------------------------------------------- illegal actions


def test_not_enough_mana_names_the_cost_and_what_is_left() -> None:
    """R3.1: a player can never spend more mana than they have."""
    game = duel(["BASTION", "BRUTE", "ZOMBIE", "BOOM"], mana=3, lanes1={"top": ["OGRE"]})
    refuse(game, "play BRUTE top", IllegalActionError, "not enough mana: BRUTE costs 4, 3 left (R3.1)")
    refuse(game, "play BRUTE bottom", IllegalActionError, "not enough mana: BRUTE costs 4, 3 left (R3.1)")
    game.apply_text("play ZOMBIE top")  # 1 mana: 2 left
    refuse(game, "play BRUTE top", IllegalActionError, "not enough mana: BRUTE costs 4, 2 left (R3.1)")
    combat = duel(["BASTION", "METEORITE", "ZOMBIE"], phase="combat", mana=4, lanes1={"top": ["OGRE"]})
    refuse(
        combat,
        "cast METEORITE 1.top.0",
        IllegalActionError,
        "not enough mana: METEORITE costs 5, 4 left (R3.1)",
    )


def test_only_the_four_leftmost_cards_are_playable() -> None:
    """R3.2: the 4 leftmost cards of the hand, the fortress card not counted."""
    game = duel(["ZOMBIE", "BASTION", "GNOME", "GRRR", "VORTEX", "ASSASSIN", "BOOM"], mana=9)
    assert game.playable_cards(0) == ["ZOMBIE", "GNOME", "GRRR", "VORTEX"]
    refuse(
        game,
        "play ASSASSIN top",
        IllegalActionError,
        "ASSASSIN is not among the 4 leftmost cards of the hand (R3.2)",
    )
    game.apply_text("play GNOME bottom")  # the next card moves up and is playable at once
    assert "play ASSASSIN top" in game.legal_action_texts()


def test_a_card_not_in_the_hand() -> None:
    game = duel(["BASTION", "ZOMBIE", "GNOME"])
    refuse(game, "play BRUTE top", IllegalActionError, "BRUTE is not in player 0's hand (R3.2)")
    refuse(game, "cast BOOM 1.top.0", IllegalActionError, "BOOM is not in player 0's hand (R3.2)")


def test_the_last_card_besides_the_fortress_stays_in_hand() -> None:
    """R3.4: a player must always keep one card besides the fortress card."""
    game = duel(["BASTION", "ZOMBIE"])
    refuse(
        game,
        "play ZOMBIE top",
        IllegalActionError,
        "you must keep at least one card besides the fortress card (R3.4)",
    )
    assert game.legal_action_texts() == ["end"]


def test_the_last_card_right_of_the_fort_cannot_be_played() -> None:
    """R3.4a: playing the last card right of a Fort would lose at once, so it is illegal; the same
    play right of a Bastion is legal and makes the Bastion fall (R3.4b)."""
    fort = duel(["GNOME", "FORT", "ZOMBIE"])
    refuse(
        fort,
        "play ZOMBIE top",
        IllegalActionError,
        "playing the last card to the right of your Fort would lose the game (R3.4a)",
    )
    assert "play GNOME top" in fort.legal_action_texts()
    bastion = duel(["GNOME", "BASTION", "ZOMBIE"])
    bastion.apply_text("play ZOMBIE top")
    assert bastion.hand(0) == ["FORT", "GNOME"] and not bastion.is_over()


def test_an_incantation_needs_a_target() -> None:
    """R5.2, R5.2a: no creature in play, or no creature at the named place."""
    empty = duel(["BASTION", "BOOM", "ZOMBIE"])
    refuse(
        empty,
        "cast BOOM 1.top.0",
        IllegalActionError,
        "an incantation needs a creature in play as its target (R5.2a)",
    )
    game = duel(["BASTION", "BOOM", "ZOMBIE"], lanes1={"top": ["OGRE"]})
    refuse(game, "cast BOOM 1.top.1", IllegalActionError, "no creature at 1.top.1 (R5.2)")
    refuse(game, "cast BOOM 0.bottom.0", IllegalActionError, "no creature at 0.bottom.0 (R5.2)")
    game.apply_text("cast BOOM 1.top.0")


def test_next_needs_a_creature_that_can_attack() -> None:
    """R3.5, R3.6: 'next' only in Combat and only while a creature can still attack."""
    summon = duel(["BASTION", "ZOMBIE", "GNOME"], lanes0={"top": ["OGRE"]})
    refuse(
        summon,
        "next",
        IllegalActionError,
        "'next' is only legal in the Combat phase (R3.5); 'end' ends Summoning",
    )
    # A creature that entered play this turn (without Rage) cannot attack: nothing for 'next'.
    combat = duel(
        ["BASTION", "ZOMBIE", "GNOME"], phase="combat", lanes0={"top": [{"card": "OGRE", "new": True}]}
    )
    refuse(combat, "next", IllegalActionError, "no creature left that can attack now (R3.5, R3.6)")
    done = duel(
        ["BASTION", "ZOMBIE", "GNOME"], phase="combat", lanes0={"top": [{"card": "OGRE", "activated": True}]}
    )
    refuse(done, "next", IllegalActionError, "no creature left that can attack now (R3.5, R3.6)")


def test_wrong_phase() -> None:
    """R3.3: creatures only in Summoning; R5.1a: incantations only in Summoning under summon_only;
    setup actions (R2) are no decision of the play phases."""
    combat = duel(["BASTION", "ZOMBIE", "BOOM", "GNOME"], phase="combat", lanes1={"top": ["OGRE"]})
    refuse(
        combat,
        "play ZOMBIE top",
        IllegalActionError,
        "creatures are played only in the Summoning phase (R3.3)",
    )
    combat.apply_text("cast BOOM 1.top.0")  # the default timing allows incantations in Combat (R5.1)
    strict = duel(
        ["BASTION", "ZOMBIE", "BOOM", "GNOME"],
        phase="combat",
        lanes1={"top": ["OGRE"]},
        ruleset={"incantation_timing": "summon_only"},
    )
    refuse(
        strict,
        "cast BOOM 1.top.0",
        IllegalActionError,
        "incantations are cast only in the Summoning phase under this ruleset (R5.1a)",
    )
    for text in ("pick ZOMBIE", "ban GNOME", "deck 2"):
        refuse(strict, text, IllegalActionError, f"{text!r} is not a decision of this phase (R3)")


def pending_game() -> Game:
    """Player 0's Combustion (Splash) destroys two of player 1's creatures at once: player 1 must
    choose their return order (R3.9) before anything else happens."""
    game = duel(
        ["BASTION", "COMBUSTION", "BARON", "ZOMBIE"],
        mana=3,
        lanes1={"top": ["ZOMBIE"], "bottom": ["GNOME"]},
    )
    game.apply_text("cast COMBUSTION 1.top.0")
    assert game.pending == (1, ("ZOMBIE", "GNOME")) and game.current_player == 1
    return game


def test_a_pending_return_order_comes_first() -> None:
    """R3.9: while the owner must choose a return order, every other action is refused."""
    game = pending_game()
    message = "player 1 must first choose the return order of ZOMBIE GNOME ('order ...') (R3.9)"
    for text in ("end", "play BARON top", "next", "cast BOOM 1.top.0"):
        refuse(game, text, IllegalActionError, message)
    refuse(
        game,
        "order ZOMBIE",
        ActionSyntaxError,
        "'order' must list exactly the destroyed cards ZOMBIE GNOME, in any order",
    )
    refuse(
        game,
        "order ZOMBIE BARON",
        ActionSyntaxError,
        "'order' must list exactly the destroyed cards ZOMBIE GNOME, in any order",
    )
    game.apply_text("order GNOME ZOMBIE")
    assert game.pending is None and game.current_player == 0
    assert game.hand(1)[-2:] == ["GNOME", "ZOMBIE"]  # leftmost first (R3.9)
    assert game.hand(0)[-1] == "COMBUSTION"  # then the incantation returns (R5.4a)


def test_order_without_a_pending_decision() -> None:
    game = duel(["BASTION", "ZOMBIE", "GNOME"])
    refuse(game, "order ZOMBIE GNOME", ActionSyntaxError, "no return order is pending")


def test_no_action_once_the_game_is_over() -> None:
    game = load_position(
        {
            "active": 1,
            "phase": "combat",
            "mana": 0,
            "winner": 1,
            "players": [{"hand": ["ZOMBIE", "FORT"]}, {"hand": ["BASTION", "OGRE"]}],
        }
    )
    refuse(game, "end", IllegalActionError, "the game is over")
    refuse(game, "play OGRE top", IllegalActionError, "the game is over")


def test_setup_decisions_are_checked() -> None:
    """R2.3, R2.4: the setup stage refuses what is not its current decision."""
    draft = new_game(mode="duel", format="draft", seed=4)
    who = draft.current_player
    face_up = setup_summary(draft)["revealed"]
    assert isinstance(face_up, list) and sorted(face_up) == sorted(
        t.split()[1] for t in draft.legal_action_texts()
    )
    not_up = next(c for c in ("ZOMBIE", "GNOME", "OGRE", "BRUTE", "BARON") if c not in face_up)
    refuse(
        draft,
        f"pick {not_up}",
        IllegalActionError,
        f"{not_up} is not among the revealed cards ({' '.join(face_up)}) (R2.4)",
    )
    refuse(
        draft,
        "play ZOMBIE top",
        IllegalActionError,
        f"player {who} must pick a revealed card now ('pick CARD'), not 'play ZOMBIE top' (R2.4)",
    )
    precon = new_game(mode="duel", format="precon", seed=4)
    precon.apply_text("deck 2")
    refuse(precon, "deck 2", IllegalActionError, "deck 2 is already taken (R2.3: one Starter Kit)")


@pytest.mark.parametrize("action", [-1, CHANCE_END, 10**30])
def test_integers_that_name_no_action_are_refused(action: int) -> None:
    game = Game.random_duel(9)
    with (
        unchanged(game),
        pytest.raises(IllegalActionError, match=f"^action integer {action} is out of range$"),
    ):
        game.apply(action)
    with pytest.raises(ActionSyntaxError, match="out of range"):
        game.action_text(action)


def test_integers_beyond_the_action_space_are_custom_builds() -> None:
    """``build`` actions (R2.5) lie past ACTION_SPACE; in play they are no decision of the phase."""
    game = Game.random_duel(9)
    text = game.action_text(ACTION_SPACE)
    assert text.startswith("build ") and len(text.split()) == 11
    with (
        unchanged(game),
        pytest.raises(
            IllegalActionError, match=f"^{re.escape(repr(text))} is not a decision of this phase \\(R3\\)$"
        ),
    ):
        game.apply(ACTION_SPACE)


def test_every_illegal_integer_is_refused_without_a_trace() -> None:
    """At a few positions of a random game, every integer of the action space that is not legal
    is refused with a reason, and the game stays exactly as it was."""
    game = Game.random_duel(21, record_events=False)
    for _ in range(6):
        legal = set(game.legal_actions())
        before = state(game)
        for action in range(ACTION_SPACE):
            if action in legal:
                continue
            with pytest.raises(IllegalActionError) as info:
                game.apply(action)
            assert str(info.value)
        assert state(game) == before
        for action in sorted(legal)[:1]:
            game.apply(action)


# ----------------------------------------------------------------------------- malformed text

SYNTAX: list[tuple[str, str]] = [
    ("", r"^empty action; actions: play CARD top\|bottom"),
    ("   ", r"^empty action"),
    ("fly ZOMBIE", r"^unknown action 'fly'; actions: "),
    ("attack", r"^unknown action 'attack'"),
    ("play DRAGON top", r"^unknown card id 'DRAGON' in 'play DRAGON top'$"),
    ("play BASTION top", r"^unknown card id 'BASTION' in 'play BASTION top'$"),
    ("cast FIREBALL 1.top.0", r"^unknown card id 'FIREBALL'"),
    ("play ZOMBIE", r"^expected 'play CARD top\|bottom', got 'play ZOMBIE'$"),
    ("play ZOMBIE middle", r"^expected 'play CARD top\|bottom', got 'play ZOMBIE middle'$"),
    ("play BOOM top", r"^BOOM is an incantation: use 'cast BOOM P\.LANE\.N'$"),
    ("cast ZOMBIE 1.top.0", r"^ZOMBIE is a creature: use 'play ZOMBIE top\|bottom'$"),
    ("cast BOOM", r"^expected 'cast CARD P\.LANE\.N' \(e\.g\. cast BOOM 1\.top\.0\), got 'cast BOOM'$"),
    ("cast BOOM 2.top.0", r"^bad target '2\.top\.0': expected P\.LANE\.N, e\.g\. 1\.top\.0$"),
    ("cast BOOM 1.middle.0", r"^bad target '1\.middle\.0'"),
    ("cast BOOM 1.top", r"^bad target '1\.top'"),
    ("cast BOOM 1.top.-1", r"^bad target '1\.top\.-1'"),
    ("cast BOOM top", r"^bad target 'top'"),
    ("cast BOOM 1.top.99", r"^target position 99 is out of range \(0-31\)$"),
    ("end now", r"^'end' takes no arguments: 'end now'$"),
    ("next 2", r"^'next' takes no arguments"),
    ("deck 5", r"^expected 'deck N' with N in 1-4, got 'deck 5'$"),
    ("pick", r"^expected 'pick CARD', got 'pick'$"),
    ("ban ZOMBIE GNOME", r"^expected 'ban CARD'"),
    ("build ZOMBIE GNOME", r"^'build' needs 10 different cards, got 2$"),
]


@pytest.mark.parametrize(("text", "message"), SYNTAX, ids=[t or "empty" for t, _ in SYNTAX])
def test_malformed_action_text_is_a_syntax_error(text: str, message: str) -> None:
    game = duel(["BASTION", "ZOMBIE", "BOOM", "GNOME"], lanes1={"top": ["OGRE"]})
    with unchanged(game), pytest.raises(ActionSyntaxError, match=message):
        game.apply_text(text)
    with pytest.raises(ActionSyntaxError, match=message):
        game.parse_action(text)


def test_text_is_case_insensitive_for_words_and_cards() -> None:
    game = duel(["BASTION", "ZOMBIE", "BOOM", "GNOME"], lanes1={"top": ["OGRE"]})
    assert game.parse_action("PLAY zombie TOP") == game.parse_action("play ZOMBIE top")
    assert game.parse_action("Cast Boom 1.TOP.0") == game.parse_action("cast BOOM 1.top.0")


def test_errors_form_a_small_hierarchy_of_value_errors() -> None:
    """Callers can catch ClashError (or ValueError) for any bad input."""
    for error in (IllegalActionError, ActionSyntaxError, InvalidPositionError):
        assert issubclass(error, ClashError) and issubclass(error, ValueError)
    assert not issubclass(IllegalActionError, ActionSyntaxError)
    assert not issubclass(ActionSyntaxError, IllegalActionError)


def test_refusals_leave_a_solo_game_and_its_automaton_untouched(
    make_solo_position: Callable[..., dict[str, Any]],
) -> None:
    game = load_position(make_solo_position(random.Random(3)))
    hand = game.hand(0)
    blocked = hand[5]  # the fifth card besides the Bastion: not among the 4 leftmost (R3.2)
    is_incantation = blocked in ("ANNIHILATION", "BOOM", "COMBUSTION", "METEORITE", "CYCLONE")
    text = f"cast {blocked} 1.top.0" if is_incantation else f"play {blocked} top"
    with unchanged(game), pytest.raises(IllegalActionError, match="not among the 4 leftmost"):
        game.apply_text(text)
    with unchanged(game), pytest.raises(IllegalActionError, match="not in player 0's hand"):
        game.apply_text(f"play {next(c for c in ('ZOMBIE', 'GNOME', 'OGRE') if c not in hand)} top")


def test_a_capped_ruleset_is_validated() -> None:
    with pytest.raises(InvalidPositionError, match="max_turns must be a positive integer or null, not -3"):
        Ruleset(max_turns=-3)
