"""The store's games: creating one, its actions (the group commit's hot path, behind the game's
revision), its end, its clock, and reading a game back as of one moment."""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .bots import SEATS_WITH_BOT
from .store_core import NOTIFY, StoreCore, execute_compiled
from .store_rows import (
    CHANGES_CHANNEL,
    NOTICE_MAX_BYTES,
    ActionWrite,
    ClockRow,
    GameRow,
    SeatRow,
    StaleGameError,
    StoreError,
    Write,
    change_payload,
    clock_row_of,
    game_row_of,
)
from .store_tables import actions, agent_turns, clocks, games, rated_games, seats

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


#: A lone action's whole write on PostgreSQL, one statement (a round trip, where the group commit's
#: form takes five: BEGIN, UPDATE, INSERT, NOTIFY, COMMIT): the game's revision moved on only if it
#: is still the one expected (the UPDATE locks the row, so a second writer waits, then finds 0 rows),
#: the action stored and the change announced only if it did.  Data-modifying CTEs run once each,
#: to completion, whether the query reads them or not (PostgreSQL's manual, "WITH Queries").
_ALONE_MOVED = """WITH moved AS (
    UPDATE games SET n_actions = :n, updated_at = :now, revision = revision + 1
    WHERE id = :game AND revision = :expected
    RETURNING id
), stored AS (
    INSERT INTO actions (game_id, idx, seat, action, at) SELECT id, :idx, :seat, :action, :now FROM moved
)"""
_ALONE_ANNOUNCED = "\nSELECT pg_notify(:channel, :payload) FROM moved"
#: By ``ActionWrite.agent_next``: no agent seat; an agent to decide next (its turn kept); not.
_APPEND_ALONE = {
    None: sa.text(_ALONE_MOVED + _ALONE_ANNOUNCED),
    True: sa.text(
        _ALONE_MOVED
        + """, turn AS (
    INSERT INTO agent_turns (game_id, idx) SELECT id, :n FROM moved
    ON CONFLICT (game_id) DO UPDATE SET idx = excluded.idx
)"""
        + _ALONE_ANNOUNCED
    ),
    False: sa.text(
        _ALONE_MOVED
        + """, turn AS (
    DELETE FROM agent_turns WHERE game_id IN (SELECT id FROM moved)
)"""
        + _ALONE_ANNOUNCED
    ),
}


_FORGET_AGENT_TURN = agent_turns.delete().where(agent_turns.c.game_id == sa.bindparam("g"))
_INSERT_AGENT_TURN = agent_turns.insert()


class GameStore(StoreCore):
    """Games, their seats, actions and clocks."""

    def batch(self, writes: list[Write]) -> list[BaseException | None]:
        """Run ``writes`` in one transaction (one commit for many actions: the server's group
        commit; the actions among them go in with one statement per table).  If it fails, each
        write is retried alone, so one bad write fails only itself."""
        lone = writes[0] if len(writes) == 1 else None
        if (
            isinstance(lone, ActionWrite)
            and lone.revision is not None
            and self.engine.dialect.name == "postgresql"
        ):
            self.append_alone(lone)  # one round trip, not five
            return [None]
        try:
            with self.batch_connection() as conn, conn.begin():
                self._write_all(writes, conn)
            return [None] * len(writes)
        except Exception:
            if len(writes) == 1:
                raise
        errors: list[BaseException | None] = []
        for write in writes:
            try:
                with self.batch_connection() as conn, conn.begin():
                    self._write_all([write], conn)
                errors.append(None)
            except Exception as exc:
                errors.append(exc)
        return errors

    def append_alone(self, write: ActionWrite) -> None:
        """Store one checked action by itself on PostgreSQL in one statement, committed alone (the
        group commit's kept connection in autocommit): the same rows and notification as
        :meth:`append_actions`, and :class:`StaleGameError`, nothing written, when the game is not
        at ``write.revision``.  Human-paced games send their actions one by one (docs/performance.md)."""
        assert write.revision is not None
        params = {
            "game": write.game_id,
            "expected": write.revision,
            "n": write.idx + 1,
            "now": time.time(),
            "idx": write.idx,
            "seat": write.seat,
            "action": write.text,
            "channel": CHANGES_CHANNEL,
            "payload": change_payload(write.game_id, write.revision + 1, write if write.alone else None),
        }
        with self.statement_alone() as conn:
            moved = conn.execute(_APPEND_ALONE[write.agent_next], params).first()
        if moved is None:
            raise StaleGameError(f"game {write.game_id} changed in the store since this process last read it")

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
            if row.actions:  # one executemany: a 2,000-action import is one statement, not 2,000
                conn.execute(
                    actions.insert(),
                    [
                        {"game_id": row.id, "idx": i, "seat": seat, "action": text, "at": now}
                        for i, (seat, text) in enumerate(row.actions)
                    ],
                )
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
                done = execute_compiled(conn, _ADVANCE_GAME_AT, params)
                if done.rowcount != len(checked):
                    raise StaleGameError("a game changed in the store since this process last read it")
            if unchecked:
                execute_compiled(
                    conn, _ADVANCE_GAME, [{"game": w.game_id, "n": w.idx + 1, "now": now} for w in unchecked]
                )
            execute_compiled(
                conn,
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
            conn.execute(NOTIFY, {"channel": CHANGES_CHANNEL, "payload": payload})

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

    def load_clock(self, game_id: str) -> ClockRow | None:
        with self.engine.connect() as conn:
            c = conn.execute(clocks.select().where(clocks.c.game_id == game_id)).first()
            return None if c is None else clock_row_of(c)

    def load_game(self, game_id: str) -> GameRow | None:
        """A game with its seats, clock and actions, all as of one moment: a copy loaded from it is
        at exactly its revision (web/sync.py), even while another process writes the game."""
        with self._snapshot() as conn:
            g = conn.execute(games.select().where(games.c.id == game_id)).first()
            if g is None:
                return None
            row = game_row_of(g)
            agreed = conn.execute(
                sa.select(rated_games.c.agreed).where(rated_games.c.game_id == game_id)
            ).scalar_one_or_none()
            row.rated = agreed is True
            row.rated_offer = agreed is False
            row.seats = [
                SeatRow(s.seat, s.kind, s.name, s.agent, s.token_hash, s.owner, bool(s.is_bot))
                for s in conn.execute(SEATS_WITH_BOT.where(seats.c.game_id == game_id).order_by(seats.c.seat))
            ]
            c = conn.execute(clocks.select().where(clocks.c.game_id == game_id)).first()
            row.clock = None if c is None else clock_row_of(c)
            row.actions = [
                (a.seat, a.action)
                for a in conn.execute(
                    actions.select().where(actions.c.game_id == game_id).order_by(actions.c.idx)
                )
            ]
            return row

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
            rows = [game_row_of(g) for g in conn.execute(query)]
            if rows:
                ids = [r.id for r in rows]
                by_id = {r.id: r for r in rows}
                in_games = SEATS_WITH_BOT.where(seats.c.game_id.in_(ids)).order_by(seats.c.seat)
                for s in conn.execute(in_games):
                    by_id[s.game_id].seats.append(
                        SeatRow(s.seat, s.kind, s.name, s.agent, s.token_hash, s.owner, bool(s.is_bot))
                    )
                for c in conn.execute(clocks.select().where(clocks.c.game_id.in_(ids))):
                    by_id[c.game_id].clock = clock_row_of(c)
            return rows

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


def _mark_agent_turns(conn: Connection, writes: list[ActionWrite]) -> None:
    """Each game's last stored action says whether its agent is to decide next (web/leases.py)."""
    last = {w.game_id: w for w in writes if w.agent_next is not None}
    if not last:
        return
    execute_compiled(conn, _FORGET_AGENT_TURN, [{"g": game} for game in last])
    waiting = [{"game_id": w.game_id, "idx": w.idx + 1} for w in last.values() if w.agent_next]
    if waiting:
        execute_compiled(conn, _INSERT_AGENT_TURN, waiting)
