"""Action choices drawn by Hypothesis, so that a failing random game shrinks to a short, simple one.

A game's choices are drawn as two values, in this order:

- how many actions to play: mostly the whole game, sometimes a number of actions (Hypothesis
  shrinks toward a limit, and that number first, so a failure is reported with as few actions as
  still fail: without a limit, shrinking the bytes toward ``end`` would lengthen the game);
- one ``bytes`` value: each choice reads the next two bytes as a number, XORs it with a fixed
  pseudo-random mask and takes it modulo the number of legal actions (past the end of the bytes the
  choices start over from the first).  One draw however long the game: a draw per action would cost
  more than the game itself.  Hypothesis shrinks the bytes toward zeros, that is toward one fixed
  game, so only the choices that matter differ from it.

:meth:`Choices.report` adds the actions played to the report of a failing example.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import note
from hypothesis import strategies as st

from clashofdecks import Game

BYTES_PER_CHOICE = 2
#: The most actions a game is played for: random choices end a game long before (a random duel
#: takes about 50 actions, 99% fewer than 130), but choices that keep passing (all ``end``) need not.
MAX_ACTIONS = 400


#: XORed into the drawn numbers: Hypothesis often draws simple bytes (all zeros, repeats), which
#: read plainly would always take the same action, e.g. ``end`` for ever; masked, they play a
#: varied game (the one all-zero bytes stand for, where shrinking leads).
_MASK = tuple(random.Random(20261130).randrange(256**BYTES_PER_CHOICE) for _ in range(1024))


class Choices:
    """The choices of one game: at most ``limit`` actions (None: to the end) read from ``blob``."""

    def __init__(self, blob: bytes, limit: int | None = None) -> None:
        self.limit = limit
        self._blob = blob
        self._values = [
            int.from_bytes(blob[i : i + BYTES_PER_CHOICE], "big")
            ^ _MASK[(i // BYTES_PER_CHOICE) % len(_MASK)]
            for i in range(0, len(blob) - BYTES_PER_CHOICE + 1, BYTES_PER_CHOICE)
        ] or [0]
        self._next = 0
        self.played: list[str] = []

    def __repr__(self) -> str:
        blob = self._blob.rstrip(b"\0")
        return f"Choices(limit={self.limit}, blob={blob!r})"

    def fresh(self) -> Choices:
        """The same choices, none taken yet (to replay a game)."""
        return Choices(self._blob, self.limit)

    @property
    def to_the_end(self) -> bool:
        """Whether the game is to be played to its end (no limit drawn)."""
        return self.limit is None

    def more(self) -> bool:
        """Whether another action is to be played (the game's end is the caller's check)."""
        return len(self.played) < (MAX_ACTIONS if self.limit is None else self.limit)

    def below(self, n: int) -> int:
        """The next choice among ``n`` (0 to n-1)."""
        value = self._values[self._next % len(self._values)]
        self._next += 1
        return value % n

    def action(self, game: Game) -> int:
        """The next choice among ``game``'s legal actions (remembered as text for the report)."""
        legal = game.legal_actions()
        action = legal[self.below(len(legal))]
        self.played.append(game.action_text(action))
        return action

    def play(self, game: Game) -> None:
        """Apply the next chosen legal action."""
        game.apply(self.action(game))

    @contextmanager
    def report(self) -> Iterator[None]:
        """On a failure, add the actions played so far to Hypothesis' report of the example."""
        try:
            yield
        except BaseException:
            note(f"{len(self.played)} actions played: {self.played}")
            raise


def choice_bytes(choices: int) -> st.SearchStrategy[bytes]:
    """Bytes for ``choices`` choices (more are read cyclically)."""
    return st.binary(min_size=BYTES_PER_CHOICE * choices, max_size=BYTES_PER_CHOICE * choices)


def action_limits() -> st.SearchStrategy[int | None]:
    """None (play to the end) for most games, else a number of actions; shrinks to the smallest
    number of actions.

    A game is limited when three numbers are all 0: Hypothesis draws 0 far more often than other
    values (one number alone would limit a game in three), and shrinks each of them to 0.  All
    the numbers are always drawn, so that limiting a game does not shift the choices after them.
    """
    switch = st.integers(0, 2**16 - 1)
    return st.tuples(switch, switch, switch, st.integers(0, MAX_ACTIONS)).map(
        lambda drawn: drawn[3] if drawn[:3] == (0, 0, 0) else None
    )


def game_choices(choices: int) -> st.SearchStrategy[Choices]:
    """The choices of one game: the action limit first (so it shrinks first), then the bytes."""
    return st.tuples(action_limits(), choice_bytes(choices)).map(lambda drawn: Choices(drawn[1], drawn[0]))
