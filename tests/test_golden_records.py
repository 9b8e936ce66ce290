"""Golden game records (tests/data/records): each replays action by action to its stored end.

The records were played by the baseline agents in every mode and format; the final position of each
is stored beside it.  Any change in the engine's rules, RNG or notation that alters a game shows here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clashofdecks.position import dump_position
from clashofdecks.record import GameRecord, initial_game, record_game, replay

RECORDS = sorted(
    p for p in (Path(__file__).parent / "data" / "records").glob("*.json") if ".final" not in p.name
)


def test_there_are_golden_records_for_every_mode_and_format() -> None:
    kinds = {(GameRecord.load(p).mode, GameRecord.load(p).format) for p in RECORDS}
    assert kinds >= {
        ("duel", "draft"),
        ("duel", "precon"),
        ("duel", "custom"),
        ("solo", "draft"),
        ("solo", "precon"),
    }


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_golden_record_replays_to_its_stored_end(path: Path) -> None:
    record = GameRecord.load(path)
    game = replay(record)  # raises at the first action that does not replay; checks the result
    assert game.is_over()
    final = json.loads(path.with_name(path.stem + ".final.json").read_text(encoding="utf-8"))
    assert dump_position(game) == final
    # Writing the replayed game again gives the same record (actions and result).
    again = record_game(game, players=record.players).to_dict()
    assert again == record.to_dict()


@pytest.mark.parametrize("path", RECORDS[:2], ids=[p.stem for p in RECORDS[:2]])
def test_every_intermediate_position_is_reproduced(path: Path) -> None:
    """Two replays agree position by position, and undo walks back through the same positions."""
    record = GameRecord.load(path)
    a, b = initial_game(record), initial_game(record)
    seen = []
    for text in record.actions:
        a.apply_text(text)
        b.apply_text(text)
        if a.phase != "setup":
            assert dump_position(a) == dump_position(b)
            seen.append(dump_position(a))
    for expected in reversed(seen[:-1]):
        a.undo()
        if a.phase != "setup":
            assert dump_position(a) == expected
