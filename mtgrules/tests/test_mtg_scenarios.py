"""Every scenario file passes; the README scenarios are all present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtg_helpers import SCENARIO_DIR
from mtgrules.scenario import Status, run_scenario_file

FILES = sorted(SCENARIO_DIR.glob("*.json"))

README_IDS = {
    "B1", "B2", "B3", "B4", "B8", "B9", "B10", "B12", "B14",
    "ROOM1", "ROOM2", "ROOM3", "ROOM4", "ROOM5", "ROOM6", "ROOM7", "ROOM8", "ROOM10", "ROOM11", "ROOM14",
    "ROOM15", "ROOM17",
}  # fmt: skip


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario_passes(path: Path) -> None:
    result = run_scenario_file(path)
    assert result.status is Status.PASS, result.message


def test_every_readme_scenario_has_a_file_citing_rules() -> None:
    ids = {}
    for path in FILES:
        data = json.loads(path.read_text())
        assert data["rules"], f"{path.name} cites no rule"
        ids[data["id"]] = path
    assert set(ids) >= README_IDS, sorted(README_IDS - set(ids))
    assert len(ids) == len(FILES), "scenario ids must be unique"
