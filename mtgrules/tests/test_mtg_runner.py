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
    data["steps"][1]["expect"]["bands"] = [["squire", "infantry"]]
    result = run_scenario(data)
    assert result.status is Status.FAIL
    assert result.message.startswith("step 2 (expect): bands")


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


def test_cli_cards_lists_rooms() -> None:
    res = CliRunner().invoke(main, ["cards"])
    assert res.exit_code == 0
    assert "Defiled Crypt // Cadaver Lab" in res.output
