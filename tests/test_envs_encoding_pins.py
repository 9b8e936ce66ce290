"""The environments' encoding is pinned: on 229 fixed positions (duel and solo, every format, setup
stage, pending return orders, finished games, a lane beyond the cap, a history beyond the cap) the
observation, the information state and the legal-action masks of both seats hash exactly to what the
encoder wrote before its speed-up (tests/data/envs-encoding-pins.json, written by
tests/tools/pin_encodings.py).  A faster encoder must change nothing a learner sees (docs/envs.md).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
from pin_encodings import OUT, pins

from clashofdecks.position import load_position

PINS: list[dict[str, Any]] = json.loads(OUT.read_text(encoding="utf-8"))["positions"]


def _history(entry: dict[str, Any]) -> list[tuple[int, int]]:
    return [(p, a) for p, a in entry["history"]]


def test_pinned_positions_cover_what_the_encoder_must_handle() -> None:
    """The fixture is not vacuous: every kind of position the encoder branches on is in it."""
    phases = Counter(e["position"]["phase"] for e in PINS)
    assert phases["summon"] > 20 and phases["combat"] > 20 and phases["setup"] > 10
    assert sum("pending" in e["position"] for e in PINS) >= 20
    assert sum(e["position"]["mode"] == "solo" for e in PINS) >= 30
    assert sum(e["position"]["winner"] is not None for e in PINS) >= 10
    assert {e["position"].get("hidden_identities", False) for e in PINS} == {True, False}
    assert any(len(e["history"]) > 512 for e in PINS)
    assert len({e["seat0"]["observation"] for e in PINS}) > 0.95 * len(PINS)


def test_encoder_output_is_unchanged() -> None:
    failures: list[str] = []
    for entry in PINS:
        game = load_position(entry["position"], record_events=False)
        got = pins(game, entry["dealt"], _history(entry))
        for seat in ("seat0", "seat1"):
            want, now = entry[seat], got[seat]
            if now["observation"] != want["observation"]:
                changed = sorted(
                    name
                    for name in set(want["slices"]) | set(now["slices"])
                    if want["slices"].get(name) != now["slices"].get(name)
                )
                failures.append(f"{entry['tag']}, {seat}: the observation changed in slices {changed}")
            for kind in ("infostate", "mask"):
                if now[kind] != want[kind]:
                    failures.append(f"{entry['tag']}, {seat}: the {kind} changed")
        if got["mask_any"] != entry["mask_any"]:
            failures.append(f"{entry['tag']}: the mask of the player to move changed")
    assert not failures, f"{len(failures)} changes, first ones:\n" + "\n".join(failures[:12])
