"""Ratings (OpenSkill) and the "play now" queue without a server: pairing by rating with a window that
widens with time, the AI offer after 30 s on an injected clock (no sleeping), one queue per identity,
and the store's rating rules (applied once per game; the leaderboard's provisional rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openskill", reason="the web extra is not installed")

from clashofdecks.web import ratings as rt
from clashofdecks.web.ratings import AI_OFFER_AFTER, MatchQueue, QueueError
from clashofdecks.web.store import GameRow, IdentityRow, SeatRow, open_store


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_win_raises_the_winner_and_lowers_the_loser() -> None:
    new = (rt.MU, rt.SIGMA)
    (w_mu, w_sigma), (l_mu, l_sigma) = rt.rate(new, new)
    assert w_mu > rt.MU > l_mu
    assert w_sigma < rt.SIGMA and l_sigma < rt.SIGMA  # both are better known after a game
    assert rt.display(rt.MU, rt.SIGMA) == 1000
    assert rt.display(w_mu, w_sigma) > 1000
    (a_mu, _), (b_mu, _) = rt.draw(new, new)
    assert a_mu == pytest.approx(b_mu)


def test_closest_ratings_are_paired_first_and_never_across_formats() -> None:
    clock = FakeClock()
    q = MatchQueue(clock=clock)
    q.join("a", "draft", 1000)
    q.join("b", "draft", 1090)
    q.join("c", "draft", 1020)
    q.join("d", "precon", 1000)
    pairs = q.pair()
    assert [(x.identity, y.identity) for x, y in pairs] == [("a", "c")]
    assert set(q.waiting) == {"b", "d"}  # d waits in another format; b has nobody close
    assert q.pair() == []


def test_the_window_widens_with_waiting_time() -> None:
    clock = FakeClock()
    q = MatchQueue(clock=clock)
    q.join("a", "draft", 1000)
    q.join("b", "draft", 1250)
    assert q.pair() == []  # 250 apart: more than the first window (100)
    clock.now += 14.0  # window 100 + 10 x 14 = 240 < 250
    assert q.pair() == []
    clock.now += 1.0  # 250: both windows reach the gap
    assert [(x.identity, y.identity) for x, y in q.pair()] == [("a", "b")]


def test_an_ai_is_offered_once_after_30_seconds_and_the_player_stays_queued() -> None:
    clock = FakeClock()
    q = MatchQueue(clock=clock)
    q.join("a", "draft", 1000)
    clock.now += AI_OFFER_AFTER - 0.5
    assert q.ai_offers() == []
    clock.now += 0.5
    offered = q.ai_offers()
    assert [e.identity for e in offered] == ["a"] and offered[0].ai_offered
    assert q.ai_offers() == []  # offered once, not forced
    assert "a" in q.waiting
    assert rt.ai_for_rating(1000) == "casual" and rt.ai_for_rating(900) == "beginner"
    assert rt.ai_for_rating(1200) == "strong" and rt.ai_for_rating(1400) == "strongest"


def test_one_queue_per_identity_and_leaving_only_with_its_own_ticket() -> None:
    q = MatchQueue(clock=FakeClock())
    page = object()
    q.join("a", "draft", 1000, page)
    with pytest.raises(QueueError) as exc:
        q.join("a", "precon", 1000, object())
    assert exc.value.code == "already_queued"
    with pytest.raises(QueueError):
        q.join("b", "custom", 1000)
    assert q.leave("a", object()) is None  # another page of the same identity cannot drop it
    assert "a" in q.waiting
    assert q.leave("a", page) is not None
    assert q.waiting == {}


def _duel(store_game_id: str, a: str, b: str, *, rated: bool) -> GameRow:
    return GameRow(
        id=store_game_id,
        kind="friend",
        mode="duel",
        format="draft",
        seed=1,
        setup={},
        seats=[SeatRow(0, "remote", "A", owner=a), SeatRow(1, "remote", "B", owner=b)],
        rated=rated,
    )


def test_ratings_are_applied_once_and_guests_stay_off_the_leaderboard(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'r.sqlite3'}")
    try:
        for ident in ("ida", "idb"):
            store.create_identity(IdentityRow(ident, f"guest-{ident}", ident.upper()), f"session-{ident}")
        store.create_game(_duel("g1", "ida", "idb", rated=True))
        store.create_game(_duel("g2", "ida", "idb", rated=False))
        assert store.load_game("g1").rated and not store.load_game("g2").rated  # type: ignore[union-attr]
        assert store.apply_rating("g1", "ida", ("ida", "idb"))
        assert not store.apply_rating("g1", "ida", ("ida", "idb"))  # once per game
        assert not store.apply_rating("g2", "ida", ("ida", "idb"))  # not rated
        a_mu, _a_sigma, a_games = store.rating("ida", "draft")
        b_mu, _b_sigma, b_games = store.rating("idb", "draft")
        assert a_games == b_games == 1 and a_mu > rt.MU > b_mu
        assert store.leaderboard("draft") == []  # guests: provisional
        shown = store.leaderboard("draft", provisional=True)
        assert [p["handle"] for p in shown] == ["guest-ida", "guest-idb"]
        assert all(p["provisional"] for p in shown)
        # An account with 10 rated games appears; with 9 it does not.
        store.make_account("ida", "ada", "hash")
        store.set_rating("ida", "draft", 30.0, 2.0, 9, 6, 3)
        assert store.leaderboard("draft") == []
        store.set_rating("ida", "draft", 30.0, 2.0, 10, 7, 3)
        top = store.leaderboard("draft")
        assert [(p["handle"], p["rating"], p["games"]) for p in top] == [
            ("guest-ida", rt.display(30.0, 2.0), 10)
        ]
        rates, hist = store.player_ratings("idb")
        assert len(rates) == 1 and [h.game_id for h in hist] == ["g1"]
        store.delete_identity("idb", "deleted player")
        assert store.player_ratings("idb") == ([], [])
    finally:
        store.close()
