"""web/deltas.py's ``frame_delta`` on the cases a whole game seldom shows (tests/web/test_deltas_js.py
and test_live_games.py check it over whole games): keys removed at every depth, in the old frame's
order; a value of another type that compares equal (``1`` and ``true`` differ in JSON); the same
object unchanged; and ``apply_delta`` rebuilding the new frame from each."""

from __future__ import annotations

from typing import Any

import pytest

from clashofdecks.web.deltas import apply_delta, frame_delta

CASES: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any], list[list[str]]]] = [
    # old, new, changed, removed
    ({"a": 1, "b": 2, "c": 3}, {"b": 2}, {}, [["a"], ["c"]]),
    (
        {"x": 1, "v": {"p": {"q": 1, "r": 2}, "s": 1}, "y": 2},
        {"v": {"p": {"q": 1}, "s": 2}, "z": 0},
        {"v": {"s": 2}, "z": 0},
        [["x"], ["y"], ["v", "p", "r"]],
    ),
    ({"n": 1, "f": 0}, {"n": True, "f": False}, {"n": True, "f": False}, []),
    ({"v": {"k": 1}}, {"v": {"k": True}}, {"v": {"k": True}}, []),
    ({"l": [1, 2]}, {"l": [1, 2]}, {}, []),
    ({"l": [1, 2]}, {"l": [1, 3]}, {"l": [1, 3]}, []),
    ({"d": {"a": 1}}, {"d": None}, {"d": None}, []),
    ({"d": None}, {"d": {"a": 1}}, {"d": {"a": 1}}, []),
    ({"d": {"a": 1}}, {"d": {}}, {}, [["d", "a"]]),
]


@pytest.mark.parametrize(("old", "new", "changed", "removed"), CASES)
def test_a_delta_holds_what_changed_and_the_paths_removed_in_order(
    old: dict[str, Any], new: dict[str, Any], changed: dict[str, Any], removed: list[list[str]]
) -> None:
    delta = frame_delta(old, new)
    assert delta == {"type": "delta", "changed": changed, "removed": removed}
    rebuilt = apply_delta(old, delta)
    assert rebuilt == new and all(type(rebuilt[k]) is type(new[k]) for k in new)


def test_the_same_object_is_unchanged_and_shared_values_are_left_as_they_were() -> None:
    labels = ["End the turn"]
    old = {"labels": labels, "view": {"hand": ["A"]}}
    new = {"labels": labels, "view": {"hand": ["A", "B"]}}
    assert frame_delta(old, new)["changed"] == {"view": {"hand": ["A", "B"]}}
    assert old == {"labels": ["End the turn"], "view": {"hand": ["A"]}}
