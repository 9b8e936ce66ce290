"""Protocol version 2's ``delta`` frame (docs/web.md, "Protocol"): what changed between the last
``state`` a connection was sent and the new one, and how a client rebuilds the new ``state`` from it.

A delta is ``{"type": "delta", "changed": {...}, "removed": [[key, ...], ...]}``.  ``changed`` holds,
for each key whose value differs, the new value -- or, where the old and the new value are both
objects, the delta of the two, nested the same way; ``removed`` lists the paths of keys the new
frame no longer has.  A client removes those paths, then merges ``changed`` into its state: an object
value into an object, any other value in place of the old one.  Every value in a delta is taken from
the new frame of the connection's own seats, so it shows nothing that frame would not (R9).
"""

from __future__ import annotations

from typing import Any

#: Keys of the answer to ``hello`` only (the log so far, the open seats): no base of a delta.
HELLO_ONLY = ("log", "open_seats")


def base_of(frame: dict[str, Any]) -> dict[str, Any]:
    """The state a delta applies to: a ``state`` frame without its ``hello``-only keys."""
    return {k: v for k, v in frame.items() if k not in HELLO_ONLY}


def frame_delta(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    changed: dict[str, Any] = {}
    removed: list[list[str]] = []
    _diff(old, new, [], changed, removed)
    return {"type": "delta", "changed": changed, "removed": removed}


def _diff(
    old: dict[str, Any],
    new: dict[str, Any],
    path: list[str],
    changed: dict[str, Any],
    removed: list[list[str]],
) -> None:
    # The keys gone, in the old frame's order (a set's difference first: most often there are none).
    if old.keys() - new.keys():
        removed.extend([*path, key] for key in old if key not in new)
    for key, value in new.items():
        before = old.get(key, _MISSING)
        if before is value:  # the same object (a word kept for the position): unchanged
            continue
        if type(before) is dict and type(value) is dict:
            inner: dict[str, Any] = {}
            _diff(before, value, [*path, key], inner, removed)
            if inner:
                changed[key] = inner
        elif before != value or type(before) is not type(value):
            changed[key] = value


def apply_delta(state: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """The new state: ``state`` (not changed) with ``delta`` applied, as a client does it."""
    out: dict[str, Any] = _copy(state)
    for path in delta["removed"]:
        target = out
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    _merge(out, delta["changed"])
    return out


def _merge(target: dict[str, Any], changed: dict[str, Any]) -> None:
    for key, value in changed.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


_MISSING = object()
