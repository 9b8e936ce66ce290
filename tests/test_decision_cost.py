"""``simulation.decision_cost`` (docs/ai.md, "The network inside the search"): every agent named is
timed on the very positions the first one plays, so the means are paired."""

from __future__ import annotations

import json

import pytest

from clashofdecks.simulation.decision_cost import decision_cost, main


def test_every_agent_is_timed_on_the_same_positions() -> None:
    first, second = decision_cost(["greedy", "random"], opponent="random", games=1, seed=3)
    assert first["agent"] == "greedy" and second["played_by"] == "greedy"
    for stage in ("setup", "play"):
        assert first[stage]["decisions"] == second[stage]["decisions"] > 0
    assert first["decisions"] == first["setup"]["decisions"] + first["play"]["decisions"]
    assert 0.0 <= first["mean_cpu_seconds"] <= first["max_cpu_seconds"]


def test_the_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["greedy", "--opponent", "random", "--games", "1"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["agent"] == "greedy" and row["games"] == 1
