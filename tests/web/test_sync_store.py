"""The store's side of several server processes: each game's revision, checked and bumped by every
write of it (a stale write changes nothing and fails only itself), and on PostgreSQL a notification
per change, delivered at commit (docs/web.md, "Several processes").

SQLite always; PostgreSQL when ``CLASH_TEST_PG_URL`` names a server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
from test_web_store import _row

from clashofdecks.web.store import CHANGES_CHANNEL, ActionWrite, StaleGameError, Store, open_store
from conftest import run_async


def _two_games(url: str) -> Store:
    store = open_store(url)
    store.create_game(_row("g1"))
    store.create_game(_row("g2", owner="p2"))
    return store


def test_every_checked_write_bumps_the_revision_and_a_stale_one_changes_nothing(db_url: str) -> None:
    store = _two_games(db_url)
    store.append_actions([ActionWrite("g1", 0, 0, "deck 1", revision=0)])
    row = store.load_game("g1")
    assert row is not None and row.revision == 1 and row.actions == [(0, "deck 1")]
    # A second process whose copy is at revision 0 writes the same index, then the next one.
    for idx in (0, 1):
        with pytest.raises(StaleGameError):
            store.append_actions([ActionWrite("g1", idx, 0, "deck 2", revision=0)])
    with pytest.raises(StaleGameError):
        store.bump_revision("g1", 0)
    row = store.load_game("g1")
    assert row is not None and row.revision == 1 and row.actions == [(0, "deck 1")] and row.n_actions == 1
    assert store.bump_revision("g1", 1) == 2
    store.close()


def test_an_undo_then_an_action_reusing_its_index_is_seen_as_a_change(db_url: str) -> None:
    """The key (game, index) cannot tell: after an undo the next action reuses the index."""
    store = _two_games(db_url)
    store.append_actions([ActionWrite("g1", 0, 0, "deck 1", revision=0)])
    with store.engine.begin() as conn:
        store.bump_revision("g1", 1, conn)
        store.truncate_actions("g1", 0, conn)
    behind = ActionWrite("g1", 0, 0, "deck 3", revision=1)  # the copy saw the action, not the undo
    with pytest.raises(StaleGameError):
        store.append_actions([behind])
    store.append_actions([ActionWrite("g1", 0, 0, "deck 2", revision=2)])
    row = store.load_game("g1")
    assert row is not None and row.actions == [(0, "deck 2")] and row.revision == 3
    store.close()


def test_a_stale_write_in_a_group_commit_fails_only_itself(db_url: str) -> None:
    store = _two_games(db_url)
    store.append_actions([ActionWrite("g2", 0, 0, "deck 4", revision=0)])
    writes: list[Any] = [
        ActionWrite("g1", 0, 0, "deck 1", revision=0),
        ActionWrite("g2", 1, 0, "deck 2", revision=0),  # behind: g2 is at revision 1
        lambda conn: store.bump_revision("g1", 1, conn),  # a later write of g1 in the same batch
    ]
    errors = store.batch(writes)
    assert errors[0] is None and isinstance(errors[1], StaleGameError) and errors[2] is None
    g1, g2 = store.load_game("g1"), store.load_game("g2")
    assert g1 is not None and g1.revision == 2 and g1.actions == [(0, "deck 1")]
    assert g2 is not None and g2.revision == 1 and g2.actions == [(0, "deck 4")]
    store.close()


def test_a_lone_action_on_postgresql_is_one_statement_and_a_stale_one_changes_nothing(db_url: str) -> None:
    """The group commit of one checked action (a human-paced game's): on PostgreSQL its UPDATE, INSERT
    and NOTIFY are one statement committed alone (one round trip; five before: BEGIN, three
    statements, COMMIT), and it behaves as the batch form: a stale copy is refused with nothing
    written or announced, a taken index fails, and the agent's turn is kept or forgotten with it."""
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite keeps the group commit's form (and its cost)")
    import psycopg

    from clashofdecks.web.store import agent_turns

    store = _two_games(db_url)
    sent: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: sent.append(args[2]))
    with psycopg.connect(db_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANGES_CHANNEL}")
        assert store.batch([ActionWrite("g1", 0, 0, "deck 1", revision=0, agent_next=True)]) == [None]
        assert len(sent) == 1
        with pytest.raises(StaleGameError):
            store.batch([ActionWrite("g1", 1, 1, "deck 2", revision=0, agent_next=False)])
        with pytest.raises(sa.exc.IntegrityError):  # the index is taken (an undo's bump moved the revision)
            store.bump_revision("g1", 1)
            store.batch([ActionWrite("g1", 0, 1, "deck 3", revision=2)])
        assert store.batch([ActionWrite("g1", 1, 1, "deck 2", revision=2, agent_next=False)]) == [None]
        got = [json.loads(n.payload) for n in listener.notifies(timeout=2, stop_after=3)]
    assert got == [
        {"game": "g1", "revision": 1, "index": 0, "actions": [[0, "deck 1"]]},
        {"game": "g1", "revision": 2},  # the bump
        {"game": "g1", "revision": 3, "index": 1, "actions": [[1, "deck 2"]]},
    ]
    row = store.load_game("g1")
    assert row is not None and row.revision == 3 and row.n_actions == 2
    assert row.actions == [(0, "deck 1"), (1, "deck 2")]
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(agent_turns.c.idx)).all() == []  # forgotten by the last action
    assert store.batch([ActionWrite("g2", 0, 0, "deck 1", revision=0, agent_next=True)]) == [None]
    assert store.batch([ActionWrite("g2", 1, 0, "deck 2", revision=1, agent_next=True)]) == [None]
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(agent_turns.c.game_id, agent_turns.c.idx)).all() == [("g2", 2)]
    store.close()


def test_postgresql_announces_each_change_at_commit_and_never_a_rolled_back_one(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("NOTIFY is PostgreSQL's (SQLite keeps one process)")
    import psycopg

    store = _two_games(db_url)
    with psycopg.connect(db_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANGES_CHANNEL}")
        store.append_actions([ActionWrite("g1", 0, 0, "deck 1", revision=0)])
        with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
            store.bump_revision("g2", 0, conn)
            conn.execute(sa.text("INSERT INTO games (id) VALUES ('g1')"))  # fails: rolls back the bump
        store.announce_notice("g2", {"type": "notice", "code": "joined", "seats": [1]}, skip="abc:1")
        got = [json.loads(n.payload) for n in listener.notifies(timeout=2, stop_after=2)]
    assert got == [
        {"game": "g1", "revision": 1, "index": 0, "actions": [[0, "deck 1"]]},  # the action came alone
        {"game": "g2", "notice": {"type": "notice", "code": "joined", "seats": [1]}, "skip": "abc:1"},
    ]
    row = store.load_game("g2")
    assert row is not None and row.revision == 0
    store.close()


def test_a_change_reaches_a_held_game_whose_page_is_still_opening() -> None:
    """A page opening a game reads its stored revision, then joins the game's connections; a change
    announced in between must still be caught up (else that page waits for a move it never sees:
    the load test's "stalled" seats), so every held game follows the bus, connections or not."""
    import asyncio
    from types import SimpleNamespace

    from clashofdecks.web.bus import Change, LocalBus
    from clashofdecks.web.sync import GameSync

    opening = SimpleNamespace(id="g1", revision=3, connections=set(), lock=asyncio.Lock())
    host = SimpleNamespace(games={"g1": opening})
    sync = GameSync(host, SimpleNamespace(), bus=LocalBus())
    caught_up: list[tuple[str, list[int]]] = []

    async def take(live: Any, changes: list[Change]) -> None:
        caught_up.append((live.id, [c.revision for c in changes]))
        live.revision = changes[-1].revision

    sync._take = take  # type: ignore[method-assign]

    async def announce() -> None:
        await sync.on_change("g1", Change(4))  # a change made through another process
        await asyncio.gather(*sync.tasks.values())
        await sync.on_change("g1", Change(4))  # announced twice, or this process's own write: once
        await sync.on_change("gone", Change(9))  # a game not held here: read from the store when opened
        await asyncio.gather(*sync.tasks.values())

    run_async(announce(), timeout=30)
    assert caught_up == [("g1", [4])] and not sync.tasks


def test_a_catch_up_reads_only_the_actions_after_its_history_unless_the_histories_part(db_url: str) -> None:
    """web/sync_reads.py: the stored game from the copy's history on; None (read it whole) when the
    stored history no longer starts with the copy's (an undo elsewhere, then other actions)."""
    from clashofdecks.web.store import ClockRow
    from clashofdecks.web.sync_reads import load_since

    store = _two_games(db_url)
    texts = ["deck 1", "deck 2", "end", "pass"]
    store.append_actions([ActionWrite("g1", i, i % 2, t, revision=i) for i, t in enumerate(texts)])
    store.save_clock("g1", ClockRow("10+5", (600.0, 590.5), 1, 1e9))
    whole = store.load_game("g1")
    assert whole is not None
    known = [(0, "deck 1"), (1, "deck 2")]
    row = load_since(store, "g1", known)
    if not db_url.startswith("postgresql"):
        assert row is None  # SQLite: one process, never behind; the caller reads whole
        store.close()
        return
    assert row is not None
    assert (row.actions, row.revision, row.seats, row.clock, row.status) == (
        whole.actions,
        whole.revision,
        whole.seats,
        whole.clock,
        whole.status,
    )
    assert load_since(store, "g1", []) is not None and load_since(store, "g1", whole.actions) is not None
    # Another process took the last three back and played others: the first two still agree...
    with store.engine.begin() as conn:
        store.bump_revision("g1", 4, conn)
        store.truncate_actions("g1", 1, conn)
    store.append_actions(
        [ActionWrite("g1", 1, 1, "deck 3", revision=5), ActionWrite("g1", 2, 0, "x", revision=6)]
    )
    assert load_since(store, "g1", known) is None  # ...the second does not: read whole
    assert load_since(store, "g1", whole.actions) is None  # longer than the stored history
    assert load_since(store, "gone", known) is None
    again = load_since(store, "g1", [(0, "deck 1")])
    assert (
        again is not None
        and again.actions == [(0, "deck 1"), (1, "deck 3"), (0, "x")]
        and again.revision == 7
    )
    store.close()


@pytest.mark.parametrize(
    "payload",
    [
        "not json",
        "[1, 2]",
        '{"revision": 3}',
        '{"game": 5, "revision": 3}',
        '{"game": "g1"}',
        '{"game": "g1", "revision": "3"}',
        '{"game": "g1", "revision": true}',
        '{"game": "g1", "revision": -1}',
        '{"game": "g1", "revision": 3, "index": "0", "actions": [[0, "end"]]}',
        '{"game": "g1", "revision": 3, "index": 0, "actions": []}',
        '{"game": "g1", "revision": 3, "index": 0, "actions": [[0, 1]]}',
        '{"game": "g1", "revision": 3, "index": 0, "actions": [[0, "end", 1]]}',
        '{"game": "g1", "revision": 3, "index": 0, "actions": "end"}',
        '{"game": "g1", "revision": 3, "actions": [[0, "end"]]}',
        '{"game": "g1", "notice": {"type": "state", "board": []}}',
        '{"game": "g1", "notice": "joined"}',
        '{"game": "g1", "notice": {"type": "notice"}, "skip": 7}',
        '{"signout": 7}',
        '{"signout": ["guest-1"]}',
        "[" * 5000 + "]" * 5000,
    ],
)
def test_a_malformed_message_on_the_channel_is_logged_and_ignored(
    payload: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Any client of the database may NOTIFY on the channel: what is not one of the app's messages
    reaches no handler (a forged state frame would reach the pages) and stops nothing."""

    from clashofdecks.web.bus import _dispatch

    reached: list[Any] = []

    async def handler(*args: Any) -> None:
        reached.append(args)

    run_async(_dispatch(payload, handler, handler, handler))
    assert reached == []
    assert "ignored a malformed change message" in caplog.text


def test_a_well_formed_change_carries_its_actions() -> None:
    from clashofdecks.web.bus import Change, parse_change
    from clashofdecks.web.store import change_payload

    written = ActionWrite("g1", 7, 1, "play 3 lane 2", revision=11)
    assert parse_change(json.loads(change_payload("g1", 12, written))) == Change(
        12, 7, ((1, "play 3 lane 2"),)
    )
    assert parse_change(json.loads(change_payload("g1", 12))) == Change(12)
    too_long = ActionWrite("g1", 7, 1, "x" * 5000, revision=11)  # a notification has a size limit
    assert parse_change(json.loads(change_payload("g1", 12, too_long))) == Change(12)


def test_notified_actions_are_applied_in_order_and_anything_else_reads_the_store(tmp_path: Any) -> None:
    """GameSync._take on a copy (no server, no PostgreSQL): changes one revision apart whose actions
    came with them are applied with no read; a gap reads the store; a notified action the session
    refuses reads it too, and changes nothing when the store has not moved."""
    from types import SimpleNamespace

    from clashofdecks.web.bus import Change, LocalBus
    from clashofdecks.web.games import GameState, session_of_row
    from clashofdecks.web.sync import GameSync

    store = open_store(f"sqlite:///{tmp_path / 'copy.sqlite3'}")
    store.create_game(_row("g1"))
    stored = store.load_game("g1")
    assert stored is not None
    elsewhere = session_of_row(stored)  # the process that plays
    played: list[tuple[int, str]] = []
    for _ in range(4):
        seat = elsewhere.to_move
        played.append((seat, elsewhere.legal_actions(seat)[0]))
        elsewhere.act(*played[-1])
    live = GameState("g1", "solo", session_of_row(stored), stored.seats)
    reads: list[str] = []
    shown: list[int] = []

    async def read_db(fn: Any) -> Any:
        reads.append("read")
        return fn(store)

    async def broadcast(copy: Any, events: Any) -> None:
        shown.append(len(copy.session.steps))

    host = SimpleNamespace(games={"g1": live}, broadcast=broadcast)
    sync = GameSync(host, SimpleNamespace(read=read_db), bus=LocalBus())

    def notified(i: int) -> Change:
        return Change(i + 1, i, (played[i],))

    async def run() -> None:
        await sync._take(live, [notified(0), notified(1)])
        assert (live.revision, shown, reads) == (2, [2], [])  # one broadcast, no read
        store.append_actions([ActionWrite("g1", i, s, a, revision=i) for i, (s, a) in enumerate(played)])
        await sync._take(live, [notified(3)])  # the change to revision 3 was never announced
        assert (live.revision, shown) == (4, [2, 4]) and reads  # read (SQLite: whole)
        assert [(st.seat, st.action) for st in live.session.steps] == played
        reads.clear()
        await sync._take(live, [Change(5, 4, ((0, "no such move"),))])  # forged: read, nothing moved
        assert (live.revision, shown, len(live.session.steps)) == (4, [2, 4], 4) and reads

    try:
        run_async(run(), timeout=60)
    finally:
        store.close()
