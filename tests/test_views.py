"""Hidden information (R9): per-player views and determinization.

A view is the position with every card the viewer cannot know shown as ``"?"``: the opponent's
hand cards whose place is not public (R9.2) and, in solo, the automaton deck but its fortress card.
:func:`sample_determinization` gives a full game consistent with a view, for fair AIs and ISMCTS.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from clashofdecks import CARDS, Game, dump_position, load_position, sample_determinization, view
from clashofdecks.formats import new_game, setup_summary
from random_play import play_randomly

HIDDEN = "?"
FORTRESS = ("BASTION", "FORT")


def hand_view(game: Game, viewer: int, owner: int) -> list[str]:
    hand: list[str] = view(game, viewer)["players"][owner]["hand"]
    return hand


def duel(players: list[dict[str, Any]], *, phase: str = "summon", mana: int = 6, active: int = 0) -> Game:
    return load_position({"turn": 5, "active": active, "phase": phase, "mana": mana, "players": players})


def random_positions(games: list[Game], rng: random.Random, *, every: int = 1) -> Iterator[Game]:
    """Every ``every``-th position of each game, played at random to its end (pending decisions included)."""
    for game in games:
        n = 0
        while True:
            if n % every == 0:
                yield game
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))
            n += 1


# ----------------------------------------------------------------------------- duel views


def test_opponent_hand_is_hidden_but_the_fortress_card() -> None:
    """R9.2: the shuffled order of a hand is hidden; the fortress card's place is public (R9.1)."""
    game = Game.random_duel(7)
    for viewer in (0, 1):
        opp = 1 - viewer
        assert hand_view(game, viewer, opp) == ["BASTION"] + [HIDDEN] * 8
        assert hand_view(game, viewer, viewer) == game.hand(viewer)  # own hand fully visible


def drafted_duels(seeds: range, rng: random.Random) -> list[Game]:
    """Duels of the draft format with random picks, at turn 1 (every card's identity is public, R9.1)."""
    games = []
    for seed in seeds:
        game = new_game(mode="duel", format="draft", seed=seed, record_events=False)
        while game.phase == "setup":
            game.apply(rng.choice(game.legal_actions()))
        games.append(game)
    return games


def test_view_is_the_position_but_the_hidden_cards() -> None:
    """Everything but the hidden hand places equals the position: boards, mana, turn, phase,
    both fortress positions and hand sizes (R9.1); a view is computed without changing the game.
    A view never carries the chance state.  The cards behind the "?" are listed (``hidden_cards``)
    where their identities are public (a drafted duel), not under the benchmark's random deal."""
    rng = random.Random(1)
    games = [Game.random_duel(s, record_events=False) for s in range(10)]
    games += drafted_duels(range(10), rng)
    listed = 0
    for game in random_positions(games, rng, every=3):
        pos = dump_position(game)
        assert "chance" in pos
        pos.pop("chance")
        for viewer in (0, 1):
            v = view(game, viewer)
            opp = 1 - viewer
            assert v["players"][viewer] == pos["players"][viewer]
            real = pos["players"][opp]["hand"]
            seen = v["players"][opp]["hand"]
            assert len(seen) == len(real)
            for shown, card in zip(seen, real, strict=True):
                assert shown in (HIDDEN, card)
                if card in FORTRESS:
                    assert shown == card
            rest = copy.deepcopy(v)
            rest["players"][opp]["hand"] = real
            if game.hidden_identities or HIDDEN not in seen:
                assert "hidden_cards" not in rest["players"][opp]
            else:
                # The cards behind the "?" are listed, sorted: identities public, places hidden (R9).
                hidden = rest["players"][opp].pop("hidden_cards")
                assert hidden == sorted(c for shown, c in zip(seen, real, strict=True) if shown == HIDDEN)
                listed += 1
            assert rest == pos
        assert dump_position(game) == {**pos, "chance": dump_position(game)["chance"]}
    assert listed > 100


def test_fortress_is_visible_where_damage_moved_it() -> None:
    """R4.1, R9.1: the fortress card's place stays public as damage moves it; after the Bastion
    falls, the Fort is public at the leftmost place (R4.2)."""
    game = duel(
        [
            {"hand": ["BASTION", "ZOMBIE", "GNOME"], "lanes": {"top": ["BARON"], "bottom": ["BRUTE"]}},
            {"hand": ["BASTION", "OGRE", "TROLL", "BRIGAND", "MARTYR"]},
        ],
        phase="combat",
    )
    game.apply_text("next")  # Baron attacks player 1: 3 damage
    assert hand_view(game, 0, 1) == [HIDDEN, HIDDEN, HIDDEN, "BASTION", HIDDEN]
    game.apply_text("next")  # Brute: 5 damage, the Bastion reaches the rightmost place and falls
    assert game.fortress(1)[0] == "FORT"
    assert hand_view(game, 0, 1) == ["FORT", HIDDEN, HIDDEN, HIDDEN, HIDDEN]


def test_cards_returned_to_the_hand_are_visible_at_their_place() -> None:
    """R9.2: a destroyed creature (R3.8) and a resolved incantation (R5.4) return rightmost, a known
    place, so they stay visible there, also as cards to their left are played."""
    game = duel(
        [
            {"hand": ["BASTION", "BOOM", "BARON", "BRUTE"]},
            {"hand": ["BASTION", "GNOME", "TROLL"], "lanes": {"top": ["ZOMBIE"]}},
        ],
    )
    assert hand_view(game, 1, 0) == ["BASTION", HIDDEN, HIDDEN, HIDDEN]
    game.apply_text("cast BOOM 1.top.0")  # Zombie destroyed: back to player 1's hand
    assert hand_view(game, 0, 1) == ["BASTION", HIDDEN, HIDDEN, "ZOMBIE"]
    assert hand_view(game, 1, 0) == ["BASTION", HIDDEN, HIDDEN, "BOOM"]
    game.apply_text("play BARON top")  # the place a card is played from is public; the rest stays hidden
    assert hand_view(game, 1, 0) == ["BASTION", HIDDEN, "BOOM"]
    game.apply_text("end")
    game.apply_text("end")  # player 1's turn
    game.apply_text("play GNOME bottom")
    assert hand_view(game, 0, 1) == ["BASTION", HIDDEN, "ZOMBIE"]
    game.apply_text("play ZOMBIE top")  # a known card played again leaves a hidden card hidden
    assert hand_view(game, 0, 1) == ["BASTION", HIDDEN]


def test_cards_returned_in_a_chosen_order_are_visible_in_that_order() -> None:
    """R3.9: the owner's chosen return order is public, and so is the incantation after them (R5.4a)."""
    game = duel(
        [
            {"hand": ["BASTION", "COMBUSTION", "BARON", "OGRE"]},
            {"hand": ["BASTION", "TROLL", "BRIGAND"], "lanes": {"top": ["ZOMBIE"], "bottom": ["GNOME"]}},
        ],
        mana=3,
    )
    game.apply_text("cast COMBUSTION 1.top.0")
    v = view(game, 0)
    assert v["pending"]["cards"] == ["ZOMBIE", "GNOME"]
    assert v["players"][0]["hand"] == ["BASTION", "BARON", "OGRE"]  # Combustion is resolving
    game.apply_text("order GNOME ZOMBIE")
    assert hand_view(game, 0, 1) == ["BASTION", HIDDEN, HIDDEN, "GNOME", "ZOMBIE"]
    assert hand_view(game, 1, 0) == ["BASTION", HIDDEN, HIDDEN, "COMBUSTION"]


def test_undo_restores_what_was_visible() -> None:
    game = duel(
        [
            {"hand": ["BASTION", "BOOM", "BARON"]},
            {"hand": ["BASTION", "GNOME", "TROLL"], "lanes": {"top": ["ZOMBIE"]}},
        ]
    )
    before = [view(game, 0), view(game, 1)]
    game.apply_text("cast BOOM 1.top.0")
    assert [view(game, 0), view(game, 1)] != before
    game.undo()
    assert [view(game, 0), view(game, 1)] == before


# ----------------------------------------------------------------------------- solo views


def test_solo_automaton_deck_is_hidden_but_its_fortress_card(
    make_solo_position: Callable[..., dict[str, Any]],
) -> None:
    """R9.2: the automaton deck's order is hidden, its fortress card (at the bottom) is not; the
    discard pile is public (R9.1), and so is the player's own hand."""
    rng = random.Random(8)
    game = load_position(make_solo_position(rng), record_events=False)
    v = view(game, 0)
    assert v["players"][1]["deck"] == [HIDDEN] * 24 + ["BASTION"]
    assert v["players"][0] == dump_position(game)["players"][0]
    saw_discard = False
    for g in random_positions([game], rng):
        pos = dump_position(g)
        v = view(g, 0)
        deck = pos["players"][1]["deck"]
        assert v["players"][1]["deck"] == [HIDDEN] * (len(deck) - 1) + [deck[-1]]
        assert v["players"][1]["discard"] == pos["players"][1]["discard"]
        assert v["players"][1]["lanes"] == pos["players"][1]["lanes"]
        assert v["players"][0] == pos["players"][0]
        saw_discard |= bool(pos["players"][1]["discard"])
    assert saw_discard


def test_solo_fort_is_visible_after_the_deck_is_rebuilt() -> None:
    """R7.7: the automaton's Bastion flips to Fort and the shuffled discard pile becomes the deck:
    its order is hidden, the Fort at the bottom is not."""
    game = load_position(
        {
            "mode": "solo",
            "active": 0,
            "phase": "combat",
            "mana": 0,
            "players": [
                {"hand": ["BASTION", "ZOMBIE", "GNOME"], "lanes": {"top": ["BARON"]}},
                {
                    "automaton": True,
                    "deck": ["TROLL", "BASTION"],
                    "discard": ["OGRE", "BRUTE", "BOOM", "ALPHA"],
                },
            ],
        }
    )
    game.apply_text("next")  # Baron deals 3: Troll is discarded, the deck is empty above the Bastion
    pos = dump_position(game)
    assert sorted(pos["players"][1]["deck"][:-1]) == ["ALPHA", "BOOM", "BRUTE", "OGRE", "TROLL"]
    assert view(game, 0)["players"][1]["deck"] == [HIDDEN] * 5 + ["FORT"]
    assert view(game, 0)["players"][1]["discard"] == []


# ----------------------------------------------------------------------------- determinization


def hidden_places(game: Game, viewer: int) -> list[tuple[int, int, str]]:
    """(player, index, card) of every place ``viewer`` cannot see, in the real game."""
    pos = dump_position(game)
    v = view(game, viewer)
    out: list[tuple[int, int, str]] = []
    for p in (0, 1):
        for zone in ("hand", "deck"):
            for i, (shown, card) in enumerate(
                zip(v["players"][p].get(zone, []), pos["players"][p].get(zone, []), strict=True)
            ):
                if shown == HIDDEN:
                    out.append((p, i, card))
    return out


def cards_of(position: dict[str, Any]) -> Counter[str]:
    """Every card of a position (or view) but the fortress cards and "?": hands, lanes, the
    automaton's deck and discard pile, and the cards a pending decision holds."""
    out: Counter[str] = Counter()
    for player in position["players"]:
        for zone in ("hand", "deck", "discard"):
            out.update(player.get(zone, []))
        for lane in player["lanes"].values():
            out.update(cr if isinstance(cr, str) else cr["card"] for cr in lane)
    pending = position.get("pending") or {}
    out.update(pending.get("cards", []))
    if "resolving" in pending:
        out[pending["resolving"]["card"]] += 1
    for other in (HIDDEN, *FORTRESS):
        del out[other]
    return out


def check_sample(game: Game, viewer: int, sample: Game) -> None:
    """The sample looks the same to ``viewer`` and differs only at hidden places.  Where the
    identities are public (R9.1) it permutes the real hidden cards; under the random deal it puts
    there cards the viewer has not seen (of the 32, 16 are dealt), each card at most once, as many
    as in the real game."""
    assert view(sample, viewer) == view(game, viewer)
    real = hidden_places(game, viewer)
    fake = hidden_places(sample, viewer)
    assert [(p, i) for p, i, _ in fake] == [(p, i) for p, i, _ in real]
    if game.hidden_identities:
        assert "hidden_cards" not in view(game, viewer)["players"][1 - viewer]
        seen = cards_of(view(game, viewer))
        assert not seen.keys() & {c for _, _, c in fake}
        in_sample = cards_of(dump_position(sample))
        assert set(in_sample.values()) == {1} and set(in_sample) <= {c.id for c in CARDS}
        assert in_sample.total() == cards_of(dump_position(game)).total()
    else:
        assert Counter(c for _, _, c in fake) == Counter(c for _, _, c in real)
    assert sample.current_player == game.current_player
    if game.current_player == viewer:
        # A fair AI sees the same choices in the sample as in the real game.
        assert sample.legal_actions() == game.legal_actions()


def test_samples_are_consistent_with_the_view(make_solo_position: Callable[..., dict[str, Any]]) -> None:
    """At positions of random-deal duels, drafted duels and solo games (pending decisions
    included), for either viewer."""
    rng = random.Random(3)
    games = [Game.random_duel(s, record_events=False) for s in range(6)]
    games += drafted_duels(range(6), rng)
    games += [load_position(make_solo_position(rng), record_events=False) for _ in range(8)]
    checked = 0
    for game in random_positions(games, rng, every=2):
        if game.hidden_identities and game.pending is not None:
            # An engine bug, see test_random_deal_sample_never_duplicates_a_card_of_the_pending_decision.
            continue
        viewers = (0,) if game.is_solo else (0, 1)
        for viewer in viewers:
            check_sample(game, viewer, sample_determinization(game, viewer, random.Random(checked)))
            checked += 1
    assert checked > 300


def test_random_deal_sample_never_duplicates_a_card_of_the_pending_decision() -> None:
    """R3.9, R5.4a: while a return order is chosen, the destroyed creatures and the resolving
    incantation are visible in ``pending``; a sample must not also put them at a hidden hand place."""
    game = Game.random_duel(0, record_events=False)
    rng = random.Random(3)
    while game.pending is None:
        game.apply(rng.choice(game.legal_actions()))
    pending = view(game, 0)["pending"]
    assert pending["resolving"] == {"player": 0, "card": "COMBUSTION"}
    in_decision = {*pending["cards"], pending["resolving"]["card"]}
    for seed in range(200):
        sample = sample_determinization(game, 0, random.Random(seed))
        assert not in_decision & set(sample.hand(1)), (seed, sample.hand(1), pending)


def test_sample_is_seeded_deterministic_and_depends_only_on_the_view() -> None:
    """The same view and the same RNG seed give the same sample, whatever the real hidden order."""
    game = Game.random_duel(12)
    for seed in range(10):
        a = sample_determinization(game, 0, random.Random(seed))
        b = sample_determinization(game, 0, random.Random(seed))
        assert dump_position(a) == dump_position(b)
        other = sample_determinization(game, 0, random.Random(1000 + seed))  # same view, other order
        c = sample_determinization(other, 0, random.Random(seed))
        assert dump_position(c) == dump_position(a)


def test_sample_permutes_the_hidden_cards_uniformly() -> None:
    """Three hidden cards: each of the 6 orders comes up about equally often (fixed seed)."""
    game = duel(
        [
            {"hand": ["BASTION", "BOOM", "BARON", "BRUTE"]},
            {"hand": ["BASTION", "GNOME", "TROLL", "OGRE"], "lanes": {"top": ["ZOMBIE"]}},
        ],
    )
    game.apply_text("cast BOOM 1.top.0")  # player 1: three hidden cards, then the known Zombie
    rng = random.Random(99)
    counts = Counter(tuple(sample_determinization(game, 0, rng).hand(1)) for _ in range(1200))
    assert len(counts) == 6
    for order, n in counts.items():
        assert order[0] == "BASTION" and order[-1] == "ZOMBIE"
        assert 140 <= n <= 260, counts


def test_different_seeds_give_different_samples() -> None:
    game = Game.random_duel(5)
    orders = {tuple(sample_determinization(game, 1, random.Random(s)).hand(0)) for s in range(50)}
    assert len(orders) > 45  # 8! orders of 8 hidden cards


def test_sample_is_independent_of_the_original(make_solo_position: Callable[..., dict[str, Any]]) -> None:
    """Playing the sample to its end leaves the original untouched, and the other way round."""
    rng = random.Random(4)
    for game in (Game.random_duel(4), load_position(make_solo_position(rng))):
        for _ in range(9):
            game.apply(rng.choice(game.legal_actions()))
        before = (dump_position(game), view(game, 0), game.history, game.legal_actions()[:])
        sample = sample_determinization(game, 0, random.Random(1))
        sample_before = dump_position(sample)
        play_randomly(sample, rng)
        assert (dump_position(game), view(game, 0), game.history, game.legal_actions()) == before
        sample = sample_determinization(game, 0, random.Random(1))
        play_randomly(game, rng)
        assert dump_position(sample) == sample_before


def test_sample_does_not_know_future_chance() -> None:
    """R7.7 shuffles the discard pile into a new deck: that order is not in the view, so samples
    (which reseed the game's RNG from the caller's) rebuild it in different orders."""
    position = {
        "mode": "solo",
        "active": 0,
        "phase": "combat",
        "mana": 0,
        "players": [
            {"hand": ["BASTION", "ZOMBIE", "GNOME"], "lanes": {"top": ["BARON"]}},
            {
                "automaton": True,
                "deck": ["TROLL", "BASTION"],
                "discard": ["OGRE", "BRUTE", "BOOM", "ALPHA", "MARTYR", "SHAMAN", "VORTEX"],
            },
        ],
    }
    game = load_position(position)
    decks = set()
    for seed in range(20):
        sample = sample_determinization(game, 0, random.Random(seed))
        sample.apply_text("next")
        decks.add(tuple(dump_position(sample)["players"][1]["deck"]))
    assert len(decks) > 15


@pytest.mark.parametrize("fmt", ["draft", "precon"])
def test_sample_during_setup_keeps_what_is_public(fmt: str) -> None:
    """R2: in the setup stage the face-down draft pile is hidden; what the setup shows is kept."""
    game = new_game(mode="duel", format=fmt, seed=6)
    seen: set[tuple[object, ...]] = set()
    for seed in range(10):
        sample = sample_determinization(game, game.current_player, random.Random(seed))
        assert setup_summary(sample) == setup_summary(game)
        assert sample.legal_actions() == game.legal_actions()
        if fmt == "draft":
            # The next four cards to be revealed come from the shuffled face-down pile.
            for _ in range(4):
                sample.apply(sample.legal_actions()[0])
            revealed = setup_summary(sample)["revealed"]
            assert isinstance(revealed, list)
            seen.add(tuple(revealed))
    if fmt == "draft":
        assert len(seen) > 5


# ----------------------------------------------------------------------------- views from one dump


@pytest.mark.parametrize(
    ("mode", "fmt"), [("duel", "draft"), ("duel", "custom"), ("duel", "precon"), ("solo", "draft")]
)
def test_views_from_one_dump_are_the_views_and_leave_the_dump_as_it_was(mode: str, fmt: str) -> None:
    """The web server dumps a position once for every reader's view (``view(game, p, dumped)``):
    each such view is exactly the view made alone, through the setup stage and the game, and the
    dump shared by the views is not changed by redacting them (R9)."""
    rng = random.Random(11)
    for seed in range(3):
        game = new_game(mode=mode, format=fmt, seed=seed)
        for position in random_positions([game], rng, every=3):
            dumped = dump_position(position)
            before = copy.deepcopy(dumped)
            for player in (0, 1, None):
                assert view(position, player, dumped) == view(position, player)
            assert dumped == before


def test_lane_card_is_the_card_of_the_lane_s_creature() -> None:
    """``lane_card`` (what a spell's label names, made without the whole lane) is the card id
    ``lane(...)[position]`` shows, for every creature of every lane, positions from the end too."""
    rng = random.Random(3)
    games = [Game.random_duel(s, record_events=False) for s in range(6)]
    seen = 0
    for game in random_positions(games, rng, every=2):
        for player in (0, 1):
            for lane in ("top", "bottom", 0, 1):
                creatures = game.lane(player, lane)
                for position in range(-len(creatures), len(creatures)):
                    assert game.lane_card(player, lane, position) == creatures[position]["card"]
                    seen += 1
                with pytest.raises(IndexError):
                    game.lane_card(player, lane, len(creatures))
    assert seen > 100
