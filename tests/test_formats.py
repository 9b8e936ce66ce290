"""Formats and setup (R2, R7.1, R8.2 first player and resilience) through :func:`new_game`.

Every setup choice is an ordinary action of ``game.current_player`` (``deck N``, ``pick CARD``,
``build CARD×10``, ``ban CARD``); chance comes from the seeded RNG.  These tests drive the setup
stage with plain choices (often "the first legal action") and check who decides when, what each
player ends up with, and how play starts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import pytest

from clashofdecks import (
    ClashError,
    EventKind,
    Game,
    IllegalActionError,
    Ruleset,
    Threat,
    dump_position,
)
from clashofdecks.cards import CARD_IDS, PRECONSTRUCTED_DECKS
from clashofdecks.formats import FormatError, new_game, seat_of, setup_summary
from clashofdecks.record import GameRecord, record_game, replay
from random_play import play_randomly

ALL_CARDS = set(CARD_IDS[:32])


def _deck(n: int) -> set[str]:
    return {CARD_IDS[c] for c in PRECONSTRUCTED_DECKS[n]}


def _drive_setup(game: Game, choose: Callable[[Game], str] | None = None) -> list[tuple[int, str]]:
    """Make setup decisions until play starts; returns (player, action text) in order."""
    done: list[tuple[int, str]] = []
    while game.phase == "setup":
        text = choose(game) if choose else game.legal_action_texts()[0]
        done.append((game.current_player, text))
        game.apply_text(text)
    return done


def _random_play(game: Game, rng: random.Random, max_actions: int = 600) -> None:
    assert play_randomly(game, rng, max_actions).is_over(), "game did not end"


def _cards_of(game: Game, player: int) -> set[str]:
    cards = {c for c in game.hand(player) if c not in ("BASTION", "FORT")}
    for lane in ("top", "bottom"):
        cards |= {str(cr["card"]) for cr in game.lane(player, lane)}
    return cards


# --------------------------------------------------------------------------------- R2.4 draft


def test_r2_4_duel_draft_order_a_bb_a_then_b_aa_b_twice() -> None:
    """R2.4: per round of 4 face-up cards the first picker takes 1, the other takes 2 and the first
    gets the last card; rounds alternate A, B, A, B (A = seat 0 by the default coin toss)."""
    game = new_game(mode="duel", format="draft", seed=11, record_events=True)
    assert game.phase == "setup"
    got: list[tuple[int, int]] = []  # (seat, number of face-up cards when deciding)
    while game.phase == "setup":
        summary = setup_summary(game)
        assert summary["decision"] == "pick" and summary["player"] == game.current_player
        revealed = summary["revealed"]
        assert isinstance(revealed, list)
        got.append((game.current_player, len(revealed)))
        game.apply_text(game.legal_action_texts()[0])
    a, b = 0, 1
    one_round = [(a, 4), (b, 3), (b, 2)]
    other_round = [(b, 4), (a, 3), (a, 2)]
    assert got == (one_round + other_round) * 2
    hands = [_cards_of(game, 0), _cards_of(game, 1)]
    assert len(hands[0]) == len(hands[1]) == 8  # 1 + 1 (last) + 2 + ... per R2.4
    assert not hands[0] & hands[1]
    assert len(ALL_CARDS - hands[0] - hands[1]) == 16  # 16 cards stay unused


def test_r2_4_last_card_of_each_round_goes_to_the_first_picker() -> None:
    """R2.4: the fourth card of a round is not chosen: it goes to the player who picked first."""
    game = new_game(mode="duel", format="draft", seed=5)
    summary = setup_summary(game)
    face_up = list(summary["revealed"])  # type: ignore[call-overload]
    first = game.current_player
    game.apply_text(f"pick {face_up[0]}")
    game.apply_text(f"pick {face_up[1]}")
    game.apply_text(f"pick {face_up[2]}")
    cards = setup_summary(game)["cards"]
    assert isinstance(cards, list)
    assert sorted(cards[first]) == sorted([face_up[0], face_up[3]])
    assert sorted(cards[1 - first]) == sorted(face_up[1:3])


def test_r2_4_picks_are_shown_in_the_event_log() -> None:
    game = new_game(mode="duel", format="draft", seed=3)
    text = game.legal_action_texts()[1]
    events = game.apply_text(text)
    assert any(e.kind == EventKind.SETUP and e.card == text.split()[1] for e in events)


def test_r7_1_solo_draft_keep_one_of_four_until_8_and_24() -> None:
    """R7.1: eight times, 4 cards face up, the player keeps 1 and the automaton gets 3; then the
    player's 8 cards are the hand (Bastion leftmost) and the automaton's 24 its deck (fortress at the
    bottom); every card exactly once."""
    game = new_game(mode="solo", format="draft", seed=21)
    decisions = 0
    while game.phase == "setup":
        assert game.current_player == 0
        assert len(setup_summary(game)["revealed"]) == 4  # type: ignore[arg-type]
        assert len(game.legal_actions()) == 4
        game.apply_text(game.legal_action_texts()[-1])
        decisions += 1
    assert decisions == 8
    pos = dump_position(game)
    hand = pos["players"][0]["hand"]
    deck = pos["players"][1]["deck"]
    assert hand[0] == "BASTION" and len(hand) == 9
    assert deck[-1] == "BASTION" and len(deck) == 25
    assert sorted(hand[1:] + deck[:-1]) == sorted(ALL_CARDS)
    assert (game.turn, game.active, game.phase, game.mana) == (1, 0, "summon", 6)  # R7.1: player, 6


# ------------------------------------------------------------------------------ R2.3 precon


def test_r2_3_precon_duel_decks_differ_and_a_taken_deck_is_refused() -> None:
    game = new_game(mode="duel", format="precon", seed=8)
    first = game.current_player
    assert game.legal_action_texts() == ["deck 1", "deck 2", "deck 3", "deck 4"]
    game.apply_text("deck 3")
    assert game.current_player == 1 - first
    assert game.legal_action_texts() == ["deck 1", "deck 2", "deck 4"]
    with pytest.raises(IllegalActionError, match=r"deck 3 is already taken \(R2\.3"):
        game.apply_text("deck 3")
    game.apply_text("deck 1")
    assert game.phase == "summon"
    assert _cards_of(game, first) == _deck(3)
    assert _cards_of(game, 1 - first) == _deck(1)


def test_r2_3_precon_solo_the_automaton_gets_the_three_other_decks() -> None:
    for n in (1, 2, 3, 4):
        game = new_game(mode="solo", format="precon", seed=n)
        assert game.current_player == 0 and len(game.legal_actions()) == 4
        game.apply_text(f"deck {n}")
        pos = dump_position(game)
        assert set(pos["players"][0]["hand"][1:]) == _deck(n)
        deck = pos["players"][1]["deck"]
        assert len(deck) == 25 and deck[-1] == "BASTION"
        assert set(deck[:-1]) == ALL_CARDS - _deck(n)


# ------------------------------------------------------------------------------ R2.5 custom


def test_r2_5_custom_builds_and_removals_by_the_right_players() -> None:
    """R2.5: A builds, B builds (each 10 distinct cards from their own Starter Kit); B removes 1 of
    A's cards, A removes 2 of B's, B removes 1 more of A's; both decks end with 8 cards, and the same
    card may be in both decks."""
    game = new_game(mode="duel", format="custom", seed=4)
    a = game.current_player
    b = 1 - a
    deck_a = CARD_IDS[0:10]
    deck_b = CARD_IDS[5:15]  # overlaps A's deck on 5 cards: each player owns a Starter Kit
    assert setup_summary(game)["decision"] == "build"
    game.apply_text("build " + " ".join(deck_a))
    assert game.current_player == b
    game.apply_text("build " + " ".join(deck_b))
    steps: list[tuple[int, str]] = []
    removed = {0: [], 1: []}  # type: dict[int, list[str]]
    while game.phase == "setup":
        who = game.current_player
        assert setup_summary(game)["decision"] == "ban"
        legal = game.legal_action_texts()
        owner_deck = deck_a if who == b else deck_b
        assert sorted(t.split()[1] for t in legal) == sorted(set(owner_deck) - set(removed[1 - who]))
        text = legal[0]
        removed[1 - who].append(text.split()[1])
        steps.append((who, text))
        game.apply_text(text)
    assert [w for w, _ in steps] == [b, a, a, b]
    assert _cards_of(game, a) == set(deck_a) - set(removed[a])
    assert _cards_of(game, b) == set(deck_b) - set(removed[b])
    assert len(_cards_of(game, a)) == len(_cards_of(game, b)) == 8
    assert _cards_of(game, a) & _cards_of(game, b)  # same cards on both sides (R2.5)


def test_r2_5_custom_build_needs_ten_distinct_cards() -> None:
    game = new_game(mode="duel", format="custom", seed=4)
    before = game.legal_actions()
    for bad in (
        "build " + " ".join(CARD_IDS[0:9]),  # 9 cards
        "build " + " ".join(CARD_IDS[0:9] + CARD_IDS[0:1]),  # a duplicate
        "build " + " ".join(CARD_IDS[0:11]),  # 11 cards
    ):
        with pytest.raises(ClashError):
            game.apply_text(bad)
        assert game.phase == "setup" and game.legal_actions() == before and game.history == []


def test_r2_2_custom_is_not_played_in_solo_and_bad_names_are_refused() -> None:
    with pytest.raises(FormatError, match=r"custom format is not played in solo \(R2\.2\)"):
        new_game(mode="solo", format="custom", seed=1)
    with pytest.raises(FormatError, match="unknown mode"):
        new_game(mode="coop", format="draft", seed=1)
    with pytest.raises(FormatError, match="unknown format"):
        new_game(mode="duel", format="sealed", seed=1)


# ------------------------------------------------------------------- R2.3a / R2.6 coin toss


def _first_participant(seed: int, ruleset: Ruleset | None = None, fmt: str = "precon") -> int:
    game = new_game(mode="duel", format=fmt, seed=seed, ruleset=ruleset)
    return 0 if seat_of(game, 0) == 0 else 1


def test_r2_3a_coin_toss_varies_with_the_seed_and_decides_seat_0() -> None:
    """R2.3a/R2.6: the coin toss (before any draft) decides which participant is player A, who sits
    in seat 0, decides first in the setup and starts the game."""
    firsts = [_first_participant(seed) for seed in range(40)]
    assert 8 <= sum(firsts) <= 32  # both outcomes happen
    for seed in range(6):
        game = new_game(mode="duel", format="draft", seed=seed)
        assert {seat_of(game, 0), seat_of(game, 1)} == {0, 1}
        assert game.current_player == 0  # player A (seat 0) picks first
        _drive_setup(game)
        assert (game.active, game.mana, game.turn) == (0, 6, 1)


def test_r2_6a_last_draft_pick_variant_b_starts() -> None:
    """R2.6a: under first_player=last_draft_pick player B (who gets the last draft card) starts, so
    B sits in seat 0 and A (first to pick) in seat 1; without a draft it falls back to the coin."""
    ruleset = Ruleset(first_player="last_draft_pick")
    game = new_game(mode="duel", format="draft", seed=9, ruleset=ruleset)
    assert game.current_player == 1  # player A picks first, from seat 1
    picks = _drive_setup(game)
    # The very last draft card is handed out automatically to the round's first picker: B = seat 0.
    assert picks[-1][0] == 1  # last decision: A's second pick of round 4 (B picked first there)
    assert game.active == 0 and game.mana == 6
    # Precon: falls back to the coin toss (same participant as with the default ruleset).
    for seed in range(10):
        assert _first_participant(seed, ruleset) == _first_participant(seed)


def test_r2_6_first_turn_has_6_mana_and_the_bastion_leftmost() -> None:
    for mode, fmt in (("duel", "draft"), ("duel", "precon"), ("solo", "draft"), ("solo", "precon")):
        game = new_game(mode=mode, format=fmt, seed=13)
        _drive_setup(game)
        assert (game.phase, game.turn, game.active, game.mana) == ("summon", 1, 0, 6)
        assert game.hand(0)[0] == "BASTION" and len(game.hand(0)) == 9
        if mode == "duel":
            assert game.hand(1)[0] == "BASTION" and len(game.hand(1)) == 9
            game.apply_text("end")
            game.apply_text("end")
            assert (game.active, game.mana) == (1, 9)  # R3.1 from then on


def test_r2_6_hands_are_shuffled_with_the_seed() -> None:
    hands = set()
    for seed in range(6):
        game = new_game(mode="solo", format="precon", seed=seed)
        game.apply_text("deck 2")
        assert set(game.hand(0)[1:]) == _deck(2)
        hands.add(tuple(game.hand(0)))
    assert len(hands) > 1


# --------------------------------------------------------------- R8.2 starts / resilience


def test_r7_1a_automaton_starts_player_has_normal_mana() -> None:
    """R7.1a/R8.2: with starts=automaton its turn 1 resolves inside the last setup action; the
    player's first decision is in turn 2, with mana = hand size (9), not 6."""
    threat = Threat(starts="automaton")
    game = new_game(mode="solo", format="precon", seed=2, threat=threat)
    events = game.apply_text("deck 4")
    assert (game.turn, game.active, game.phase, game.current_player) == (2, 0, "summon", 0)
    assert game.mana == len(game.hand(0)) == 9
    auto = [e for e in events if e.player == 1]
    assert any(e.kind == EventKind.REVEALED for e in auto)
    assert any(e.kind == EventKind.TURN_STARTED and e.amount == 1 for e in auto)
    pos = dump_position(game)
    placed = pos["players"][1]["lanes"]["top"] + pos["players"][1]["lanes"]["bottom"]
    assert placed and len(pos["players"][1]["deck"]) == 25 - len(placed) - len(pos["players"][1]["discard"])


def test_r8_2_resilience_fort_the_deck_ends_with_the_fort() -> None:
    game = new_game(mode="solo", format="draft", seed=6, threat=Threat(resilience="fort"))
    _drive_setup(game)
    deck = dump_position(game)["players"][1]["deck"]
    assert deck[-1] == "FORT" and len(deck) == 25
    assert game.fortress(1) == ("FORT", 24, 25)
    normal = new_game(mode="solo", format="draft", seed=6)
    _drive_setup(normal)
    assert normal.fortress(1)[0] == "BASTION"


def test_threat_is_ignored_in_duel() -> None:
    game = new_game(mode="duel", format="draft", seed=1, threat=Threat(base_mana=10))
    assert game.threat == Threat()


# ------------------------------------------------------------- determinism, illegal actions


def _full_game(mode: str, fmt: str, seed: int, actions_seed: int) -> tuple[list[str], dict[str, object]]:
    game = new_game(mode=mode, format=fmt, seed=seed)
    rng = random.Random(actions_seed)
    if fmt == "custom":
        _drive_setup(game, _custom_chooser(rng))
    _random_play(game, rng)
    record = record_game(game)
    return record.actions, dump_position(game)


def _custom_chooser(rng: random.Random) -> Callable[[Game], str]:
    def choose(game: Game) -> str:
        if setup_summary(game)["decision"] == "build":
            return "build " + " ".join(rng.sample(CARD_IDS[:32], 10))
        texts = game.legal_action_texts()
        return texts[rng.randrange(len(texts))]

    return choose


@pytest.mark.parametrize(("mode", "fmt"), [("duel", "draft"), ("duel", "precon"), ("solo", "draft")])
def test_same_seed_and_actions_give_the_same_game(mode: str, fmt: str) -> None:
    assert _full_game(mode, fmt, 31, 1) == _full_game(mode, fmt, 31, 1)


def test_different_seeds_give_different_setups() -> None:
    pools = set()
    for seed in range(8):
        game = new_game(mode="solo", format="draft", seed=seed)
        pools.add(tuple(setup_summary(game)["revealed"]))  # type: ignore[arg-type]
    assert len(pools) == 8


def test_setup_events_are_emitted() -> None:
    game = new_game(mode="solo", format="draft", seed=1)
    events = []
    while game.phase == "setup":
        events += game.apply_text(game.legal_action_texts()[0])
    setup = [e for e in events if e.kind == EventKind.SETUP]
    assert sum(1 for e in setup if e.rule == "R7.1") == 8  # the automaton gets 3, eight times
    assert sum(1 for e in setup if e.card is not None) == 8  # the eight picks
    assert any(e.rule == "R2.6" for e in setup)
    assert all(e.describe() for e in events)


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        ("draft", "deck 1", "must pick a revealed card"),
        ("draft", "play BARON top", "must pick"),
        ("precon", "pick BARON", "must choose a preconstructed deck"),
        ("custom", "ban BARON", "must build a 10-card deck"),
    ],
)
def test_illegal_setup_actions_are_refused_clearly_and_change_nothing(
    fmt: str, text: str, message: str
) -> None:
    game = new_game(mode="duel", format=fmt, seed=2)
    before = (setup_summary(game), _legal_copy(game), game.current_player)
    with pytest.raises(IllegalActionError, match=message):
        game.apply_text(text)
    assert (setup_summary(game), _legal_copy(game), game.current_player) == before
    assert game.history == []


def _legal_copy(game: Game) -> Sequence[int]:
    """The legal actions, copied without materialising the custom build stage's range of C(32, 10)
    decks (R2.5): a ``range`` is immutable and compares by its bounds."""
    legal = game.legal_actions()
    return legal if isinstance(legal, range) else list(legal)


def test_the_custom_build_stage_lists_every_deck_without_materialising_them() -> None:
    """R2.5: in the build stage every 10-card deck is legal; the engine answers with a ``range``
    (membership and length in constant time), and the text list is refused with a clear error."""
    game = new_game(mode="duel", format="custom", seed=2)
    legal = game.legal_actions()
    assert isinstance(legal, range) and len(legal) == math.comb(32, 10)
    assert game.parse_action("build " + " ".join(CARD_IDS[0:10])) in legal
    assert game.parse_action("ban BARON") not in legal
    with pytest.raises(ClashError, match="builds are legal now"):
        game.legal_action_texts()


def test_picking_a_card_that_is_not_face_up_is_refused() -> None:
    game = new_game(mode="solo", format="draft", seed=2)
    face_up = set(setup_summary(game)["revealed"])  # type: ignore[arg-type]
    other = sorted(ALL_CARDS - face_up)[0]
    with pytest.raises(IllegalActionError, match=rf"{other} is not among the revealed cards"):
        game.apply_text(f"pick {other}")


def test_banning_a_card_not_in_the_opponents_deck_is_refused() -> None:
    game = new_game(mode="duel", format="custom", seed=2)
    game.apply_text("build " + " ".join(CARD_IDS[0:10]))
    game.apply_text("build " + " ".join(CARD_IDS[10:20]))
    with pytest.raises(IllegalActionError, match=rf"{CARD_IDS[15]} is not in player"):
        game.apply_text(f"ban {CARD_IDS[15]}")  # B must remove one of A's cards


def test_undo_through_the_setup() -> None:
    game = new_game(mode="duel", format="draft", seed=12)
    start = (setup_summary(game), list(game.legal_actions()))
    picks = _drive_setup(game)
    for _ in picks:
        game.undo()
    assert (setup_summary(game), list(game.legal_actions())) == start


# -------------------------------------------------------------------------- game records


@pytest.mark.parametrize(
    ("mode", "fmt", "threat"),
    [
        ("duel", "draft", None),
        ("duel", "precon", None),
        ("duel", "custom", None),
        ("solo", "draft", Threat.level(3)),
        ("solo", "precon", Threat(starts="automaton", resilience="fort", abilities=("rage",))),
    ],
)
def test_game_records_replay_every_format(mode: str, fmt: str, threat: Threat | None) -> None:
    rng = random.Random(77)
    game = new_game(mode=mode, format=fmt, seed=77, threat=threat)
    if fmt == "custom":
        _drive_setup(game, _custom_chooser(rng))
    _random_play(game, rng)
    record = record_game(game, players=["random", "random" if mode == "duel" else "automaton"])
    assert record.actions[0].split()[0] in ("pick", "deck", "build")
    again = replay(GameRecord.from_dict(record.to_dict()))
    assert dump_position(again) == dump_position(game)
    assert again.outcome == game.outcome
    if mode == "solo":
        assert record.to_dict()["threat"] == (threat or Threat()).to_dict()
