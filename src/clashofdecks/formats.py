"""Formats (R2) and starting a game: preconstructed decks, draft and custom decks, duel and solo.

:func:`new_game` returns a game in its setup stage.  Every choice of the setup is an ordinary action
of the player whose choice it is (``deck N``, ``pick CARD``, ``build CARD×10``, ``ban CARD``); chance
(the draft pile, the hand shuffles, the coin toss, the automaton deck) comes from the game's seeded
RNG.  When the setup is complete the hands are dealt (R2.6, R7.1) and turn 1 starts.

Seats: positions put the starting player at index 0 (engine.md), so the coin toss (R2.3a) decides
which *participant* sits in seat 0; :func:`seat_of` answers for a participant (the order in which a
caller lists its players).  In solo the player is seat 0 and the automaton seat 1, whoever starts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from . import actions as A
from .cards import BASTION, CARD_IDS, FORT, N_CARDS, PRECONSTRUCTED_DECKS
from .errors import ClashError
from .events import EventKind
from .options import Ruleset, Threat
from .rules import SETUP, SUMMON, Game, seed_rng

FORMATS: Final = ("precon", "draft", "custom")
MODES: Final = ("duel", "solo")


class FormatError(ClashError):
    """An unknown mode or format, or a combination the rules do not allow (custom in solo, R2.2)."""


# A step is (verb, seat): verbs that are decisions: "deck", "pick", "build", "ban";
# automatic steps: "reveal" (draft: 4 cards face up), "last" (the rest of the revealed cards go to
# ``seat``).
Step = tuple[str, int]


@dataclass(frozen=True, slots=True)
class SetupState:
    """The setup stage in progress (immutable: each change makes a new one, so undo is cheap)."""

    kind: str
    steps: tuple[Step, ...]
    pool: tuple[int, ...] = ()
    revealed: tuple[int, ...] = ()
    cards: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    built: tuple[bool, bool] = (False, False)
    decks: tuple[int, ...] = ()


def seat_of(game: Game, participant: int) -> int:
    """The seat (player index) of ``participant`` (0 or 1 in the caller's order) after the coin toss."""
    first = int(game.meta.get("first_participant", 0))  # type: ignore[call-overload]
    return 0 if participant == first else 1


def new_game(
    *,
    mode: str = "duel",
    format: str = "draft",
    seed: int,
    ruleset: Ruleset | None = None,
    threat: Threat | None = None,
    record_events: bool = True,
) -> Game:
    """A new game at the start of its setup (R2): the first decision is ``game.current_player``'s."""
    if mode not in MODES:
        raise FormatError(f"unknown mode {mode!r} (choose duel or solo)")
    if format not in FORMATS:
        raise FormatError(f"unknown format {format!r} (choose precon, draft or custom)")
    if mode == "solo" and format == "custom":
        raise FormatError("the custom format is not played in solo (R2.2)")
    solo = mode == "solo"
    ruleset = ruleset or Ruleset()
    game = Game(solo=solo, ruleset=ruleset, threat=threat if solo else None, record_events=record_events)
    game._rng = seed_rng(seed)
    game._stage = SETUP
    game.meta.update({"mode": mode, "format": format, "seed": seed})
    # Seat of the rulebook's player A.  The coin toss (R2.3a) happens first; its winner is player A
    # and starts, unless the last draft pick decides (R2.6a): then B (who gets the last card) starts.
    a_seat = 0
    if not solo:
        toss = game._below(2)
        b_starts = ruleset.first_player == "last_draft_pick" and format == "draft"
        a_seat = 1 if b_starts else 0
        # Participant `toss` is player A, so the participant in seat 0 is:
        game.meta["first_participant"] = toss if a_seat == 0 else 1 - toss
    b_seat = 1 - a_seat
    steps: list[Step]
    pool: tuple[int, ...] = ()
    if format == "precon":
        steps = [("deck", 0)] if solo else [("deck", a_seat), ("deck", b_seat)]
    elif format == "custom":
        steps = [("build", a_seat), ("build", b_seat), ("ban", b_seat), ("ban", a_seat), ("ban", a_seat)]
        steps.append(("ban", b_seat))
    else:
        cards = list(range(N_CARDS))
        game._shuffle(cards)
        pool = tuple(cards)
        steps = []
        if solo:
            for _ in range(8):  # R7.1: keep 1 of 4, the automaton gets 3
                steps += [("reveal", 0), ("pick", 0), ("last", 1)]
        else:
            for r in range(4):  # R2.4: A-B-B-A, then B-A-A-B, twice
                first = a_seat if r % 2 == 0 else b_seat
                second = 1 - first
                steps += [
                    ("reveal", first),
                    ("pick", first),
                    ("pick", second),
                    ("pick", second),
                    ("last", first),
                ]
    game._setup = SetupState(format, tuple(steps), pool=pool)
    _advance(game)
    return game


def start_game(
    *,
    mode: str,
    format: str,
    seed: int,
    ruleset: Ruleset | None = None,
    threat: Threat | None = None,
    record_events: bool = True,
) -> Game:
    """:func:`new_game`, or for ``format="random"`` the benchmark deal :meth:`Game.random_duel`
    (duel only): how records and simulations start a game from its format and seed."""
    if format == "random":
        if mode != "duel":
            raise FormatError("the random deal is a duel format")
        return Game.random_duel(seed, ruleset=ruleset, record_events=record_events)
    return new_game(
        mode=mode, format=format, seed=seed, ruleset=ruleset, threat=threat, record_events=record_events
    )


def _state(game: Game) -> SetupState:
    st = game._setup
    assert isinstance(st, SetupState)
    return st


def _advance(game: Game) -> None:
    """Run automatic steps until a decision or the end of the setup."""
    st = _state(game)
    rec = game._record
    while st.steps and st.steps[0][0] in ("reveal", "last"):
        verb, seat = st.steps[0]
        if verb == "reveal":
            st = replace(st, steps=st.steps[1:], revealed=st.pool[:4], pool=st.pool[4:])
            if rec:
                ids = tuple(CARD_IDS[c] for c in st.revealed)
                game._emit(
                    EventKind.SETUP, "R2.4", detail="revealed " + " ".join(ids), role="revealed", cards=ids
                )
        else:
            cards = list(st.cards)
            cards[seat] = cards[seat] + st.revealed
            if rec:
                who = "the automaton" if game._solo and seat == 1 else f"P{seat}"
                game._emit(
                    EventKind.SETUP,
                    "R7.1" if game._solo else "R2.4",
                    player=seat,
                    detail=f"{who} gets " + " ".join(CARD_IDS[c] for c in st.revealed),
                    role="gets",
                    cards=tuple(CARD_IDS[c] for c in st.revealed),
                )
            st = replace(st, steps=st.steps[1:], revealed=(), cards=(cards[0], cards[1]))
    game._setup = st
    if not st.steps:
        _deal(game, st)


def _deal(game: Game, st: SetupState) -> None:
    """R2.6 / R7.1: shuffle, Bastion leftmost (automaton: deck with its fortress at the bottom); start."""
    rec = game._record
    if st.kind == "precon" and game._solo:
        mine = set(st.cards[0])
        st = replace(st, cards=(st.cards[0], tuple(c for c in range(N_CARDS) if c not in mine)))
    for seat in (0, 1):
        cards = list(st.cards[seat])
        game._shuffle(cards)
        if game._solo and seat == 1:
            fort = game._threat.resilience == "fort"
            game._deck = [*cards, FORT if fort else BASTION]
            game._fort[1] = fort
        else:
            game._hands[seat] = [BASTION, *cards]
    game._setup = None
    if rec:
        game._emit(EventKind.SETUP, "R2.6", detail="hands shuffled, Bastion leftmost", role="dealt")
    game._turn = 1
    if game._solo and game._threat.starts == "automaton":
        game._active = 1  # R7.1a: the automaton uses its own mana; the player's first turn is normal
        game._start_turn()
        return
    game._active = 0
    game._stage = SUMMON
    game._mana = 6  # R2.6: the starting player's very first turn
    if rec:
        game._emit(EventKind.TURN_STARTED, "R2.6", player=0, amount=1, detail="6 mana (first turn)", value=6)


# ---------------------------------------------------------------------------- hooks used by Game


def setup_current_player(game: Game) -> int:
    return _state(game).steps[0][1]


def setup_legal_actions(game: Game) -> range | list[int]:
    st = _state(game)
    verb, seat = st.steps[0]
    if verb == "deck":
        return [A.DECK_BASE + n for n in (1, 2, 3, 4) if n not in st.decks]
    if verb == "pick":
        return sorted(A.PICK_BASE + c for c in st.revealed)
    if verb == "ban":
        # A ban removes a card of the opponent's deck (R2.5).
        return sorted(A.BAN_BASE + c for c in st.cards[1 - seat])
    return range(A.BUILD_BASE, A.BUILD_BASE + A.BUILD_COUNT)  # every 10-card set (R2.5)


def setup_explain(game: Game, action: int) -> str:
    st = _state(game)
    verb, seat = st.steps[0]
    text = A.format_action(action)
    if verb == "deck":
        if A.DECK_BASE < action <= A.DECK_BASE + 4:
            return f"deck {action - A.DECK_BASE} is already taken (R2.3: one Starter Kit)"
        return f"player {seat} must choose a preconstructed deck now ('deck N'), not {text!r}"
    if verb == "pick":
        if A.PICK_BASE <= action < A.BAN_BASE:
            face_up = " ".join(CARD_IDS[c] for c in st.revealed)
            return f"{CARD_IDS[action - A.PICK_BASE]} is not among the revealed cards ({face_up}) (R2.4)"
        return f"player {seat} must pick a revealed card now ('pick CARD'), not {text!r}"
    if verb == "ban":
        if A.BAN_BASE <= action < A.BUILD_BASE:
            return f"{CARD_IDS[action - A.BAN_BASE]} is not in player {1 - seat}'s deck (R2.5)"
        return f"player {seat} must remove a card of the opponent's deck now ('ban CARD'), not {text!r}"
    return f"player {seat} must build a 10-card deck now ('build CARD×10'), not {text!r}"


def setup_apply(game: Game, action: int) -> None:
    st = _state(game)
    verb, seat = st.steps[0]
    rec = game._record
    cards = list(st.cards)
    rest = st.steps[1:]
    if verb == "deck":
        n = action - A.DECK_BASE
        cards[seat] = PRECONSTRUCTED_DECKS[n]
        st = replace(st, steps=rest, cards=(cards[0], cards[1]), decks=(*st.decks, n))
        if rec:
            game._emit(
                EventKind.SETUP, "R2.3", player=seat, detail=f"chooses deck {n}", role="deck", amount=n
            )
    elif verb == "pick":
        c = action - A.PICK_BASE
        cards[seat] = (*cards[seat], c)
        st = replace(
            st, steps=rest, cards=(cards[0], cards[1]), revealed=tuple(x for x in st.revealed if x != c)
        )
        if rec:
            game._emit(
                EventKind.SETUP,
                "R2.4",
                player=seat,
                card=CARD_IDS[c],
                detail=f"picks {CARD_IDS[c]}",
                role="picks",
            )
    elif verb == "build":
        deck = A.build_unrank(action - A.BUILD_BASE)
        cards[seat] = deck
        built = (True, st.built[1]) if seat == 0 else (st.built[0], True)
        st = replace(st, steps=rest, cards=(cards[0], cards[1]), built=built)
        if rec:
            game._emit(EventKind.SETUP, "R2.5", player=seat, detail="builds a 10-card deck", role="builds")
            if all(built):
                for s in (0, 1):
                    game._emit(
                        EventKind.SETUP,
                        "R2.5",
                        player=s,
                        detail="reveals " + " ".join(CARD_IDS[c] for c in cards[s]),
                        role="reveals",
                        cards=tuple(CARD_IDS[c] for c in cards[s]),
                    )
    else:  # ban
        c = action - A.BAN_BASE
        owner = 1 - seat
        cards[owner] = tuple(x for x in cards[owner] if x != c)
        st = replace(st, steps=rest, cards=(cards[0], cards[1]))
        if rec:
            game._emit(
                EventKind.SETUP,
                "R2.5",
                player=seat,
                card=CARD_IDS[c],
                detail=f"removes {CARD_IDS[c]}",
                role="removes",
            )
    game._setup = st
    _advance(game)


def setup_summary(game: Game) -> dict[str, object]:
    """What the setup stage shows (for front ends): the current step, face-up cards, cards so far.

    Custom decks are shown only once both are built (R2.5: A reveals after building).
    """
    st = _state(game)
    verb, seat = st.steps[0]
    show_builds = st.kind != "custom" or all(st.built)
    return {
        "format": st.kind,
        "decision": verb,
        "player": seat,
        "revealed": [CARD_IDS[c] for c in st.revealed],
        "cards": [
            [CARD_IDS[c] for c in cs] if show_builds or s == seat else ["?"] * len(cs)
            for s, cs in enumerate(st.cards)
        ],
        "decks_taken": list(st.decks),
        "face_down": len(st.pool),
    }
