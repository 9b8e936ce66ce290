"""The scenario runner and the CLI: tests that must be able to fail do fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mtg_helpers import SCENARIO_DIR
from mtgrules.cli import main
from mtgrules.scenario import Status, run_scenario, run_scenario_file


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIO_DIR / name).read_text())
    return data


B1 = "B1_band_blocked_by_one.json"


def test_wrong_expectation_is_reported_fail_with_first_difference() -> None:
    data = _load(B1)
    data["expect"]["life"]["B"] = 18  # B really ends at 19
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert result.message == "life.B: expected 18, got 19"


def test_wrong_divider_expectation_fails() -> None:
    data = _load(B1)
    data["expect"]["events"][2]["assigned_by"] = "B"
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert "events[2]" in result.message


def test_expected_refusal_that_is_accepted_fails() -> None:
    data = _load(B1)
    data["steps"][0]["error"] = "IllegalBandError"
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert "expected IllegalBandError, but the action was accepted" in result.message


def test_unexpected_refusal_fails_with_the_rules_message() -> None:
    data = _load(B1)
    data["steps"][0]["bands"] = [["infantry", "squire", "cadet"]]
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert "IllegalBandError" in result.message and "702.22c" in result.message


def test_wrong_error_class_fails() -> None:
    data = _load("B4_band_composition.json")
    data["steps"][0]["error"] = "IllegalBlockError"
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert "expected IllegalBlockError, got IllegalBandError" in result.message


def test_mid_scenario_expectation_fails() -> None:
    data = _load(B1)
    data["steps"][1]["expect"]["bands"] = [["squire", "cadet"]]
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert result.message.startswith("step 2 (expect): bands")


def test_bands_and_blocks_compare_without_order() -> None:
    data = _load(B1)
    data["steps"][1]["expect"]["bands"] = [["squire", "infantry"]]  # the file says infantry, squire
    assert run_scenario(data).status is Status.PASS
    data = _load("B14b_bands_with_other_legendary.json")
    data["steps"][4]["expect"]["blocks"]["grizzly"] = ["legend2", "bander", "legend1"]
    assert run_scenario(data).status is Status.PASS
    data["steps"][4]["expect"]["blocks"]["grizzly"] = ["legend2", "bander"]
    assert run_scenario(data).status is Status.FAIL


def test_event_groups_match_simultaneous_events_in_any_order() -> None:
    data = _load("SBA4_zero_toughness_and_lethal_damage.json")
    group = data["expect"]["events"][0]
    data["expect"]["events"][0] = list(reversed(group))
    assert run_scenario(data).status is Status.PASS
    # a group needs a distinct event for each pattern
    data["expect"]["events"][0] = [group[0], group[0]]
    result = run_scenario(data)
    assert result.status is Status.FAIL and "events[0]: no events matching the group" in result.message
    # a plain list keeps its order: the engine logs the husk's death first (battlefield order)
    data["expect"]["events"] = [group[1], group[0]]
    assert run_scenario(data).status is Status.PASS
    data["expect"]["events"] = [group[0], group[1]]
    assert run_scenario(data).status is Status.FAIL


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda d: d.pop("rules"), "'id', 'rules' and 'setup' are required"),
        (lambda d: d.update(colour="blue"), "unknown key(s) ['colour']"),
        (lambda d: d["setup"]["cards"][0].update(name="Grizzly Bears"), "unknown card 'Grizzly Bears'"),
        (lambda d: d["steps"].insert(0, {"do": "fly", "player": "A"}), "unknown action 'fly'"),
        (lambda d: d["steps"][0].update(error="NoSuchError"), "unknown error class 'NoSuchError'"),
        (lambda d: d["steps"].insert(0, {"player": "A"}), "needs 'do'"),
        (lambda d: d["setup"].update(step="declare_blockers"), "cannot start in step declare_blockers"),
        (lambda d: d["expect"].update(lifes={}), "unknown key(s) ['lifes']"),
        (lambda d: d["steps"][0].update(attackers=["infantry"]), "expected an object of strings"),
        (lambda d: d.update(card_definitions={}), "card_definitions: expected a list"),
        (
            lambda d: d.update(
                card_definitions=[
                    {
                        "types": ["enchantment"],
                        "subtypes": ["Room"],
                        "doors": [
                            {"name": "Cadaver Lab", "mana_cost": "{B}"},
                            {"name": "Y", "mana_cost": "{1}"},
                        ],
                    }
                ]
            ),
            "card name 'Cadaver Lab' is already in the card pool",
        ),
        (
            lambda d: d.update(
                card_definitions=[{"name": "Squire", "types": ["creature"], "power": 1, "toughness": 1}]
            ),
            "card name 'Squire' is already in the card pool",
        ),
        (
            lambda d: d.update(card_definitions=[{"name": "Test X", "types": ["creature"], "power": 1}]),
            "a creature needs 'power' and 'toughness'",
        ),
        (
            lambda d: d.update(
                card_definitions=[{"name": "Test X", "types": ["enchantment"], "subtypes": ["Aura"]}]
            ),
            "Auras are not modelled",
        ),
        (
            lambda d: d.update(
                card_definitions=[{"name": "Test X", "types": ["enchantment"], "supertypes": ["World"]}]
            ),
            "'World' is not modelled",
        ),
        (
            lambda d: d.update(
                card_definitions=[
                    {
                        "name": "Test X",
                        "types": ["creature"],
                        "power": 1,
                        "toughness": 1,
                        "keywords": ["menace"],
                    }
                ]
            ),
            "unknown value 'menace'",
        ),
        (
            lambda d: d.update(
                card_definitions=[{"name": "Test X", "types": ["instant"], "mana_cost": "{W}"}]
            ),
            "needs a 'spell_effect'",
        ),
        (
            lambda d: d.update(
                card_definitions=[
                    {
                        "types": ["enchantment"],
                        "subtypes": ["Room"],
                        "doors": [{"name": "L", "mana_cost": "{1}"}],
                    }
                ]
            ),
            "a Room has exactly two doors",
        ),
        (
            lambda d: d.update(card_definitions=[{"types": ["creature"], "subtypes": ["Room"], "doors": []}]),
            "'Enchantment — Room'",
        ),
        (lambda d: d["setup"].update(trigger_order="random"), "setup.trigger_order: 'random'"),
        (
            lambda d: d["setup"]["cards"].append(
                {"id": "t", "copy_of": "nobody", "owner": "A", "zone": "battlefield"}
            ),
            "copy_of",
        ),
        (
            lambda d: d["setup"]["cards"].append(
                {"id": "t", "name": "Squire", "token": True, "owner": "A", "zone": "hand"}
            ),
            "a token exists only on the battlefield",
        ),
        (
            lambda d: d["setup"]["cards"].append({"id": "t", "owner": "A", "zone": "hand"}),
            "exactly one of 'name' and 'copy_of'",
        ),
        (lambda d: d["steps"].insert(0, {"do": "order_triggers", "player": "A"}), "needs key 'order'"),
    ],
)
def test_malformed_scenarios_are_errors_not_tracebacks(mutate: Any, fragment: str) -> None:
    data = copy.deepcopy(_load(B1))
    mutate(data)
    result = run_scenario(data)
    assert result.status is Status.ERROR
    assert result.message.startswith("malformed scenario:")
    assert fragment in result.message


def test_invalid_json_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "X", ')
    result = run_scenario_file(bad)
    assert result.status is Status.ERROR and "invalid JSON at line 1" in result.message
    missing = run_scenario_file(tmp_path / "nope.json")
    assert missing.status is Status.ERROR and "cannot read" in missing.message


def test_binary_and_non_utf8_files_are_errors(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{"id": "Ü"}'.encode("latin-1"))
    result = run_scenario_file(latin1)
    assert result.status is Status.ERROR
    assert "not a UTF-8 text file (byte 0xdc at offset 8)" in result.message
    binary = tmp_path / "image.json"
    binary.write_bytes(bytes(range(256)))
    assert run_scenario_file(binary).status is Status.ERROR
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    result = run_scenario_file(deep)
    assert result.status is Status.ERROR and "invalid JSON" in result.message
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + (SCENARIO_DIR / B1).read_bytes())
    assert run_scenario_file(bom).status is Status.PASS
    nul = tmp_path / "nul.json"
    nul.write_bytes(b"\x00\x00\x00")
    result = run_scenario_file(nul)
    assert result.status is Status.ERROR and "invalid JSON" in result.message


def test_cli_exit_status_and_output(tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(main, ["scenario", str(SCENARIO_DIR / B1)])
    assert ok.exit_code == 0, ok.output
    assert "PASS B1" in ok.output

    data = _load(B1)
    data["expect"]["life"]["B"] = 18
    failing = tmp_path / "fail.json"
    failing.write_text(json.dumps(data))
    res = runner.invoke(main, ["scenario", str(SCENARIO_DIR / B1), str(failing)])
    assert res.exit_code == 1
    assert "FAIL B1" in res.output and "life.B: expected 18, got 19" in res.output

    broken = tmp_path / "broken.json"
    broken.write_text("not json")
    res = runner.invoke(main, ["scenario", str(failing), str(broken)])
    assert res.exit_code == 2
    assert "ERROR broken" in res.output and "Traceback" not in res.output


def test_cli_json_output() -> None:
    res = CliRunner().invoke(main, ["scenario", "--json", str(SCENARIO_DIR)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["summary"]["failed"] == 0 and out["summary"]["errors"] == 0
    assert out["summary"]["total"] == len(list(SCENARIO_DIR.glob("*.json")))
    assert {"file", "id", "status", "message", "rules", "title"} <= set(out["results"][0])


def test_cli_help_version_and_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    for args in (["-h"], ["--help"], ["scenario", "-h"], ["cards", "-h"]):
        res = runner.invoke(main, args)
        assert res.exit_code == 0 and "Usage:" in res.output, args
    help_text = runner.invoke(main, ["scenario", "-h"]).output
    assert "0  every scenario passes" in help_text and "2  a file is malformed" in help_text
    res = runner.invoke(main, ["--version"])
    assert res.exit_code == 0 and res.output.startswith("mtgrules ")
    assert runner.invoke(main, []).exit_code == 2  # no command: usage, as the group's help says
    assert runner.invoke(main, ["bogus"]).exit_code == 2
    res = runner.invoke(main, ["scenario"])  # no file: a usage error, as the help says
    assert res.exit_code == 2 and "Missing argument" in res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = runner.invoke(main, ["scenario", str(empty)])  # no scenario file found
    assert res.exit_code == 1 and "0 total" in res.output


def test_cli_binary_file_is_a_clear_error(tmp_path: Path) -> None:
    binary = tmp_path / "photo.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    res = CliRunner().invoke(main, ["scenario", str(binary)])
    assert res.exit_code == 2
    assert "ERROR photo" in res.output and "not a UTF-8 text file" in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output


def test_cli_cards_lists_rooms() -> None:
    res = CliRunner().invoke(main, ["cards"])
    assert res.exit_code == 0
    assert "Defiled Crypt // Cadaver Lab" in res.output


def test_cli_cards_of_a_scenario(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["cards", str(SCENARIO_DIR / "CD3_unlock_trigger_not_doubled.json")])
    assert res.exit_code == 0, res.output
    assert (
        "Test Hall // Test Vault" in res.output
        and "Test Herald {W} (MV 1) - Creature - Human 1/1" in res.output
    )
    assert "Benalish Infantry" not in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"card_definitions": [{"name": "X", "types": ["creature"]}]}')
    res = runner.invoke(main, ["cards", str(bad)])
    assert res.exit_code == 2 and "a creature needs 'power' and 'toughness'" in res.output
