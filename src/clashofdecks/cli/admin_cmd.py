"""``clash admin``: an operator's tools on the web app's database (docs/deploy.md, "Operator
commands"): disable an account, sign an identity out everywhere, reset a password, read a rated
game's review record, prune old sessions and guests.  They work on the database directly, beside
running servers; a socket a server holds open with a session ended here closes at that server's
next watch tick (web/signouts.py)."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING

import click

from .common import missing_web_modules

if TYPE_CHECKING:
    from ..web.store import Store


def _store(database_url: str | None) -> Store:
    missing = missing_web_modules()
    if missing:
        raise click.ClickException("clash admin needs the web extra: pip install -e '.[web]'")
    from ..web.store import open_store

    return open_store(database_url)


_database = click.option(
    "--database",
    "database_url",
    default=None,
    help="Database URL (as clash serve's --database); default: the SQLite file of the data directory.",
)


@click.group()
def admin() -> None:
    """Operator commands on the web app's accounts and identities."""


def _identity_id(store: Store, who: str) -> str:
    """The identity of a username or a handle (``guest-…``)."""
    find = store.identity_by_username(who.lower()) or store.identity_by_handle(who)
    if find is None:
        raise click.ClickException(f"no account or identity {who!r}")
    return str(find.id)


@admin.command("sign-out")
@click.argument("who")
@_database
def sign_out(who: str, database_url: str | None) -> None:
    """End every session of an account (username) or identity (handle): signed out everywhere."""
    from ..web import logins

    store = _store(database_url)
    try:
        ended = logins.end_sessions(store.engine, _identity_id(store, who))
    finally:
        store.close()
    click.echo(f"{who}: {ended} session(s) ended")


@admin.command("disable")
@click.argument("username")
@_database
def disable(username: str, database_url: str | None) -> None:
    """Disable an account: no password signs in to it and every session ends (its games stay).
    ``clash admin reset-password`` enables it again."""
    from ..web import logins

    store = _store(database_url)
    try:
        identity = _identity_id(store, username)
        with store.engine.begin() as conn:
            from ..web.store_tables import identities, recovery_codes

            conn.execute(identities.update().where(identities.c.id == identity).values(password_hash=None))
            # No recovery code opens it again either.
            conn.execute(recovery_codes.delete().where(recovery_codes.c.identity_id == identity))
        ended = logins.end_sessions(store.engine, identity)
    finally:
        store.close()
    click.echo(f"{username}: disabled, {ended} session(s) ended")


@admin.command("reset-password")
@click.argument("username")
@_database
def reset_password(username: str, database_url: str | None) -> None:
    """Give an account a new random password (printed once, to hand to its owner, who changes it
    on /account) and end its sessions.  No e-mail is needed."""
    from ..web import identity as ident
    from ..web import logins

    store = _store(database_url)
    try:
        identity = _identity_id(store, username)
        password = secrets.token_urlsafe(12)
        store.set_password_hash(identity, ident.hash_password(password))
        logins.succeeded(store.engine, logins.account_key(username.lower()))
        ended = logins.end_sessions(store.engine, identity)
    finally:
        store.close()
    click.echo(f"{username}: new password {password}  ({ended} session(s) ended)")


@admin.command("review")
@click.argument("game")
@_database
def review(game: str, database_url: str | None) -> None:
    """Print the review record of a rated game (JSON): each seat's player, hashed addresses,
    browser lineages, reconnects, refused hints and seconds per move.  Only here: no web page
    shows it."""
    import json

    from ..web import reviews

    store = _store(database_url)
    try:
        record = reviews.review_of(store.engine, game)
    finally:
        store.close()
    if record is None:
        raise click.ClickException(f"no review record of a rated game {game!r} (none, or pruned)")
    click.echo(json.dumps(record, indent=2, ensure_ascii=False))


@admin.command("prune")
@_database
@click.option("--session-days", default=30.0, show_default=True, help="Sessions unused this long end.")
@click.option("--review-days", default=90.0, show_default=True, help="Review records kept this long.")
def prune(database_url: str | None, session_days: float, review_days: float) -> None:
    """Delete sessions unused for --session-days, guests left with no session and no game,
    forgotten login counts and review records older than --review-days (a running server does
    this every hour too)."""
    from ..web import logins
    from ..web.limits import Caps

    store = _store(database_url)
    caps = Caps(session_days=session_days, review_days=review_days)
    try:
        counts = logins.prune(store.engine, time.time(), caps)
    finally:
        store.close()
    click.echo(", ".join(f"{n} {what.replace('_', ' ')}" for what, n in counts.items()) + " deleted")
