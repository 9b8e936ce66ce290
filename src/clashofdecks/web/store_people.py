"""The store's identities: guests and accounts, their sessions, and the seats they hold."""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from . import lineage as lineages
from .store_core import StoreCore
from .store_rows import IdentityRow, SeatTakenError, StoreError, identity_row
from .store_tables import identities, rating_history, ratings, seats, sessions


class IdentityStore(StoreCore):
    """Identities, sessions and seat claims."""

    def create_identity(self, row: IdentityRow, session_hash: str, lineage: str | None = None) -> str:
        """A new identity with its first session (fails on a handle or username taken), made in the
        browser ``lineage`` (None: a new one); the lineage."""
        lineage = lineage or lineages.new_lineage()
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
                    id_hash=session_hash,
                    identity_id=row.id,
                    legacy=False,
                    created_at=time.time(),
                    lineage=lineage,
                )
            )
            lineages.link(conn, lineage, row.id, time.time())
        return lineage

    def identity_of_session(self, session_hash: str, *, legacy: bool = False) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                identities.select()
                .join(sessions, sessions.c.identity_id == identities.c.id)
                .where(sessions.c.id_hash == session_hash, sessions.c.legacy == legacy)
            ).first()
            return identity_row(row) if row is not None else None

    def identity_by_username(self, username: str) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(identities.select().where(identities.c.username == username)).first()
            return identity_row(row) if row is not None else None

    def identity_by_handle(self, handle: str) -> IdentityRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(identities.select().where(identities.c.handle == handle)).first()
            return identity_row(row) if row is not None else None

    def replace_session(
        self, identity_id: str, old_hash: str | None, new_hash: str, lineage: str | None = None
    ) -> str:
        """A new session id for ``identity_id`` (login, account creation, a legacy cookie
        exchanged): the old one stops working in the same transaction (session fixation).  The
        new session keeps the browser's lineage (``lineage``, else the old session's, else a new
        one), which is returned."""
        with self.engine.begin() as conn:
            if old_hash is not None:
                lineage = lineage or lineages.of_session(conn, old_hash)
                conn.execute(sessions.delete().where(sessions.c.id_hash == old_hash))
            lineage = lineage or lineages.new_lineage()
            conn.execute(
                sessions.insert().values(
                    id_hash=new_hash,
                    identity_id=identity_id,
                    legacy=False,
                    created_at=time.time(),
                    lineage=lineage,
                )
            )
            lineages.link(conn, lineage, identity_id, time.time())
        return lineage

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

    def claim_seat(
        self, game_id: str, seat: int, identity_id: str, conn: Connection | None = None, name: str = ""
    ) -> None:
        """The first identity to present a seat's token takes it; a second claim of the same seat
        fails with :class:`SeatTakenError` even when two arrive at once (one conditional UPDATE)."""
        with self._begin(conn) as conn:
            done = conn.execute(
                seats.update()
                .where(seats.c.game_id == game_id, seats.c.seat == seat, seats.c.owner.is_(None))
                .values(owner=identity_id, **({"name": name} if name else {}))
            )
            if done.rowcount != 1:
                raise SeatTakenError(f"seat {seat} of game {game_id} has an owner")
