"""Unit tests of rules the scenarios cannot reach, and verify-before-mutate on refused actions."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mtg_helpers import combat_game
from mtgrules import (
    AssignCombatDamage,
    CastSpell,
    ChooseLegend,
    ChooseTargets,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    Game,
    PassPriority,
    TapForMana,
    Unlock,
    Zone,
)
from mtgrules.carddb import CARDS
from mtgrules.cards import Door, Keyword, characteristics
from mtgrules.combat import band_composition_ok, check_bands, group_triggers_banding_rule
from mtgrules.errors import (
    GameOverError,
    IllegalAttackError,
    IllegalBandError,
    IllegalBlockError,
    IllegalCastError,
    IllegalDamageAssignmentError,
    IllegalTargetError,
    IllegalUnlockError,
    InsufficientManaError,
    NotYourDecisionError,
    RulesError,
    TimingError,
    WrongDecisionError,
)
from mtgrules.mana import ManaCost, ManaPool

# ---------------------------------------------------------------- B5: 702.22d where attack targets are chosen


def test_b5_band_members_must_attack_the_same_player_or_planeswalker() -> None:
    c = {"infantry": characteristics(CARDS["Benalish Infantry"], None)}
    c["pegasus"] = characteristics(CARDS["Mesa Pegasus"], None)
    with pytest.raises(IllegalBandError, match=r"702\.22d"):
        check_bands([["infantry", "pegasus"]], {"infantry": "B", "pegasus": "planeswalker-1"}, c)
    with pytest.raises(IllegalBandError, match=r"702\.22d"):
        check_bands([["infantry", "pegasus"]], {"infantry": "B", "pegasus": "C"}, c)
    check_bands([["infantry", "pegasus"]], {"infantry": "C", "pegasus": "C"}, c)


def test_attacking_yourself_is_refused_where_targets_are_chosen() -> None:
    g = combat_game({"infantry": "Benalish Infantry", "squire": "Squire"}, {})
    before = g.snapshot()
    with pytest.raises(IllegalAttackError, match="must attack an opponent"):
        g.apply(DeclareAttackers("A", {"infantry": "A", "squire": "B"}, (("infantry", "squire"),)))
    assert g.snapshot() == before


def test_band_composition_rules() -> None:
    inf, squire, cadet = (
        characteristics(CARDS[n], None) for n in ("Benalish Infantry", "Squire", "Eager Cadet")
    )
    bander, legend = (characteristics(CARDS[n], None) for n in ("Test Legendary Bander", "Test Legend"))
    pegasus = characteristics(CARDS["Mesa Pegasus"], None)
    assert band_composition_ok([inf, squire])
    assert band_composition_ok([inf, pegasus, squire])  # any number with banding + one without
    assert not band_composition_ok([inf, squire, cadet])
    assert band_composition_ok([inf, bander])  # 'bands with other' counts as the one without
    assert not band_composition_ok([inf, bander, squire])
    assert band_composition_ok([bander, legend, legend])  # bands with other Legendary + other legendaries
    assert not band_composition_ok([legend, legend])
    assert not band_composition_ok([bander, squire])
    # 702.22j-k grouping rule
    assert group_triggers_banding_rule([squire, inf])
    assert group_triggers_banding_rule([bander, legend])
    assert not group_triggers_banding_rule([bander])
    assert not group_triggers_banding_rule([bander, squire])


def test_702_22m_and_702_22b_on_characteristics() -> None:
    card = CARDS["Test Double Bander"]
    assert card.faces[0].keywords.count(Keyword.BANDING) == 2  # two instances on the card
    ch = characteristics(card, None)
    assert ch.has_banding and ch.bands_with_other == frozenset({"Legendary"})
    lost = characteristics(card, None, loses_banding=True)
    assert not lost.has_banding and not lost.bands_with_other


# ---------------------------------------------------------------- Rooms: characteristics per zone


def test_room_characteristics_by_zone() -> None:
    crypt = CARDS["Defiled Crypt // Cadaver Lab"]
    whole = characteristics(crypt, None)
    assert whole.names == ("Defiled Crypt", "Cadaver Lab") and whole.mana_value == 5
    assert str(whole.mana_cost) == "{3}{B}{B}"
    lab = characteristics(crypt, (Door.RIGHT,))
    assert lab.names == ("Cadaver Lab",) and lab.mana_value == 1 and len(lab.triggered) == 1
    locked = characteristics(crypt, ())
    assert locked.names == () and locked.mana_cost is None and locked.triggered == ()
    assert "Room" in locked.subtypes
    pool = characteristics(CARDS["Bottomless Pool // Locker Room"], None)
    assert pool.mana_value == 6


def test_mana_cost_and_pool() -> None:
    assert str(ManaCost.parse("{3}{B}{B}")) == "{3}{B}{B}"
    assert ManaCost.parse("{3}{B}") + ManaCost.parse("{B}") == ManaCost.parse("{3}{B}{B}")
    with pytest.raises(ValueError):
        ManaCost.parse("{X}")
    pool = ManaPool()
    pool.add("B", 2)
    pool.add("C", 1)
    assert pool.plan_payment(ManaCost.parse("{1}{B}"))["C"] == 1  # colourless pays generic first
    with pytest.raises(InsufficientManaError):
        pool.plan_payment(ManaCost.parse("{B}{B}{B}"))
    with pytest.raises(InsufficientManaError):
        pool.plan_payment(ManaCost.parse("{1}{B}"), {"C": 2})
    assert pool.plan_payment(ManaCost.parse("{1}{B}"), {"B": 2}) == {
        "W": 0,
        "U": 0,
        "B": 2,
        "R": 0,
        "G": 0,
        "C": 0,
    }


# ---------------------------------------------------------------- verify before mutate


def _room_game() -> Game:
    g = Game()
    g.add_card("room", "Defiled Crypt // Cadaver Lab", "A", "battlefield", unlocked=["left"])
    g.add_card("hand_room", "Bottomless Pool // Locker Room", "A", "hand")
    g.add_card("naga", "Naga Eternal", "A", "graveyard")
    g.add_card("recall", "Test Recall", "A", "hand")
    g.add_card("reanimation", "Test Reanimation", "B", "hand")
    g.add_card("swamp", "Swamp", "A", "battlefield", tapped=True)
    g.add_card("squire", "Squire", "B", "battlefield")
    g.add_mana("A", "{U}")
    g.start(active="A", step="main1", turn=2)
    return g


REFUSALS: list[tuple[str, Callable[[Game], None], type[RulesError]]] = [
    ("unlock without enough mana", lambda g: g.apply(Unlock("A", "room", "right")), InsufficientManaError),
    ("unlock an unlocked door", lambda g: g.apply(Unlock("A", "room", "left")), IllegalUnlockError),
    ("unlock an unknown door", lambda g: g.apply(Unlock("A", "room", "top")), IllegalUnlockError),
    (
        "unlock by the non-priority player",
        lambda g: g.apply(Unlock("B", "room", "right")),
        NotYourDecisionError,
    ),
    ("cast both doors", lambda g: g.apply(CastSpell("A", "hand_room", "both")), IllegalCastError),
    ("cast a Room without a door", lambda g: g.apply(CastSpell("A", "hand_room")), IllegalCastError),
    (
        "cast a door it cannot pay",
        lambda g: g.apply(CastSpell("A", "hand_room", "right")),
        InsufficientManaError,
    ),
    ("cast a card from the graveyard", lambda g: g.apply(CastSpell("A", "naga")), IllegalCastError),
    (
        "cast with an illegal target",
        lambda g: g.apply(CastSpell("A", "recall", None, ("naga",))),
        IllegalTargetError,
    ),
    ("cast with too few targets", lambda g: g.apply(CastSpell("A", "recall")), IllegalTargetError),
    (
        "opponent's sorcery without priority",
        lambda g: g.apply(CastSpell("B", "reanimation")),
        NotYourDecisionError,
    ),
    ("tap a tapped land", lambda g: g.apply(TapForMana("A", "swamp")), RulesError),
    ("declare attackers in a main phase", lambda g: g.apply(DeclareAttackers("A", {})), WrongDecisionError),
    ("choose targets with nothing to target", lambda g: g.apply(ChooseTargets("A", ())), WrongDecisionError),
    ("pass for the other player", lambda g: g.apply(PassPriority("B")), NotYourDecisionError),
]


@pytest.mark.parametrize(("label", "act", "error"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refused_action_changes_nothing(
    label: str, act: Callable[[Game], None], error: type[RulesError]
) -> None:
    g = _room_game()
    before = g.snapshot()
    with pytest.raises(error) as info:
        act(g)
    assert isinstance(info.value, ValueError)  # every rules error is a ValueError
    assert str(info.value)
    assert g.snapshot() == before, label


def test_sorcery_speed_spell_refused_with_a_spell_on_the_stack() -> None:
    g = _room_game()
    g.add_mana("A", "{U}")
    g.apply(CastSpell("A", "recall", None, ("squire",)))
    g.add_mana("A", "{U}")
    before = g.snapshot()
    with pytest.raises(TimingError):
        g.apply(CastSpell("A", "hand_room", "left"))
    assert g.snapshot() == before


def test_combat_refusals_change_nothing() -> None:
    g = combat_game({"giant": "Test Trampling Giant", "pegasus": "Mesa Pegasus"}, {"grunt": "Test Grunt"})
    g.players["B"].life = 20
    before = g.snapshot()
    for bad in (
        DeclareAttackers("A", {"giant": "B", "grunt": "B"}),
        DeclareAttackers("A", {"giant": "B"}, (("giant",),)),
        DeclareAttackers("A", {"giant": "B", "pegasus": "B"}, (("giant", "pegasus"), ("pegasus", "giant"))),
    ):
        with pytest.raises(IllegalAttackError):
            g.apply(bad)
        assert g.snapshot() == before
    with pytest.raises(NotYourDecisionError):
        g.apply(DeclareAttackers("B", {}))
    g.apply(DeclareAttackers("A", {"giant": "B", "pegasus": "B"}))
    g.apply(PassPriority("A"))
    g.apply(PassPriority("B"))
    before = g.snapshot()
    with pytest.raises(IllegalBlockError, match="flying"):
        g.apply(DeclareBlockers("B", {"grunt": "pegasus"}))
    with pytest.raises(IllegalBlockError):
        g.apply(DeclareBlockers("B", {"giant": "pegasus"}))
    assert g.snapshot() == before
    g.apply(DeclareBlockers("B", {"grunt": "giant"}))
    g.apply(PassPriority("A"))
    g.apply(PassPriority("B"))
    before = g.snapshot()
    for bad_division in (
        {"giant": {"grunt": 1, "B": 4}},
        {"giant": {"grunt": 2, "B": 2}},
        {"giant": {"B": 5}},
    ):
        with pytest.raises(IllegalDamageAssignmentError):
            g.apply(AssignCombatDamage("A", bad_division))
        assert g.snapshot() == before
    with pytest.raises(IllegalDamageAssignmentError):
        g.apply(AssignCombatDamage("A", {"giant": {"grunt": 2.5, "B": 2.5}}))  # type: ignore[dict-item]
    g.apply(AssignCombatDamage("A", {"giant": {"grunt": 2, "B": 3}}))
    assert g.life("B") == 20 - 3 - 1  # trample 3 + the unblocked Pegasus


def test_game_over_refuses_actions() -> None:
    g = combat_game({"giant": "Test Giant"}, {})
    g.players["B"].life = 5
    g.apply(DeclareAttackers("A", {"giant": "B"}))
    g.apply(PassPriority("A"))
    g.apply(PassPriority("B"))  # no blockers possible: damage is dealt
    for _ in range(2):
        if g.game_over:
            break
        g.apply(PassPriority(g.pending.player))  # type: ignore[union-attr]
    assert g.game_over and g.players["B"].lost
    with pytest.raises(GameOverError):
        g.apply(PassPriority("A"))


def test_summoning_sick_creature_cannot_attack() -> None:
    g = Game()
    g.add_card("squire", "Squire", "A", "battlefield", sick=True)
    g.add_card("cadet", "Eager Cadet", "A", "battlefield")
    g.start(active="A", step="declare_attackers")
    with pytest.raises(IllegalAttackError, match=r"302\.6"):
        g.apply(DeclareAttackers("A", {"squire": "B"}))


def test_locker_room_draws_on_combat_damage() -> None:
    g = Game()
    g.add_card("room", "Bottomless Pool // Locker Room", "A", "battlefield", unlocked=["right"])
    g.add_card("cadet", "Eager Cadet", "A", "battlefield")
    g.add_card("card", "Squire", "A", "library")
    g.start(active="A", step="declare_attackers", turn=3)
    g.apply(DeclareAttackers("A", {"cadet": "B"}))
    while g.step.value != "end_combat":
        g.apply(PassPriority(g.pending.player))  # type: ignore[union-attr]
    assert g.players["A"].hand == ["card"]
    assert g.life("B") == 19


def test_spell_whose_target_changed_zones_does_not_resolve() -> None:
    g = Game()
    g.add_card("squire", "Squire", "B", "battlefield")
    g.add_card("recall", "Test Recall", "A", "hand")
    g.add_card("flicker", "Test Flicker", "A", "hand")
    g.add_mana("A", "{U}{U}{W}")
    g.start(active="A", step="main1", turn=2)
    g.apply(CastSpell("A", "recall", None, ("squire",), {"U": 2}))  # keep {W} for the Flicker
    g.apply(CastSpell("A", "flicker", None, ("squire",)))  # resolves first: the Squire is a new object
    for _ in range(4):
        g.apply(PassPriority(g.pending.player))  # type: ignore[union-attr]
    assert [e["id"] for e in g.events if e.type == "fizzles"] == ["recall"]  # 608.2b, 400.7
    assert g.zone_of("squire").value == "battlefield"  # type: ignore[union-attr]
    assert g.zone_of("recall").value == "graveyard"  # type: ignore[union-attr]


# ------------------------------------------------ defined cards, legend rule, trigger order (API)


def test_game_takes_defined_cards_and_refuses_clashing_names() -> None:
    from mtgrules.carddefs import CardDefinitionError, card_from_json

    striker = card_from_json(
        {
            "name": "Test Striker",
            "types": ["creature"],
            "power": 2,
            "toughness": 1,
            "keywords": ["first strike"],
        }
    )
    g = Game(cards=[striker])
    assert g.find_card("Test Striker") is striker and striker.test_card
    g.add_card("s", "Test Striker", "A", "battlefield")
    assert g.characteristics("s").keywords == {Keyword.FIRST_STRIKE}
    with pytest.raises(ValueError, match="already in the card pool"):
        Game(cards=[striker, striker])
    with pytest.raises(ValueError, match="unknown card"):
        Game().add_card("s", "Test Striker", "A", "battlefield")  # defined cards belong to their game only
    with pytest.raises(ValueError):
        Game(trigger_order="random")
    with pytest.raises(CardDefinitionError, match=r"card\.power: expected an integer"):
        card_from_json({"name": "X", "types": ["creature"], "power": "2", "toughness": 1})


def test_legend_rule_choice_is_refused_without_change_and_then_applied() -> None:
    g = Game()
    g.add_card("l1", "Test Legend", "A", "battlefield")
    g.add_card("l2", "Test Legend", "A", "battlefield")
    g.start(active="A", step="main1", turn=2)
    assert g.legend_groups() == [("A", "Test Legend", ["l1", "l2"])]
    before = g.snapshot()
    for bad in (ChooseLegend("A", "l3"), ChooseLegend("B", "l1"), PassPriority("A")):
        with pytest.raises(RulesError):
            g.apply(bad)
        assert g.snapshot() == before
    g.apply(ChooseLegend("A", "l1"))
    assert g.zone_of("l2") is Zone.GRAVEYARD and not g.legend_groups()


def test_simultaneous_triggers_of_one_source_and_ability_are_not_a_decision() -> None:
    from mtgrules.carddefs import card_from_json

    herald = card_from_json(
        {
            "name": "Test Herald",
            "mana_cost": "{W}",
            "types": ["creature"],
            "power": 1,
            "toughness": 1,
            "triggered": [
                {"trigger": "enters", "effect": {"kind": "gain_life", "amount": 1}, "text": "gain 1"},
                {"trigger": "enters", "effect": {"kind": "gain_life", "amount": 2}, "text": "gain 2"},
            ],
        }
    )
    for order, expected in (("as_triggered", None), ("choose", DecisionKind.ORDER_TRIGGERS)):
        g = Game(cards=[herald], trigger_order=order)
        g.add_card("h", "Test Herald", "A", "hand")
        g.add_mana("A", "{W}")
        g.start(active="A", step="main1", turn=2)
        g.apply(CastSpell("A", "h"))
        g.apply(PassPriority("A"))
        g.apply(PassPriority("B"))  # the Herald resolves: two different enters abilities trigger
        pending = g.pending
        assert pending is not None
        if expected is None:
            assert pending.kind is DecisionKind.PRIORITY and len(g.stack) == 2
        else:
            assert pending.kind is expected and pending.options == ("trigger-1", "trigger-2")
