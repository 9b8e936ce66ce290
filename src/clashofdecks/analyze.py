"""Annotate a saved game (``clash analyze RECORD``): win chances after each turn, biggest mistakes.

Method.  The record is replayed; at every decision that had a choice, a search (ISMCTS from the
deciding player's view by default, so a move is judged on what its player could know; or MCTS on
the true state with ``perfect_information``) finds the best action.  The learned evaluation
(``agents/evaluation.py``, calibrated on held-out games: docs/ai.md) gives the mover's chance of
winning after that action, ``best``, and after the move actually played, ``after`` (both from the
mover's view, averaged over determinizations: :func:`~clashofdecks.agents.evaluation.chance_after`).
A move's *loss* is ``best - after``: the win chance it gave away by the search's judgement (0 when
the played move is the search's own choice).  Drops caused by chance (the automaton's deck, the
draft pile) land in the same number, so a single loss is a hint, not a
proof; with larger ``iterations`` the estimates are less noisy.

"Win chance after turn T" is player 0's chance by the learned evaluation at the first decision
after turn T ends, from the view of the player who decides there (or the result, when the game
ended in turn T).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .agents.evaluation import chance_after, shipped_model
from .agents.mcts import Search
from .record import GameRecord, Replay
from .rules import DecisionKind, Game


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

    def mistakes(self, top: int = 3, threshold: float = 0.05) -> list[Decision]:
        """The ``top`` decisions with the largest loss, if at least ``threshold``."""
        ranked = sorted((d for d in self.decisions if d.loss >= threshold), key=lambda d: (-d.loss, d.index))
        return ranked[:top]

    def to_dict(self, top: int = 3) -> dict[str, Any]:
        return {
            "players": self.record.players,
            "result": self.record.result,
            "search": "mcts" if self.perfect_information else "ismcts",
            "win_chance": "learned evaluation (agents/evaluation.py), from the mover's view",
            "iterations": self.iterations,
            "turns": [t.to_dict() for t in self.turns],
            "decisions": [d.to_dict() for d in self.decisions],
            "mistakes": [d.to_dict() for d in self.mistakes(top)],
        }


def _final_chance(game: Game, player: int) -> float:
    w = game.winner
    if w is None:
        return 0.5
    return 1.0 if w == player else 0.0


def analyze_record(
    record: GameRecord,
    *,
    iterations: int = 300,
    seed: int = 0,
    perfect_information: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Replay ``record`` and estimate every decision (see the module docstring)."""
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    steps = Replay(record)
    game = steps.game
    search = Search(perfect_information=perfect_information, setup="learned")
    model = shipped_model()
    rng = random.Random(seed)
    decisions: list[Decision] = []
    #: Player 0's chance at each decision point (index i: before action i), then at the end.
    p0: list[float] = []
    total = len(record.actions)
    for step in steps:
        i, text, played = step.index, step.text, step.action
        player = game.current_player
        d = Decision(i, game.turn if game.phase != "setup" else 0, player, text)
        legal = game.legal_actions()
        now = model.win_chance(game, player)
        p0.append(now if player == 0 else 1.0 - now)
        if game.decision_kind is DecisionKind.BUILD or len(legal) > 1:
            res = search.run(game, random.Random(rng.getrandbits(64)), iterations=iterations)
            d.best_action = game.action_text(res.action)
            d.best = chance_after(game, player, res.action, seed=seed)
            d.after = d.best if res.action == played else chance_after(game, player, played, seed=seed)
        decisions.append(d)
        if progress is not None:
            progress(i + 1, total)
    end = _final_chance(game, 0) if game.is_over() else model.win_chance(game, max(0, game.current_player))
    if not game.is_over() and game.current_player == 1:
        end = 1.0 - end
    p0.append(end)
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
    return Analysis(record, decisions, turns, iterations, perfect_information)


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


__all__ = ["Analysis", "Decision", "TurnNote", "analyze_record"]
