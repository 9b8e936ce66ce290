"""The load test's settings, shared by the Locust scenario and its driver (this module imports
neither Locust nor gevent, so the driver runs without them)."""

from __future__ import annotations

import os
from dataclasses import dataclass

ADDRESSES_ENV = "CLASH_LOADTEST_ADDRESSES"
ASSIGN_ENV = "CLASH_LOADTEST_ASSIGN"
PACE_ENV = "CLASH_LOADTEST_PACE"
ACKS_ENV = "CLASH_LOADTEST_ACKS"
KILLED_ENV = "CLASH_LOADTEST_KILLED"
ASSIGNMENTS = ("split", "same")

#: A seat that hears nothing for this long while the other seat is to move reports the game stalled.
STALL_SECONDS = 60.0
#: How long a seat whose connection dropped keeps trying the addresses.
RECONNECT_SECONDS = 60.0


@dataclass(frozen=True)
class Settings:
    addresses: tuple[str, ...]
    same_process: bool
    pace: tuple[float, float]
    acks_path: str | None
    killed_path: str | None

    @classmethod
    def from_env(cls, host: str | None) -> Settings:
        listed = [a.strip().rstrip("/") for a in os.environ.get(ADDRESSES_ENV, "").split(",") if a.strip()]
        if not listed and host:
            listed = [host.rstrip("/")]
        if not listed:
            raise ValueError(f"no server address: set {ADDRESSES_ENV} or Locust's --host")
        assign = os.environ.get(ASSIGN_ENV, "split")
        if assign not in ASSIGNMENTS:
            raise ValueError(f"{ASSIGN_ENV} must be one of {', '.join(ASSIGNMENTS)}, not {assign!r}")
        low, high = (float(x) for x in os.environ.get(PACE_ENV, "2,8").split(","))
        if not 0 <= low <= high:
            raise ValueError(f"{PACE_ENV} must be 'LOW,HIGH' seconds with 0 <= LOW <= HIGH")
        return cls(
            tuple(listed),
            assign == "same",
            (low, high),
            os.environ.get(ACKS_ENV) or None,
            os.environ.get(KILLED_ENV) or None,
        )

    def killed(self) -> set[str]:
        """The addresses the driver has killed so far (it writes them before it kills)."""
        if self.killed_path is None:
            return set()
        try:
            with open(self.killed_path, encoding="utf-8") as f:
                return {line.strip() for line in f if line.strip()}
        except OSError:
            return set()
