"""Complete positions and views that never leak (issue 9).

(a) For random games of every format and mode (duel/solo × precon/draft/custom, solo levels and
    threat options, the benchmark's random deal, ruleset variants), dump → load at any point (the
    setup stage and pending decisions included) and playing on with the same choices gives the
    identical rest of the game: the same positions, views, legal actions and events.  Hypothesis
    draws every choice, so a failure shrinks to a short game.
(b) No card identity outside a seat's knowledge appears in that seat's view or at a hidden place of
    its determinizations.  The knowledge is tracked here from the rules and what happened (R2 setup
    events, R9.1 public zones, R9.2 returned cards), independently of the engine's views.
(c) R7.3 on a loaded solo position with the automaton to act at 0 mana; R7.7 and R7.8 still apply.
(d) Pending decisions loaded mid-Berserk chain, mid-incantation, mid-automaton summoning and after
    ``end`` of Combat continue exactly as the original game.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from clashofdecks import CARDS, Game, Ruleset, Threat, dump_position, load_position, view
from clashofdecks.actions import BUILD_BASE, build_rank
from clashofdecks.cards import PRECONSTRUCTED_DECKS
from clashofdecks.errors import InvalidPositionError
from clashofdecks.events import Event, EventKind
from clashofdecks.formats import start_game
from clashofdecks.options import THREAT_ABILITIES, THREAT_CHOICES, VARIANT_CHOICES
from clashofdecks.position import sample_determinization
from random_play import play_randomly

HIDDEN = "?"
FORTRESS = frozenset({"BASTION", "FORT"})
ALL_IDS = tuple(c.id for c in CARDS)
IDS = frozenset(ALL_IDS)
#: The preconstructed decks (R2.3) by number, from the card data (public knowledge).
DECKS: dict[int, frozenset[str]] = {
    n: frozenset(ALL_IDS[c] for c in d) for n, d in PRECONSTRUCTED_DECKS.items()
}
KINDS = (
    ("duel", "precon"),
    ("duel", "draft"),
    ("duel", "custom"),
    ("solo", "precon"),
    ("solo", "draft"),
    ("duel", "random"),
)
MAX_ACTIONS = 200  # random games end well before (setup included); a cap keeps a stalled game short


@dataclass(frozen=True)
class Config:
    mode: str
    format: str
    seed: int
    ruleset: Ruleset
    threat: Threat | None

    def start(self, *, record_events: bool = True) -> Game:
        return start_game(
            mode=self.mode,
            format=self.format,
            seed=self.seed,
            ruleset=self.ruleset,
            threat=self.threat,
            record_events=record_events,
        )


@st.composite
def threats(draw: st.DrawFn) -> Threat:
    """A solo level (R8.3) or any allocation of the threat options (R8.2)."""
    if draw(st.booleans()):
        return Threat.level(draw(st.integers(0, 5)))
    options = {name: draw(st.sampled_from(values)) for name, values in THREAT_CHOICES.items()}
    abilities = draw(st.lists(st.sampled_from(THREAT_ABILITIES), unique=True))
    return Threat(**options, abilities=tuple(abilities))


@st.composite
def configs(draw: st.DrawFn) -> Config:
    mode, fmt = draw(st.sampled_from(KINDS))
    variants = {}
    if draw(st.booleans()):
        variants = {name: draw(st.sampled_from(values)) for name, values in VARIANT_CHOICES.items()}
    ruleset = Ruleset(**variants, max_turns=draw(st.sampled_from([None, 3, 9, 30])))
    threat = draw(threats()) if mode == "solo" else None
    return Config(mode, fmt, draw(st.integers(0, 2**32 - 1)), ruleset, threat)


def drawn_action(data: st.DataObject, game: Game) -> int:
    """A legal action chosen by Hypothesis.  The custom build's legal actions are a range over
    every 10-card deck (R2.5): never listed, a random 10-card set is ranked instead."""
    legal = game.legal_actions()
    if isinstance(legal, range):
        cards = data.draw(st.lists(st.integers(0, len(ALL_IDS) - 1), min_size=10, max_size=10, unique=True))
        action = BUILD_BASE + build_rank(cards)
        assert game.is_legal(action)
        return action
    return legal[data.draw(st.integers(0, len(legal) - 1))]


def random_action(game: Game, rng: random.Random) -> int:
    legal = game.legal_actions()
    if isinstance(legal, range):
        return BUILD_BASE + build_rank(rng.sample(range(len(ALL_IDS)), 10))
    return rng.choice(legal)


def observed(game: Game) -> dict[str, Any]:
    """Everything a caller can see of a game: the position, the three views, the legal actions."""
    legal = game.legal_actions()
    return {
        "position": dump_position(game),
        "views": [view(game, 0), view(game, 1), view(game, None)],
        "legal": legal if isinstance(legal, range) else list(legal),
        "current": game.current_player,
        # The English reason is left out: see test_a_loaded_finished_game_keeps_its_outcome_reason.
        "outcome": None if game.outcome is None else (game.outcome.winner, game.outcome.termination),
    }


def reloaded(game: Game) -> Game:
    """The game rebuilt from its position, through JSON text."""
    position = dump_position(game)
    copy = load_position(json.dumps(position))
    assert dump_position(copy) == position
    return copy


# ----------------------------------------------------------------------------- (a) dump → load


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(config=configs(), data=st.data())
def test_dump_load_at_any_point_plays_on_identically(config: Config, data: st.DataObject) -> None:
    """The original game is never reloaded; its twin is rebuilt from its own dump at 1-3 drawn
    points (optionally the first pending decision after a point), and must stay identical."""
    game = config.start()
    points = sorted(data.draw(st.lists(st.integers(0, 45), min_size=1, max_size=3, unique=True)))
    at_pending = data.draw(st.booleans())
    twin: Game | None = None
    for step in range(MAX_ACTIONS):
        due = points and (step >= points[0] or game.is_over())
        if due and (not at_pending or game.pending is not None or game.is_over()):
            points.pop(0)
            event(
                f"{config.mode}-{config.format}: reloaded in " + ("pending" if game.pending else game.phase)
            )
            twin = reloaded(twin if twin is not None else game)
            assert observed(twin) == observed(game)
        if game.is_over():
            break
        action = drawn_action(data, game)
        events = game.apply(action)
        if twin is not None:
            assert twin.apply(action) == events
            assert observed(twin) == observed(game)
    assert twin is not None
    event("finished" if game.is_over() else "stopped at the action cap")


@pytest.mark.parametrize("max_turns", [None, 3])
def test_a_loaded_finished_game_keeps_its_outcome_reason(max_turns: int | None) -> None:
    """A finished position loads with the outcome play gave: winner, termination and reason."""
    game = Game.random_duel(503, ruleset=Ruleset(max_turns=max_turns), record_events=False)
    rng = random.Random(1)
    play_randomly(game, rng)
    assert reloaded(game).outcome == game.outcome


# ----------------------------------------------------------------------------- (b) no leaks


class Knowledge:
    """What each seat (0, 1; ``None`` a spectator) may know, tracked from the rules and what happened,
    not from the engine's views.

    Identities, per viewer and owner: face-up draft cards (R2.4), picks and the cards a seat gets,
    a chosen preconstructed deck (R2.3, the card data), one's own custom build and both builds once
    revealed (R2.5), in solo precon the automaton's cards (every other card, R7.1), one's own hand at
    the deal, and anything in a lane, cast, revealed, returned or discarded (R9.1).  Under the
    random deal nobody knows the other's cards but by seeing them.  Places: an opponent's hand
    place is known for the fortress card (R9.1) and for cards that entered the hand after the deal
    (R9.2: they return rightmost, a public place); the place travels with the card.
    """

    def __init__(self, game: Game, fmt: str) -> None:
        self.solo = game.is_solo
        self.format = fmt
        self.random_deal = fmt == "random"
        self.ids: dict[int | None, dict[int, set[str]]] = {v: {0: set(), 1: set()} for v in (0, 1, None)}
        self.face_up: set[str] = set()
        self.public_places: dict[int, set[str]] = {0: set(), 1: set()}
        self.hands = [list(game.hand(0)), list(game.hand(1))]
        self.in_setup = game.phase == "setup"
        if not self.in_setup:  # the random deal: each seat knows its own hand
            for seat in (0, 1):
                self.ids[seat][seat] |= set(game.hand(seat))
        self.events(game.take_events(), game)

    def public(self, owner: int, cards: Iterator[str] | list[str] | tuple[str, ...]) -> None:
        for viewer in (0, 1, None):
            self.ids[viewer][owner] |= set(cards)

    def events(self, events: tuple[Event, ...], game: Game) -> None:
        for e in events:
            who = e.player if e.player is not None else 0
            if e.kind is EventKind.SETUP:
                if e.role == "revealed":
                    self.face_up |= set(e.cards or ())
                elif e.role == "picks" and e.card:
                    self.public(who, [e.card])
                elif e.role in ("gets", "reveals"):
                    self.public(who, e.cards or ())
                elif e.role == "deck" and e.amount is not None:
                    self.public(who, DECKS[e.amount])
                elif e.role == "dealt":
                    for seat in (0, 1):
                        if not (self.solo and seat == 1):
                            self.ids[seat][seat] |= set(game.hand(seat))
                    if self.solo and self.format == "precon":
                        self.public(1, IDS - self.ids[None][0])  # R7.1: the automaton gets the rest
            elif (
                e.kind in (EventKind.CAST, EventKind.REVEALED, EventKind.RETURNED, EventKind.DISCARDED)
                and e.card
            ):
                self.public(who, [e.card])

    def after(self, game: Game, actor: int, action: int, events: tuple[Event, ...]) -> None:
        """Update after ``actor`` applied ``action``, causing ``events``."""
        if action >= BUILD_BASE:  # a seat knows the deck it built itself (R2.5)
            self.ids[actor][actor] |= set(game.action_text(action).split()[1:])
        self.events(events, game)
        for p in (0, 1):  # lanes and the automaton's discard pile are public (R9.1)
            self.public(p, [cr["card"] for lane in ("top", "bottom") for cr in game.lane(p, lane)])
        if self.solo:
            self.public(1, game.automaton_discard)
        dealt = self.in_setup and game.phase != "setup"
        self.in_setup = game.phase == "setup"
        for p in (0, 1):
            hand = list(game.hand(p))
            if dealt:
                self.public_places[p] = set()
            else:
                self.public_places[p] &= set(hand)  # played cards left; the rest keep their places
                self.public_places[p] |= set(hand) - set(self.hands[p])  # returned: rightmost (R9.2)
                # A resolved incantation returns rightmost (R5.4) within the action that cast it.
                self.public_places[p] |= {
                    e.card for e in events if e.kind is EventKind.RETURNED and e.player == p and e.card
                }
            self.hands[p] = hand

    def allowed(self, viewer: int | None, owner: int | str) -> set[str]:
        if owner == "face_up":
            return self.face_up | FORTRESS
        if owner == "pile":
            return set()  # the face-down draft pile: nobody knows it (R2.4)
        assert isinstance(owner, int)
        return self.ids[viewer][owner] | FORTRESS

    def expected_hand(self, game: Game, owner: int, viewer: int | None) -> list[str]:
        hand = game.hand(owner)
        if owner == viewer:
            return hand
        return [c if c in FORTRESS or c in self.public_places[owner] else HIDDEN for c in hand]


def card_ids_in(v: dict[str, Any]) -> Iterator[tuple[int | str, str, str]]:
    """(owner, card id, where) of every card id of a view: owner is a player, ``"face_up"`` or
    ``"pile"``.  A card id anywhere else is a failure (an unexpected place)."""

    def walk(node: Any, owner: int | str | None, where: str) -> Iterator[tuple[int | str, str, str]]:
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, owner, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, owner, f"{where}[{i}]")
        elif isinstance(node, str) and (node in IDS or node in FORTRESS):
            assert owner is not None, f"card id {node} at an unexpected place {where}"
            yield owner, node, where

    for key, value in v.items():
        if key == "players":
            for p, player in enumerate(value):
                yield from walk(player, p, f"players[{p}]")
        elif key == "pending":
            for part in ("resolving", "attacker"):
                if part in value:
                    yield from walk(value[part], value[part]["player"], f"pending.{part}")
            yield from walk(value["cards"], value["player"], "pending.cards")
        elif key == "setup":
            yield from walk(value["pool"], "pile", "setup.pool")
            yield from walk(value["revealed"], "face_up", "setup.revealed")
            for seat in (0, 1):
                yield from walk(value["cards"][seat], seat, f"setup.cards[{seat}]")
        else:
            yield from walk(value, None, key)


def check_view(game: Game, know: Knowledge, viewer: int | None) -> dict[str, Any]:
    v = view(game, viewer)
    assert "chance" not in v
    for owner, card, where in card_ids_in(v):
        assert card in know.allowed(viewer, owner), f"{card} at {where} is not known to {viewer}"
    for p in (0, 1):
        entry = v["players"][p]
        if know.solo and p == 1:
            if viewer != 1 and entry["deck"]:
                assert set(entry["deck"][:-1]) <= {HIDDEN} and entry["deck"][-1] in FORTRESS
        else:
            assert entry["hand"] == know.expected_hand(game, p, viewer)
            if know.random_deal and p != viewer:
                assert "hidden_cards" not in entry
    if "setup" in v:
        assert set(v["setup"]["pool"]) <= {HIDDEN}
    return v


def check_sample(game: Game, know: Knowledge, seat: int, v: dict[str, Any], rng: random.Random) -> None:
    """The determinization agrees with the view, and what it puts at hidden places does not
    contradict it: no card the view shows elsewhere, the listed hidden cards where identities are
    public, cards the seat has not seen under the random deal, a shuffled draft pile of the rest."""
    sample = sample_determinization(game, seat, rng)
    assert view(sample, seat) == v
    shown: dict[int | str, Counter[str]] = {
        0: Counter(),
        1: Counter(),
        "face_up": Counter(),
        "pile": Counter(),
    }
    for owner, card, where in card_ids_in(v):
        if ".hidden_cards" not in where and card not in FORTRESS:
            shown[owner][card] += 1
    opp = 1 - seat
    entry = v["players"][opp]
    if know.solo:
        deck = dump_position(sample)["players"][1]["deck"]
        assert Counter(deck[:-1]) == Counter(entry.get("hidden_cards", []))
    elif "hand" in entry:
        placed = [c for c, s in zip(sample.hand(opp), entry["hand"], strict=True) if s == HIDDEN]
        assert not FORTRESS & set(placed)
        assert len(set(placed)) == len(placed)
        assert not set(placed) & set(shown[opp]), (placed, shown[opp])
        if know.random_deal:
            everything_shown = set(shown[0]) | set(shown[1])
            if game.pending is not None:
                pending = v["pending"]
                everything_shown |= set(pending["cards"])
                if "resolving" in pending:
                    everything_shown.add(pending["resolving"]["card"])
            assert not set(placed) & set(everything_shown)
            assert not set(placed) & know.ids[seat][seat]
        else:
            assert Counter(placed) == Counter(entry.get("hidden_cards", []))
    if "setup" in v:
        setup = dump_position(sample)["setup"]
        if setup["pool"]:  # the draft: the face-down pile holds every card not face up or taken
            rest = (
                Counter(ALL_IDS) - Counter(setup["revealed"]) - Counter(setup["cards"][0] + setup["cards"][1])
            )
            assert Counter(setup["pool"]) == rest
        for s in (0, 1):
            assert len(set(setup["cards"][s])) == len(setup["cards"][s])


@pytest.mark.parametrize(("mode", "fmt"), KINDS, ids=[f"{m}-{f}" for m, f in KINDS])
def test_no_card_identity_outside_a_seats_knowledge_reaches_its_view(mode: str, fmt: str) -> None:
    """Every step of random games: the views of both seats and of a spectator show only what the
    seat may know, and hand places exactly as the rules make them public; every third step a
    determinization for each seat puts nothing at a hidden place that contradicts the view."""
    checked = returned = 0
    for seed in range(8):
        rng = random.Random(seed)
        threat = Threat.level(seed % 6) if mode == "solo" else None
        game = Config(mode, fmt, seed, Ruleset(), threat).start()
        know = Knowledge(game, fmt)
        seats = (0,) if game.is_solo else (0, 1)
        for step in range(MAX_ACTIONS):
            views = {viewer: check_view(game, know, viewer) for viewer in (*seats, None)}
            if step % 3 == 0:
                for seat in seats:
                    check_sample(game, know, seat, views[seat], random.Random(checked))
                    checked += 1
            returned += any(know.public_places[p] for p in (0, 1))
            if game.is_over():
                break
            actor = game.current_player
            action = random_action(game, rng)
            know.after(game, actor, action, game.apply(action))
    assert checked > 50
    assert returned > 0  # the sample reached public hand places (R9.2)


def test_face_down_draft_pile_and_unrevealed_custom_deck_are_never_visible() -> None:
    """R2.4, R2.5 in the setup stage: the pile is "?" for everyone and a sample reshuffles it; a custom
    deck built but not yet revealed is visible to its builder only."""
    game = start_game(mode="duel", format="draft", seed=4)
    pool = dump_position(game)["setup"]["pool"]
    for viewer in (0, 1, None):
        assert view(game, viewer)["setup"]["pool"] == [HIDDEN] * len(pool)
    piles = {
        tuple(dump_position(sample_determinization(game, 0, random.Random(s)))["setup"]["pool"])
        for s in range(5)
    }
    assert len(piles) == 5 and all(sorted(p) == sorted(pool) for p in piles)
    custom = start_game(mode="duel", format="custom", seed=4)
    builder = custom.current_player
    custom.apply_text("build ZOMBIE GNOME TROLL OGRE BRUTE BARON BOOM ALPHA MARTYR VORTEX")
    built = dump_position(custom)["setup"]["cards"][builder]
    assert view(custom, builder)["setup"]["cards"][builder] == built
    for viewer in (1 - builder, None):
        assert view(custom, viewer)["setup"]["cards"][builder] == [HIDDEN] * 10
    sample = sample_determinization(custom, 1 - builder, random.Random(1))
    assert view(sample, 1 - builder) == view(custom, 1 - builder)
    assert dump_position(sample)["setup"]["cards"][builder] != built


# ----------------------------------------------------------------------------- (c) R7.3, R7.7, R7.8


def automaton_to_act(deck: list[str], *, mana: int = 0, discard: list[str] | None = None) -> dict[str, Any]:
    """A solo position at the start of the automaton's Summoning (its turn resolves on loading)."""
    return {
        "mode": "solo",
        "turn": 4,
        "active": 1,
        "phase": "summon",
        "mana": mana,
        "players": [
            {"hand": ["BASTION", "ZOMBIE", "MACHINE", "REPTILE", "ASSASSIN"], "lanes": {"top": ["GNOME"]}},
            {"automaton": True, "deck": deck, "discard": discard or [], "lanes": {}},
        ],
    }


def test_automaton_at_zero_mana_still_reveals_its_first_card() -> None:
    """R7.3: the automaton reveals its top card whatever its mana, then stops as the cost spent
    (≥ 0) is not below 0; its turn ends and the player's begins."""
    game = load_position(automaton_to_act(["OGRE", "TROLL", "BRUTE", "BASTION"]))
    pos = dump_position(game)
    assert [cr["card"] for cr in game.lane(1, "top")] == ["OGRE"]
    assert pos["players"][1]["deck"] == ["TROLL", "BRUTE", "BASTION"]
    assert (pos["active"], pos["turn"], pos["phase"]) == (0, 5, "summon")
    # An incantation revealed first is cast at the player's creature nearest the bridge (R7.4a).
    game = load_position(automaton_to_act(["METEORITE", "TROLL", "BRUTE", "BASTION"]))
    pos = dump_position(game)
    assert pos["players"][1]["deck"] == ["TROLL", "BRUTE", "BASTION"]
    assert "METEORITE" in pos["players"][1]["discard"] and game.lane(0, "top") == []


def test_automaton_first_reveal_that_empties_the_deck_above_its_bastion_flips_it() -> None:
    """R7.7, R7.8a: revealing the last card above the Bastion flips it to Fort at once and the
    shuffled discard pile becomes the deck; the turn is not the last one (it began with a card)."""
    game = load_position(automaton_to_act(["OGRE", "BASTION"], discard=["TROLL", "BRUTE", "ALPHA"]))
    pos = dump_position(game)
    deck = pos["players"][1]["deck"]
    assert deck[-1] == "FORT" and sorted(deck[:-1]) == ["ALPHA", "BRUTE", "TROLL"]
    assert [cr["card"] for cr in game.lane(1, "top")] == ["OGRE"] and not game.is_over()


def test_automaton_deck_of_one_card_above_its_fort() -> None:
    """R7.8/R7.8a: one card above the Fort: the turn is not the last, the card is revealed (R7.3);
    the next automaton turn begins with the deck empty above the Fort: its last turn, no reveal,
    its creatures attack, and the player who survives it wins."""
    game = load_position(automaton_to_act(["OGRE", "FORT"]))
    assert [cr["card"] for cr in game.lane(1, "top")] == ["OGRE"] and not game.is_over()
    assert dump_position(game)["players"][1]["deck"] == ["FORT"]
    events: list[Event] = []
    while not game.is_over():
        events += game.apply_text("end")
    assert not [e for e in events if e.kind is EventKind.REVEALED]
    assert [e.role for e in events if e.kind is EventKind.TURN_STARTED and e.player == 1] == ["last_turn"]
    assert game.winner == 0 and game.outcome is not None
    assert game.outcome.termination.value == "survived_last_turn"


def test_automaton_last_turn_loaded_directly() -> None:
    """The deck is only its Fort when its turn begins: the last turn (R7.8a), inferred on loading
    or given as ``last_turn``; no card is revealed, the player survives and wins."""
    for extra in ({}, {"last_turn": True}):
        pos = automaton_to_act(["FORT"], mana=6, discard=["OGRE"])
        pos["players"][1].update(extra, lanes={"bottom": ["TROLL"]})
        game = load_position(pos)
        assert game.is_over() and game.winner == 0
        assert dump_position(game)["players"][1]["discard"] == ["OGRE"]
        assert game.hand(0).index("BASTION") > 0  # Troll attacked the player (R4.1)


# ----------------------------------------------------------------------------- (d) pending decisions


def games_with_pending_decisions(sources: list[tuple[str, str, int]]) -> Iterator[tuple[str, Game, int]]:
    """Random games (solo ones against an aggressive threat), paused at every pending decision:
    (label, game, seed for the rest of the play)."""
    threat = Threat(abilities=("splash", "perforation", "berserk"), base_mana=8)
    for mode, fmt, seed in sources:
        rng = random.Random(seed)
        game = Config(mode, fmt, seed, Ruleset(), threat if mode == "solo" else None).start()
        while not game.is_over():
            if game.pending is not None:
                yield f"{mode}-{fmt}", game, seed * 1000 + len(game.history)
            game.apply(random_action(game, rng))


MIXED = [(("solo", "draft"), ("duel", "random"), ("duel", "draft"))[s % 3] + (s,) for s in range(60)]
# (what the decision interrupted: pending keys present, keys absent, where to look)
PENDING_CASES = {
    "incantation": ({"resolving"}, {"automaton"}, MIXED),
    "automaton summoning": ({"automaton", "resolving"}, set(), MIXED),
    "Berserk chain after end": ({"attacker", "ending"}, set(), MIXED),
    "Berserk chain mid-Combat": ({"attacker"}, {"ending"}, [("duel", "random", 87), ("duel", "random", 106)]),
    "end of Combat": ({"ending"}, {"attacker"}, MIXED),
}


@pytest.mark.parametrize("case", PENDING_CASES)
def test_pending_decision_loaded_mid_resolution_continues_exactly(case: str) -> None:
    """R3.9 with what it interrupted: ``resolving`` (an incantation, R5.4a), ``attacker`` (a Berserk
    chain, R6.8), ``automaton`` (its summoning, R7.3), ``ending`` (the rest of Combat).  For such
    positions found in random play, every return order is tried on the original and on the loaded
    position, then both play on with the same random choices: identical positions, views, legal
    actions and events to the end."""
    present, absent, sources = PENDING_CASES[case]
    found: list[str] = []
    for label, game, seed in games_with_pending_decisions(sources):
        pending = dump_position(game)["pending"]
        if not present <= pending.keys() or absent & pending.keys():
            continue
        found.append(label)
        assert pending["player"] == game.current_player
        for order in game.legal_actions():
            original = game.clone()
            twin = reloaded(game)
            assert observed(twin) == observed(original)
            rng = random.Random(seed)
            action = order
            while True:
                assert twin.apply(action) == original.apply(action)
                assert observed(twin) == observed(original)
                if original.is_over():
                    break
                action = random_action(original, rng)
        if len(found) == 3:
            break
    assert found, f"no pending decision of the kind {case!r} in the sample"


@pytest.mark.parametrize("seed", [710, 1200])
def test_a_casters_fortress_may_be_rightmost_while_the_incantation_resolves(seed: int) -> None:
    """R3.4c, R5.4a: the incantation is in no hand while it resolves and the fortress is checked once it
    is back, so a return order (R3.9) asked during a cast can find the caster's fortress rightmost.
    Such a position dumps, loads and plays on identically (Hypothesis found the loader refusing it)."""
    ruleset = Ruleset(
        lanes="shared", first_player="random", incantation_timing="summon_and_combat", protection="targeted"
    )
    rng = random.Random(seed)
    game = Game.new(mode="duel", format="precon", seed=seed, ruleset=ruleset)
    while not game.is_over():
        position = dump_position(game)
        pending = position.get("pending")
        if pending is not None and "resolving" in pending:
            caster = pending["resolving"]["player"]
            if position["players"][caster]["hand"][-1] in ("BASTION", "FORT"):
                break
        game.apply(rng.choice(list(game.legal_actions())))
    else:
        pytest.fail("the game never reached the position the test is about")
    twin = reloaded(game)
    assert observed(twin) == observed(game)
    while not game.is_over():
        action = rng.choice(list(game.legal_actions()))
        assert twin.apply(action) == game.apply(action)
        assert observed(twin) == observed(game)
    # Any other player's fortress rightmost in a game that goes on is still refused.
    broken = json.loads(json.dumps(position))
    hand = broken["players"][1 - caster]["hand"]
    fortress = next(c for c in hand if c in ("BASTION", "FORT"))
    hand.remove(fortress)
    hand.append(fortress)
    with pytest.raises(InvalidPositionError, match="cannot be rightmost"):
        load_position(json.dumps(broken))
