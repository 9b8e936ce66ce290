"""Actions: one integer per decision, and the text notation of ``engine.md``.

Integer layout (fixed; ``ACTION_SPACE`` ints cover every decision except custom deck building):

============  ===========================================  =====================================
range         action                                       encoding
============  ===========================================  =====================================
0             ``end``
1             ``next``
2-65          ``play CARD LANE``                            ``2 + card*2 + lane``
66-705        ``cast CARD P.LANE.N``                        ``66 + ((slot*2 + P)*2 + LANE)*32 + N``
706-711       ``order CARD...``                             ``706 + k``: k-th permutation of the
                                                             pending cards (hit order), as
                                                             :func:`itertools.permutations` lists
712-715       ``deck N``                                    ``711 + N``
716-747       ``pick CARD``                                 ``716 + card``
748-779       ``ban CARD``                                  ``748 + card``
780+          ``build CARD x10``                            ``780 + rank`` of the sorted 10-card
                                                             set in the combinatorial number system
CHANCE_BASE+  ``chance coin N`` / ``chance CARD``           outcomes of chance nodes, only in games
                                                             with external chance: ``+ N`` (coin),
                                                             ``+ 2 + card`` (a card drawn)
============  ===========================================  =====================================

``card`` is the index in :data:`clashofdecks.cards.CARD_IDS`, ``slot`` the incantation's index in
:data:`clashofdecks.cards.INCANTATIONS`, lanes are 0 = top and 1 = bottom (the shared lanes).
"""

from __future__ import annotations

import re
from itertools import permutations
from math import comb
from typing import Final

from .cards import CARD_IDS, CARD_INDEX, INCANTATIONS, IS_INCANTATION, N_CARDS
from .errors import ActionSyntaxError

END: Final = 0
NEXT: Final = 1
PLAY_BASE: Final = 2
CAST_BASE: Final = PLAY_BASE + N_CARDS * 2
MAX_POSITION: Final = 32  # lane positions an integer can name (a player has at most 7 creatures)
CAST_COUNT: Final = len(INCANTATIONS) * 2 * 2 * MAX_POSITION
ORDER_BASE: Final = CAST_BASE + CAST_COUNT
MAX_ORDER: Final = 3  # target + Splash victim + Perforation victim
ORDER_COUNT: Final = 6
DECK_BASE: Final = ORDER_BASE + ORDER_COUNT - 1  # deck N is DECK_BASE + N, N in 1..4
PICK_BASE: Final = DECK_BASE + 5
BAN_BASE: Final = PICK_BASE + N_CARDS
BUILD_BASE: Final = BAN_BASE + N_CARDS
#: Size of the fixed action space (legal-action masks have this length).
ACTION_SPACE: Final = BUILD_BASE
DECK_SIZE_CUSTOM: Final = 10
BUILD_COUNT: Final = comb(N_CARDS, DECK_SIZE_CUSTOM)
#: Chance outcomes (games created with ``external_chance``): the coin toss, then one card per draw.
CHANCE_BASE: Final = BUILD_BASE + BUILD_COUNT
CHANCE_COIN: Final = CHANCE_BASE
CHANCE_CARD: Final = CHANCE_BASE + 2
CHANCE_END: Final = CHANCE_CARD + N_CARDS

INC_SLOT: Final[dict[int, int]] = {c: i for i, c in enumerate(INCANTATIONS)}
#: The two shared lanes by index (0 = top, 1 = bottom): the one definition of their names.
LANES: Final = ("top", "bottom")
LANE_INDEX: Final = {"top": 0, "bottom": 1}


def play_action(card: int, lane: int) -> int:
    """The integer of ``play CARD LANE`` (card index, lane 0 top / 1 bottom).

    >>> from clashofdecks.cards import card_index
    >>> format_action(play_action(card_index("OGRE"), 1))
    'play OGRE bottom'
    """
    return PLAY_BASE + card * 2 + lane


def cast_action(card: int, player: int, lane: int, position: int) -> int:
    """The integer of ``cast CARD P.LANE.N`` for an incantation card index."""
    return CAST_BASE + ((INC_SLOT[card] * 2 + player) * 2 + lane) * MAX_POSITION + position


def build_rank(cards: list[int] | tuple[int, ...]) -> int:
    """Rank of a 10-card set (combinatorial number system)."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cards)))


def build_unrank(rank: int) -> tuple[int, ...]:
    """The sorted 10-card set of ``rank``."""
    out: list[int] = []
    for k in range(DECK_SIZE_CUSTOM, 0, -1):
        c = k - 1
        while comb(c + 1, k) <= rank:
            c += 1
        out.append(c)
        rank -= comb(c, k)
    return tuple(sorted(out))


def order_permutations(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every return order of ``cards`` (R3.9), in the order ``order`` actions number them.

    >>> order_permutations((3, 5))
    [(3, 5), (5, 3)]
    """
    return list(permutations(cards))


def _card(word: str, text: str) -> int:
    idx = CARD_INDEX.get(word.upper())
    if idx is None or idx >= N_CARDS:
        raise ActionSyntaxError(f"unknown card id {word!r} in {text!r}")
    return idx


_TARGET = re.compile(r"^([01])\.(top|bottom)\.(\d+)$")
ACTION_HELP: Final = (
    "actions: play CARD top|bottom · cast CARD P.LANE.N · next · end · order CARD CARD… · "
    "deck N · pick CARD · build CARD×10 · ban CARD"
)


def parse_action(text: str, pending: tuple[int, ...] | None = None) -> int:
    """Parse action text into its integer.

    ``pending`` is the set of cards awaiting a return order (needed to number ``order`` actions).
    Raises :class:`ActionSyntaxError` for text that names no action.
    """
    words = text.split()
    if not words:
        raise ActionSyntaxError(f"empty action; {ACTION_HELP}")
    verb = words[0].lower()
    args = words[1:]
    if verb in ("end", "next"):
        if args:
            raise ActionSyntaxError(f"{verb!r} takes no arguments: {text!r}")
        return END if verb == "end" else NEXT
    if verb == "play":
        if len(args) != 2 or args[1].lower() not in LANE_INDEX:
            raise ActionSyntaxError(f"expected 'play CARD top|bottom', got {text!r}")
        c = _card(args[0], text)
        if IS_INCANTATION[c]:
            raise ActionSyntaxError(f"{CARD_IDS[c]} is an incantation: use 'cast {CARD_IDS[c]} P.LANE.N'")
        return play_action(c, LANE_INDEX[args[1].lower()])
    if verb == "cast":
        if len(args) != 2:
            raise ActionSyntaxError(f"expected 'cast CARD P.LANE.N' (e.g. cast BOOM 1.top.0), got {text!r}")
        c = _card(args[0], text)
        if not IS_INCANTATION[c]:
            raise ActionSyntaxError(f"{CARD_IDS[c]} is a creature: use 'play {CARD_IDS[c]} top|bottom'")
        m = _TARGET.match(args[1].lower())
        if m is None:
            raise ActionSyntaxError(f"bad target {args[1]!r}: expected P.LANE.N, e.g. 1.top.0")
        pos = int(m.group(3))
        if pos >= MAX_POSITION:
            raise ActionSyntaxError(f"target position {pos} is out of range (0-{MAX_POSITION - 1})")
        return cast_action(c, int(m.group(1)), LANE_INDEX[m.group(2)], pos)
    if verb == "order":
        cards = tuple(_card(w, text) for w in args)
        if pending is None:
            raise ActionSyntaxError("no return order is pending")
        perms = order_permutations(pending)
        if cards not in perms:
            want = " ".join(CARD_IDS[c] for c in pending)
            raise ActionSyntaxError(f"'order' must list exactly the destroyed cards {want}, in any order")
        return ORDER_BASE + perms.index(cards)
    if verb == "deck":
        if len(args) != 1 or args[0] not in ("1", "2", "3", "4"):
            raise ActionSyntaxError(f"expected 'deck N' with N in 1-4, got {text!r}")
        return DECK_BASE + int(args[0])
    if verb == "pick":
        if len(args) != 1:
            raise ActionSyntaxError(f"expected 'pick CARD', got {text!r}")
        return PICK_BASE + _card(args[0], text)
    if verb == "ban":
        if len(args) != 1:
            raise ActionSyntaxError(f"expected 'ban CARD', got {text!r}")
        return BAN_BASE + _card(args[0], text)
    if verb == "build":
        cards = tuple(_card(w, text) for w in args)
        if len(cards) != DECK_SIZE_CUSTOM or len(set(cards)) != DECK_SIZE_CUSTOM:
            raise ActionSyntaxError(f"'build' needs {DECK_SIZE_CUSTOM} different cards, got {len(cards)}")
        return BUILD_BASE + build_rank(cards)
    if verb == "chance":
        if len(args) == 2 and args[0] == "coin" and args[1] in ("0", "1"):
            return CHANCE_COIN + int(args[1])
        if len(args) != 1:
            raise ActionSyntaxError(f"expected 'chance coin 0|1' or 'chance CARD', got {text!r}")
        return CHANCE_CARD + _card(args[0], text)
    raise ActionSyntaxError(f"unknown action {verb!r}; {ACTION_HELP}")


def format_action(action: int, pending: tuple[int, ...] | None = None) -> str:
    """The text of an action integer.  Raises :class:`ActionSyntaxError` for an integer out of range."""
    if action == END:
        return "end"
    if action == NEXT:
        return "next"
    if PLAY_BASE <= action < CAST_BASE:
        c, lane = divmod(action - PLAY_BASE, 2)
        if IS_INCANTATION[c]:
            raise ActionSyntaxError(f"action {action} plays an incantation: no such action")
        return f"play {CARD_IDS[c]} {LANES[lane]}"
    if CAST_BASE <= action < ORDER_BASE:
        rest, pos = divmod(action - CAST_BASE, MAX_POSITION)
        rest, lane = divmod(rest, 2)
        slot, player = divmod(rest, 2)
        return f"cast {CARD_IDS[INCANTATIONS[slot]]} {player}.{LANES[lane]}.{pos}"
    if ORDER_BASE <= action < ORDER_BASE + ORDER_COUNT:
        if pending is None:
            raise ActionSyntaxError("an order action needs the pending cards to be written")
        perms = order_permutations(pending)
        k = action - ORDER_BASE
        if k >= len(perms):
            raise ActionSyntaxError(f"order action {action} is out of range for {len(pending)} cards")
        return "order " + " ".join(CARD_IDS[c] for c in perms[k])
    if DECK_BASE + 1 <= action <= DECK_BASE + 4:
        return f"deck {action - DECK_BASE}"
    if PICK_BASE <= action < BAN_BASE:
        return f"pick {CARD_IDS[action - PICK_BASE]}"
    if BAN_BASE <= action < BUILD_BASE:
        return f"ban {CARD_IDS[action - BAN_BASE]}"
    if BUILD_BASE <= action < BUILD_BASE + BUILD_COUNT:
        return "build " + " ".join(CARD_IDS[c] for c in build_unrank(action - BUILD_BASE))
    if CHANCE_COIN <= action < CHANCE_CARD:
        return f"chance coin {action - CHANCE_COIN}"
    if CHANCE_CARD <= action < CHANCE_END:
        return f"chance {CARD_IDS[action - CHANCE_CARD]}"
    raise ActionSyntaxError(f"action integer {action} is out of range")
