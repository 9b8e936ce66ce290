"""N games where the caller decides for both seats: the batch for self-play trainers.

    batch = SelfPlayBatch(num_games=256, mode="duel", format="draft")
    batch.reset(seed=123)              # game i dealt as the single -v1 env's reset(seed=123 + i)
    while training:
        actions = policy(batch.obs, batch.mask)      # one action per game, for its mover
        result = batch.step(actions)                 # result.done, result.winner, result.reason

Not a Gymnasium environment: no rewards, no opponent.  Every decision of both seats is the caller's,
the setup stage's (deck choice, draft picks, bans) as well as the play phase's, exactly as the Python
engine (and the PettingZoo AEC environment) asks them; the solo automaton makes no decisions (R7.5a), so
in solo the mover is always the player's seat.  The custom format's builds are the environments'
(:mod:`.match`: a random 10-card deck from the game's build seed), not a decision.

After each call, for every game i:

- ``obs[i]``: the observation vector of the seat to decide (:func:`~clashofdecks.encoding.encode_observation`
  of that seat: its information only, R9), float32 or the compact uint8 counts (:mod:`.compact`);
- ``mask[i]``: that seat's legal actions (bool, 780); ``mover[i]``: the seat (0/1); ``turn[i]``.

Autoreset is in the same step: a game that ends with the step's action is reported in the step's result
(``done``, ``winner``: the winning seat, -1 a draw; solo: 0 the player won, 1 the automaton;
``reason``: the termination's name) and its row already holds a new game, dealt from the game's own seed
stream (the next reset of the single environment with no seed: deterministic).

Two implementations give the same results (``backend``): ``"compiled"`` (``_native.batch_step`` in
its self-play mode: no per-game Python) and ``"python"`` (the rules engine, one game at a time);
``"auto"`` picks the compiled one when the core is available and covers the options (every option
here but ``observation="infostate"``, which the Python backend alone writes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding

from .. import actions as A
from .compact import OBSERVATION_DTYPES, count_scales, to_counts, unit_vector
from .compiled_batch import (
    COMPILED_LAYOUT,
    BatchRows,
    CompiledBatch,
    chosen_backend,
    core_unsupported,
    seeds_of,
)
from .encoding import DEFAULT_MAX_TURNS
from .gym_env import ClashOfDecksEnv, DuelEnvV1, SoloEnvV1
from .match import Match, check_choice

#: The games' kinds, and the backends (see the module docstring).
MODES: Final = ("duel", "solo")
BACKENDS: Final = ("auto", "compiled", "python")
#: The single environment's options that make no sense without an opponent or a reward.
_NOT_SELF_PLAY: Final = ("opponent", "illegal_action", "illegal_penalty", "render_mode", "lang")
_SEED_LIMIT: Final = 2**63 - 1


@dataclass(frozen=True, slots=True)
class SelfPlayStep:
    """What one :meth:`SelfPlayBatch.step` did, one entry per game.

    ``done``: the game ended with this action (its row already holds the next game); ``winner``: for
    the ended games the winning seat (0/1), -1 a draw (the turn cap); solo: 0 the player won, 1 the
    automaton; -2 for the games that go on; ``reason``: the termination's name
    (:class:`~clashofdecks.rules.Termination` values, e.g. ``"fort_rightmost"``) for the ended
    games, None for the others."""

    done: npt.NDArray[np.bool_]
    winner: npt.NDArray[np.int64]
    reason: npt.NDArray[np.object_]


class SelfPlayBatch:
    """``num_games`` games of ``mode`` (``"duel"`` or ``"solo"``), every decision the caller's (see the
    module docstring).

    ``options``: the game options of the single ``-v1`` environments (:class:`~.gym_env.DuelEnvV1`,
    :class:`~.gym_env.SoloEnvV1`): ``format`` (draft by default, precon, custom, the duel's
    ``random`` deal), solo ``level`` 0-5 or ``threat``, ``max_turns``, ``ruleset``, ``custom_build``,
    ``observation`` (``"infostate"``: the Python backend only).  ``copy`` (default True): the
    properties return fresh arrays; with False they are read-only views of the batch's buffers,
    overwritten by the next :meth:`step` or :meth:`reset`.
    """

    def __init__(
        self,
        num_games: int,
        mode: str = "duel",
        *,
        observation_dtype: str = "float32",
        backend: str = "auto",
        copy: bool = True,
        **options: Any,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int | np.integer) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, not {num_games!r}")
        check_choice("mode", mode, MODES)
        check_choice("observation_dtype", observation_dtype, OBSERVATION_DTYPES)
        check_choice("backend", backend, BACKENDS)
        refused = [name for name in _NOT_SELF_PLAY if name in options]
        if refused:
            raise ValueError(f"not a self-play option (both seats are the caller's): {', '.join(refused)}")
        factory = DuelEnvV1 if mode == "duel" else SoloEnvV1
        # The single environment parses and checks the options (its games are not played).
        first = factory(**options)
        # Each game's seed stream: the np_random a single environment's reset(seed) makes.
        self._rngs = [np.random.default_rng() for _ in range(int(num_games))]
        what = "the compiled self-play batch"
        self.backend = chosen_backend(first, backend, observation_dtype, compiled_unsupported(first), what)
        self.num_games = n = int(num_games)
        self.mode = mode
        self.observation_dtype = observation_dtype
        self.copy = copy
        size = first.observation_space.shape
        assert size is not None  # a Box
        self._obs = np.zeros((n, *size), dtype=np.dtype(observation_dtype))
        self._mask = np.zeros((n, A.ACTION_SPACE), dtype=np.int8)
        self._mover = np.zeros(n, dtype=np.int64)
        self._turn = np.zeros(n, dtype=np.int64)
        self._cap = first.ruleset.max_turns or DEFAULT_MAX_TURNS
        self._scales = count_scales(self._cap) if observation_dtype == "uint8" else None
        self._impl: _PythonGames | _CompiledGames
        if self.backend == "compiled":
            self._impl = _CompiledGames(first, self._rngs, self._obs, self._mask, self._mover, self._turn)
        else:
            self._impl = _PythonGames(first, self._rngs, self._write)
        self._has_reset = False

    # ------------------------------------------------------------------ the arrays

    @property
    def obs(self) -> npt.NDArray[Any]:
        """(N, OBS): the observation of each game's seat to decide (float32 or uint8 counts)."""
        return self._view(self._obs)

    @property
    def mask(self) -> npt.NDArray[np.bool_]:
        """(N, 780) bool: the legal actions of each game's seat to decide."""
        return self._view(self._mask.view(np.bool_))

    @property
    def mover(self) -> npt.NDArray[np.int64]:
        """(N,): the seat to decide in each game (solo: always the player's, 0)."""
        return self._view(self._mover)

    @property
    def turn(self) -> npt.NDArray[np.int64]:
        """(N,): each game's turn."""
        return self._view(self._turn)

    @property
    def observation_units(self) -> npt.NDArray[np.float32]:
        """Per feature, the float a count of 1 stands for (``obs * units`` is the float observation;
        all ones for float32)."""
        if self._scales is None:
            return np.ones(self._obs.shape[1], dtype=np.float32)
        return unit_vector(self._cap)

    def _view(self, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        if self.copy:
            return array.copy()
        view = array.view()
        view.flags.writeable = False
        return view

    # ------------------------------------------------------------------ reset and step

    def reset(self, seed: int | list[int | None] | None = None) -> None:
        """New games in every row: game i as the single ``-v1`` environment's ``reset(seed=seed + i)``
        deals it (the i-th seed of a list; unseeded for None)."""
        # Every generator made before any is replaced: a bad seed changes nothing.
        rngs = [seeding.np_random(game_seed)[0] for game_seed in seeds_of(seed, self.num_games)]
        self._rngs[:] = rngs  # in place: the backends hold this list
        self._impl.deal(np.arange(self.num_games), reseeded=True)
        self._has_reset = True

    def step(self, actions: Any) -> SelfPlayStep:
        """One decision in every game, by its mover; ended games are dealt anew at once (see the
        module docstring).  A bad array or an illegal action raises ValueError naming the game,
        and no game changes."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        batch = self._check(actions)
        return self._impl.step(batch)

    def _check(self, actions: Any) -> npt.NDArray[np.int64]:
        """The actions as int64 after checking all of them (shape, integers, range, legality)."""
        batch = np.asarray(actions)
        n = self.num_games
        if batch.shape != (n,):
            raise ValueError(f"actions must have shape ({n},), not {batch.shape}")
        if batch.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, not {batch.dtype}")
        outside = np.flatnonzero((batch < 0) | (batch >= A.ACTION_SPACE))
        if len(outside):
            i = int(outside[0])
            raise ValueError(
                f"game {i}: action {int(batch[i])} is outside the action space (0-{A.ACTION_SPACE - 1})"
            )
        batch = batch.astype(np.int64, copy=False)
        illegal = np.flatnonzero(self._mask[np.arange(n), batch] == 0)
        if len(illegal):
            i = int(illegal[0])
            raise ValueError(f"game {i}: {self._impl.explain(i, int(batch[i]), int(self._mover[i]))}")
        return np.ascontiguousarray(batch)

    def _write(self, i: int, match: Match, kind: str) -> None:
        """Row i from ``match`` (the Python backend): its mover's observation, mask, seat, turn."""
        game = match.game
        seat = game.current_player
        obs = match.observe(seat, kind)
        if self._scales is None:
            self._obs[i] = obs
        else:
            to_counts(obs, self._scales, self._obs[i])
        self._mask[i] = match.mask(seat)
        self._mover[i] = seat
        self._turn[i] = game.turn


class _PythonGames:
    """The Python backend: a :class:`~.match.Match` per game, stepped one at a time."""

    def __init__(self, env: ClashOfDecksEnv, rngs: list[np.random.Generator], write: Any) -> None:
        self._env = env
        self._rngs = rngs
        self._write = write
        self._matches: list[Match | None] = [None] * len(rngs)

    def deal(self, indices: npt.NDArray[np.intp], *, reseeded: bool = False) -> None:
        """New games in the rows ``indices``: the single environment's reset, from its np_random."""
        env = self._env
        for i in indices:
            # The single environment's three seeds, the agent's unused, so the streams stay the same.
            game_seed, _agent_seed, build_seed = (
                int(x) for x in self._rngs[i].integers(0, _SEED_LIMIT, size=3)
            )
            match = Match(
                mode=env.mode,
                format=env.format,
                seed=game_seed,
                ruleset=env.ruleset,
                threat=env.threat,
                build_seed=build_seed,
            )
            self._matches[i] = match
            self._write(int(i), match, env.observation_kind)

    def explain(self, i: int, action: int, seat: int) -> str:
        match = self._matches[i]
        assert match is not None
        return f"seat {seat}: {match.game.explain_illegal(action)}"

    def step(self, actions: npt.NDArray[np.int64]) -> SelfPlayStep:
        n = len(actions)
        done = np.zeros(n, dtype=np.bool_)
        winner = np.full(n, -2, dtype=np.int64)
        reason = np.full(n, None, dtype=object)
        for i in range(n):
            match = self._matches[i]
            assert match is not None
            match.apply(int(actions[i]))
            outcome = match.game.outcome
            if outcome is None:
                self._write(i, match, self._env.observation_kind)
                continue
            done[i] = True
            winner[i] = -1 if outcome.winner is None else outcome.winner
            reason[i] = outcome.termination.value
        self.deal(np.flatnonzero(done))
        return SelfPlayStep(done, winner, reason)


class _CompiledGames:
    """The compiled backend: a :class:`.compiled_batch.CompiledBatch` in its self-play mode, each game's
    seed stream its own generator."""

    def __init__(
        self,
        first: ClashOfDecksEnv,
        rngs: list[np.random.Generator],
        obs: npt.NDArray[Any],
        mask: npt.NDArray[np.int8],
        mover: npt.NDArray[np.int64],
        turn: npt.NDArray[np.int64],
    ) -> None:
        n = len(rngs)
        self._rngs = rngs
        self._obs, self._mask, self._mover, self._turn = obs, mask, mover, turn
        self._batch = CompiledBatch(first, n, (COMPILED_LAYOUT, obs.dtype == np.uint8, None, True))
        self._skip = np.zeros(n, dtype=np.bool_)
        self._rows = BatchRows(
            obs,
            mask,
            np.zeros(n, dtype=np.float64),
            np.zeros(n, dtype=np.bool_),
            np.zeros(n, dtype=np.bool_),
            turn,
            np.zeros(n, dtype=np.bool_),
            movers=mover,
        )

    def deal(self, indices: npt.NDArray[np.intp], *, reseeded: bool = False) -> None:
        """New games in the slots ``indices``, from each game's np_random (through its capsule;
        ``reseeded``: the generators are new ones)."""
        if reseeded:
            self._batch.capsules = [rng.bit_generator.capsule for rng in self._rngs]
        self._batch.deal(indices, self._obs, self._mask, self._turn, self._mover)

    def explain(self, i: int, action: int, seat: int) -> str:
        return f"seat {seat}: action {action} is not legal now (turn {int(self._turn[i])})"

    def step(self, actions: npt.NDArray[np.int64]) -> SelfPlayStep:
        self._batch.step(0.0, actions, self._skip, self._rows)
        done = self._rows.terminated | self._rows.truncated
        winner = np.where(done, self._batch.winners, -2)
        reason = np.full(len(done), None, dtype=object)
        if done.any():
            reason = self._batch.termination_names(done)
            self.deal(np.flatnonzero(done))
        return SelfPlayStep(done, winner, reason)


def compiled_unsupported(env: ClashOfDecksEnv) -> str | None:
    """Why the compiled self-play batch cannot run games of ``env``'s options (None: it can)."""
    unsupported = core_unsupported()
    if unsupported is not None:
        return unsupported
    from .. import _native

    if not _native.LAYOUT.get("BATCH_SELF_PLAY"):
        return "the compiled core has no self-play mode"
    if env.observation_kind != "observation":
        return "it writes the observation vector only"
    return None
