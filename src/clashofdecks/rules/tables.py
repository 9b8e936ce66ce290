"""Action tables precomputed once for the hot path (legal actions and resolution read them by index)."""

from __future__ import annotations

from typing import Final

from .. import actions as A
from ..cards import INCANTATIONS, N_CARDS
from .state import Creature

_MASK32: Final = (1 << 32) - 1
#: A creature as it is at the start of a turn, one shared tuple per card.
_FRESH: Final[tuple[Creature, ...]] = tuple((c, 0, False, False, False, 0) for c in range(N_CARDS))
_END: Final = A.END
_LANES: Final = A.LANES
_CAST_BASE: Final = A.CAST_BASE
_ORDER_BASE: Final = A.ORDER_BASE
_NEXT: Final = A.NEXT
_PLAY_BASE: Final = A.PLAY_BASE
_MAX_POSITION: Final = A.MAX_POSITION
#: Action integer -> (card, lane) for play actions; cast index -> (card, player, lane, position).
_PLAY_DECODE: Final = {A.PLAY_BASE + c * 2 + ln: (c, ln) for c in range(N_CARDS) for ln in (0, 1)}
_CAST_DECODE: Final = tuple(
    (
        INCANTATIONS[i // (4 * A.MAX_POSITION)],
        i // (2 * A.MAX_POSITION) % 2,
        i // A.MAX_POSITION % 2,
        i % A.MAX_POSITION,
    )
    for i in range(A.CAST_COUNT)
)
#: Per creature card, its two play actions (top, bottom).
_PLAY_PAIR: Final = tuple((A.PLAY_BASE + c * 2, A.PLAY_BASE + c * 2 + 1) for c in range(N_CARDS))
#: Per incantation card, per lane key (player*2 + lane), per lane size: its cast actions, precomputed.
_CAST_TARGETS: Final[dict[int, tuple[tuple[tuple[int, ...], ...], ...]]] = {
    c: tuple(
        tuple(
            tuple(A.CAST_BASE + (slot * 4 + k) * A.MAX_POSITION + pos for pos in range(size))
            for size in range(A.MAX_POSITION + 1)
        )
        for k in range(4)
    )
    for c, slot in A.INC_SLOT.items()
}
