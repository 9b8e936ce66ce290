"""Unit tests for triggers that remember, the new keywords, activated abilities and copy effects: what the
scenarios cannot state (identities, refusals that must change nothing, definitions that must be refused)."""

from __future__ import annotations

from typing import Any

import pytest

from mtgrules import ActivateAbility, CastSpell, ChooseCopy, DecisionKind, Game, PassPriority
from mtgrules.carddefs import CardDefinitionError, card_from_json
from mtgrules.cards import Door
from mtgrules.errors import (
    IllegalActivationError,
    IllegalChoiceError,
    IllegalTargetError,
    InsufficientManaError,
    NotYourDecisionError,
    TimingError,
)

CHAPEL_ROOM: dict[str, Any] = {
    "types": ["enchantment"],
    "subtypes": ["Room"],
    "doors": [
        {
            "name": "Test Ossuary",
            "mana_cost": "{W}",
            "triggered": [
                {
                    "trigger": "unlock_this_door",
                    "effect": {"kind": "gain_life", "amount": 1},
                    "text": "When you unlock this door, you gain 1 life.",
                }
            ],
        },
        {
            "name": "Test Chapel",
            "mana_cost": "{1}{W}",
            "triggered": [
                {
                    "trigger": "cards_leave_your_graveyard",
                    "once_each_turn": True,
                    "effect": {"kind": "gain_life", "amount": 3},
                    "text": "Whenever one or more cards leave your graveyard, you gain 3 life.",
                }
            ],
        },
    ],
}

SHRINE: dict[str, Any] = {
    "name": "Test Healing Shrine",
    "mana_cost": "{2}",
    "types": ["artifact"],
    "activated": [
        {
            "cost": {"mana": "{1}", "tap": True},
            "effect": {"kind": "gain_life", "amount": 2},
            "text": "{1}, {T}: You gain 2 life.",
        }
    ],
}


def test_an_abilitys_once_each_turn_key_does_not_move_when_the_other_door_unlocks() -> None:
    g = Game(cards=[card_from_json(CHAPEL_ROOM)])
    g.add_card("room", "Test Chapel", "A", "battlefield", unlocked=["right"])
    g.start(active="A")
    before = g._abilities("room")
    g.permanents["room"].unlocked.add(Door.LEFT)
    after = g._abilities("room")
    chapel_before = [(d, i) for d, i, a in before if a.once_each_turn]
    chapel_after = [(d, i) for d, i, a in after if a.once_each_turn]
    assert chapel_before == chapel_after == [("right", 0)]
    # its place in the whole list did move: the bug keyed "once each turn" by that place
    assert [a.once_each_turn for _, _, a in after].index(True) == 1


def _shrine_game(**setup: Any) -> Game:
    g = Game(cards=[card_from_json(SHRINE)])
    g.add_card("shrine", "Test Healing Shrine", "A", "battlefield", **setup)
    return g


@pytest.mark.parametrize(
    ("action", "error", "fragment"),
    [
        (ActivateAbility("A", "shrine", 0), InsufficientManaError, "pool"),
        (ActivateAbility("A", "shrine", 2), IllegalActivationError, "no activated ability number 2"),
        (ActivateAbility("B", "shrine", 0), NotYourDecisionError, "priority"),
        (ActivateAbility("A", "shrine", 0, targets=("A",)), IllegalTargetError, "no targets"),
    ],
)
def test_refused_activations_change_nothing(
    action: ActivateAbility, error: type[Exception], fragment: str
) -> None:
    g = _shrine_game()
    g.start(active="A")
    before = g.snapshot()
    with pytest.raises(error, match=fragment):
        g.apply(action)
    assert g.snapshot() == before


def test_a_tapped_permanent_cannot_pay_tap_and_the_refusal_changes_nothing() -> None:
    g = _shrine_game(tapped=True)
    g.add_mana("A", "{C}")
    g.start(active="A")
    before = g.snapshot()
    with pytest.raises(IllegalActivationError, match="tapped"):
        g.apply(ActivateAbility("A", "shrine", 0))
    assert g.snapshot() == before


def test_sorcery_speed_is_checked_against_the_stack() -> None:
    sundial = {
        "name": "Test Sundial",
        "mana_cost": "{1}",
        "types": ["artifact"],
        "activated": [
            {
                "cost": {"mana": "{1}"},
                "effect": {"kind": "gain_life", "amount": 1},
                "text": "{1}: You gain 1 life. Activate only as a sorcery.",
                "sorcery_speed": True,
            }
        ],
    }
    g = Game(cards=[card_from_json(sundial)])
    g.add_card("sundial", "Test Sundial", "A", "battlefield")
    g.add_mana("A", "{C}{C}")
    g.start(active="A")
    g.apply(ActivateAbility("A", "sundial", 0))
    assert [i.id for i in g.stack] == ["ability-1"]
    before = g.snapshot()
    with pytest.raises(TimingError, match=r"602\.5d"):
        g.apply(ActivateAbility("A", "sundial", 0))
    assert g.snapshot() == before
    g.apply(PassPriority("A"))
    g.apply(PassPriority("B"))
    assert g.life("A") == 21


def test_a_copy_choice_outside_the_candidates_changes_nothing() -> None:
    mimic = {
        "name": "Test Mimic",
        "mana_cost": "{U}",
        "types": ["artifact"],
        "enters_as_copy": {"of": "creature", "except": {"name": "Test Mimic"}},
    }
    g = Game(cards=[card_from_json(mimic)])
    g.add_card("squire", "Squire", "A", "battlefield")
    g.add_card("island", "Island", "A", "battlefield")
    g.add_card("mimic", "Test Mimic", "A", "hand")
    g.add_mana("A", "{U}")
    g.start(active="A")
    g.apply(CastSpell("A", "mimic"))
    g.apply(PassPriority("A"))
    g.apply(PassPriority("B"))
    assert g.pending is not None and g.pending.kind is DecisionKind.CHOOSE_COPY
    assert g.pending.options == ("squire",)  # the Island is not a creature
    before = g.snapshot()
    with pytest.raises(IllegalChoiceError, match=r"707\.9b"):
        g.apply(ChooseCopy("A", "island"))
    assert g.snapshot() == before
    g.apply(ChooseCopy("A", "squire"))
    chars = g.characteristics("mimic")
    assert chars.names == ("Test Mimic",) and (chars.power, chars.toughness) == (1, 2)


@pytest.mark.parametrize(
    ("definition", "fragment"),
    [
        ({"activated": [{"cost": {}, "effect": {"kind": "draw"}, "text": "x"}]}, "602.1a"),
        (
            {"activated": [{"cost": {"tap": True}, "effect": {"kind": "add_mana"}, "text": "x"}]},
            "mana",
        ),
        (
            {
                "activated": [
                    {
                        "cost": {"tap": True},
                        "effect": {
                            "kind": "become_copy",
                            "target": {"kind": "permanent"},
                            "until_end_of_turn": 1,
                        },
                        "text": "x",
                    }
                ]
            },
            "true/false",
        ),
        (
            {"activated": [{"cost": {"mana": "{1}"}, "effect": {"kind": "become_copy"}, "text": "x"}]},
            "target",
        ),
        ({"enters_as_copy": {"of": "spell"}}, "'permanent' or 'creature'"),
        ({"static": [{"kind": "enters_triggers_twice", "name": "X", "text": "x"}]}, "'name' belongs"),
    ],
)
def test_malformed_definitions_of_the_new_fields_are_refused(
    definition: dict[str, Any], fragment: str
) -> None:
    card = {"name": "Test Thing", "mana_cost": "{1}", "types": ["artifact"], **definition}
    with pytest.raises(CardDefinitionError, match=fragment):
        card_from_json(card)
