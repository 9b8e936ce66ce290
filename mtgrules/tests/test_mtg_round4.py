"""Unit tests for issue 36: definitions and setups the kernel must refuse, refusals that change nothing, and
the layer, counter and control rules on small positions the scenarios do not state."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtgrules import CastSpell, Game, PassPriority, TapForMana, Zone
from mtgrules.carddefs import CardDefinitionError, card_from_json
from mtgrules.errors import IllegalActivationError, TimingError
from mtgrules.scenario import ScenarioFormatError, build_game


def _creature(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "mana_cost": "{1}", "types": ["creature"], "power": 1, "toughness": 1, **extra}


def _spell(effect: dict[str, Any]) -> dict[str, Any]:
    return {"name": "Test Spell", "mana_cost": "{1}", "types": ["instant"], "spell_effect": effect}


@pytest.mark.parametrize(
    ("effect", "says"),
    [
        ({"kind": "put_counters", "counter": "+2/+2", "amount": 1}, "counter"),
        ({"kind": "put_counters", "amount": 1}, "counter"),
        ({"kind": "put_counters", "counter": "+1/+1"}, "amount"),
        ({"kind": "deal_damage", "amount": 2}, "needs a target"),
        ({"kind": "deal_damage", "target": {"kind": "any target"}}, "amount"),
        ({"kind": "destroy", "target": {"kind": "creature"}, "tap": True}, "'tap' belongs to"),
        ({"kind": "destroy", "target": {"kind": "creature"}, "gains": ["haste"]}, "'gains' belongs to"),
        ({"kind": "gain_control", "target": {"kind": "creature"}, "gains": ["speed"]}, "unknown value"),
        ({"kind": "destroy", "target": {"kind": "creature"}, "until_end_of_turn": True}, "until_end_of_turn"),
    ],
)
def test_malformed_new_effects_are_refused_by_name(effect: dict[str, Any], says: str) -> None:
    with pytest.raises(CardDefinitionError, match=says):
        card_from_json(_spell(effect))


@pytest.mark.parametrize(
    "card",
    [
        {"id": "x", "name": "Squire", "owner": "A", "zone": "hand", "counters": {"+1/+1": 1}},
        {"id": "x", "name": "Squire", "owner": "A", "zone": "graveyard", "face_down": True},
        {"id": "x", "name": "Squire", "owner": "A", "zone": "battlefield", "counters": {"+2/+2": 1}},
        {"id": "x", "name": "Squire", "owner": "A", "zone": "battlefield", "counters": {"+1/+1": -1}},
    ],
)
def test_inconsistent_counter_and_face_down_setups_are_refused(card: dict[str, Any]) -> None:
    with pytest.raises(ScenarioFormatError):
        build_game({"cards": [card]})


def test_a_summoning_sick_creature_s_mana_ability_refusal_changes_nothing_and_haste_allows_it() -> None:
    elf = card_from_json(_creature("Test Elf", mana_ability="G"))
    quick = card_from_json(_creature("Test Quick Elf", mana_ability="G", keywords=["haste"]))
    game = Game(cards=[elf, quick])
    game.add_card("elf", "Test Elf", "A", "battlefield", sick=True)
    game.add_card("quick", "Test Quick Elf", "A", "battlefield", sick=True)
    game.start(active="A", step="main1", turn=2)
    before = game.snapshot()
    with pytest.raises(IllegalActivationError, match=r"302\.6"):
        game.apply(TapForMana("A", "elf"))
    assert game.snapshot() == before
    game.apply(TapForMana("A", "quick"))
    assert game.players["A"].pool.amounts["G"] == 1


def test_flash_allows_a_creature_spell_in_the_opponent_s_turn_and_without_it_is_refused() -> None:
    flasher = card_from_json(_creature("Test Flasher", keywords=["flash"]))
    plain = card_from_json(_creature("Test Plain"))
    game = Game(cards=[flasher, plain])
    game.add_card("f", "Test Flasher", "B", "hand")
    game.add_card("p", "Test Plain", "B", "hand")
    game.add_mana("B", "{C}{C}")
    game.start(active="A", step="upkeep", turn=2)
    game.apply(PassPriority("A"))
    with pytest.raises(TimingError):
        game.apply(CastSpell("B", "p"))
    game.apply(CastSpell("B", "f"))
    assert [i.id for i in game.stack] == ["f"]


def test_counters_change_power_and_toughness_and_survive_a_copy_effect() -> None:
    game = Game()
    game.add_card("ox", "Test Ox", "A", "battlefield", counters={"+1/+1": 2, "-1/-1": 1})
    game.start(active="A", step="main1", turn=2)
    # 704.5q has already removed one of each as A first received priority
    assert dict(game.permanents["ox"].counters) == {"+1/+1": 1, "-1/-1": 0}
    assert (game.characteristics("ox").power, game.characteristics("ox").toughness) == (3, 6)
    game.permanents["ox"].copies.append((game.find_card("Squire"), False))
    assert (game.characteristics("ox").power, game.characteristics("ox").toughness) == (2, 3)


def test_a_face_down_permanent_has_no_name_and_its_card_is_not_revealed_by_copying() -> None:
    game = Game()
    game.add_card("bear", "Alpine Grizzly", "A", "battlefield", face_down=True)
    chars = game.characteristics("bear")
    assert (chars.names, chars.power, chars.toughness, chars.mana_value) == ((), 2, 2, 0)
    assert game.card_of("bear").faces[0].name == ""
    assert game.name_of("bear") == "bear"


GROW = _spell({"kind": "put_counters", "counter": "+1/+1", "amount": 1, "target": {"kind": "creature"}})
GROW["name"] = "Test Grow"
WITHER = _spell({"kind": "put_counters", "counter": "-1/-1", "amount": 1, "target": {"kind": "creature"}})
WITHER["name"] = "Test Wither"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.booleans(), max_size=8))
def test_counters_are_never_both_on_a_permanent_when_a_player_has_priority(grows: list[bool]) -> None:
    """704.5q: whatever order the counters come in, at priority no permanent has both kinds, and the Ox's
    power and toughness are its printed 2/5 plus the net counters (613.4c), or it has died (704.5f)."""
    game = Game(cards=[card_from_json(GROW), card_from_json(WITHER)])
    game.add_card("ox", "Test Ox", "A", "battlefield")
    for i, grow in enumerate(grows):
        game.add_card(f"s{i}", "Test Grow" if grow else "Test Wither", "A", "hand")
    game.add_mana("A", "{C}" * len(grows))
    game.start(active="A", step="main1", turn=2)
    net = 0
    for i, grow in enumerate(grows):
        if game.zone_of("ox") is not Zone.BATTLEFIELD:
            break
        game.apply(CastSpell("A", f"s{i}", targets=("ox",)))
        game.apply(PassPriority("A"))
        game.apply(PassPriority("B"))
        net += 1 if grow else -1
        if game.zone_of("ox") is Zone.BATTLEFIELD:
            counters = game.permanents["ox"].counters
            assert not (counters["+1/+1"] and counters["-1/-1"])
            assert counters["+1/+1"] - counters["-1/-1"] == net
            chars = game.characteristics("ox")
            assert (chars.power, chars.toughness) == (2 + net, 5 + net)
        else:
            assert 5 + net <= 0
