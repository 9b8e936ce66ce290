"""The compiled batch: games in slots of one bytearray, dealt and stepped by ``_native.batch_reset`` and
``_native.batch_step`` straight into a caller's arrays (docs/envs.md).  Its two users are thin
adapters: the vector environment (:mod:`.vector`, the learner against a fixed opponent) and the
self-play batch (:mod:`.selfplay`, both seats decided by the caller).  What they share lives here once:
the encoder's layout, the game's start, the slots and the calls, the seed check and the reasons the
core cannot run a configuration.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from .. import actions as A
from .. import native
from ..cards import N_CARDS, PRECONSTRUCTED_DECKS
from ..encoding import COMPILED_LAYOUT
from ..formats import new_game
from ..rules import Termination
from .compact import count_scales
from .encoding import OBSERVATION_LAYOUT, SETUP_VERBS, encode_observation
from .gym_env import ClashOfDecksEnv

# What _native.c's encoder relies on: the lanes are 4 slots of LANE_CAP creature rows of
# CREATURE_FEATURES floats, with every other slice it writes before or after them.
assert OBSERVATION_LAYOUT.slices["lanes"].shape == (2, 2, 12, 49)
# ... and that the solo slices, automaton_deck to threat, are contiguous (it zeroes them at once).
_SOLO_SLICES: Final = ("automaton_deck", "automaton_discard", "automaton_flags", "threat")
assert all(
    OBSERVATION_LAYOUT.slices[a].stop == OBSERVATION_LAYOUT.slices[b].start for a, b in pairwise(_SOLO_SLICES)
)
#: The constants of the compiled batch's setup stage, as Python defines them: checked at import when
#: the core is in use (a stale core is not: the batch then runs in Python).
SETUP_LAYOUT: Final = {
    **{f"SETUP_VERB_{verb.upper()}": i for i, verb in enumerate(SETUP_VERBS)},
    "PRECON_DECKS": len(PRECONSTRUCTED_DECKS),
    "THREAT_SLICE": OBSERVATION_LAYOUT.slices["threat"].size,
    "ORDER_COUNT": A.ORDER_COUNT,
    "DECK_SIZE_CUSTOM": A.DECK_SIZE_CUSTOM,
}
if native.AVAILABLE:
    native.check_layout(
        SETUP_LAYOUT, "encoding.SETUP_VERBS, cards.PRECONSTRUCTED_DECKS, the threat slice and actions.py"
    )
#: The formats' codes in the compiled batch (``_native.c``'s K_*).
_FORMAT_CODES: Final = {"precon": 0, "draft": 1, "custom": 2, "random": 3}
TERMINATION_NAMES: Final = np.array([t.value for t in Termination], dtype=object)


def game_start(env: ClashOfDecksEnv) -> tuple[float, ...]:
    """How ``env``'s games start, for the compiled batch (``_native.c``'s ``EGame``): the format's code,
    solo, the seat of the rulebook's player A (R2.3a; B starts after the last draft pick under
    ``first_player="last_draft_pick"``, R2.6a), whether the automaton starts and its Fort side is up
    (R8.2), the threat slice's counts, the preconstructed decks' cards, and for the greedy agent's
    setup decisions each card's static value and each deck's sum of them (``agents/greedy.py``)."""
    from ..agents.greedy import card_value

    solo = env.mode == "solo"
    threat = env.threat
    b_starts = not solo and env.ruleset.first_player == "last_draft_pick" and env.format == "draft"
    counts: tuple[int, ...] = (0,) * OBSERVATION_LAYOUT.slices["threat"].size
    if solo:  # the threat slice as the encoder writes it, in counts (compact.py)
        part = OBSERVATION_LAYOUT.slices["threat"]
        game = new_game(mode="solo", format="precon", seed=0, ruleset=env.ruleset, threat=threat)
        window = slice(part.start, part.stop)
        features = encode_observation(game, 0)[window]
        counts = tuple(int(k) for k in np.rint(features * count_scales(1)[window]))
    decks = [c for n in sorted(PRECONSTRUCTED_DECKS) for c in PRECONSTRUCTED_DECKS[n]]
    values = [card_value(c) for c in range(N_CARDS)]
    deck_values = [sum(card_value(c) for c in PRECONSTRUCTED_DECKS[n]) for n in sorted(PRECONSTRUCTED_DECKS)]
    head = (
        _FORMAT_CODES[env.format],
        int(solo),
        int(b_starts),
        int(solo and threat is not None and threat.starts == "automaton"),
        int(solo and threat is not None and threat.resilience == "fort"),
    )
    return (*head, *counts, *decks, *values, *deck_values)


def seeds_of(seed: int | Sequence[int | None] | None, n: int) -> list[int | None]:
    """Each game's seed: ``seed + i``, the i-th of a list, or None; a negative or non-integer seed, or a
    list of another length, is a :class:`ValueError` before anything changes."""
    if seed is None:
        return [None] * n
    if isinstance(seed, bool):
        raise ValueError(f"a seed is a non-negative integer, not {seed}")
    if isinstance(seed, int | np.integer):
        if seed < 0:
            raise ValueError(f"a seed is a non-negative integer, not {seed}")
        return [int(seed) + i for i in range(n)]
    seeds = list(seed)
    if len(seeds) != n:
        raise ValueError(f"a list of seeds needs one per game ({n}), not {len(seeds)}")
    for i, one in enumerate(seeds):
        if one is not None and (isinstance(one, bool) or not isinstance(one, int | np.integer) or one < 0):
            raise ValueError(f"game {i}: a seed is a non-negative integer or None, not {one!r}")
    return seeds


def core_unsupported() -> str | None:
    """Why no compiled batch can run here at all (None: the core is there, with this action space)."""
    if not native.AVAILABLE:
        return native.engine_notice().removeprefix("engine: ")
    from .. import _native

    if _native.BATCH_ACTION_SPACE != A.ACTION_SPACE:
        return "the compiled core's action space differs from actions.py's"
    return None


def chosen_backend(
    first: ClashOfDecksEnv, backend: str, observation_dtype: str, reason: str | None, what: str
) -> str:
    """``"compiled"`` or ``"python"`` for a batch of ``first``'s options (``reason``: why the core cannot
    run them, None if it can); an impossible request is a :class:`ValueError` naming ``what``."""
    if observation_dtype == "uint8" and first.observation_kind != "observation":
        raise ValueError("observation_dtype='uint8' is for the observation vector, not the infostate")
    if backend == "compiled" and reason is not None:
        raise ValueError(f"{what} does not apply: {reason}")
    return "compiled" if backend != "python" and reason is None else "python"


class CompiledBatch:
    """``n`` games of ``first``'s options in the core: the slots, the game's configuration and start,
    each game's bit generator (``capsules``, set by the adapter), and the winners and terminations
    the core writes at a game's end."""

    def __init__(self, first: ClashOfDecksEnv, n: int, spec: tuple[Any, ...]) -> None:
        from .. import _native

        self.slots = bytearray(_native.batch_slot_size() * n)
        self.config = native.game_config(first.mode == "solo", first.ruleset, first.threat)
        self.game = game_start(first)
        #: (encoder layout, compact observations, greedy weights or None[, self-play])
        self.spec = spec
        self.capsules: list[Any] = [None] * n
        self.winners = np.zeros(n, dtype=np.int64)
        self.terminations = np.zeros(n, dtype=np.int8)

    def deal(
        self,
        indices: npt.NDArray[np.intp],
        obs: npt.NDArray[Any],
        masks: npt.NDArray[np.int8],
        turns: npt.NDArray[np.int64],
        seats: npt.NDArray[np.int64],
    ) -> None:
        """New games in the slots ``indices``, from each game's bit generator, written into the rows."""
        from .. import _native

        if not len(indices):
            return
        _native.batch_reset(
            self.slots,
            np.ascontiguousarray(indices, dtype=np.int64),
            self.capsules,
            self.config,
            self.game,
            self.spec,
            obs,
            masks,
            turns,
            seats,
        )

    def step(
        self, penalty: float, actions: npt.NDArray[Any], skip: npt.NDArray[np.bool_], rows: BatchRows
    ) -> None:
        """One decision in every game but those ``skip``-ped, written into ``rows`` (the core checks
        every action first: a bad batch changes nothing)."""
        from .. import _native

        movers = () if rows.movers is None else (rows.movers,)
        _native.batch_step(
            self.slots,
            self.spec,
            penalty,
            np.ascontiguousarray(actions, dtype=np.int64),
            skip,
            rows.obs,
            rows.masks,
            rows.rewards,
            rows.terminated,
            rows.truncated,
            rows.turns,
            rows.illegal,
            self.winners,
            self.terminations,
            *movers,
        )

    def termination_names(self, ended: npt.NDArray[np.bool_]) -> npt.NDArray[Any]:
        """The termination's name of each game that ``ended`` (None elsewhere)."""
        names = np.full(len(ended), None, dtype=object)
        names[ended] = TERMINATION_NAMES[self.terminations[ended]]
        return names


class BatchRows:
    """The arrays a step writes (one row per game); ``movers``: the seat to decide next, written only in
    self-play."""

    def __init__(
        self,
        obs: npt.NDArray[Any],
        masks: npt.NDArray[np.int8],
        rewards: npt.NDArray[np.float64],
        terminated: npt.NDArray[np.bool_],
        truncated: npt.NDArray[np.bool_],
        turns: npt.NDArray[np.int64],
        illegal: npt.NDArray[np.bool_],
        movers: npt.NDArray[np.int64] | None = None,
    ) -> None:
        self.obs, self.masks, self.rewards = obs, masks, rewards
        self.terminated, self.truncated, self.turns, self.illegal = terminated, truncated, turns, illegal
        self.movers = movers


__all__ = [
    "COMPILED_LAYOUT",
    "SETUP_LAYOUT",
    "TERMINATION_NAMES",
    "BatchRows",
    "CompiledBatch",
    "chosen_backend",
    "core_unsupported",
    "game_start",
    "seeds_of",
]
