"""The solo standard game's threat options (R8.1-R8.3): validation, points, levels, round trip."""

from __future__ import annotations

from typing import Any

import pytest

from clashofdecks import LEVELS, Threat, ThreatError, dump_position, load_position
from clashofdecks.options import THREAT_ABILITIES


def test_r8_1_the_quick_game_is_the_zero_point_default() -> None:
    assert Threat() == Threat.level(0) == LEVELS[0]
    assert Threat().threat_points() == 0
    assert Threat().to_dict() == {
        "extra_mana_per_creature": 1,
        "base_mana": 6,
        "starts": "player",
        "resilience": "bastion",
        "defence": "full",
        "abilities": [],
    }


@pytest.mark.parametrize(
    ("options", "points"),
    [
        ({"extra_mana_per_creature": 1}, 0),
        ({"extra_mana_per_creature": 2}, 2),
        ({"base_mana": 6}, 0),
        ({"base_mana": 7}, 1),
        ({"base_mana": 8}, 2),
        ({"base_mana": 9}, 3),
        ({"base_mana": 10}, 4),
        ({"starts": "player"}, 0),
        ({"starts": "automaton"}, 1),
        ({"resilience": "bastion"}, 0),
        ({"resilience": "fort"}, -1),
        ({"defence": "full"}, 0),
        ({"defence": "minus_one"}, 2),
        *[({"abilities": [a]}, 1) for a in THREAT_ABILITIES],
        ({"abilities": list(THREAT_ABILITIES)}, 5),
        ({"base_mana": 8, "abilities": ["rage", "splash"], "resilience": "fort"}, 3),
        ({"extra_mana_per_creature": 2, "defence": "minus_one", "starts": "automaton"}, 5),
    ],
)
def test_r8_2_threat_points_of_each_option(options: dict[str, Any], points: int) -> None:
    """R8.2: the price of every option (R8.2a: 1 point per ability)."""
    assert Threat.from_dict(options).threat_points() == points


def test_r8_3_levels_are_the_plain_allocations() -> None:
    """R8.3: level 1-4 raise the base mana to 7-10; level 5 is base mana 10 and the automaton starts."""
    expected = {
        0: Threat(),
        1: Threat(base_mana=7),
        2: Threat(base_mana=8),
        3: Threat(base_mana=9),
        4: Threat(base_mana=10),
        5: Threat(base_mana=10, starts="automaton"),
    }
    for level, threat in expected.items():
        assert Threat.level(level) == threat
        assert Threat.level(level).threat_points() == level
        Threat.level(level).check_level(level)
    assert set(LEVELS) == set(range(6))


@pytest.mark.parametrize("bad", [-1, 6, 10])
def test_r8_3_unknown_level_is_refused(bad: int) -> None:
    with pytest.raises(ThreatError, match="level must be 0 to 5"):
        Threat.level(bad)


def test_r8_1_check_level_accepts_only_the_exact_total() -> None:
    """R8.1: spend exactly the level's points; other allocations are allowed if the total matches."""
    Threat(abilities=("splash", "berserk"), base_mana=7).check_level(3)
    Threat(defence="minus_one", resilience="fort", base_mana=7).check_level(2)
    with pytest.raises(ThreatError, match="cost 4 threat points; level 3 needs exactly 3"):
        Threat(base_mana=10).check_level(3)
    with pytest.raises(ThreatError, match="cost 1 threat points; level 2"):
        Threat(starts="automaton").check_level(2)
    with pytest.raises(ThreatError, match="cost -1 threat points; level 0"):
        Threat(resilience="fort").check_level(0)
    with pytest.raises(ThreatError, match="level must be 0 to 5"):
        Threat().check_level(6)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"base_mana": 11}, "base_mana must be one of 6, 7, 8, 9, 10, not 11"),
        ({"base_mana": 5}, "base_mana must be one of"),
        ({"base_mana": "8"}, "base_mana must be one of"),
        ({"extra_mana_per_creature": 3}, "extra_mana_per_creature must be one of 1, 2"),
        ({"extra_mana_per_creature": True}, "extra_mana_per_creature must be one of"),
        ({"starts": "opponent"}, "starts must be one of player, automaton"),
        ({"resilience": "none"}, "resilience must be one of bastion, fort"),
        ({"defence": "minus_two"}, "defence must be one of full, minus_one"),
        ({"abilities": ["flying"]}, "unknown ability 'flying'"),
        ({"abilities": ["rage", "rage"]}, "listed twice"),
        ({"abilities": "rage"}, "abilities must be a list"),
        ({"mana": 8}, "unknown option 'mana'"),
        ({"base_mana": 8, "speed": 1}, "unknown option 'speed'"),
    ],
)
def test_threat_validation_names_the_problem(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ThreatError, match=message):
        Threat.from_dict(data)


def test_threat_from_dict_needs_an_object() -> None:
    with pytest.raises(ThreatError, match="must be an object"):
        Threat.from_dict(["base_mana", 8])


def test_threat_constructor_validates_too() -> None:
    with pytest.raises(ThreatError, match="unknown ability 'haste'"):
        Threat(abilities=("haste",))
    with pytest.raises(ThreatError, match="base_mana"):
        Threat(base_mana=12)


def test_threat_round_trip_and_canonical_ability_order() -> None:
    threat = Threat(
        extra_mana_per_creature=2,
        base_mana=9,
        starts="automaton",
        resilience="fort",
        defence="minus_one",
        abilities=("berserk", "splash"),
    )
    data = threat.to_dict()
    assert data["abilities"] == ["splash", "berserk"]  # canonical order
    assert Threat.from_dict(data) == threat
    assert Threat(abilities=("berserk", "splash")) == Threat(abilities=("splash", "berserk"))
    for level in range(6):
        assert Threat.from_dict(Threat.level(level).to_dict()) == Threat.level(level)


def test_threat_in_a_solo_position_round_trips_and_is_refused_in_duel() -> None:
    position = {
        "mode": "solo",
        "threat": {"base_mana": 8, "abilities": ["protection"]},
        "active": 0,
        "phase": "summon",
        "mana": 3,
        "players": [
            {"hand": ["BASTION", "GRRR", "OGRE"], "lanes": {"top": [], "bottom": []}},
            {"automaton": True, "deck": ["BARON", "BASTION"], "lanes": {"top": [], "bottom": []}},
        ],
    }
    game = load_position(position)
    assert game.threat == Threat(base_mana=8, abilities=("protection",))
    dumped = dump_position(game)
    assert dumped["threat"]["base_mana"] == 8 and dumped["threat"]["abilities"] == ["protection"]
    assert dump_position(load_position(dumped)) == dumped
    bad = dict(position, threat={"base_mana": 8, "haste": True})
    with pytest.raises(ThreatError, match="unknown option 'haste'"):
        load_position(bad)
    duel = {
        "threat": {},
        "active": 0,
        "phase": "summon",
        "mana": 3,
        "players": [
            {"hand": ["BASTION", "GRRR", "OGRE"], "lanes": {"top": [], "bottom": []}},
            {"hand": ["BASTION", "BARON", "ZOMBIE"], "lanes": {"top": [], "bottom": []}},
        ],
    }
    with pytest.raises(ValueError, match="only to solo"):
        load_position(duel)
