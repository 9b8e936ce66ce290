"""The scenario JSON Schema: valid, followed by every scenario file, in step with the runner and the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mtgrules
from mtg_helpers import SCENARIO_DIR
from mtgrules import cards, scenario

jsonschema = pytest.importorskip("jsonschema", reason="schema tests need jsonschema (the 'dev' extra)")

PACKAGE_DIR = Path(mtgrules.__file__).parent
SCHEMA = json.loads((PACKAGE_DIR / "schemas" / "scenario.schema.json").read_text())
SCENARIOS = sorted(SCENARIO_DIR.glob("*.json"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

# ---------------------------------------------------------------- scenario JSON Schema


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_scenario_file_follows_the_schema(path: Path) -> None:
    errors = [e.message for e in VALIDATOR.iter_errors(json.loads(path.read_text()))]
    assert not errors, errors[:3]


def _enum(ref: dict[str, object], *keys: str) -> set[str]:
    node: object = ref
    for k in keys:
        assert isinstance(node, dict)
        node = node[k]
    assert isinstance(node, dict)
    values = node["enum"]
    assert isinstance(values, list)
    return set(values)


def test_schema_agrees_with_the_runner_and_the_card_model() -> None:
    d = SCHEMA["$defs"]
    assert _enum(d, "effect", "properties", "kind") == {e.value for e in cards.EffectKind}
    assert _enum(d, "effect", "properties", "target", "properties", "kind") == {
        t.value for t in cards.TargetKind
    }
    assert _enum(d["triggered"], "items", "properties", "trigger") == {t.value for t in cards.Trigger}
    assert _enum(d["static"], "items", "properties", "kind") == {k.value for k in cards.StaticKind}
    assert _enum(d["face_card"], "properties", "keywords", "items") == {k.value for k in cards.Keyword}
    assert _enum(d["face_card"], "properties", "types", "items") == {t.value for t in cards.CardType}
    steps = {s["properties"]["do"]["const"] for s in d["step"]["oneOf"] if "do" in s["properties"]}
    assert steps == set(scenario._ACTION_KEYS) | set(scenario._MACROS)
    assert set(d["setup"]["properties"]) == scenario._SETUP_KEYS
    assert set(d["setup_card"]["properties"]) == scenario._CARD_KEYS
    assert set(d["expect"]["properties"]) == scenario._EXPECT_KEYS
    assert set(d["face_card"]["properties"]) == scenario_card_keys()


def scenario_card_keys() -> set[str]:
    from mtgrules.carddefs import _CARD_KEYS

    return _CARD_KEYS - {"doors"}


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(colour="blue"),
        lambda d: d["setup"].update(step="declare_blockers"),
        lambda d: d["steps"].insert(0, {"do": "fly", "player": "A"}),
        lambda d: d.update(
            card_definitions=[{"name": "X", "types": ["enchantment"], "supertypes": ["World"]}]
        ),
        lambda d: d.update(card_definitions=[{"types": ["enchantment"], "subtypes": ["Room"], "doors": []}]),
        lambda d: d["setup"]["cards"].append({"id": "x", "owner": "A", "zone": "hand"}),
        lambda d: d["expect"].update(events=[[]]),
    ],
)
def test_schema_and_runner_both_refuse_malformed_scenarios(mutate: object) -> None:
    data = json.loads((SCENARIO_DIR / "B1_band_blocked_by_one.json").read_text())
    assert callable(mutate)
    mutate(data)
    assert list(VALIDATOR.iter_errors(data))
    assert scenario.run_scenario(data).status is scenario.Status.ERROR
