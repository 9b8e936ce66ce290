"""Per-card figures of one game, counted from its events inside the worker that plays it.

A :class:`CardTally` watches the events of a game (``record_events=True``; events never change what
happens, so a game played with a tally has the same winner as without) and gives one
:class:`CardRow` per card a seat owned when the setup ended:

* ``source`` — how the seat got it: ``pick`` (chosen in the draft, R2.4), ``given`` (the draft's
  left-over card, or the automaton's draft cards, R7.1), ``deck`` (a preconstructed, custom or
  random deal's cards);
* ``pick`` — for a ``pick``, its place among that seat's picks (1 = the seat's first pick);
* ``played`` — times it was played (a creature summoned, R3.3, or an incantation cast, R5.1);
* ``turns_in_play`` — turn ends (each player's turn counts) it spent on the battlefield;
* ``damage`` — damage its attacks and incantations did: creature damage as the ``damaged`` events
  report it (splash and perforation included) plus the attack value of its direct attacks;
* ``kills`` — creatures destroyed by its attacks and incantations;
* ``destroyed`` — times it was destroyed.

Only these compact rows leave the worker (:mod:`.runner`), never the events.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..cards import CARD_IDS, N_CARDS, PRECONSTRUCTED_DECKS
from ..events import Event, EventKind
from ..rules import Game

#: Events after which no attack or incantation is resolving any more (damage has no source).
_SOURCE_ENDS = frozenset(
    {
        EventKind.TURN_STARTED,
        EventKind.TURN_ENDED,
        EventKind.PHASE_CHANGED,
        EventKind.PLAYED,
        EventKind.REVEALED,
        EventKind.GAME_OVER,
    }
)


@dataclass(frozen=True, slots=True)
class CardRow:
    """One card of one seat in one game (see the module's docstring for each count)."""

    seat: int
    card: str
    source: str
    pick: int | None
    played: int
    turns_in_play: int
    damage: int
    kills: int
    destroyed: int


class CardTally:
    """Counts per (seat, card) from a game's events; :meth:`finish` reads the seats' cards."""

    def __init__(self) -> None:
        self._picks: dict[tuple[int, str], int] = {}
        self._given: set[tuple[int, str]] = set()
        self._picks_made = [0, 0]
        self._played: dict[tuple[int, str], int] = {}
        self._turns: dict[tuple[int, str], int] = {}
        self._damage: dict[tuple[int, str], int] = {}
        self._kills: dict[tuple[int, str], int] = {}
        self._destroyed: dict[tuple[int, str], int] = {}
        self._in_play: set[tuple[int, str]] = set()
        self._source: tuple[int, str] | None = None
        #: Each seat's cards when the setup ended (read once from the game's state).
        self._owned: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._decks: tuple[int | None, int | None] = (None, None)

    def begin(self, game: Game) -> None:
        """Call before the first action: a game dealt without a setup (the random deal) is read now."""
        if game.phase != "setup":
            self._read_owned(game)

    @staticmethod
    def _bump(counts: dict[tuple[int, str], int], key: tuple[int, str], by: int = 1) -> None:
        counts[key] = counts.get(key, 0) + by

    def observe(self, game: Game, events: Iterable[Event]) -> None:
        """Count ``events``, which the last action of ``game`` caused."""
        for e in events:
            kind = e.kind
            if kind in _SOURCE_ENDS:
                self._source = None
            if kind is EventKind.SETUP:
                if e.role == "picks" and e.player is not None and e.card is not None:
                    self._picks_made[e.player] += 1
                    self._picks[(e.player, e.card)] = self._picks_made[e.player]
                elif e.role == "gets" and e.player is not None:
                    for card in e.cards or ():
                        self._given.add((e.player, card))
                continue
            if e.player is None or e.card is None:
                continue
            key = (e.player, e.card)
            if kind is EventKind.PLAYED:
                self._bump(self._played, key)
                self._in_play.add(key)
            elif kind is EventKind.CAST:
                self._bump(self._played, key)
                self._source = key
            elif kind is EventKind.ATTACKED:
                self._source = key
                if e.target_card is None and e.amount:
                    self._bump(self._damage, key, e.amount)
            elif kind is EventKind.DAMAGED:
                if self._source is not None and e.amount:
                    self._bump(self._damage, self._source, e.amount)
            elif kind is EventKind.DESTROYED:
                self._bump(self._destroyed, key)
                self._in_play.discard(key)
                if self._source is not None:
                    self._bump(self._kills, self._source)
            elif kind in (EventKind.RETURNED, EventKind.DISCARDED):
                self._in_play.discard(key)
        for e in events:
            if e.kind is EventKind.TURN_ENDED:
                for key in self._in_play:
                    self._bump(self._turns, key)
        if self._owned is None and game.phase != "setup":
            self._read_owned(game)

    def _read_owned(self, game: Game) -> None:
        state = game.state()
        owned: list[tuple[str, ...]] = []
        for seat in (0, 1):
            cards = list(state.hands[seat])
            # The automaton may have played already when the setup's last action started its turn.
            for lane in (0, 1):
                cards += [creature[0] for creature in state.lanes[seat * 2 + lane]]
            if seat == 1 and state.solo:
                cards += list(state.deck) + list(state.discard)
            owned.append(tuple(CARD_IDS[c] for c in sorted(set(cards)) if c < N_CARDS))
        self._owned = (owned[0], owned[1])
        decks: list[int | None] = []
        for cards_of_seat in self._owned:
            as_set = {CARD_IDS.index(c) for c in cards_of_seat}
            decks.append(next((n for n, deck in PRECONSTRUCTED_DECKS.items() if set(deck) == as_set), None))
        self._decks = (decks[0], decks[1])

    def finish(self, game: Game) -> tuple[CardRow, ...]:
        """The rows of every card each seat owned when the setup ended (seat, then card order)."""
        if self._owned is None:
            self._read_owned(game)
        assert self._owned is not None
        rows = []
        for seat, cards in enumerate(self._owned):
            for card in cards:
                key = (seat, card)
                pick = self._picks.get(key)
                source = "pick" if pick is not None else "given" if key in self._given else "deck"
                rows.append(
                    CardRow(
                        seat=seat,
                        card=card,
                        source=source,
                        pick=pick,
                        played=self._played.get(key, 0),
                        turns_in_play=self._turns.get(key, 0),
                        damage=self._damage.get(key, 0),
                        kills=self._kills.get(key, 0),
                        destroyed=self._destroyed.get(key, 0),
                    )
                )
        return tuple(rows)

    @property
    def decks(self) -> tuple[int | None, int | None]:
        """Each seat's preconstructed deck number (R2.3), ``None`` for any other deck."""
        return self._decks


__all__ = ["CardRow", "CardTally"]
