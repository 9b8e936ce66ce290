"""The arena's duels with the setup stage played once: tuning a play-phase search against ``strongest``
(issue 38; docs/ai.md, "Tuning the network's search").

A draft duel of ``clash arena`` spends most of its CPU in the setup stage (R2), where
``strongest`` and ``neural-search`` run the very same search (1,500 iterations, the learned setup
choices), each from a ``random.Random`` seeded by the arena (:func:`.seeds.deal_agent_seed`) and
drawing one 64-bit seed per searched decision.  So the position at the first turn depends on the deal
and the seats only, never on which of the two agents sits where, and each agent's generator has moved
by the same draws.  :func:`setup_book` plays every deal's setup once with ``strongest`` as both
participants (so both seat orders of the arena share it) and keeps the position and the two
generators' states; :func:`play_from_book` plays the play
phase of each game from there, the candidate in one seat and ``strongest`` in the other, each agent's
generator set to the state the arena's agent would have: the arena's very game (the same result, checked
by ``tests/test_play_phase_arena.py``) for about a tenth of its CPU, and every candidate on the same
positions (paired comparisons).
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..agents.base import Agent
from ..agents.registry import make_agent
from ..formats import seat_of, start_game
from ..game_loop import game_steps, play_out
from ..options import Ruleset
from ..rules import Game
from .game import _to_core
from .seeds import deal_agent_seed
from .stats import wilson_interval

#: The opponent, and the setup's player in both seats.
OPPONENT: Final = "strongest"


@dataclass(frozen=True)
class SetupEntry:
    """The arena's games of deal ``seed`` at their first turn: the position and the participants'
    generators' states."""

    seed: int
    game: Game
    rng_states: tuple[Any, Any]


def _agents(specs: tuple[str, str], seed: int) -> list[Agent]:
    agents = []
    for participant, spec in enumerate(specs):
        agent = make_agent(spec, deal_agent_seed(seed, participant))
        agent.reset(deal_agent_seed(seed, participant))
        agents.append(agent)
    return agents


def _by_seat(game: Game, participants: list[Any]) -> list[Any]:
    """The participants in seat order (the setup's coin toss seats them, as in the arena)."""
    return [participants[1], participants[0]] if seat_of(game, 0) == 1 else participants


def play_setup(seed: int, *, max_turns: int = 200) -> SetupEntry:
    """The setup stage of the deal ``seed`` with ``strongest`` as both participants."""
    game = start_game(mode="duel", format="draft", seed=seed, ruleset=Ruleset(max_turns=max_turns))
    agents = _agents((OPPONENT, OPPONENT), seed)
    deciders = [a.act for a in _by_seat(game, agents)]
    for _ in game_steps(game, deciders, stop=lambda g: g.phase != "setup"):
        pass
    states = (_rng_of(agents[0]).getstate(), _rng_of(agents[1]).getstate())
    return SetupEntry(seed, game, states)


def _rng_of(agent: Agent) -> random.Random:
    rng = getattr(agent, "_rng", None)
    if not isinstance(rng, random.Random):
        raise TypeError(f"{agent.name} has no generator to set: it cannot play from a setup book")
    return rng


def setup_book(
    path: Path, first_seed: int, deals: int, *, progress: Callable[[int], None] | None = None
) -> None:
    """Append the setup of deals ``first_seed`` … to ``path`` (pickles, one per deal; a run stopped
    half-way is resumed where it stopped)."""
    done = {e.seed for e in read_book(path)} if path.exists() else set()
    with path.open("ab") as out:
        for seed in range(first_seed, first_seed + deals):
            if seed in done:
                continue
            pickle.dump(play_setup(seed), out)
            out.flush()
            if progress is not None:
                progress(seed)


def read_book(path: Path) -> Iterator[SetupEntry]:
    """The entries of a setup book, in the order written."""
    with path.open("rb") as source:
        while True:
            try:
                entry = pickle.load(source)
            except EOFError:
                return
            if not isinstance(entry, SetupEntry):
                raise TypeError(f"{path} is not a setup book")
            yield entry


def play_entry(entry: SetupEntry, candidate: str, swap: bool) -> float:
    """The candidate's points (1, ½, 0) in the entry's game against ``strongest``; ``swap``: the
    candidate is participant 1 (the arena's second game of the deal)."""
    return play_entry_game(entry, candidate, swap)[0]


def play_entry_game(entry: SetupEntry, candidate: str, swap: bool) -> tuple[float, Any]:
    """:func:`play_entry`'s points and the finished game."""
    specs = (OPPONENT, candidate) if swap else (candidate, OPPONENT)
    agents = _agents(specs, entry.seed)
    for agent, state in zip(agents, entry.rng_states, strict=True):
        _rng_of(agent).setstate(state)
    game = copy.deepcopy(entry.game)
    core = _to_core(game)
    engine: Any = core if core is not None else game
    play_out(engine, [a.act for a in _by_seat(game, agents)])
    winner = engine.outcome.winner
    if winner is None:
        return 0.5, engine
    first_seat = seat_of(game, 0)  # participant 0's seat
    mine = 1 - first_seat if swap else first_seat
    return (1.0 if winner == mine else 0.0), engine


def play_from_book(
    path: Path, candidate: str, *, limit: int | None = None, skip: int = 0
) -> Iterator[tuple[int, bool, float]]:
    """Both games of each deal of the book (``limit`` deals after the first ``skip``): the deal, the
    swap and the candidate's points."""
    for count, entry in enumerate(read_book(path)):
        if count < skip:
            continue
        if limit is not None and count >= skip + limit:
            return
        for swap in (False, True):
            yield entry.seed, swap, play_entry(entry, candidate, swap)


def main(argv: Sequence[str]) -> int:
    """``setup BOOK --seed S --deals N`` writes a book; ``play BOOK CANDIDATE…`` plays each candidate
    over it, a JSON line per game to ``--log`` and a summary per candidate on stdout."""
    parser = argparse.ArgumentParser(prog="python -m clashofdecks.simulation.play_phase_arena")
    parser.add_argument("command", choices=("setup", "play"))
    parser.add_argument("book", type=Path)
    parser.add_argument("candidates", nargs="*")
    parser.add_argument("--seed", type=int, default=500_000)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--skip", type=int, default=0, help="play: the book's deals to pass over first")
    parser.add_argument("--log", type=Path)
    args = parser.parse_args(argv)
    if args.command == "setup":
        setup_book(args.book, args.seed, args.deals)
        return 0
    for candidate in args.candidates:
        points, games = 0.0, 0
        for seed, swap, got in play_from_book(args.book, candidate, limit=args.deals, skip=args.skip):
            points += got
            games += 1
            if args.log is not None:
                with args.log.open("a") as log:
                    log.write(
                        json.dumps({"candidate": candidate, "deal": seed, "swap": swap, "points": got}) + "\n"
                    )
        low, high = wilson_interval(points, games)
        summary = {"candidate": candidate, "games": games, "points": points, "share": points / max(games, 1)}
        print(json.dumps(summary | {"interval": [round(low, 4), round(high, 4)]}), flush=True)
    return 0


if __name__ == "__main__":
    # the module under its own name, so that the book's pickled entries are its SetupEntry
    from clashofdecks.simulation import play_phase_arena

    sys.exit(play_phase_arena.main(sys.argv[1:]))


__all__ = [
    "OPPONENT",
    "SetupEntry",
    "play_entry",
    "play_entry_game",
    "play_from_book",
    "play_setup",
    "read_book",
    "setup_book",
]
