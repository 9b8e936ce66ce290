"""Agent specs: the text that names an agent wherever one is chosen (``clash play --vs``,
``clash simulate --agents``, ``clash arena``, records).

A spec is a registered name, optionally followed by settings: ``NAME:key=value,…``, or ``NAME:N``
for N iterations per decision, e.g. ``ismcts:200,cutoff=2``, ``mcts:seconds=0.5,c=1.0``,
``ismcts:rollout=greedy``, ``ismcts:300,cutoff=2,eval=learned``.  This module only reads the
text; which names exist and which settings each takes is :mod:`clashofdecks.agents.registry`'s business.
"""

from __future__ import annotations

from typing import Any, Final

from ..errors import ClashError

#: Settings a spec may give, with the type of their values (``cutoff`` also takes auto / none).
SETTING_TYPES: Final[dict[str, type]] = {
    "iterations": int,
    "seconds": float,
    "c": float,
    "rollout": str,
    "cutoff": int,
    "eval": str,
    "mix": float,
    "setup": str,
    "model": str,  # a weights file (neural:model=PATH)
    "value": float,  # the network value's share of a leaf's reward (neural-search:value=0.5)
    "fpu": float,  # an unvisited child's value: its parent's less this (neural-search:fpu=0.2)
    "floor": float,  # the root's decision: best mean among children with >= floor x most visits
}


class AgentSpecError(ClashError):
    """An agent spec that cannot be read, or names an agent or setting nobody provides."""


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``NAME[:key=value,…]`` (or ``NAME:N`` for N iterations) into a name and settings.

    Only the syntax and the value types are checked here; ``seconds`` without ``iterations`` means
    a time budget only (``iterations`` is then ``None``).
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if not name:
        raise AgentSpecError(f"empty agent name in {spec!r}")
    settings: dict[str, Any] = {}
    if not rest:
        return name, settings
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            key, value = "iterations", key
        kind = SETTING_TYPES.get(key)
        if kind is None:
            known = ", ".join(SETTING_TYPES)
            raise AgentSpecError(f"unknown setting {key!r} in {spec!r} (known: {known})")
        if key == "cutoff" and value in ("auto", "none"):
            settings[key] = None if value == "none" else "auto"
            continue
        try:
            settings[key] = kind(value)
        except ValueError:
            raise AgentSpecError(f"bad value {value!r} for {key} in {spec!r}") from None
    if "seconds" in settings and "iterations" not in settings:
        settings["iterations"] = None
    return name, settings


__all__ = ["SETTING_TYPES", "AgentSpecError", "parse_spec"]
