"""The optional compiled core (``clashofdecks._native``, C99): the play phase of :mod:`clashofdecks.rules`.

:class:`NativeGame` offers the part of :class:`~clashofdecks.rules.Game` that search and simulation use
(legal actions and mask, apply, undo, clone, outcome, current player, determinization) and converts
to and from the Python engine through :class:`~clashofdecks.rules.GameState`.  It covers duel and solo
from the first turn on, every ruleset variant and threat option; it refuses, with
:class:`NativeUnsupportedError`, what it does not cover (the setup stage).  Events are not recorded.

The extension is built by ``pip install .`` when a C compiler is present (``setup.py``, optional);
without it, or with ``CLASH_NATIVE=0`` in the environment, :data:`AVAILABLE` is False and
:func:`engine_notice` says why.  docs/native.md describes the design and the differential test that
proves both engines identical.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

from . import actions as A
from .cards import ABILITIES, ABILITY_BITS, ATTACK, AURA, BASTION, COST, FORT, HEALTH, IS_INCANTATION, N_CARDS
from .engine import CompiledScore, Evaluator, GameEngine, PackedEvaluation
from .errors import ClashError, IllegalActionError
from .options import Ruleset, Threat
from .rules import (
    COMBAT,
    DRAW,
    OVER,
    SETUP,
    SUMMON,
    UNDO_LIMIT,
    DecisionKind,
    Game,
    GameState,
    Outcome,
    Termination,
    termination_reason,
)
from .rules.playout import finished_reward, logistic_chance

try:
    from ._native import LAYOUT, SOURCE_HASH, STATE_SIZE, Core, random_duel_games, set_cards
    from ._native import net_new as _core_net_new
    from ._native import random_duel as _core_random_duel

    _BUILT = True
except ImportError:  # the extension is optional: no compiler at install time
    _BUILT = False


def _stale() -> bool:
    """Whether the built extension was compiled from another ``_native.c`` than the one beside it (a
    checkout changed the source since the last build): it could then play other rules."""
    source = Path(__file__).with_name("_native.c")
    if not source.is_file():
        return False
    return hashlib.sha256(source.read_bytes()).hexdigest()[:16] != SOURCE_HASH


#: Whether the built extension is older than its source (then it is not used).
STALE: Final = _BUILT and _stale()
#: Whether ``CLASH_NATIVE=0`` asks for the pure-Python engine.
DISABLED: Final = os.environ.get("CLASH_NATIVE", "").strip() == "0"
#: Whether the compiled core is built, up to date and not disabled.
AVAILABLE: Final = _BUILT and not STALE and not DISABLED

_TERMINATIONS: Final = tuple(Termination)
_TERMINATION_CODE: Final = {t: i for i, t in enumerate(_TERMINATIONS)}
_PHASES: Final = ("setup", "summon", "combat", "over")

#: The constants the core has compiled in, by name (``LAYOUT`` of ``_native.c``), as Python defines them.
PYTHON_LAYOUT: Final[dict[str, int]] = {
    "N_CARDS": N_CARDS,
    "BASTION": BASTION,
    "FORT": FORT,
    "MAX_POSITION": A.MAX_POSITION,
    "END": A.END,
    "NEXT": A.NEXT,
    "PLAY_BASE": A.PLAY_BASE,
    "CAST_BASE": A.CAST_BASE,
    "ACTION_SPACE": A.ACTION_SPACE,
    "SETUP": SETUP,
    "SUMMON": SUMMON,
    "COMBAT": COMBAT,
    "OVER": OVER,
    "DRAW": DRAW,
    **{f"T_{t.name}": i for i, t in enumerate(Termination) if t.name != "SURVIVED_LAST_TURN"},
    "T_SURVIVED": list(Termination).index(Termination.SURVIVED_LAST_TURN),
    **{name.upper(): bit for name, bit in ABILITY_BITS.items()},
}


def layout_differences(compiled: Mapping[str, int], python: Mapping[str, int]) -> list[str]:
    """Each constant of ``python`` that ``compiled`` (the core's ``LAYOUT``) gives differently or not
    at all, as ``NAME: C x, Python y``."""
    out = []
    for name in sorted(python):
        c = compiled.get(name)
        if c != python[name]:
            out.append(f"{name}: C {'missing' if c is None else c}, Python {python[name]}")
    return out


def check_layout(python: Mapping[str, int], where: str) -> None:
    """Raise :class:`ImportError` naming every constant of ``python`` the built core compiled in
    differently (``where`` names the Python definitions); nothing when the core is not built."""
    if not _BUILT:
        return
    diff = layout_differences(LAYOUT, python)
    if diff:
        raise ImportError(
            f"clashofdecks._native was compiled with other constants than {where}: {'; '.join(diff)} "
            "(change _native.c to match and rebuild: python setup.py build_ext --inplace)"
        )


check_layout(PYTHON_LAYOUT, "cards.py, actions.py and rules/state.py")
_INC_FLAGS: Final = tuple(int(x) for x in IS_INCANTATION)
if _BUILT and set_cards(COST, ATTACK, HEALTH, _INC_FLAGS, ABILITIES, AURA) != A.ORDER_BASE:
    raise ImportError("clashofdecks._native disagrees with actions.py on the action layout (ORDER_BASE)")


#: A learned evaluation packed for the core (``agents.evaluation.EvaluationModel.packed``): the duel and
#: solo first stages (37 coefficients each), the second stage of each perspective (player to move in a
#: duel, duel seat not to move, solo; 17 coefficients or None), the features feeding the second stage
#: (15 indices), the game's 6 threat-option features, ``card_value`` of the 32 cards, the greedy
#: heuristic's 9 weights.  The core computes the same double as the Python model.
#: (:data:`PackedEvaluation`, defined in :mod:`clashofdecks.rules.playout`, is re-exported here.)


class NativeUnsupportedError(ClashError):
    """A game the compiled core does not cover (it names the feature); play it with the Python engine."""


def engine_notice() -> str:
    """One line saying which engine runs, and why (``clash --version``, ``clash bench``)."""
    if AVAILABLE:
        return f"engine: compiled core (C extension, {STATE_SIZE}-byte state) beside the Python engine"
    if DISABLED:
        return "engine: pure Python (CLASH_NATIVE=0 disables the compiled core)"
    if STALE:
        return (
            "engine: pure Python (the compiled core is older than _native.c: rebuild it with "
            "pip install -e . or python setup.py build_ext --inplace)"
        )
    return "engine: pure Python (the compiled core is not built: install with a C compiler present)"


def _require() -> None:
    if not _BUILT or STALE:
        why = "older than its source _native.c" if _BUILT else "not built"
        raise NativeUnsupportedError(
            f"the compiled core is {why}: pip install -e . (with a C compiler) or "
            "python setup.py build_ext --inplace builds it"
        )


_OVER: Final = DecisionKind.OVER  # plain names: an Enum member read through its class is slow
_CHOOSE: Final = DecisionKind.CHOOSE


def _config(state: GameState) -> tuple[int, ...]:
    return _config_of(state.solo, state.ruleset, state.threat)


def _config_of(solo: bool, rs: Ruleset, th: Threat) -> tuple[int, ...]:
    """The core's configuration tuple (see ``core_load`` in ``_native.c``)."""
    bits = sum(ABILITY_BITS[a] for a in th.abilities) if solo else 0
    return (
        int(solo),
        int(rs.lanes == "rotated"),
        int(rs.incantation_timing == "summon_and_combat"),
        int(rs.protection == "any_damage"),
        int(rs.automaton_lanes == "per_card"),
        int(solo and th.defence == "minus_one"),
        bits,
        th.base_mana if solo else 6,
        th.extra_mana_per_creature if solo else 1,
        -1 if rs.max_turns is None else rs.max_turns,
    )


def game_config(solo: bool, ruleset: Ruleset, threat: Threat | None) -> tuple[int, ...]:
    """The core's configuration of a game (a solo game under ``threat``, the quick game's by default) for
    callers that start games in the core: the batched environment, ``envs/vector.py``."""
    return _config_of(solo, ruleset, threat or Threat())


def duel_config(ruleset: Ruleset) -> tuple[int, ...]:
    """The core's configuration of a duel under ``ruleset`` (for callers that deal games in the core:
    the batched environment, ``envs/vector.py``)."""
    return _config_of(False, ruleset, Threat())


class NativeGame:
    """A game in the compiled core.  Build one with :meth:`from_game`, :meth:`from_state` or
    :meth:`random_duel`; :meth:`state` and :meth:`to_game` give it back to the Python engine."""

    __slots__ = (
        "_core",
        "_hidden_ids",
        "_history",
        "_keep_undo",
        "_loaded_over",
        "_reason",
        "_ruleset",
        "_solo",
        "_threat",
    )

    def __init__(self, core: Core, state: GameState) -> None:
        """The game held by ``core``; ``state`` gives what the core does not hold (ruleset, threat, the
        reason of a loaded finished game, whether identities are hidden).  Use the constructors below."""
        self._core = core
        self._solo = state.solo
        self._ruleset = state.ruleset
        self._threat = state.threat
        self._hidden_ids = state.hidden_identities
        self._reason = state.reason
        self._loaded_over = state.stage == OVER
        self._history: list[tuple[Core, int]] = []
        self._keep_undo = True

    # ------------------------------------------------------------------ conversion

    @classmethod
    def from_state(cls, state: GameState) -> NativeGame:
        """The game of ``state`` (as ``Game(state)``; it does not resume an automaton's turn: see
        :meth:`resume`).  Raises :class:`NativeUnsupportedError` naming what the core does not cover."""
        _require()
        if state.stage == SETUP or state.setup is not None:
            raise NativeUnsupportedError(
                "the compiled core plays from the first turn on: "
                "the setup stage (R2) stays in the Python engine"
            )
        fields = (
            state.stage,
            state.turn,
            state.active,
            state.mana,
            -1 if state.winner is None else state.winner,
            _TERMINATION_CODE[state.termination],
            state.over_phase,
            state.hands[0],
            state.hands[1],
            state.lanes,
            state.known[0],
            state.known[1],
            state.deck,
            state.discard,
            state.pending,
            state.resolving,
            state.attacker,
            int(state.ending),
            state.automaton,
            int(state.last_turn),
            state.rng,
        )
        try:
            core = Core(_config(state), fields)
        except (ValueError, TypeError, OverflowError) as exc:
            raise NativeUnsupportedError(f"the compiled core cannot hold this state: {exc}") from None
        return cls(core, state)

    @classmethod
    def from_game(cls, game: Game) -> NativeGame:
        """The compiled twin of a Python game (its undo history is not carried over)."""
        return cls.from_state(game.state())

    @classmethod
    def random_duel(cls, seed: int, *, ruleset: Ruleset | None = None) -> NativeGame:
        """:meth:`clashofdecks.rules.Game.random_duel`, dealt inside the compiled core."""
        _require()
        if ruleset is not None and ruleset != Ruleset():
            return cls.from_game(Game.random_duel(seed, ruleset=ruleset, record_events=False))
        return cls(_core_random_duel(seed), GameState(hidden_identities=True))

    def state(self) -> GameState:
        """The whole state as :class:`~clashofdecks.rules.GameState` (equal to the Python engine's)."""
        (
            stage,
            turn,
            active,
            mana,
            winner,
            termination,
            over_phase,
            hand0,
            hand1,
            lanes,
            known0,
            known1,
            deck,
            discard,
            pending,
            resolving,
            attacker,
            ending,
            automaton,
            last_turn,
            rng,
        ) = self._core.export()
        term = _TERMINATIONS[termination]
        return GameState(
            solo=self._solo,
            ruleset=self._ruleset,
            threat=self._threat,
            stage=stage,
            turn=turn,
            active=active,
            mana=mana,
            winner=winner,
            reason=self._reason_now(term, winner),
            termination=term,
            over_phase=over_phase,
            hands=(hand0, hand1),
            lanes=lanes,
            known=(known0, known1),
            deck=deck,
            discard=discard,
            pending=pending,
            resolving=resolving,
            attacker=attacker,
            ending=ending,
            automaton=automaton,
            last_turn=last_turn,
            rng=rng,
            setup=None,
            hidden_identities=self._hidden_ids,
        )

    def config_matches(self) -> bool:
        """Whether the core's configuration is the one its ruleset and threat call for (a self-check)."""
        return self._core.config() == _config_of(self._solo, self._ruleset, self._threat)

    def _reason_now(self, term: Termination, winner: int | None) -> str:
        if self._core.stage != OVER or self._loaded_over:
            return self._reason
        return termination_reason(term, None if winner == DRAW else winner, self._ruleset.max_turns)

    def to_game(self, *, record_events: bool = True) -> Game:
        """The Python engine's game in this state."""
        return Game(self.state(), record_events=record_events)

    # ------------------------------------------------------------------ queries

    @property
    def is_solo(self) -> bool:
        """True in solo (seat 1 is the automaton, R7)."""
        return self._solo

    @property
    def ruleset(self) -> Ruleset:
        """The rule variants in force."""
        return self._ruleset

    @property
    def threat(self) -> Threat:
        """The solo threat options."""
        return self._threat

    @property
    def hidden_identities(self) -> bool:
        """As :attr:`clashofdecks.rules.Game.hidden_identities`."""
        return self._hidden_ids

    @property
    def current_player(self) -> int:
        """Whose decision it is now; -1 once the game is over."""
        return self._core.current_player

    @property
    def turn(self) -> int:
        """The turn number."""
        return self._core.turn

    @property
    def active(self) -> int:
        """Whose turn it is."""
        return self._core.active

    @property
    def mana(self) -> int:
        """The mana the active player has left this turn."""
        return self._core.mana

    @property
    def phase(self) -> str:
        """``summon``, ``combat`` or ``over``."""
        return _PHASES[self._core.stage]

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._core.stage == OVER

    @property
    def decision_kind(self) -> DecisionKind:
        """As :attr:`clashofdecks.rules.Game.decision_kind` (the core has no setup stage: never
        ``BUILD`` or ``CHANCE``)."""
        return _OVER if self._core.stage == OVER else _CHOOSE

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on (as :attr:`clashofdecks.rules.Game.outcome`)."""
        if self._core.stage != OVER:
            return None
        winner = self._core.winner
        term = _TERMINATIONS[self._core.termination]
        return Outcome(None if winner == DRAW else winner, self._reason_now(term, winner), term)

    @property
    def winner(self) -> int | None:
        """0 or 1 once decided; ``None`` while playing or for a draw."""
        winner = self._core.winner
        return None if winner == DRAW else winner

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of :attr:`current_player`, sorted (empty when over)."""
        return self._core.legal_actions()

    def legal_action_mask(self) -> list[bool]:
        """A list of :data:`clashofdecks.actions.ACTION_SPACE` booleans, True where legal."""
        mask = [False] * A.ACTION_SPACE
        for a in self._core.legal_actions():
            mask[a] = True
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now."""
        return self._core.is_legal(action)

    # ------------------------------------------------------------------ apply / undo / clone

    def apply(self, action: int) -> tuple[()]:
        """Apply a legal action (no events are recorded: the empty tuple).  An illegal one raises
        :class:`~clashofdecks.errors.IllegalActionError` with the Python engine's reason, changing nothing."""
        core = self._core
        before = core.copy() if self._keep_undo else None
        try:
            core.apply(action)
        except (ValueError, TypeError, OverflowError):
            raise IllegalActionError(self.to_game(record_events=False).explain_illegal(action)) from None
        if before is not None:
            history = self._history
            if len(history) >= UNDO_LIMIT:
                del history[: UNDO_LIMIT // 2]  # bounded as the Python engine's: the oldest go first
            history.append((before, action))
        return ()

    def undo(self) -> int:
        """Take back the last action; returns it.  Raises :class:`IndexError` when there is none."""
        if not self._history:
            raise IndexError("nothing to undo")
        self._core, action = self._history.pop()
        return action

    @property
    def undo_depth(self) -> int:
        """How many actions :meth:`undo` can take back now (at most ``rules.UNDO_LIMIT``)."""
        return len(self._history)

    @property
    def keep_undo(self) -> bool:
        """Whether :meth:`apply` keeps undo records (a copy of the flat state per action)."""
        return self._keep_undo

    @keep_undo.setter
    def keep_undo(self, value: bool) -> None:
        self._keep_undo = value
        if not value:
            self._history.clear()

    def clone(self) -> NativeGame:
        """An independent copy (chance included) with an empty undo history."""
        g = NativeGame(self._core.copy(), self._template)
        g.keep_undo = self._keep_undo
        return g

    @property
    def _template(self) -> GameState:
        """A state carrying what the core does not hold (for :meth:`clone`)."""
        return GameState(
            solo=self._solo,
            ruleset=self._ruleset,
            threat=self._threat,
            reason=self._reason,
            stage=OVER if self._loaded_over else 1,
            hidden_identities=self._hidden_ids,
        )

    def resume(self) -> None:
        """As :meth:`clashofdecks.rules.Game.resume`: play the automaton's turn a built state leaves it."""
        self._core.resume()

    def sample_determinization(self, player: int, rng: random.Random) -> NativeGame:
        """As :meth:`clashofdecks.rules.Game.sample_determinization`: the same sample for the same
        ``rng`` (drawn in the core with ``rng.getrandbits`` as :class:`random.Random` draws; another
        generator class is sampled by the Python engine)."""
        if type(rng) is random.Random:
            sample = NativeGame(
                self._core.determinize(player, rng.getrandbits, self._hidden_ids), self._template
            )
        else:
            sample = NativeGame.from_game(
                self.to_game(record_events=False).sample_determinization(player, rng)
            )
        sample.keep_undo = self._keep_undo
        return sample

    def rollout(
        self,
        rnd: Callable[[], float],
        max_actions: int,
        turn_limit: int | None = None,
        *,
        greedy: Sequence[float] | None = None,
        until_play: bool = False,
    ) -> int:
        """The search's rollout inside the core, drawing from ``rnd`` (e.g. ``rng.random``) exactly as
        :meth:`clashofdecks.rules.playout.SearchPaths.rollout` does: at random (``rnd()`` only when
        more than one action is legal, then ``legal[int(rnd() * n)]``) or with ``greedy`` weights
        (:meth:`greedy_rollout`).  Stops at the end of the game, past turn ``turn_limit``, or after
        ``max_actions`` (``until_play`` changes nothing: the core has no setup stage); returns the
        actions played.  The same generator gives the same rollout in both engines (no undo records
        are kept)."""
        if greedy is not None:
            return self.greedy_rollout(rnd, greedy, max_actions, turn_limit)
        self._history.clear()
        return self._core.rollout(rnd, max_actions, -1 if turn_limit is None else turn_limit)

    def reward(self, evaluator: Evaluator) -> float:
        """Player 0's reward: the result of a finished game, else ``evaluator``'s chance, computed in
        the core when the evaluator says how (:attr:`Evaluator.compiled`: the same double)."""
        if self._core.stage == OVER:
            return finished_reward(self)
        if evaluator.compiled is None:
            return evaluator.python(self.to_game(record_events=False))
        compiled = evaluator.compiled(self)
        if len(compiled) == 2:  # the greedy heuristic's weights and logistic scale
            weights, scale = compiled
            return logistic_chance(self._core.evaluate(0, weights), scale)
        seat = self._core.current_player  # the learned chance from the view of the player to move
        chance: float = self._core.learned_win_chance(seat, compiled)
        return chance if seat == 0 else 1.0 - chance

    # ------------------------------------------------------------------ the greedy heuristic in the core

    def evaluate(self, player: int, weights: Sequence[float]) -> float:
        """:func:`clashofdecks.agents.greedy.evaluate` of this game for ``player``, computed in the core:
        the same double.  ``weights`` are :class:`~clashofdecks.agents.greedy.Weights`' 9 fields in order."""
        return self._core.evaluate(player, weights)

    def learned_features(self, seat: int, model: PackedEvaluation) -> tuple[float, ...]:
        """:func:`clashofdecks.agents.evaluation.features` of this game for ``seat``, computed in the
        core from a packed model (:data:`PackedEvaluation`; it brings the game's threat features and
        the card values): the same doubles."""
        return self._core.learned_features(seat, model)

    def learned_win_chance(self, seat: int, model: PackedEvaluation) -> float:
        """:meth:`clashofdecks.agents.evaluation.EvaluationModel.win_chance` of this game for ``seat``,
        computed in the core from the packed model: the same double."""
        return self._core.learned_win_chance(seat, model)

    def greedy_action(self, rng: random.Random, weights: Sequence[float], *, finish_turn: bool = True) -> int:
        """:class:`~clashofdecks.agents.greedy.GreedyAgent`'s play-phase choice for the current player
        (at least two legal actions), in one call: the determinization from ``rng``, every legal
        action applied to it (and the turn finished the default way if ``finish_turn``) and scored,
        the best kept, a tie broken by ``rng.randrange``.  The same generator draws as the Python agent
        draws, so both choose the same action and leave ``rng`` in the same state."""
        if type(rng) is not random.Random:
            raise TypeError("greedy_action draws from a random.Random (its getrandbits)")
        return self._core.greedy_action(rng.getrandbits, self._hidden_ids, weights, finish_turn)

    def greedy_rollout(
        self,
        rnd: Callable[[], float],
        weights: Sequence[float],
        max_actions: int,
        turn_limit: int | None = None,
    ) -> int:
        """As :meth:`rollout` with the search's greedy policy (``_greedy_choice`` of
        :mod:`clashofdecks.agents.mcts`: the best-scoring action, ``rnd()`` only to break a tie,
        ``best[int(rnd() * ties)]``); returns the actions played.  The same generator gives the same
        rollout as the Python loop."""
        self._history.clear()
        return self._core.greedy_rollout(rnd, weights, max_actions, -1 if turn_limit is None else turn_limit)

    def search(
        self,
        rng: random.Random,
        *,
        iterations: int | None,
        deadline: float | None,
        clock: Callable[[], float],
        c: float,
        perfect_information: bool,
        cutoff_turns: int | None,
        max_rollout_actions: int,
        score: Evaluator | Callable[[NativeGame], float] | CompiledScore,
        mix: float = 0.0,
    ) -> tuple[int, tuple[tuple[int, int, float], ...]]:
        """The UCT search of :class:`clashofdecks.agents.mcts.Search` with random rollouts, tree and all
        inside the core, for :attr:`current_player`: the same tree, UCB values, draws from ``rng`` (an
        exact :class:`random.Random`, its state moved in and out) and rewards as the Python search.

        Each iteration starts from a determinization (or, ``perfect_information``, from a copy of this
        game); a rollout stops at the end of the game, past ``cutoff_turns`` turns after its leaf's turn
        or after ``max_rollout_actions``, and an unfinished one is scored by ``score``: an
        :class:`~clashofdecks.engine.Evaluator` (its compiled form when it has one, else its Python
        function), a callable giving player 0's reward, or what the core computes itself, without
        the GIL (other threads run during such a search): ``(weights, scale)``, the greedy
        heuristic's score for player 0 with those 9 weights through the logistic
        ``1 / (1 + exp(-clip(score / scale, ±50)))``, or a learned evaluation packed for the core
        (:data:`PackedEvaluation`; player 0's chance by the model from the view of the player to
        move).  ``mix`` > 0 also scores each leaf (where the tree walk ends, before its rollout) and
        backs up ``(1 - mix) x rollout + mix x leaf``.
        Stops after ``iterations`` or once ``clock() >= deadline`` (checked every 8 iterations).
        Returns the iterations done and, per root action, ``(action, visits, wins)``."""
        if type(rng) is not random.Random:
            raise TypeError("NativeGame.search draws as random.Random: pass a random.Random")
        if iterations is None and deadline is None:
            raise ValueError("a search needs a budget: iterations or a deadline")
        if iterations is not None and iterations < 0:
            raise ValueError(f"a search cannot run {iterations} iterations")
        template = self._template
        if isinstance(score, Evaluator):
            python_score = score.python
            score = (
                score.compiled(self)
                if score.compiled is not None
                else lambda nat: python_score(nat.to_game(record_events=False))
            )
        score_core: Callable[[Core], float] | CompiledScore
        if isinstance(score, tuple):
            score_core = score
        else:
            score_function = score

            def score_core(core: Core) -> float:
                return score_function(NativeGame(core, template))

        version, internal, gauss_next = rng.getstate()
        done, internal_after, stats = self._core.search(
            self.current_player,
            internal,
            -1 if iterations is None else iterations,
            deadline,
            clock,
            c,
            perfect_information,
            self._hidden_ids,
            -1 if cutoff_turns is None else cutoff_turns,
            max_rollout_actions,
            score_core,
            mix,
        )
        rng.setstate((version, internal_after, gauss_next))
        return done, stats

    def playout(self, seed: int, max_actions: int = 1 << 62) -> int:
        """Play uniformly random legal actions inside the core (SplitMix64 from ``seed``, docs/native.md)
        until the game ends or ``max_actions`` were played; returns how many were played."""
        self._history.clear()
        return self._core.playout(seed & ((1 << 64) - 1), max_actions)


#: What the compiled network needs besides the state (:func:`net_search`): the encoder's slice
#: offsets (``encoding.COMPILED_LAYOUT``), the observation's threat slice (constant over a
#: game), the context (0 duel, 1 + the solo level) and the learned evaluation packed for the game.
NetView = tuple[Sequence[int], Sequence[float], int, PackedEvaluation]


def net_new(payload: bytes, sizes: tuple[int, int, int, int, int]) -> object:
    """The network in the core from its float32 payload (``agents.neural``'s file order) and its sizes
    (inputs, hidden 1, hidden 2, actions, the calibrated value head's hidden size or 0)."""
    _require()
    return _core_net_new(payload, sizes)


def net_evaluate(
    game: NativeGame, net: object, seat: int, view: NetView
) -> tuple[bytes, tuple[float, ...], float]:
    """What :func:`net_search` computes at a node, for ``seat``: the observation (float32 bytes, the
    encoder's), the network's 780 policy logits and ``seat``'s win chance (``net``: :func:`net_new`)."""
    layout, threat, context, learned = view
    return game._core.net_evaluate(net, seat, layout, threat, game._hidden_ids, context, learned)


def net_search(
    game: GameEngine,
    net: object,
    rng: random.Random,
    view: NetView,
    *,
    iterations: int,
    c: float,
    cutoff_turns: int | None,
    max_rollout_actions: int,
    value_weight: float,
    noise: float = 0.0,
    noise_alpha: float = 1.0,
    fpu_cut: float = 0.0,
) -> tuple[int, tuple[tuple[int, int, float], ...], int] | None:
    """The PUCT search with the network inside (``_native.c``, "the network inside the search") from
    ``game`` for its current player, ``iterations`` determinizations drawn from ``rng`` (an exact
    :class:`random.Random`, its state moved in and out); ``noise`` > 0 mixes that share of a
    Dirichlet(``noise_alpha``) draw into the root's prior (self-play); an unvisited child's value is its
    parent's less ``fpu_cut``.  Returns the iterations done, per root action
    ``(action, visits, wins)`` and the network's evaluations; ``None`` for a game the core does not
    hold (the caller searches in Python: it never asks which engine it holds)."""
    if not isinstance(game, NativeGame):
        return None
    if type(rng) is not random.Random:
        raise TypeError("net_search draws as random.Random: pass a random.Random")
    layout, threat, context, learned = view
    version, internal, gauss_next = rng.getstate()
    (done, internal_after, stats), evaluations = game._core.net_search(
        net,
        game.current_player,
        internal,
        iterations,
        c,
        game._hidden_ids,
        layout,
        threat,
        context,
        learned,
        -1 if cutoff_turns is None else cutoff_turns,
        max_rollout_actions,
        value_weight,
        noise,
        noise_alpha,
        fpu_cut,
    )
    rng.setstate((version, internal_after, gauss_next))
    return done, stats, evaluations


def in_engine(game: GameEngine, *, compiled: bool) -> GameEngine:
    """``game`` in the engine a caller wants its computation in: the compiled core (``compiled``,
    when the core is available and holds the position; the setup stage stays in Python) or the Python
    engine (events off).  A game already in that engine is returned as it is, so the caller never asks
    which engine it holds; a converted one keeps no undo history."""
    if compiled:
        if isinstance(game, NativeGame) or not AVAILABLE or game.phase == "setup":
            return game
        try:
            return NativeGame.from_state(game.state())
        except NativeUnsupportedError:
            return game  # a state the core cannot hold: the Python engine computes
    return game if isinstance(game, Game) else game.to_game(record_events=False)


def _both_engines_are_game_engines(python: Game, core: NativeGame) -> tuple[GameEngine, GameEngine]:
    """Never called: mypy checks here that both engines satisfy :class:`GameEngine`."""
    return python, core


def random_duel_playouts(first_seed: int, games: int, choice_seed: int) -> tuple[int, int, int, int, int]:
    """``games`` random duel games (:meth:`Game.random_duel` of ``first_seed + i``, uniform random actions
    from SplitMix64 seeded with ``choice_seed``), deal and play entirely inside the compiled core:
    ``(actions, turns, wins of seat 0, wins of seat 1, draws)``."""
    _require()
    mask = (1 << 64) - 1
    return random_duel_games(first_seed & mask, games, choice_seed & mask)


__all__: Sequence[str] = (
    "AVAILABLE",
    "DISABLED",
    "NativeGame",
    "NativeUnsupportedError",
    "NetView",
    "PackedEvaluation",
    "engine_notice",
    "in_engine",
    "net_evaluate",
    "net_new",
    "net_search",
    "random_duel_playouts",
)
