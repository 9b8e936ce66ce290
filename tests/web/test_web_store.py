"""The store on both databases: migrations, writes, reads, and a refused duplicate that changes nothing.

SQLite always; PostgreSQL when ``CLASH_TEST_PG_URL`` names a server (``.ci/run`` starts one; in CI
its absence is an error, on a developer machine the tests are skipped saying so).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from clashofdecks.web.store import (
    GameRow,
    SeatRow,
    Store,
    current_revision,
    normalize_url,
    open_store,
    token_hash,
)
from conftest import pg_url


def _reset_pg(url: str) -> None:
    engine = sa.create_engine(normalize_url(url))
    with engine.begin() as conn:
        for table in ("actions", "seats", "games", "alembic_version"):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table} CASCADE"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.sqlite3'}"
        return
    url = pg_url()
    if not url:
        pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server for the storage tests)")
    _reset_pg(url)
    yield url
    _reset_pg(url)


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
    assert {"games", "seats", "actions", "identities", "sessions", "alembic_version"} <= tables
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
    """The newest migration builds exactly the schema of ``store.metadata`` (no forgotten column)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from clashofdecks.web.store import metadata

    store = open_store(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []
    store.close()
