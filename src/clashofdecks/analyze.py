"""Annotate a saved game (``clash analyze RECORD``): win chances after each turn, each side's largest drop.

Method.  The record is replayed; at every decision that had a choice, one search of the position
(ISMCTS from the deciding player's view by default, so a move is judged on what its player could
know; or MCTS on the true state with ``perfect_information``) judges the played move and the best
move alike: each one's chance is the mean result of its branch of that search (rollouts cut
:data:`ANALYSIS_CUTOFF` turns after the leaf and scored by the learned evaluation, calibrated on
held-out games: docs/ai.md; in the compiled core for the play phase).  A move's *loss* is
``best - after``: the win chance it gave away by that search's judgement.  Two moves that reach the
same position at the end of the turn, in the true state and in every sampled determinization, are
one play (attacks are automatic, R3.5: "next attack" and "end turn" with the same attacks left):
never each other's mistake.  A position the engine proves won or lost within the current turn (an
exact search of the rest of the turn, :func:`proven_result`) shows 100 % or 0 %.  Drops caused by
chance (the automaton's deck, the draft pile) land in the same number, so a single loss is a hint,
not a proof.

"Win chance after turn T" is player 0's chance at the first decision after turn T ends, from the view
of the player who decides there (or the result, when the game ended in turn T).
"""

from __future__ import annotations

import bisect
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from .agents.evaluation import chance_after, shipped_model, threat_level
from .agents.mcts import Search, SearchResult
from .engine import GameEngine
from .native import in_engine
from .options import Threat
from .record import GameRecord, Replay
from .rules import DecisionKind, Game

#: Search iterations per decision: what the web computes for a finished game (its
#: ``analysis_iterations``) and ``clash analyze``'s default, so both show the same analysis.
DEFAULT_ITERATIONS: Final = 1000
#: Turns a rollout of the analysis search plays after its leaf's turn before the learned evaluation
#: scores it (the named strengths' setting).
ANALYSIS_CUTOFF: Final = 1
#: Iterations of a setup decision's search (draft picks, deck choice) as a share of the play phase's:
#: its tree and rollouts run in the Python engine, scored by the deck evaluation when the setup ends.
SETUP_SHARE: Final = 0.05
#: A solo setup decision's loss counts only beyond this many standard errors of the two moves' means
#: (its small search plays rollouts at random, not scored by the deck evaluation as a duel's: without
#: this most of its flags were noise, docs/ai.md).
NOISE_ERRORS: Final = 2.0
#: Determinizations (besides the true state) in which two moves must reach the same end of turn.
SAME_TURN_SAMPLES: Final = 3
#: Positions the exact search of the rest of a turn may visit before it gives up (no proof).
PROOF_BUDGET: Final = 200
#: The search's chance of a move mapped to a calibrated one, ``sigmoid(a x logit(p) + b)``, per context
#: (``duel``, ``solo0``..``solo5``; another context keeps the search's chance): ``(a, b)`` fitted by
#: maximum likelihood on analysed games (``python -m clashofdecks.simulation.analysis_check fit``; the
#: solo levels together: one slope, an intercept per level), measured on held-out games in docs/ai.md.
#: Fitted on ``casual`` games (``clash simulate --records``): 100 duels from seed 8,000,000; solo levels
#: 1, 2, 4 and 5 on 50 games per level L from seed 8,100,000 + 10,000 L (300 solo games in that fit);
#: levels 0 and 3 refitted (the same fit, one slope for the six levels) with 250 more games per level 0,
#: 3, 4, 5 from seed 8,300,000 + 10,000 L (1,300 solo games). The refit's level 5 map is not shipped:
#: on the held-out games it did no better (level 5 then missed the target), docs/ai.md.  Level 4 takes
#: a curve instead (:data:`CALIBRATION_CURVES`).
CALIBRATION: Final[dict[str, tuple[float, float]]] = {
    "duel": (0.972, -0.147),  # 100 games, 4,283 moves
    "solo0": (0.945, 0.408),  # the refit: 1,300 solo games, 32,250 moves
    "solo1": (1.047, 0.758),  # the six solo levels: 300 games, 7,627 moves
    "solo2": (1.047, 0.598),
    "solo3": (0.945, 0.676),  # the refit
    "solo5": (1.047, 1.587),
}
#: A monotone map through knots ``(logit of the search's chance, logit of the chance shown)``: linear
#: between knots, slope 1 beyond the end ones (:func:`curve_map`).
Curve = tuple[tuple[float, float], ...]
#: Contexts whose chances no logistic map follows, with the curve used instead of :data:`CALIBRATION`'s
#: map (``analysis_check fit``'s ``curve``: the moves grouped by the search's chance, each group's share
#: won made non-decreasing by pooling neighbours, a knot per pooled group).  Solo level 4: its games are
#: won about 17 % of the time below a search chance of 0.2 and about 68 % from 0.2 to 0.6, a step no
#: slope follows; chosen over its own logistic map by cross-validation on the training games only
#: (docs/ai.md).  Fitted on 1,300 ``casual`` games (seeds 8,100,000 + 40,000: 50; 8,300,000 + 40,000: 250;
#: 9,400,000 + 40,000: 1,000).
CALIBRATION_CURVES: Final[dict[str, Curve]] = {
    "solo4": (
        (-6.346, -4.24),
        (-3.381, -2.341),
        (-2.454, -1.612),
        (-1.998, -1.448),
        (-1.601, -0.835),
        (-1.133, 0.247),
        (-0.637, 0.719),
        (-0.211, 0.874),
        (0.19, 1.143),
        (0.624, 2.025),
        (1.126, 2.853),
        (1.776, 2.856),
        (4.053, 4.486),
    ),
}


@dataclass
class Decision:
    """One action of the record, with the search's view of it."""

    index: int
    turn: int
    player: int
    action: str
    #: The mover's estimated win chance with the search's best action (None: forced move).
    best: float | None = None
    best_action: str | None = None
    #: The mover's estimated win chance after the played action.
    after: float = 0.0
    #: The search's own chance of the played action before the calibration map, when ``after`` is that
    #: chance mapped (None: a forced move, a proof, or a move the search never tried): what
    #: ``simulation.analysis_check`` fits and checks the map on.
    raw_after: float | None = None

    @property
    def loss(self) -> float:
        """Win chance given away: 0 for a forced move or the search's own choice (a drop after
        the best move is chance or estimation noise, not a mistake)."""
        if self.best is None or self.best_action == self.action:
            return 0.0
        return max(0.0, self.best - self.after)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "turn": self.turn,
            "player": self.player,
            "action": self.action,
            "best_action": self.best_action,
            "best": self.best,
            "after": self.after,
            "loss": self.loss,
        }


@dataclass
class TurnNote:
    """A turn (0 = the setup stage) with its actions and player 0's win chance when it ended."""

    turn: int
    active: int
    actions: list[str] = field(default_factory=list)
    p0_win_chance: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "active": self.active,
            "actions": self.actions,
            "p0_win_chance": self.p0_win_chance,
        }


@dataclass
class Analysis:
    record: GameRecord
    decisions: list[Decision]
    turns: list[TurnNote]
    iterations: int
    perfect_information: bool
    #: CPU seconds the analysis took (``time.process_time``).
    cpu_seconds: float = 0.0

    def mistakes(self, top: int = 3, threshold: float = 0.05) -> list[Decision]:
        """The decisions with the largest loss, if at least ``threshold``: each side's largest drop
        first (both sides are listed whenever both dropped, even with ``top`` 1), then the next
        largest up to ``top``; by loss."""
        if top <= 0:
            return []
        ranked = sorted((d for d in self.decisions if d.loss >= threshold), key=lambda d: (-d.loss, d.index))
        kept = [d for d in self.largest_drops(threshold) if d is not None]
        kept += [d for d in ranked if d not in kept][: max(0, top - len(kept))]
        return sorted(kept, key=lambda d: (-d.loss, d.index))

    def largest_drops(self, threshold: float = 0.05) -> list[Decision | None]:
        """Each seat's decision with the largest loss (at least ``threshold``), or None: both sides'."""
        drops: list[Decision | None] = [None, None]
        for d in self.decisions:
            if 0 <= d.player <= 1 and d.loss >= threshold:
                kept = drops[d.player]
                if kept is None or d.loss > kept.loss:
                    drops[d.player] = d
        return drops

    def to_dict(self, top: int = 3) -> dict[str, Any]:
        return {
            "players": self.record.players,
            "result": self.record.result,
            "search": "mcts" if self.perfect_information else "ismcts",
            "win_chance": "one search per decision, cut-off rollouts scored by the learned evaluation "
            "(agents/evaluation.py), from the mover's view; 100 % / 0 % where proven within the turn",
            "iterations": self.iterations,
            "cpu_seconds": self.cpu_seconds,
            "turns": [t.to_dict() for t in self.turns],
            "decisions": [d.to_dict() for d in self.decisions],
            "mistakes": [d.to_dict() for d in self.mistakes(top)],
            "largest_drops": [None if d is None else d.to_dict() for d in self.largest_drops()],
        }


def _final_chance(game: GameEngine, player: int) -> float:
    w = game.winner
    if w is None:
        return 0.5
    return 1.0 if w == player else 0.0


def _finish_turn(game: GameEngine, turn: int) -> None:
    """Pass every later decision of ``turn`` the default way (the first legal action)."""
    while not game.is_over() and game.turn == turn:
        game.apply(game.legal_actions()[0])


def same_end_of_turn(game: Game, seat: int, a: int, b: int, *, seed: int = 0) -> bool:
    """Whether actions ``a`` and ``b`` of ``seat`` reach the same position at the end of the turn (the
    rest of it passed the default way), in the true state and in :data:`SAME_TURN_SAMPLES`
    determinizations from ``seat``'s view: then they are one play, never each other's mistake."""
    if a == b:
        return True
    rng = random.Random(seed)
    starts = [game.clone()] + [game.sample_determinization(seat, rng) for _ in range(SAME_TURN_SAMPLES)]
    for start in starts:
        start.record_events = False
        ends = []
        for action in (a, b):
            g = start.clone()
            g.apply(action)
            _finish_turn(g, start.turn)
            ends.append(g.state())
        if ends[0] != ends[1]:
            return False
    return True


def proven_result(game: GameEngine, seat: int, budget: int = PROOF_BUDGET) -> float | None:
    """1.0 or 0.0 when an exact search of the rest of the current turn proves that ``seat`` wins or
    loses whatever the rest of that turn is (the choices of ``seat`` existential, the other's
    universal; on the true state), ``None`` when it proves nothing within ``budget`` positions."""
    if game.phase == "setup":
        return None
    g = in_engine(game, compiled=True).clone()
    g.keep_undo = True
    left = [budget]
    result = _solve(g, seat, g.turn, left)
    return None if result is None else float(result)


def _solve(g: GameEngine, seat: int, turn: int, left: list[int]) -> int | None:
    """1 (``seat`` wins), 0 (loses) or None (a draw, the turn ends undecided, or the budget is out)."""
    if g.is_over():
        return None if g.winner is None else int(g.winner == seat)
    if g.turn != turn or left[0] <= 0:
        return None
    mover_is_seat = g.current_player == seat
    outcomes = set()
    for action in g.legal_actions():
        left[0] -= 1
        if left[0] < 0:
            return None
        g.apply(action)
        outcome = _solve(g, seat, turn, left)
        g.undo()
        if outcome == (1 if mover_is_seat else 0):
            return outcome  # the mover has a line that decides it
        outcomes.add(outcome)
    return outcomes.pop() if len(outcomes) == 1 else None


def context_of(record: GameRecord) -> str:
    """``duel``, or ``solo`` and the R8.3 level of the record's threat (``solo?`` for another one)."""
    if record.mode != "solo":
        return "duel"
    level = threat_level(record.threat or Threat())
    return f"solo{'?' if level is None else level}"


def calibrated(chance: float, context: str | None) -> float:
    """The search's ``chance`` through the context's :data:`CALIBRATION_CURVES` curve or else its
    :data:`CALIBRATION` map (neither: unchanged)."""
    curve = CALIBRATION_CURVES.get(context or "")
    if curve is not None:
        return curve_map(chance, curve)
    ab = CALIBRATION.get(context or "")
    return chance if ab is None else logistic_map(chance, ab)


def _logit(chance: float) -> float:
    p = min(max(chance, 1e-4), 1.0 - 1e-4)
    return math.log(p / (1.0 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def logistic_map(chance: float, ab: tuple[float, float]) -> float:
    """``sigmoid(a x logit(chance) + b)``."""
    return _sigmoid(ab[0] * _logit(chance) + ab[1])


def curve_map(chance: float, curve: Curve) -> float:
    """``chance`` through a :data:`Curve`: linear in logits between its knots, slope 1 beyond the ends."""
    x = _logit(chance)
    (x0, y0), (x1, y1) = curve[0], curve[-1]
    if x <= x0:
        return _sigmoid(y0 + x - x0)
    if x >= x1:
        return _sigmoid(y1 + x - x1)
    k = bisect.bisect_right([knot[0] for knot in curve], x)
    (x0, y0), (x1, y1) = curve[k - 1], curve[k]
    return _sigmoid(y0 + (y1 - y0) * (x - x0) / (x1 - x0))


def _within_noise(result: SearchResult, best: int, played: int) -> bool:
    """Whether the search's means of ``best`` and ``played`` differ by less than two standard errors
    (each mean's variance at most 1/4 per visit): too few visits to call the played move worse."""
    visits = {a: n for a, n, _ in result.stats}
    best_chance, played_chance = _chance_of(result, best), _chance_of(result, played)
    if best_chance is None or played_chance is None:
        return False
    error = math.sqrt(0.25 / visits[best] + 0.25 / visits[played])
    return best_chance - played_chance < NOISE_ERRORS * error


def _chance_of(result: SearchResult, action: int) -> float | None:
    for a, visits, mean in result.stats:
        if a == action and visits:
            return mean
    return None


def _judge(
    search: Search,
    game: Game,
    played: int,
    rng: random.Random,
    iterations: int,
    seed: int,
    context: str | None,
) -> Decision:
    """The played move and the search's best move, judged by one search of ``game``."""
    player = game.current_player
    d = Decision(0, 0, player, "")
    budget = iterations if game.phase != "setup" else max(1, round(iterations * SETUP_SHARE))
    res = search.run(game, random.Random(rng.getrandbits(64)), iterations=budget)
    best = res.action
    # Setup choices never meet again (each changes a hand or a deck): only play-phase moves can be one play.
    if game.phase != "setup" and same_end_of_turn(game, player, played, best, seed=seed):
        best = played  # one play: the played move is as good as the best
    d.best_action = game.action_text(best)
    best_chance = _chance_of(res, best)
    d.best = (
        calibrated(best_chance, context)
        if best_chance is not None
        else chance_after(game, player, best, seed=seed)
    )
    after = d.raw_after = _chance_of(res, played)
    d.after = (
        calibrated(after, context) if after is not None else chance_after(game, player, played, seed=seed)
    )
    if game.phase == "setup" and game.is_solo and _within_noise(res, best, played):
        d.best = d.after  # the setup's small search cannot tell these apart: no loss
    for action, attr in ((best, "best"), (played, "after")):
        g = game.clone()
        g.record_events = False
        g.apply(action)
        proof = proven_result(g, player)
        if proof is not None:
            setattr(d, attr, proof)
            if attr == "after":
                d.raw_after = None
    if best == played:
        d.best = d.after
    return d


def analyze_record(
    record: GameRecord,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    perfect_information: bool = False,
    progress: Callable[[int, int], None] | None = None,
    calibrate: bool = True,
) -> Analysis:
    """Replay ``record`` and judge every decision (see the module docstring); ``calibrate=False`` keeps
    the search's own chances (to fit :data:`CALIBRATION`)."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    started = time.process_time()
    steps = Replay(record)
    game = steps.game
    search = Search(
        perfect_information=perfect_information, cutoff=ANALYSIS_CUTOFF, evaluation="learned", setup="learned"
    )
    model = shipped_model()
    rng = random.Random(seed)
    context = context_of(record) if calibrate else None
    decisions: list[Decision] = []
    #: Player 0's chance at each decision point (index i: before action i), then at the end.
    p0: list[float] = []
    total = len(record.actions)
    for step in steps:
        i, text, played = step.index, step.text, step.action
        player = game.current_player
        proof = proven_result(game, player)
        now = proof if proof is not None else model.win_chance(game, player)
        p0.append(now if player == 0 else 1.0 - now)
        if game.decision_kind is DecisionKind.BUILD or len(game.legal_actions()) > 1:
            d = _judge(search, game, played, rng, iterations, seed, context)
        else:
            d = Decision(0, 0, player, "")
        d.index, d.turn, d.action = i, game.turn if game.phase != "setup" else 0, text
        decisions.append(d)
        if progress is not None:
            progress(i + 1, total)
    p0.append(_end_chance(game))
    for i, d in enumerate(decisions):
        if d.best is None:  # a forced move: the next position's chance, from the mover's view
            after0 = p0[i + 1]
            d.after = after0 if d.player == 0 else 1.0 - after0
    turns: list[TurnNote] = []
    for i, d in enumerate(decisions):
        if not turns or turns[-1].turn != d.turn:
            active = d.player if d.turn > 0 else -1
            turns.append(TurnNote(d.turn, active))
        turns[-1].actions.append(d.action)
        turns[-1].p0_win_chance = p0[i + 1]
    _fix_active(turns, decisions)
    return Analysis(record, decisions, turns, iterations, perfect_information, time.process_time() - started)


def _end_chance(game: Game) -> float:
    """Player 0's chance where the record ends: the result, or the learned evaluation."""
    if game.is_over():
        return _final_chance(game, 0)
    seat = max(0, game.current_player)
    proof = proven_result(game, seat)
    end = proof if proof is not None else shipped_model().win_chance(game, seat)
    return 1.0 - end if seat == 1 else end


def _fix_active(turns: list[TurnNote], decisions: list[Decision]) -> None:
    """The active player of a turn is the player of its first non-order decision (a return order,
    R3.9, may be the other player's)."""
    by_turn: dict[int, int] = {}
    for d in decisions:
        if d.turn > 0 and d.turn not in by_turn and not d.action.startswith("order"):
            by_turn[d.turn] = d.player
    for t in turns:
        if t.turn in by_turn:
            t.active = by_turn[t.turn]


__all__ = [
    "DEFAULT_ITERATIONS",
    "Analysis",
    "Decision",
    "TurnNote",
    "analyze_record",
    "proven_result",
    "same_end_of_turn",
]
