"""Where every seed of a simulated game comes from.

A game depends on its *game seed* (the deal, the draft pile, the coin toss, every shuffle) and on
one *agent seed* per participant.  All of them are pure functions of the command's ``--seed`` and
the game's place in the batch, never of time or of which worker plays the game, so a batch gives
the same games for any number of workers.

* ``clash simulate``: game ``i`` has the game seed ``derive_seed(master, i)``; the agent in seat
  ``k`` has ``derive_seed(game_seed, k)``.
* ``clash arena``: the game seeds are the *deal numbers* ``seed, seed + 1, …`` (shared by every
  pairing, and the same numbers ``clash play --seed`` takes); the agent seeds are
  :func:`deal_agent_seed`.  The arena's published tables (docs/ai.md) were measured with them.
"""

from __future__ import annotations

from typing import Final

from ..rules import rng_next

_MASK64: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15


def derive_seed(master: int, *path: int) -> int:
    """A 48-bit seed from ``master`` and a path of small integers (game index, seat, ...).

    SplitMix64 steps mix each component in, so neighbouring games get unrelated seeds; 48 bits
    keep seeds exact in JSON readers that use doubles.
    """
    state = master & _MASK64
    for part in path:
        state, z = rng_next((state ^ ((part + 1) * _GOLDEN)) & _MASK64)
        state = z
    _, z = rng_next(state)
    return z >> 16


def deal_agent_seed(deal: int, participant: int) -> int:
    """The arena's agent seed: from the deal and the participant (0 or 1 in the pairing's order
    for that game), so a replayed deal is the same game."""
    return 2 * deal + participant


__all__ = ["deal_agent_seed", "derive_seed"]
