"""Ratings (OpenSkill) and the "play now" queue without a server: pairing by rating with a window that
widens with time, the AI offer after 30 s on an injected clock (no sleeping), one queue per identity
and that the displayed rating moves the right way (the store's rating rules: test_web_store.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("openskill", reason="the web extra is not installed")

from clashofdecks.web import ratings as rt
from clashofdecks.web.ratings import AI_OFFER_AFTER, MatchQueue, QueueError


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


def test_identities_kept_apart_are_never_paired() -> None:
    q = MatchQueue(clock=FakeClock(), apart={frozenset(("a", "c"))})  # one browser held a and c
    q.join("a", "draft", 1000)
    q.join("c", "draft", 1000)
    assert q.pair() == []
    q.join("b", "draft", 1050)
    assert [(x.identity, y.identity) for x, y in q.pair()] == [("a", "b")]
    assert set(q.waiting) == {"c"}


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
