"""The store on both databases: migrations, writes, reads, and a refused duplicate that changes nothing.

SQLite always; PostgreSQL when ``CLASH_TEST_PG_URL`` names a server (``.ci/run`` starts one; in CI
its absence is an error, on a developer machine the tests are skipped saying so).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from clashofdecks.web.store import (
    AnalysisRow,
    GameRow,
    IdentityRow,
    SeatRow,
    Store,
    current_revision,
    normalize_url,
    open_store,
    token_hash,
)
from conftest import pg_url_or_skip, reset_pg


def _row(game_id: str = "g1", owner: str = "p1") -> GameRow:
    return GameRow(
        id=game_id,
        kind="solo",
        mode="solo",
        format="precon",
        seed=2**62 + 5,  # seeds are 63-bit
        setup={"ruleset": {}, "threat": {}, "players": ["remote", "automaton"]},
        seats=[
            SeatRow(0, "remote", "Ada", None, token_hash("secret"), owner),
            SeatRow(1, "automaton", "Automaton"),
        ],
    )


def head_revision() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", "clashofdecks.web:migrations")
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None
    return head


def test_migrations_create_the_schema(db_url: str) -> None:
    store = open_store(db_url)
    assert current_revision(store.engine) == head_revision()
    tables = set(sa.inspect(store.engine).get_table_names())
    assert {"games", "seats", "actions", "identities", "sessions", "analyses", "alembic_version"} <= tables
    store.close()
    again = open_store(db_url)  # a second start migrates nothing and keeps the data
    assert current_revision(again.engine) == head_revision()
    again.close()


def test_store_round_trip(db_url: str) -> None:
    store: Store = open_store(db_url)
    store.create_game(_row())
    store.append_action("g1", 0, 0, "deck 1")
    store.append_action("g1", 1, 0, "play BRUTE top")
    store.append_action("g1", 2, 0, "end")
    row = store.load_game("g1")
    assert row is not None
    assert row.seed == 2**62 + 5 and row.actions == [(0, "deck 1"), (0, "play BRUTE top"), (0, "end")]
    assert row.seats[0].token_hash == token_hash("secret") and row.seats[1].kind == "automaton"
    store.truncate_actions("g1", 2)
    row = store.load_game("g1")
    assert row is not None and row.n_actions == 2 and len(row.actions) == 2
    store.finish("g1", {"winner": 1, "reason": "r", "termination": "resigned", "turns": 1})
    row = store.load_game("g1")
    assert row is not None and row.status == "over" and row.result is not None and row.result["winner"] == 1
    store.create_game(_row("g2", owner="p2"))
    assert [g.id for g in store.list_games(owner="p1")] == ["g1"]
    assert [g.id for g in store.list_games(status="active")] == ["g2"]
    assert store.load_game("nope") is None
    store.close()


def test_a_games_analysis_is_kept_once(db_url: str) -> None:
    store = open_store(db_url)
    store.create_game(_row())
    assert store.load_analysis("g1") is None
    first = AnalysisRow("g1", "done", {"turns": [], "label": "win chance"}, 1000, 2.5)
    assert store.save_analysis(first) is True
    assert (
        store.save_analysis(AnalysisRow("g1", "failed", {"error": "x"}, 10, 0.0)) is False
    )  # the first stays
    kept = store.load_analysis("g1")
    assert kept is not None and (kept.status, kept.body, kept.iterations, kept.seconds) == (
        "done",
        {"turns": [], "label": "win chance"},
        1000,
        2.5,
    )
    with pytest.raises(sa.exc.IntegrityError):  # only games have analyses
        store.save_analysis(AnalysisRow("no-such-game", "done", {}, 1, 0.0))
    store.close()


def test_a_duplicate_action_is_refused_and_changes_nothing(db_url: str) -> None:
    store = open_store(db_url)
    store.create_game(_row())
    store.append_action("g1", 0, 0, "deck 1")
    with pytest.raises(sa.exc.IntegrityError):
        store.append_action("g1", 0, 0, "deck 2")  # two writers for one index: the second loses
    row = store.load_game("g1")
    assert row is not None and row.actions == [(0, "deck 1")] and row.n_actions == 1
    store.close()


def test_default_database_is_created_in_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLASH_DATA_DIR", str(tmp_path / "data"))
    store = open_store()
    assert (tmp_path / "data" / "web.sqlite3").exists()
    store.close()


def test_migrations_match_the_tables_the_code_uses(tmp_path: Path) -> None:
    """The newest migration builds exactly the schema of ``store.metadata`` (no forgotten column),
    with the tables the lease, presence and queue modules add to it."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from clashofdecks.web import (  # noqa: F401
        dbqueue,
        handles,
        hint_terms,
        leases,
        presence,
        puzzle_store,
        rematches,
        reports,
    )
    from clashofdecks.web.store import metadata

    added = {"leases", "processes", "presence", "queue_entries", "abandonment", "rematches"}
    puzzles = {"puzzle_ratings", "puzzle_attempts", "puzzle_reports"}
    assert added | puzzles | {"reports", "hint_terms", "former_handles"} <= set(metadata.tables)

    store = open_store(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []
    store.close()


# ---------------------------------------------------------------------------- identities (0002)


def test_upgrade_maps_cookie_owned_seats_to_identities(db_url: str) -> None:
    """A database of the former release (revision 0001: seats owned by ``clash_player`` cookies, the
    friend's seat with no owner) upgrades keeping every game, seat and action: each cookie becomes
    one identity owning its seats, known by the SHA-256 of the cookie as a one-time legacy session;
    an unowned seat stays unowned (its token takes it once)."""
    import hashlib

    from clashofdecks.web.store import IdentityRow, identities, migrate, normalize_url, seats, sessions

    engine = sa.create_engine(normalize_url(db_url))
    migrate(engine, "0001")
    assert current_revision(engine) == "0001"
    ada, bob = "a" * 32, "b" * 32
    old_seats = [
        ("solo1", 0, "remote", "Ada", token_hash("t-solo"), ada),
        ("solo1", 1, "automaton", "Automaton", None, None),
        ("duel1", 0, "remote", "Ada", token_hash("t-duel0"), ada),
        ("duel1", 1, "remote", "Friend", token_hash("t-duel1"), None),
        ("hot1", 0, "remote", "Bob", token_hash("t-hot0"), bob),
        ("hot1", 1, "remote", "Player 2", token_hash("t-hot1"), bob),
    ]
    with engine.begin() as conn:
        for gid in ("solo1", "duel1", "hot1"):
            conn.execute(
                sa.text(
                    "INSERT INTO games (id, kind, mode, format, seed, setup, status, result, n_actions,"
                    " created_at, updated_at) VALUES (:id, 'friend', 'duel', 'precon', 1, '{}', 'active',"
                    " NULL, 1, 0, 0)"
                ),
                {"id": gid},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO actions (game_id, idx, seat, action, at) VALUES (:g, 0, 0, 'deck 1', 0)"
                ),
                {"g": gid},
            )
        for gid, seat, kind, name, th, owner in old_seats:
            conn.execute(
                sa.text(
                    "INSERT INTO seats (game_id, seat, kind, name, agent, token_hash, owner)"
                    " VALUES (:g, :s, :k, :n, NULL, :t, :o)"
                ),
                {"g": gid, "s": seat, "k": kind, "n": name, "t": th, "o": owner},
            )
    engine.dispose()

    store = open_store(db_url)  # upgrades to the newest revision
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(identities)).scalar() == 2
        owner_of = {(r.game_id, r.seat): r.owner for r in conn.execute(sa.select(seats))}
        hashes = {r.token_hash for r in conn.execute(sa.select(seats))}
        legacy = list(conn.execute(sa.select(sessions)))
        n_actions = conn.execute(sa.text("SELECT count(*) FROM actions")).scalar()
    assert len(owner_of) == len(old_seats) and n_actions == 3  # nothing lost
    assert hashes == {th for *_rest, th, _o in old_seats}
    ada_id = owner_of[("solo1", 0)]
    assert ada_id is not None and ada_id not in (ada, bob)  # the cookie itself is not kept
    assert owner_of[("duel1", 0)] == ada_id
    assert owner_of[("duel1", 1)] is None and owner_of[("solo1", 1)] is None
    assert owner_of[("hot1", 0)] == owner_of[("hot1", 1)] not in (None, ada_id)
    assert all(s.legacy for s in legacy) and len(legacy) == 2
    ada_row = store.identity_of_session(hashlib.sha256(ada.encode()).hexdigest(), legacy=True)
    assert isinstance(ada_row, IdentityRow) and ada_row.id == ada_id and ada_row.display_name == "Ada"
    assert ada_row.handle.startswith("guest-") and not ada_row.is_account
    # The legacy session is not a session: only /api/me exchanges it (once).
    assert store.identity_of_session(hashlib.sha256(ada.encode()).hexdigest()) is None
    assert [g.id for g in store.list_games(owner=ada_id)] != []
    store.close()


def test_seat_claims_and_identity_deletion(db_url: str) -> None:
    """A seat is claimed once (a second claim fails, changing nothing); deleting an identity keeps
    its games with the seat anonymised (no owner, no token) and deletes its sessions."""
    from clashofdecks.web.store import IdentityRow, SeatTakenError

    store = open_store(db_url)
    store.create_identity(IdentityRow("i1", "guest-1", "Ada"), "h1")
    store.create_identity(IdentityRow("i2", "guest-2", "Bob"), "h2")
    row = _row("g1", owner="i1")
    row.seats.append(SeatRow(2, "remote", "Friend", None, token_hash("invite"), None))
    store.create_game(row)
    store.claim_seat("g1", 2, "i2")
    with pytest.raises(SeatTakenError):
        store.claim_seat("g1", 2, "i1")
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.seats[-1].owner == "i2"
    with pytest.raises(sa.exc.IntegrityError):  # a handle is unique
        store.create_identity(IdentityRow("i3", "guest-1", "Eve"), "h3")
    store.delete_identity("i1", "deleted player")
    assert store.identity_of_session("h1") is None
    loaded = store.load_game("g1")
    assert loaded is not None and loaded.seats[0].owner is None and loaded.seats[0].token_hash is None
    assert loaded.seats[0].name == "deleted player" and loaded.seats[-1].owner == "i2"
    store.close()


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


def test_ratings_are_applied_once_and_guests_stay_off_the_leaderboard(db_url: str) -> None:
    from clashofdecks.web import ratings as rt

    store = open_store(db_url)
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
        # An account with 10 rated games against 5 distinct opponents appears; with 9 it does not.
        store.make_account("ida", "ada", "hash")
        store.set_rating("ida", "draft", 30.0, 2.0, 10, 7, 3)
        assert store.leaderboard("draft") == []  # one opponent so far (web/fairplay.py)
        for other in ("idc", "idd", "ide", "idf"):
            store.create_identity(IdentityRow(other, f"guest-{other}", other.upper()), f"session-{other}")
            store.create_game(_duel(f"g-{other}", "ida", other, rated=True))
            assert store.apply_rating(f"g-{other}", "ida", ("ida", other))
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


def test_the_same_two_identities_move_ratings_three_times_a_day(db_url: str) -> None:
    """Rating farming: the feeder resigning game after game moves nothing after the third."""
    from clashofdecks.web import fairplay

    store = open_store(db_url)
    try:
        for ident in ("farmer", "feeder"):
            store.create_identity(IdentityRow(ident, f"guest-{ident}", ident), f"session-{ident}")
        applied = []
        for n in range(fairplay.PAIR_GAMES_PER_DAY + 2):
            store.create_game(_duel(f"f{n}", "farmer", "feeder", rated=True))
            applied.append(store.apply_rating(f"f{n}", "farmer", ("farmer", "feeder")))
        assert applied == [True] * fairplay.PAIR_GAMES_PER_DAY + [False, False]
        assert store.rating("farmer", "draft")[2] == fairplay.PAIR_GAMES_PER_DAY
        fairplay.configure(pair_games_per_day=0, leaderboard_opponents=5)  # --limit rated_pair_per_day=0
        try:
            store.create_game(_duel("f-free", "farmer", "feeder", rated=True))
            assert store.apply_rating("f-free", "farmer", ("farmer", "feeder"))
        finally:
            fairplay.configure(fairplay.PAIR_GAMES_PER_DAY, fairplay.LEADERBOARD_OPPONENTS)
    finally:
        store.close()


def test_processes_starting_at_once_on_an_empty_postgresql_database_all_migrate_it() -> None:
    """Several ``clash serve`` processes started together: one migrates, the others wait for it (an
    advisory lock) instead of colliding on the tables they would all create."""
    url = pg_url_or_skip()
    reset_pg(url)
    code = f"from clashofdecks.web.store import open_store; open_store({url!r}).close()"
    procs = [
        subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True) for _ in range(4)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    engine = sa.create_engine(normalize_url(url))
    try:
        assert current_revision(engine) is not None
    finally:
        engine.dispose()
    reset_pg(url)


def test_the_group_commit_keeps_its_connection_on_sqlite_and_survives_a_failed_batch(tmp_path: Path) -> None:
    """SQLite: every group commit (``Store.batch``) uses one connection, not one from the pool per
    commit (its checkout and return cost about as much as the commit); a batch that fails (a
    duplicate action, retried alone and refused) leaves it usable for the next."""
    from clashofdecks.web.store import ActionWrite

    store = open_store(f"sqlite:///{tmp_path / 'batch.sqlite3'}")
    store.create_game(_row())
    checkouts: list[object] = []
    sa.event.listen(store.engine, "checkout", lambda *args: checkouts.append(args))
    assert store.batch([ActionWrite("g1", 0, 0, "deck 1")]) == [None]
    errors = store.batch([ActionWrite("g1", 1, 0, "pick a"), ActionWrite("g1", 0, 0, "deck 2")])
    assert errors[0] is None and isinstance(errors[1], sa.exc.IntegrityError)
    assert store.batch([ActionWrite("g1", 2, 0, "pick b")]) == [None]
    assert len(checkouts) == 1
    row = store.load_game("g1")
    assert row is not None and row.actions == [(0, "deck 1"), (0, "pick a"), (0, "pick b")]
    store.close()
