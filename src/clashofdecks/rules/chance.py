"""Chance and hidden information: the seeded RNG, chance nodes (external chance), what a seat cannot
see (R9) and the determinization search samples (a game consistent with one seat's knowledge)."""

from __future__ import annotations

import random
from dataclasses import replace
from hashlib import blake2b
from typing import Final

from .. import setup as setup_stage
from ..cards import N_CARDS
from .core import GameCore
from .state import SETUP

_MASK64: Final = (1 << 64) - 1
_MASK32: Final = (1 << 32) - 1


def rng_block(state: int) -> bytes:
    """64 random bytes for RNG ``state`` (BLAKE2b in counter mode: portable, exact, fast in CPython).

    The state is one int, ``seed << 32 | counter``, so ``clone()`` copies it for free and two seeds
    never share a stream."""
    return blake2b(state.to_bytes(12, "little"), digest_size=64).digest()


def rng_next(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(new state, 64-bit output)``; a small helper for deriving seeds."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def seed_rng(seed: int) -> int:
    """The RNG state for a game seed (any int; reduced to 64 bits)."""
    return (seed & _MASK64) << 32


class ChanceRules(GameCore):
    """The RNG draws, chance nodes and hidden information of a :class:`~clashofdecks.rules.Game`."""

    __slots__ = ()

    # ------------------------------------------------------------------ RNG

    def _next_block(self) -> bytes:
        block = rng_block(self._rng)
        self._rng = (self._rng & ~_MASK32) | ((self._rng + 1) & _MASK32)
        return block

    def _below(self, n: int) -> int:
        """Uniform integer in [0, n), n < 2**64, by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            block = self._next_block()
            for k in range(0, 64, 8):
                z = int.from_bytes(block[k : k + 8], "little")
                if z < limit:
                    return z % n

    def _shuffle(self, items: list[int]) -> None:
        """Fisher-Yates with one random byte per step (rejection keeps it exactly uniform; n <= 256)."""
        block = b""
        k = 64
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = 256 - 256 % n
            while True:
                if k == 64:
                    block = self._next_block()
                    k = 0
                byte = block[k]
                k += 1
                if byte < limit:
                    break
            j = byte % n
            items[i], items[j] = items[j], items[i]

    def is_chance_node(self) -> bool:
        """Whether chance is to act (external chance only): see :meth:`chance_outcomes`."""
        st = self._setup
        return self._stage == SETUP and isinstance(st, setup_stage.SetupState) and st.is_chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node as ``(action, probability)`` (uniform); empty elsewhere.

        >>> game = Game.new(mode="duel", format="draft", seed=0, external_chance=True)
        >>> game.current_player == CHANCE, [game.action_text(a) for a, _ in game.chance_outcomes()]
        (True, ['chance coin 0', 'chance coin 1'])
        """
        if not self.is_chance_node():
            return []
        legal = self.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]

    # ------------------------------------------------------------------ hidden information (R9)

    def is_hidden(self, player: int, viewer: int | None) -> list[bool]:
        """Per place of ``player``'s hand, whether ``viewer`` (``None``: a spectator) cannot see it
        (R9.2: the fortress card and returned cards are public; a player sees their own hand)."""
        if player == viewer:
            return [False] * len(self._hands[player])
        known = self._known[player]
        return [c < N_CARDS and not known >> c & 1 for c in self._hands[player]]

    @property
    def hidden_identities(self) -> bool:
        """Whether the cards behind the opponent's hidden places are unknown even as a set (the
        benchmark's random deal); in the rulebook's formats they are public (R9.1)."""
        return self._hidden_ids

    def _redeal_hidden(self, player: int, rng: random.Random) -> None:
        """Refill at random what ``player`` cannot know, in this game (a copy: see
        :meth:`~clashofdecks.rules.Game.sample_determinization`), and reseed its future chance."""
        self._rng = seed_rng(rng.getrandbits(64))
        self._legal = None
        opp = 1 - player
        st = self._setup
        if isinstance(st, setup_stage.SetupState):
            pool = sorted(st.pool)
            rng.shuffle(pool)
            decks = list(st.cards)
            if st.kind == "custom" and st.built[opp] and not all(st.built):
                decks[opp] = tuple(sorted(rng.sample(range(N_CARDS), len(decks[opp]))))
            placed = st.placed
            if placed is not None:
                mine = list(placed[opp])
                rng.shuffle(mine)
                placed = (tuple(mine), placed[1]) if opp == 0 else (placed[0], tuple(mine))
            self._setup = replace(st, pool=tuple(pool), cards=(decks[0], decks[1]), placed=placed)
            return
        if self._solo:
            if player == 0 and len(self._deck) > 1:
                body = sorted(self._deck[:-1])
                rng.shuffle(body)
                self._deck = [*body, self._deck[-1]]
            return
        hand = self._hands[opp]
        known = self._known[opp]
        slots = [i for i, c in enumerate(hand) if c < N_CARDS and not known >> c & 1]
        if self._hidden_ids:
            seen = {c for c in self._hands[player]} | {cr[0] for L in self._lanes for cr in L}
            if self._pending is not None:  # destroyed cards waiting for their return order are public
                seen |= set(self._pending[1])
            if self._cast_cont is not None:  # so is an incantation being resolved (R5.4a)
                seen.add(self._cast_cont[1])
            seen |= {hand[i] for i in range(len(hand)) if i not in slots}
            unseen = [c for c in range(N_CARDS) if c not in seen]
            cards = rng.sample(unseen, len(slots))
        else:
            cards = sorted(hand[i] for i in slots)
            rng.shuffle(cards)
        for i, c in zip(slots, cards, strict=True):
            hand[i] = c
