"""The web app's database: games, their seats and every action, in SQLite (default) or PostgreSQL.

Why a table of actions instead of a saved position: an action row is written (and committed) before
the server acknowledges the action, so a server killed at any moment restarts with every game exactly
at its last acknowledged action; the game itself is rebuilt by replaying the actions, which is also
how records are checked.  The schema is versioned with Alembic; :func:`open_store` upgrades a
database to the newest revision on start (``clashofdecks/web/migrations``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection, Engine

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # solo / ai / friend / hotseat / imported
    sa.Column("mode", sa.String(8), nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=True),
    sa.Column("setup", sa.Text, nullable=False),  # JSON: ruleset, threat, position (the record's head)
    sa.Column("status", sa.String(8), nullable=False),  # "active" or "over"
    sa.Column("result", sa.Text, nullable=True),  # JSON of the record's result
    sa.Column("n_actions", sa.Integer, nullable=False, default=0),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    #: Bumped by every write that changes the game (compare-and-set: :meth:`Store.bump_revision`):
    #: a server process whose copy is older is told so (:class:`StaleGameError`).  Migration 0006_sync.
    # No Python-side default: an INSERT leaves the column out, so a game is stored the same on a database
    # not yet migrated to 0006 (the upgrade tests write with this code before migrating).
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # human / agent / automaton
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("agent", sa.String(64), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("owner", sa.String(64), nullable=True),  # the player cookie that holds this seat
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.String(200), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

#: One row per analysed game (``clash analyze``, run by the server at most once per game): "done"
#: with the analysis as JSON, or "failed" with the reason (a record that does not replay is not tried
#: again either).  Migration 0003_analyses.
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("status", sa.String(8), nullable=False),  # "done" or "failed"
    sa.Column("body", sa.Text, nullable=False),  # JSON: the analysis, or {"error": ...}
    sa.Column("iterations", sa.Integer, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),  # CPU seconds the analysis took in its worker
    sa.Column("created_at", sa.Float, nullable=False),
)

#: Who plays: a guest (handle and display name only) or an account (a username and an Argon2id
#: password hash besides).  ``seats.owner`` holds an identity's ``id``.
identities = sa.Table(
    "identities",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("handle", sa.String(40), nullable=False, unique=True),
    sa.Column("display_name", sa.String(64), nullable=False),
    sa.Column("username", sa.String(40), nullable=True, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
)

#: Signed-in browsers and bots: only the SHA-256 of a session id is stored.  ``legacy`` marks the
#: sessions the upgrade made from the former ``clash_player`` cookies (exchanged once, then gone).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("legacy", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

#: Rated duels (from the queue, a rematch of one, or a friend duel both players chose rated): the
#: game's format, whether both players agreed (a friend duel offered as rated is not rated until
#: the invitee accepts), and when its result went into the ratings (null until then: a rating is
#: applied once, in the transaction that finishes the game).  Migration 0004_ratings.
rated_games = sa.Table(
    "rated_games",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("agreed", sa.Boolean, nullable=False),
    sa.Column("applied_at", sa.Float, nullable=True),
)

#: One OpenSkill rating per identity and format (web/ratings.py).
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("format", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("losses", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: Every rating change, for the player page's plot.
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("game_id", sa.String(32), nullable=False),
    sa.Column("rating", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

#: The clock of a clocked game (docs/web.md, "Clocks"): each seat's time left when its clock last
#: stopped, the seat whose clock runs and when its time runs out (the server's clock, seconds since
#: the epoch).  Kept here, not only in memory, so a restarted server, or several server processes
#: sharing one database, know every deadline (:meth:`Store.expired_clocks`).  Migration 0005_clocks.
clocks = sa.Table(
    "clocks",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("control", sa.String(16), nullable=False),  # "3+2", "10+5", "1d", "3d"
    sa.Column("remaining0", sa.Float, nullable=False),
    sa.Column("remaining1", sa.Float, nullable=False),
    sa.Column("running", sa.Integer, nullable=True),  # None: not started yet, or the game is over
    sa.Column("deadline", sa.Float, nullable=True),
)

#: The solo campaign: each identity's best result at each of the rulebook's levels (0-5; games with
#: a custom threat do not count), with the games played and won there.  Migration 0005_clocks.
campaign = sa.Table(
    "campaign",
    metadata,
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("level", sa.Integer, primary_key=True),
    sa.Column("best", sa.String(8), nullable=False),  # "won" or "lost"
    sa.Column("played", sa.Integer, nullable=False),
    sa.Column("won", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: Games whose agent is to make decision number ``idx``: written in the transaction of the action
#: that made it the agent's turn (:class:`ActionWrite` ``agent_next``), so a server process finds the
#: agent moves to take over without loading any game (web/leases.py).  Migration 0007_leases.
agent_turns = sa.Table(
    "agent_turns",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("idx", sa.Integer, nullable=False),
)

sa.Index("ix_clocks_deadline", clocks.c.deadline)
sa.Index("ix_games_status_updated", games.c.status, games.c.updated_at)
sa.Index("ix_seats_owner", seats.c.owner)
sa.Index("ix_sessions_identity", sessions.c.identity_id)
sa.Index("ix_ratings_format", ratings.c.format, ratings.c.mu)
sa.Index("ix_rating_history_identity", rating_history.c.identity_id, rating_history.c.format)


def token_hash(token: str) -> str:
    """Seat tokens are stored hashed: a leaked database does not hand out seats."""
    return hashlib.sha256(token.encode()).hexdigest()


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


@dataclass
class SeatRow:
    seat: int
    kind: str
    name: str
    agent: str | None = None
    token_hash: str | None = None
    owner: str | None = None


@dataclass
class GameRow:
    id: str
    kind: str
    mode: str
    format: str
    seed: int | None
    setup: dict[str, Any]
    status: str = "active"
    result: dict[str, Any] | None = None
    n_actions: int = 0
    revision: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    seats: list[SeatRow] = field(default_factory=list)
    actions: list[tuple[int, str]] = field(default_factory=list)  # (seat, action text) in order
    #: A rated duel (its result changes both identities' ratings of its format).
    rated: bool = False
    #: A friend duel its creator offered as rated, not yet accepted (or declined) by the invitee.
    rated_offer: bool = False
    clock: ClockRow | None = None


@dataclass
class ClockRow:
    """A row of ``clocks`` (the server turns it into a :class:`~clashofdecks.web.clocks.ClockState`)."""

    control: str
    remaining: tuple[float, float]
    running: int | None = None
    deadline: float | None = None


@dataclass
class CampaignLevel:
    level: int
    best: str  # "won" or "lost"
    played: int
    won: int


@dataclass
class AnalysisRow:
    game_id: str
    status: str  # "done" or "failed"
    body: dict[str, Any]
    iterations: int
    seconds: float
    created_at: float = 0.0


@dataclass
class IdentityRow:
    id: str
    handle: str
    display_name: str
    username: str | None = None
    password_hash: str | None = None

    @property
    def is_account(self) -> bool:
        return self.username is not None


class SeatTakenError(Exception):
    """A seat claim lost: the seat has an owner already (another page claimed it first)."""


@dataclass(frozen=True)
class ActionWrite:
    """One action to store (the server's hot path): many of them are written with one statement per
    table (:meth:`Store.append_actions`).  ``revision``: the game's revision the writer's copy is at
    (the write fails with :class:`StaleGameError` if the stored game is at another); None: unchecked
    (tests, tools)."""

    game_id: str
    idx: int
    seat: int
    text: str
    revision: int | None = None
    #: After this action an agent is to decide (kept in ``agent_turns`` in the same transaction);
    #: None in a game without an agent seat (nothing kept).
    agent_next: bool | None = None
    #: The action is the whole change of its revision (no other write of the game in its
    #: transaction): its change notification carries it, and a copy one revision behind applies it
    #: without a read (web/sync.py).  False for a clocked action (its clock is saved with it).
    alone: bool = True


#: A write of a group commit: an action, or any other write given the transaction's connection.
Write = ActionWrite | Callable[[Connection], None]

# Statements built once: building a statement per action (``insert().values(...)``) cost more CPU
# than executing it.
_INSERT_ACTION = actions.insert()
_ADVANCE_GAME = (
    games.update()
    .where(games.c.id == sa.bindparam("game"))
    .values(n_actions=sa.bindparam("n"), updated_at=sa.bindparam("now"), revision=games.c.revision + 1)
)
_ADVANCE_GAME_AT = (
    games.update()
    .where(games.c.id == sa.bindparam("game"), games.c.revision == sa.bindparam("expected"))
    .values(n_actions=sa.bindparam("n"), updated_at=sa.bindparam("now"), revision=games.c.revision + 1)
)
_BUMP_REVISION = (
    games.update()
    .where(games.c.id == sa.bindparam("game"), games.c.revision == sa.bindparam("expected"))
    .values(revision=games.c.revision + 1, updated_at=sa.bindparam("now"))
)
#: The PostgreSQL channel every change of a game, and every notice, is announced on (web/bus.py).
CHANGES_CHANNEL = "clash_games"
#: NOTIFY refuses payloads of 8,000 bytes and more; a notice frame is a few dozen.
NOTICE_MAX_BYTES = 4000
_NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")


class StoreError(Exception):
    """A database write that did not happen (the caller must not acknowledge the action)."""


class StaleGameError(StoreError):
    """A write refused because the stored game changed since the writer's copy (another server
    process wrote to it): nothing was written; the writer catches up from the store."""


#: A change notification whose actions would make it longer than this carries only the revision.
CHANGE_MAX_BYTES = 4000


def change_payload(game_id: str, revision: int, appended: ActionWrite | None = None) -> str:
    """The text of a change notification: a game's id and its new revision, and the action
    ``appended`` if it alone made that revision (web/bus.py's ``Change``); never a frame."""
    message: dict[str, Any] = {"game": game_id, "revision": revision}
    if appended is not None:
        message.update(index=appended.idx, actions=[[appended.seat, appended.text]])
    payload = json.dumps(message, separators=(",", ":"))
    if appended is not None and len(payload.encode()) > CHANGE_MAX_BYTES:
        return change_payload(game_id, revision)
    return payload


class Store:
    """Synchronous storage; the server calls it from one worker thread per store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ writes

    @contextlib.contextmanager
    def _begin(self, conn: Connection | None) -> Iterator[Connection]:
        """The caller's transaction (a batch), or a new one committed at the end."""
        if conn is not None:
            yield conn
            return
        with self.engine.begin() as new:
            yield new

    def batch(self, writes: list[Write]) -> list[BaseException | None]:
        """Run ``writes`` in one transaction (one commit for many actions: the server's group
        commit; the actions among them go in with one statement per table).  If it fails, each
        write is retried alone, so one bad write fails only itself."""
        try:
            with self.engine.begin() as conn:
                self._write_all(writes, conn)
            return [None] * len(writes)
        except Exception:
            if len(writes) == 1:
                raise
        errors: list[BaseException | None] = []
        for write in writes:
            try:
                with self.engine.begin() as conn:
                    self._write_all([write], conn)
                errors.append(None)
            except Exception as exc:
                errors.append(exc)
        return errors

    def _write_all(self, writes: list[Write], conn: Connection) -> None:
        appends = [w for w in writes if isinstance(w, ActionWrite)]
        if appends:
            self.append_actions(appends, conn)
        for write in writes:
            if not isinstance(write, ActionWrite):
                write(conn)

    def create_game(self, row: GameRow, conn: Connection | None = None) -> None:
        now = time.time()
        with self._begin(conn) as conn:
            conn.execute(
                games.insert().values(
                    id=row.id,
                    kind=row.kind,
                    mode=row.mode,
                    format=row.format,
                    seed=row.seed,
                    setup=json.dumps(row.setup),
                    status=row.status,
                    result=json.dumps(row.result) if row.result is not None else None,
                    n_actions=len(row.actions),
                    created_at=now,
                    updated_at=now,
                )
            )
            for s in row.seats:
                conn.execute(
                    seats.insert().values(
                        game_id=row.id,
                        seat=s.seat,
                        kind=s.kind,
                        name=s.name,
                        agent=s.agent,
                        token_hash=s.token_hash,
                        owner=s.owner,
                    )
                )
            for i, (seat, text) in enumerate(row.actions):
                conn.execute(actions.insert().values(game_id=row.id, idx=i, seat=seat, action=text, at=now))
            if row.rated or row.rated_offer:
                conn.execute(rated_games.insert().values(game_id=row.id, format=row.format, agreed=row.rated))

    def append_action(
        self,
        game_id: str,
        idx: int,
        seat: int,
        text: str,
        *,
        result: dict[str, Any] | None = None,
        conn: Connection | None = None,
    ) -> None:
        """Store action number ``idx`` (0-based); fails if that index is already taken (two writers)."""
        with self._begin(conn) as conn:
            self.append_actions([ActionWrite(game_id, idx, seat, text)], conn)
            if result is not None:
                self.finish(game_id, result, conn)

    def append_actions(self, writes: list[ActionWrite], conn: Connection | None = None) -> None:
        """Store several actions (of different games, or consecutive ones of a game) with one
        statement per table; fails as a whole if any index is already taken, or with
        :class:`StaleGameError` if a game is not at the revision its write expects."""
        now = time.time()
        checked = [w for w in writes if w.revision is not None]
        unchecked = [w for w in writes if w.revision is None]
        with self._begin(conn) as conn:
            # The revision first: on PostgreSQL the UPDATE locks the game's row, so a second writer
            # of the same game waits, then finds the revision moved on (0 rows), not a key clash.
            if checked:
                params = [
                    {"game": w.game_id, "n": w.idx + 1, "now": now, "expected": w.revision} for w in checked
                ]
                done = conn.execute(_ADVANCE_GAME_AT, params)
                if done.rowcount != len(checked):
                    raise StaleGameError("a game changed in the store since this process last read it")
            if unchecked:
                conn.execute(
                    _ADVANCE_GAME, [{"game": w.game_id, "n": w.idx + 1, "now": now} for w in unchecked]
                )
            conn.execute(
                _INSERT_ACTION,
                [
                    {"game_id": w.game_id, "idx": w.idx, "seat": w.seat, "action": w.text, "at": now}
                    for w in writes
                ],
            )
            _mark_agent_turns(conn, writes)
            self._announce(
                conn,
                [
                    (w.game_id, w.revision + 1, w if w.alone else None)
                    for w in checked
                    if w.revision is not None
                ],
            )

    def bump_revision(self, game_id: str, expected: int, conn: Connection | None = None) -> int:
        """Move a game from revision ``expected`` to the next, in the transaction of the write that
        changes the game, and return it; :class:`StaleGameError` (and the caller's transaction rolls
        back) if the stored game is at another revision: another process changed it."""
        with self._begin(conn) as conn:
            done = conn.execute(_BUMP_REVISION, {"game": game_id, "expected": expected, "now": time.time()})
            if done.rowcount != 1:
                raise StaleGameError(f"game {game_id} changed in the store since this process last read it")
            self._announce(conn, [(game_id, expected + 1, None)])
            return expected + 1

    def _announce(self, conn: Connection, changes: list[tuple[str, int, ActionWrite | None]]) -> None:
        """On PostgreSQL, NOTIFY the other server processes of these changes (game, new revision, the
        action that alone made it: :func:`change_payload`): delivered when the transaction commits,
        never for one rolled back."""
        if changes and conn.dialect.name == "postgresql":
            payloads = [change_payload(*change) for change in changes]
            conn.execute(_NOTIFY, [{"channel": CHANGES_CHANNEL, "payload": p} for p in payloads])

    def announce_notice(self, game_id: str, frame: dict[str, Any], skip: str | None = None) -> None:
        """NOTIFY every server process of a notice for the game's connections, except the one
        ``skip`` names (PostgreSQL only; web/bus.py)."""
        message: dict[str, Any] = {"game": game_id, "notice": frame}
        if skip is not None:
            message["skip"] = skip
        payload = json.dumps(message, separators=(",", ":"))
        if len(payload.encode()) > NOTICE_MAX_BYTES:
            raise StoreError(f"a notice of {len(payload)} bytes is too long for NOTIFY")
        with self.engine.begin() as conn:
            conn.execute(_NOTIFY, {"channel": CHANGES_CHANNEL, "payload": payload})

    def truncate_actions(self, game_id: str, keep: int, conn: Connection | None = None) -> None:
        """Undo: keep the first ``keep`` actions."""
        now = time.time()
        with self._begin(conn) as conn:
            conn.execute(actions.delete().where(actions.c.game_id == game_id, actions.c.idx >= keep))
            conn.execute(games.update().where(games.c.id == game_id).values(n_actions=keep, updated_at=now))

    def finish(self, game_id: str, result: dict[str, Any], conn: Connection | None = None) -> bool:
        """Mark a game over with its result; False, and nothing written, when it was over already
        (another server process ended it first: a timeout or abandonment is stored once)."""
        with self._begin(conn) as conn:
            done = conn.execute(
                games.update()
                .where(games.c.id == game_id, games.c.status == "active")
                .values(status="over", result=json.dumps(result), updated_at=time.time())
            )
            conn.execute(agent_turns.delete().where(agent_turns.c.game_id == game_id))
            return bool(done.rowcount == 1)

    def save_analysis(self, row: AnalysisRow, conn: Connection | None = None) -> bool:
        """Keep a game's analysis; False (and nothing written) if the game already has one: the
        first analysis stays, so a game's analysis never changes once shown."""
        with self._begin(conn) as conn:
            exists = conn.execute(
                sa.select(analyses.c.game_id).where(analyses.c.game_id == row.game_id)
            ).first()
            if exists is not None:
                return False
            conn.execute(
                analyses.insert().values(
                    game_id=row.game_id,
                    status=row.status,
                    body=json.dumps(row.body),
                    iterations=row.iterations,
                    seconds=row.seconds,
                    created_at=row.created_at or time.time(),
                )
            )
            return True

    def save_clock(self, game_id: str, clock: ClockRow, conn: Connection | None = None) -> None:
        """Create or update a game's clock (in the transaction of the action that moved it)."""
        values = {
            "control": clock.control,
            "remaining0": clock.remaining[0],
            "remaining1": clock.remaining[1],
            "running": clock.running,
            "deadline": clock.deadline,
        }
        with self._begin(conn) as conn:
            done = conn.execute(clocks.update().where(clocks.c.game_id == game_id).values(**values))
            if done.rowcount == 0:
                conn.execute(clocks.insert().values(game_id=game_id, **values))

    def expired_clocks(self, now: float, limit: int = 100) -> list[str]:
        """Active games whose running clock's deadline has passed at ``now`` (any server process
        sharing the database may end them)."""
        with self.engine.connect() as conn:
            query = (
                sa.select(clocks.c.game_id)
                .join(games, games.c.id == clocks.c.game_id)
                .where(clocks.c.deadline <= now, games.c.status == "active")
                .order_by(clocks.c.deadline)
                .limit(limit)
            )
            return [r.game_id for r in conn.execute(query)]

    def record_campaign(
        self, identity_id: str, level: int, won: bool, conn: Connection | None = None
    ) -> None:
        """Count a finished solo game at a rulebook level for ``identity_id``: a win is the best
        result and stays so."""
        now = time.time()
        with self._begin(conn) as conn:
            done = conn.execute(
                campaign.update()
                .where(campaign.c.identity_id == identity_id, campaign.c.level == level)
                .values(
                    played=campaign.c.played + 1,
                    won=campaign.c.won + (1 if won else 0),
                    best=sa.case((campaign.c.best == "won", "won"), else_="won" if won else "lost"),
                    updated_at=now,
                )
            )
            if done.rowcount == 0:
                conn.execute(
                    campaign.insert().values(
                        identity_id=identity_id,
                        level=level,
                        best="won" if won else "lost",
                        played=1,
                        won=1 if won else 0,
                        updated_at=now,
                    )
                )

    # ------------------------------------------------------------------ reads

    def campaign_of_identity(self, identity_id: str) -> list[CampaignLevel]:
        """The levels ``identity_id`` has played, lowest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                campaign.select().where(campaign.c.identity_id == identity_id).order_by(campaign.c.level)
            )
            return [CampaignLevel(r.level, r.best, r.played, r.won) for r in rows]

    def campaign_of(self, handle: str) -> list[CampaignLevel] | None:
        """The campaign of the identity with this handle (a player's page); None: no such player."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(identities.c.id).where(identities.c.handle == handle)).first()
        return None if row is None else self.campaign_of_identity(row.id)

    def load_clock(self, game_id: str) -> ClockRow | None:
        with self.engine.connect() as conn:
            c = conn.execute(clocks.select().where(clocks.c.game_id == game_id)).first()
            return None if c is None else _clock_row(c)

    def load_analysis(self, game_id: str) -> AnalysisRow | None:
        with self.engine.connect() as conn:
            a = conn.execute(analyses.select().where(analyses.c.game_id == game_id)).first()
            if a is None:
                return None
            return AnalysisRow(a.game_id, a.status, json.loads(a.body), a.iterations, a.seconds, a.created_at)

    def load_game(self, game_id: str) -> GameRow | None:
        """A game with its seats, clock and actions, all as of one moment: a copy loaded from it is
        at exactly its revision (web/sync.py), even while another process writes the game."""
        with self._snapshot() as conn:
            g = conn.execute(games.select().where(games.c.id == game_id)).first()
            if g is None:
                return None
            row = _game_row(g)
            agreed = conn.execute(
                sa.select(rated_games.c.agreed).where(rated_games.c.game_id == game_id)
            ).scalar_one_or_none()
            row.rated = agreed is True
            row.rated_offer = agreed is False
            row.seats = [
                SeatRow(s.seat, s.kind, s.name, s.agent, s.token_hash, s.owner)
                for s in conn.execute(seats.select().where(seats.c.game_id == game_id).order_by(seats.c.seat))
            ]
            c = conn.execute(clocks.select().where(clocks.c.game_id == game_id)).first()
            row.clock = None if c is None else _clock_row(c)
            row.actions = [
                (a.seat, a.action)
                for a in conn.execute(
                    actions.select().where(actions.c.game_id == game_id).order_by(actions.c.idx)
                )
            ]
            return row

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A read-only connection whose reads all see one moment of the database (PostgreSQL's
        REPEATABLE READ; SQLite's read transaction does so already)."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    def game_revision(self, game_id: str) -> int | None:
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(games.c.revision).where(games.c.id == game_id)
            ).scalar_one_or_none()
            return None if value is None else int(value)

    def list_games(
        self, *, status: str | None = None, owner: str | None = None, limit: int = 50
    ) -> list[GameRow]:
        """Newest first, with seats (not actions)."""
        with self.engine.connect() as conn:
            query = games.select()
            if status is not None:
                query = query.where(games.c.status == status)
            if owner is not None:
                query = query.where(games.c.id.in_(sa.select(seats.c.game_id).where(seats.c.owner == owner)))
            query = query.order_by(games.c.updated_at.desc()).limit(limit)
            rows = [_game_row(g) for g in conn.execute(query)]
            if rows:
                ids = [r.id for r in rows]
                by_id = {r.id: r for r in rows}
                for s in conn.execute(seats.select().where(seats.c.game_id.in_(ids)).order_by(seats.c.seat)):
                    by_id[s.game_id].seats.append(
                        SeatRow(s.seat, s.kind, s.name, s.agent, s.token_hash, s.owner)
                    )
                for c in conn.execute(clocks.select().where(clocks.c.game_id.in_(ids))):
                    by_id[c.game_id].clock = _clock_row(c)
            return rows

    # ------------------------------------------------------------------ identities

    def create_identity(self, row: IdentityRow, session_hash: str) -> None:
        """A new identity with its first session (fails on a handle or username taken)."""
        with self.engine.begin() as conn:
            conn.execute(
                identities.insert().values(
                    id=row.id,
                    handle=row.handle,
                    display_name=row.display_name,
                    username=row.username,
                    password_hash=row.password_hash,
                    created_at=time.time(),
                )
            )
            conn.execute(
                sessions.insert().values(
                    id_hash=session_hash, identity_id=row.id, legacy=False, created_at=time.time()
                )
            )

    def identity_of_session(self, session_hash: str, *, legacy: bool = False) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                identities.select()
                .join(sessions, sessions.c.identity_id == identities.c.id)
                .where(sessions.c.id_hash == session_hash, sessions.c.legacy == legacy)
            ).first()
            return _identity_row(row) if row is not None else None

    def identity_by_username(self, username: str) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(identities.select().where(identities.c.username == username)).first()
            return _identity_row(row) if row is not None else None

    def replace_session(self, identity_id: str, old_hash: str | None, new_hash: str) -> None:
        """A new session id for ``identity_id`` (login, account creation, a legacy cookie
        exchanged): the old one stops working in the same transaction (session fixation)."""
        with self.engine.begin() as conn:
            if old_hash is not None:
                conn.execute(sessions.delete().where(sessions.c.id_hash == old_hash))
            conn.execute(
                sessions.insert().values(
                    id_hash=new_hash, identity_id=identity_id, legacy=False, created_at=time.time()
                )
            )

    def end_session(self, session_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(sessions.delete().where(sessions.c.id_hash == session_hash))

    def set_display_name(self, identity_id: str, name: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(identities.update().where(identities.c.id == identity_id).values(display_name=name))

    def make_account(self, identity_id: str, username: str, password_hash: str) -> None:
        """A guest becomes an account (same id: its games stay its own); fails on a username taken."""
        with self.engine.begin() as conn:
            done = conn.execute(
                identities.update()
                .where(identities.c.id == identity_id, identities.c.username.is_(None))
                .values(username=username, password_hash=password_hash)
            )
            if done.rowcount != 1:
                raise StoreError("this identity has an account already")

    def set_password_hash(self, identity_id: str, password_hash: str) -> None:
        """A rehash at login when Argon2's parameters have changed."""
        with self.engine.begin() as conn:
            conn.execute(
                identities.update().where(identities.c.id == identity_id).values(password_hash=password_hash)
            )

    def merge_guest(self, guest_id: str, into_id: str) -> None:
        """A guest who signs in to an account: the guest's seats become the account's, except in
        games where the account holds a seat already (one person never gets both seats of a duel
        that way); a guest left with no seat is deleted."""
        with self.engine.begin() as conn:
            theirs = sa.select(seats.c.game_id).where(seats.c.owner == into_id)
            conn.execute(
                seats.update()
                .where(seats.c.owner == guest_id, seats.c.game_id.not_in(theirs))
                .values(owner=into_id)
            )
            left = conn.execute(sa.select(sa.func.count()).where(seats.c.owner == guest_id)).scalar()
            if not left:
                conn.execute(
                    identities.delete().where(identities.c.id == guest_id, identities.c.username.is_(None))
                )

    def delete_identity(self, identity_id: str, anonymous_name: str) -> None:
        """Delete a person: the identity, its sessions and its names; its games stay, their seats
        anonymised (no owner, no token: nobody can take them over)."""
        with self.engine.begin() as conn:
            conn.execute(
                seats.update()
                .where(seats.c.owner == identity_id)
                .values(owner=None, token_hash=None, name=anonymous_name)
            )
            conn.execute(sessions.delete().where(sessions.c.identity_id == identity_id))
            conn.execute(ratings.delete().where(ratings.c.identity_id == identity_id))
            conn.execute(rating_history.delete().where(rating_history.c.identity_id == identity_id))
            conn.execute(identities.delete().where(identities.c.id == identity_id))

    def claim_seat(self, game_id: str, seat: int, identity_id: str, conn: Connection | None = None) -> None:
        """The first identity to present a seat's token takes it; a second claim of the same seat
        fails with :class:`SeatTakenError` even when two arrive at once (one conditional UPDATE)."""
        with self._begin(conn) as conn:
            done = conn.execute(
                seats.update()
                .where(seats.c.game_id == game_id, seats.c.seat == seat, seats.c.owner.is_(None))
                .values(owner=identity_id)
            )
            if done.rowcount != 1:
                raise SeatTakenError(f"seat {seat} of game {game_id} has an owner")

    # ------------------------------------------------------------------ ratings

    def answer_rated_offer(self, game_id: str, accepted: bool, conn: Connection | None = None) -> None:
        """The invitee's answer to a friend duel offered as rated: rated from now on, or not at all."""
        with self._begin(conn) as conn:
            if accepted:
                conn.execute(rated_games.update().where(rated_games.c.game_id == game_id).values(agreed=True))
            else:
                conn.execute(rated_games.delete().where(rated_games.c.game_id == game_id))

    def rating(self, identity_id: str, fmt: str) -> tuple[float, float, int]:
        """(mu, sigma, rated games) of an identity in a format (a new player's when it has none)."""
        from .ratings import MU, SIGMA

        with self.engine.connect() as conn:
            r = conn.execute(
                sa.select(ratings.c.mu, ratings.c.sigma, ratings.c.games).where(
                    ratings.c.identity_id == identity_id, ratings.c.format == fmt
                )
            ).first()
        return (MU, SIGMA, 0) if r is None else (r.mu, r.sigma, r.games)

    def apply_rating(
        self, game_id: str, winner: str | None, players: tuple[str, str], conn: Connection | None = None
    ) -> bool:
        """Put a finished rated game's result into both players' ratings (``winner``: the winning
        identity, None for a draw).  Once per game: False, and nothing written, for a game that is
        not rated or was applied already (the conditional UPDATE makes two calls at once safe)."""
        from . import ratings as rt

        with self._begin(conn) as conn:
            g = conn.execute(rated_games.select().where(rated_games.c.game_id == game_id)).first()
            if g is None or not g.agreed or g.applied_at is not None or players[0] == players[1]:
                return False
            now = time.time()
            done = conn.execute(
                rated_games.update()
                .where(rated_games.c.game_id == game_id, rated_games.c.applied_at.is_(None))
                .values(applied_at=now)
            )
            if done.rowcount != 1:
                return False
            old: dict[str, tuple[float, float]] = {}
            exists: set[str] = set()
            for pid in players:
                r = conn.execute(
                    sa.select(ratings.c.mu, ratings.c.sigma).where(
                        ratings.c.identity_id == pid, ratings.c.format == g.format
                    )
                ).first()
                old[pid] = (rt.MU, rt.SIGMA) if r is None else (r.mu, r.sigma)
                if r is not None:
                    exists.add(pid)
            a, b = players
            if winner is None:
                new_a, new_b = rt.draw(old[a], old[b])
            else:
                loser = b if winner == a else a
                new_w, new_l = rt.rate(old[winner], old[loser])
                new_a, new_b = (new_w, new_l) if winner == a else (new_l, new_w)
            for pid, (mu, sigma) in ((a, new_a), (b, new_b)):
                won = int(winner == pid)
                lost = int(winner is not None and winner != pid)
                if pid in exists:
                    conn.execute(
                        ratings.update()
                        .where(ratings.c.identity_id == pid, ratings.c.format == g.format)
                        .values(
                            mu=mu,
                            sigma=sigma,
                            games=ratings.c.games + 1,
                            wins=ratings.c.wins + won,
                            losses=ratings.c.losses + lost,
                            updated_at=now,
                        )
                    )
                else:
                    conn.execute(
                        ratings.insert().values(
                            identity_id=pid,
                            format=g.format,
                            mu=mu,
                            sigma=sigma,
                            games=1,
                            wins=won,
                            losses=lost,
                            updated_at=now,
                        )
                    )
                conn.execute(
                    rating_history.insert().values(
                        identity_id=pid,
                        format=g.format,
                        game_id=game_id,
                        rating=rt.display(mu, sigma),
                        at=now,
                    )
                )
            return True

    def set_rating(
        self, identity_id: str, fmt: str, mu: float, sigma: float, games: int, wins: int, losses: int
    ) -> None:
        """Seed a rating (tests and imports of ratings kept elsewhere)."""
        with self.engine.begin() as conn:
            conn.execute(
                ratings.delete().where(ratings.c.identity_id == identity_id, ratings.c.format == fmt)
            )
            conn.execute(
                ratings.insert().values(
                    identity_id=identity_id,
                    format=fmt,
                    mu=mu,
                    sigma=sigma,
                    games=games,
                    wins=wins,
                    losses=losses,
                    updated_at=time.time(),
                )
            )

    def leaderboard(self, fmt: str, *, provisional: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """Players of a format, best conservative rating first.  Without ``provisional``, only
        accounts with at least LEADERBOARD_GAMES rated games (guests never: they cannot farm it)."""
        from . import ratings as rt

        conservative = ratings.c.mu - 3.0 * ratings.c.sigma
        query = (
            sa.select(
                identities.c.handle,
                identities.c.display_name,
                identities.c.username,
                ratings.c.mu,
                ratings.c.sigma,
                ratings.c.games,
                ratings.c.wins,
                ratings.c.losses,
            )
            .join(ratings, ratings.c.identity_id == identities.c.id)
            .where(ratings.c.format == fmt)
        )
        if not provisional:  # filtered and ordered in SQL: an answer never reads every player
            query = query.where(identities.c.username.is_not(None), ratings.c.games >= rt.LEADERBOARD_GAMES)
        query = query.order_by(conservative.desc(), ratings.c.games.desc(), identities.c.handle).limit(limit)
        with self.engine.connect() as conn:
            rows = list(conn.execute(query))
        return [
            {
                "name": r.display_name or r.handle,
                "handle": r.handle,
                "rating": rt.display(r.mu, r.sigma),
                "games": r.games,
                "wins": r.wins,
                "losses": r.losses,
                "provisional": r.username is None or r.games < rt.LEADERBOARD_GAMES,
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
            }
            for r in rows
        ]

    def decks_taken(self, game_ids: list[str]) -> dict[tuple[str, int], int]:
        """The preconstructed deck each seat took (its ``deck N`` action), by (game, seat)."""
        if not game_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(actions.c.game_id, actions.c.seat, actions.c.action).where(
                    actions.c.game_id.in_(game_ids), actions.c.action.like("deck %")
                )
            )
            out: dict[tuple[str, int], int] = {}
            for r in rows:
                number = r.action.split(" ", 1)[1]
                if number.isdigit():
                    out[(r.game_id, r.seat)] = int(number)
            return out

    def identity_by_handle(self, handle: str) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(identities.select().where(identities.c.handle == handle)).first()
            return _identity_row(row) if row is not None else None

    def player_ratings(self, identity_id: str) -> tuple[list[Any], list[Any]]:
        """An identity's ratings (one row per format) and its rating history, oldest first."""
        with self.engine.connect() as conn:
            rs = list(conn.execute(ratings.select().where(ratings.c.identity_id == identity_id)))
            hist = list(
                conn.execute(
                    rating_history.select()
                    .where(rating_history.c.identity_id == identity_id)
                    .order_by(rating_history.c.id)
                )
            )
        return rs, hist

    def close(self) -> None:
        self.engine.dispose()


_FORGET_AGENT_TURN = agent_turns.delete().where(agent_turns.c.game_id == sa.bindparam("g"))


def _mark_agent_turns(conn: Connection, writes: list[ActionWrite]) -> None:
    """Each game's last stored action says whether its agent is to decide next (web/leases.py)."""
    last = {w.game_id: w for w in writes if w.agent_next is not None}
    if not last:
        return
    conn.execute(_FORGET_AGENT_TURN, [{"g": game} for game in last])
    waiting = [{"game_id": w.game_id, "idx": w.idx + 1} for w in last.values() if w.agent_next]
    if waiting:
        conn.execute(agent_turns.insert(), waiting)


def _clock_row(c: Any) -> ClockRow:
    return ClockRow(c.control, (c.remaining0, c.remaining1), c.running, c.deadline)


def _identity_row(r: Any) -> IdentityRow:
    return IdentityRow(r.id, r.handle, r.display_name, r.username, r.password_hash)


def _game_row(g: Any) -> GameRow:
    return GameRow(
        id=g.id,
        kind=g.kind,
        mode=g.mode,
        format=g.format,
        seed=g.seed,
        setup=json.loads(g.setup),
        status=g.status,
        result=json.loads(g.result) if g.result else None,
        n_actions=g.n_actions,
        revision=g.revision,
        created_at=g.created_at,
        updated_at=g.updated_at,
    )


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
    return Store(engine)
