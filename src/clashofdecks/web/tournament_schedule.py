"""The server's own tournaments (``clash serve --tournament-schedule NAME``; docs/web.md,
"Tournaments"): each schedule names the tournaments it wants next; the director stores each once
(its ``schedule_key`` is unique, so two processes writing it at once store one)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from . import store_tournaments as st

HOUR: Final = 3600.0


def _hourly_arena(now: float) -> list[st.TournamentRow]:
    """An arena of 45 minutes at 3+2 in draft at every full hour: the next one is listed as soon as
    the previous one starts."""
    start = math.floor(now / HOUR) * HOUR + HOUR
    key = f"hourly-arena:{int(start)}"
    row = st.TournamentRow(
        id=f"h{int(start)}",
        kind="arena",
        name="Hourly arena",
        format="draft",
        time_control="3+2",
        starts_at=start,
        minutes=45,
        rounds=None,
        bots_allowed=False,
        created_by=None,
        status=st.CREATED,
        schedule_key=key,
        created_at=now,
    )
    return [row]


#: The schedules a server can run (the setting's values).
SCHEDULES: Final = {"hourly-arena": _hourly_arena}


def check(names: Sequence[str]) -> tuple[str, ...]:
    """The schedule names, refused with the list of known ones when one is unknown."""
    for name in names:
        if name not in SCHEDULES:
            raise ValueError(f"unknown tournament schedule {name!r} (known: {', '.join(SCHEDULES)})")
    return tuple(names)


def scheduled(names: Sequence[str], now: float) -> list[st.TournamentRow]:
    """The tournaments the schedules ``names`` want stored at ``now``."""
    return [row for name in names for row in SCHEDULES[name](now)]
