"""The setup stage (R2, R7.1) as a state machine of the rules layer: deck choice, draft, build, removals.

A :class:`SetupState` is immutable: each decision makes a new one, so undo is a reference swap.
The functions here are pure (no game object): :class:`~clashofdecks.rules.Game` asks them who decides
(:func:`current_player`), what is legal (:func:`legal_actions`), why an action is not
(:func:`explain`), and what a decision or an automatic step makes of the state
(:func:`decide`, :func:`advance`), passing an ``emit`` callback for the events.  Chance (the draft
pile, the coin toss) is drawn by the game before the plan is made (:func:`plan`).

A step is ``(verb, seat)``.  Decisions: ``deck`` (R2.3), ``pick`` (R2.4, R7.1), ``build`` and
``ban`` (R2.5).  Automatic steps: ``reveal`` (draft: 4 cards face up) and ``last`` (the rest of the
revealed cards go to ``seat``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from . import actions as A
from .cards import CARD_IDS, N_CARDS, PRECONSTRUCTED_DECKS
from .events import EventKind

FORMATS: Final = ("precon", "draft", "custom")
MODES: Final = ("duel", "solo")
VERBS: Final = ("deck", "pick", "build", "ban", "reveal", "last", "coin", "draw", "place")
DECISIONS: Final = ("deck", "pick", "build", "ban")
#: Steps whose outcome chance decides, as actions from outside (games with external chance).
CHANCE_STEPS: Final = ("coin", "draw", "place")
#: ``current_player`` while chance is to act (OpenSpiel's convention is a negative id too).
CHANCE_PLAYER: Final = -2

Step = tuple[str, int]
#: ``emit(kind, rule, **fields)``: how the setup reports what happened.
Emit = Callable[..., None]


@dataclass(frozen=True, slots=True)
class SetupState:
    """The setup stage in progress.

    ``kind`` is the format; ``steps`` what is left to do, first step next; ``pool`` the face-down
    draft pile (top first); ``revealed`` the face-up cards; ``cards`` each seat's cards so far;
    ``built`` which custom decks are built; ``decks`` the preconstructed deck numbers taken.
    """

    kind: str
    steps: tuple[Step, ...]
    pool: tuple[int, ...] = ()
    revealed: tuple[int, ...] = ()
    cards: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    built: tuple[bool, bool] = (False, False)
    decks: tuple[int, ...] = ()
    #: Chance comes from outside as actions (coin, draws, the deal's places): OpenSpiel-style games.
    external: bool = False
    #: With external chance, the deal in progress: each seat's hand places filled so far.
    placed: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def is_chance(self) -> bool:
        """Whether the next step is chance's (external chance only)."""
        return self.steps[0][0] in CHANCE_STEPS

    @property
    def decision(self) -> str:
        """The verb of the next decision (``deck``, ``pick``, ``build`` or ``ban``)."""
        return self.steps[0][0]


def plan(kind: str, solo: bool, a_seat: int, pool: Sequence[int] = (), external: bool = False) -> SetupState:
    """The steps of a format's setup: ``a_seat`` is the rulebook's player A (R2.3a, R2.6a);
    ``pool`` the shuffled draft pile (draft only).  With ``external`` chance the coin toss comes first
    as a chance step, each draft reveal is four draws of one card, and ``pool`` is the set of cards
    not yet drawn."""
    b_seat = 1 - a_seat
    steps: list[Step]
    if kind == "precon":
        steps = [("deck", 0)] if solo else [("deck", a_seat), ("deck", b_seat)]
    elif kind == "custom":
        steps = [("build", a_seat), ("build", b_seat), ("ban", b_seat), ("ban", a_seat), ("ban", a_seat)]
        steps.append(("ban", b_seat))
    else:
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
    if external:
        drawn: list[Step] = [("coin", 0)]
        for verb, seat in steps:
            drawn += [("draw", seat)] * 4 if verb == "reveal" else [(verb, seat)]
        steps = drawn
    return SetupState(
        kind, tuple(steps), pool=tuple(sorted(pool)) if external else tuple(pool), external=external
    )


def deal_steps(st: SetupState, cards: tuple[tuple[int, ...], tuple[int, ...]]) -> SetupState:
    """External chance: the deal (R2.6) as one draw per hand place, seat 0 then seat 1."""
    steps = tuple([("place", 0)] * len(cards[0]) + [("place", 1)] * len(cards[1]))
    return replace(st, steps=steps, cards=cards, placed=((), ()))


def _remaining(st: SetupState, seat: int) -> tuple[int, ...]:
    placed = st.placed[seat] if st.placed is not None else ()
    return tuple(sorted(c for c in st.cards[seat] if c not in placed))


def advance(st: SetupState, solo: bool, emit: Emit | None) -> SetupState:
    """Run automatic steps (reveals, the last card of a round) until a decision or the end."""
    while st.steps and st.steps[0][0] in ("reveal", "last"):
        verb, seat = st.steps[0]
        if verb == "reveal":
            st = replace(st, steps=st.steps[1:], revealed=st.pool[:4], pool=st.pool[4:])
            if emit is not None:
                ids = tuple(CARD_IDS[c] for c in st.revealed)
                emit(EventKind.SETUP, "R2.4", detail="revealed " + " ".join(ids), role="revealed", cards=ids)
        else:
            cards = list(st.cards)
            cards[seat] = cards[seat] + st.revealed
            if emit is not None:
                who = "the automaton" if solo and seat == 1 else f"P{seat}"
                ids = tuple(CARD_IDS[c] for c in st.revealed)
                emit(
                    EventKind.SETUP,
                    "R7.1" if solo else "R2.4",
                    player=seat,
                    detail=f"{who} gets " + " ".join(ids),
                    role="gets",
                    cards=ids,
                )
            st = replace(st, steps=st.steps[1:], revealed=(), cards=(cards[0], cards[1]))
    return st


def current_player(st: SetupState) -> int:
    """The seat whose decision the next setup step is (:data:`CHANCE_PLAYER` for chance's step)."""
    verb, seat = st.steps[0]
    return CHANCE_PLAYER if verb in CHANCE_STEPS else seat


def legal_actions(st: SetupState) -> range | tuple[int, ...]:
    """The legal setup decisions; the build stage is a ``range`` over every 10-card deck (R2.5)."""
    verb, seat = st.steps[0]
    if verb == "coin":
        return (A.CHANCE_COIN, A.CHANCE_COIN + 1)
    if verb == "draw":
        return tuple(A.CHANCE_CARD + c for c in st.pool)
    if verb == "place":
        return tuple(A.CHANCE_CARD + c for c in _remaining(st, seat))
    if verb == "deck":
        return tuple(A.DECK_BASE + n for n in (1, 2, 3, 4) if n not in st.decks)
    if verb == "pick":
        return tuple(sorted(A.PICK_BASE + c for c in st.revealed))
    if verb == "ban":
        # A ban removes a card of the opponent's deck (R2.5).
        return tuple(sorted(A.BAN_BASE + c for c in st.cards[1 - seat]))
    return range(A.BUILD_BASE, A.BUILD_BASE + A.BUILD_COUNT)


def explain(st: SetupState, action: int) -> str:
    """Why ``action`` is not a legal setup decision now."""
    verb, seat = st.steps[0]
    text = A.format_action(action)
    if verb in CHANCE_STEPS:
        what = {"coin": "the coin toss (R2.3a)", "draw": "a draft card (R2.4)", "place": "the deal (R2.6)"}[
            verb
        ]
        return f"chance decides {what} now ('chance ...' from the legal outcomes), not {text!r}"
    if verb == "deck":
        if A.DECK_BASE < action <= A.DECK_BASE + 4:
            return f"deck {action - A.DECK_BASE} is already taken (R2.3: one Starter Kit)"
        return f"player {seat} must choose a preconstructed deck now ('deck N'), not {text!r} (R2.3)"
    if verb == "pick":
        if A.PICK_BASE <= action < A.BAN_BASE:
            face_up = " ".join(CARD_IDS[c] for c in st.revealed)
            return f"{CARD_IDS[action - A.PICK_BASE]} is not among the revealed cards ({face_up}) (R2.4)"
        return f"player {seat} must pick a revealed card now ('pick CARD'), not {text!r} (R2.4)"
    if verb == "ban":
        if A.BAN_BASE <= action < A.BUILD_BASE:
            return f"{CARD_IDS[action - A.BAN_BASE]} is not in player {1 - seat}'s deck (R2.5)"
        return (
            f"player {seat} must remove a card of the opponent's deck now ('ban CARD'), not {text!r} (R2.5)"
        )
    return f"player {seat} must build a 10-card deck now ('build CARD×10'), not {text!r} (R2.5)"


def decide(st: SetupState, action: int, emit: Emit | None) -> SetupState:
    """The state after the legal decision ``action`` (automatic steps not yet run)."""
    verb, seat = st.steps[0]
    cards = list(st.cards)
    rest = st.steps[1:]
    if verb == "coin":
        return replace(st, steps=rest)  # the game records which participant won the toss
    if verb == "draw":
        c = action - A.CHANCE_CARD
        st = replace(st, steps=rest, pool=tuple(x for x in st.pool if x != c), revealed=(*st.revealed, c))
        if emit is not None and not (rest and rest[0][0] == "draw"):
            ids = tuple(CARD_IDS[x] for x in st.revealed)
            emit(EventKind.SETUP, "R2.4", detail="revealed " + " ".join(ids), role="revealed", cards=ids)
        return st
    if verb == "place":
        assert st.placed is not None
        c = action - A.CHANCE_CARD
        placed = list(st.placed)
        placed[seat] = (*placed[seat], c)
        return replace(st, steps=rest, placed=(placed[0], placed[1]))
    if verb == "deck":
        n = action - A.DECK_BASE
        cards[seat] = PRECONSTRUCTED_DECKS[n]
        st = replace(st, steps=rest, cards=(cards[0], cards[1]), decks=(*st.decks, n))
        if emit is not None:
            emit(EventKind.SETUP, "R2.3", player=seat, detail=f"chooses deck {n}", role="deck", amount=n)
    elif verb == "pick":
        c = action - A.PICK_BASE
        cards[seat] = (*cards[seat], c)
        revealed = tuple(x for x in st.revealed if x != c)
        st = replace(st, steps=rest, cards=(cards[0], cards[1]), revealed=revealed)
        if emit is not None:
            emit(
                EventKind.SETUP,
                "R2.4",
                player=seat,
                card=CARD_IDS[c],
                detail=f"picks {CARD_IDS[c]}",
                role="picks",
            )
    elif verb == "build":
        cards[seat] = A.build_unrank(action - A.BUILD_BASE)
        built = (True, st.built[1]) if seat == 0 else (st.built[0], True)
        st = replace(st, steps=rest, cards=(cards[0], cards[1]), built=built)
        if emit is not None:
            emit(EventKind.SETUP, "R2.5", player=seat, detail="builds a 10-card deck", role="builds")
            if all(built):
                for s in (0, 1):
                    ids = tuple(CARD_IDS[c] for c in cards[s])
                    emit(
                        EventKind.SETUP,
                        "R2.5",
                        player=s,
                        detail="reveals " + " ".join(ids),
                        role="reveals",
                        cards=ids,
                    )
    else:  # ban
        c = action - A.BAN_BASE
        owner = 1 - seat
        cards[owner] = tuple(x for x in cards[owner] if x != c)
        st = replace(st, steps=rest, cards=(cards[0], cards[1]))
        if emit is not None:
            emit(
                EventKind.SETUP,
                "R2.5",
                player=seat,
                card=CARD_IDS[c],
                detail=f"removes {CARD_IDS[c]}",
                role="removes",
            )
    return st


def final_cards(st: SetupState, solo: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each seat's cards when the setup is over (solo precon: the automaton gets every other card)."""
    if st.kind == "precon" and solo:
        mine = set(st.cards[0])
        return st.cards[0], tuple(c for c in range(N_CARDS) if c not in mine)
    return st.cards


def summary(st: SetupState) -> dict[str, object]:
    """What the setup stage shows (for front ends): the current step, face-up cards, cards so far.

    Custom decks are shown only once both are built (R2.5: A reveals after building).
    """
    verb, seat = st.steps[0]
    if verb in CHANCE_STEPS:
        seat = CHANCE_PLAYER
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
