"""``Game.next_attack`` (R3.5, R3.7): the attack ``next`` makes, read off the board without playing
it, is the first ATTACKED event that playing ``next`` on a copy emits, in every position of random
duels and solo games of both lane variants (R1.5a) -- or ``None`` in both where ``next`` is not
legal or attacks nothing."""

from __future__ import annotations

import random

from clashofdecks import EventKind, Ruleset, Threat
from clashofdecks.errors import ClashError
from clashofdecks.events import Event
from clashofdecks.formats import new_game
from clashofdecks.rules import Game
from clashofdecks.words.actions import next_attack
from random_play import random_steps


def _played(game: Game) -> Event | None:
    """The attack, found the long way: ``next`` played on a copy."""
    copy = game.clone()
    copy.record_events = True
    try:
        events = copy.apply_text("next")
    except ClashError:
        return None
    return next(
        (e for e in events if e.kind is EventKind.ATTACKED and e.role != "berserk" and e.card is not None),
        None,
    )


def _games() -> list[Game]:
    games = []
    for seed in range(24):
        ruleset = Ruleset(lanes=("shared", "rotated")[seed % 2])
        if seed % 3 == 2:
            games.append(new_game(mode="solo", seed=seed, threat=Threat.level(seed % 6), ruleset=ruleset))
        else:
            games.append(
                new_game(
                    mode="duel", format=("draft", "precon", "custom")[seed % 3], seed=seed, ruleset=ruleset
                )
            )
    return games


def test_next_attack_is_the_attack_next_plays() -> None:
    attacks = 0
    for seed, game in enumerate(_games()):
        for _ in random_steps(game, random.Random(seed), max_actions=400):
            expected = _played(game)
            assert game.next_attack() == expected, game.state()
            assert next_attack(game) == expected
            attacks += expected is not None
    assert attacks > 200  # the games reached combat: creatures and players were attacked
