"""The game log: one :class:`Event` per thing that happened."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """Something that happened. ``type`` names it; ``data`` holds JSON-compatible details."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def __str__(self) -> str:
        details = ", ".join(f"{k}={v}" for k, v in self.data.items())
        return f"{self.type}({details})"
