"""The web app's database: games, their seats and every action, in SQLite (default) or PostgreSQL.

Why a table of actions instead of a saved position: an action row is written (and committed) before
the server acknowledges the action, so a server killed at any moment restarts with every game exactly
at its last acknowledged action; the game itself is rebuilt by replaying the actions, which is also
how records are checked.  The schema is versioned with Alembic; :func:`open_store` upgrades a
database to the newest revision on start (``clashofdecks/web/migrations``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

from . import metrics
from .store_games import GameStore
from .store_people import IdentityStore
from .store_results import ResultStore
from .store_rows import (
    CHANGES_CHANNEL,
    NOTICE_MAX_BYTES,
    ActionWrite,
    AnalysisRow,
    CampaignLevel,
    ClockRow,
    GameRow,
    IdentityRow,
    SeatRow,
    SeatTakenError,
    StaleGameError,
    StoreError,
    Write,
    change_payload,
    token_hash,
)
from .store_tables import (
    actions,
    agent_turns,
    analyses,
    campaign,
    clocks,
    games,
    identities,
    metadata,
    rated_games,
    rating_history,
    ratings,
    seats,
    sessions,
)

__all__ = [
    "CHANGES_CHANNEL",
    "NOTICE_MAX_BYTES",
    "ActionWrite",
    "AnalysisRow",
    "CampaignLevel",
    "ClockRow",
    "GameRow",
    "IdentityRow",
    "SeatRow",
    "SeatTakenError",
    "StaleGameError",
    "Store",
    "StoreError",
    "Write",
    "actions",
    "agent_turns",
    "analyses",
    "campaign",
    "change_payload",
    "clocks",
    "current_revision",
    "data_dir",
    "default_database_url",
    "games",
    "identities",
    "metadata",
    "migrate",
    "normalize_url",
    "open_store",
    "rated_games",
    "rating_history",
    "ratings",
    "seats",
    "sessions",
    "token_hash",
]


class Store(GameStore, IdentityStore, ResultStore):
    """Synchronous storage; the server calls it from one worker thread per store.  Its rooms are the
    ``store_*.py`` modules (docs/web.md, "Code")."""


def default_database_url() -> str:
    """SQLite in the data directory ($CLASH_DATA_DIR, else $XDG_DATA_HOME/clashofdecks, else
    ~/.local/share/clashofdecks), created on first start."""
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'web.sqlite3'}"


def data_dir() -> Path:
    explicit = os.environ.get("CLASH_DATA_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        return Path(xdg) / "clashofdecks"
    return Path.home() / ".local" / "share" / "clashofdecks"


def normalize_url(url: str) -> str:
    """``postgresql://`` URLs use psycopg 3 (the driver the web extra installs)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


#: The PostgreSQL advisory lock taken while migrating (any constant the app uses for nothing else).
_MIGRATION_LOCK: Final = 0x434C415348  # "CLASH"


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with the migrations shipped in this package."""
    cfg = Config()
    cfg.set_main_option("script_location", "clashofdecks.web:migrations")
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Several processes may start at once on an empty database: one migrates, the others
            # wait here (the lock ends with the transaction) and then find nothing left to do.
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def open_store(url: str | None = None) -> Store:
    """Connect (SQLite file by default, created on first start) and migrate to the newest schema."""
    url = normalize_url(url or default_database_url())
    if url.startswith("sqlite"):
        engine = sa.create_engine(url, connect_args={"check_same_thread": False})

        @sa.event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # WAL: readers do not block the writer; foreign keys are off by default in SQLite.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    else:
        engine = sa.create_engine(url, pool_pre_ping=True)
    migrate(engine)
    metrics.count_statements(engine)  # after the migration: what serving costs
    return Store(engine)
