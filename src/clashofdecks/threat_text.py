"""Solo threat options (R8.2) written on a command line: ``clash arena --threat``.

Either a JSON object (the position format's ``threat``) or ``key=value`` pairs separated by commas,
abilities joined by ``+``: ``base_mana=8,starts=automaton,abilities=rage+splash``.  It depends on
:mod:`clashofdecks.options` only, so any front end may use it.
"""

from __future__ import annotations

import json
from typing import Any

from .options import Threat, ThreatError

_INTEGER_KEYS = ("extra_mana_per_creature", "base_mana")


def parse_threat(text: str) -> Threat:
    """The :class:`~clashofdecks.options.Threat` that ``text`` describes; raises
    :class:`~clashofdecks.options.ThreatError` with a message naming the problem."""
    text = text.strip()
    data: dict[str, Any] = {}
    if text.startswith("{"):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ThreatError(f"--threat is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise ThreatError("--threat must be a JSON object")
        data = loaded
    elif text:
        for item in text.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq:
                raise ThreatError(f"--threat: expected key=value, got {item!r}")
            if key == "abilities":
                data[key] = [a for a in value.split("+") if a]
            elif key in _INTEGER_KEYS:
                try:
                    data[key] = int(value)
                except ValueError:
                    raise ThreatError(f"--threat: {key} must be an integer, not {value!r}") from None
            else:
                data[key] = value
    return Threat.from_dict(data)


__all__ = ["parse_threat"]
