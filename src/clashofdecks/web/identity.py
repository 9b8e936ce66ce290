"""Identities of the web app: guests, accounts, sessions, and the checks on what people type.

A first visit gets a guest identity (a generated unique handle and an editable display name); an
account adds a unique username and a password hashed with Argon2id (``argon2-cffi``), so the same
person can sign in on another device.  The browser holds only a session id (an HttpOnly cookie);
the database holds its SHA-256, never the id.  ``docs/web.md`` ("Identities and accounts").
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .names import MAX_NAME, NameRefused, checked_name
from .passwords import is_common

SESSION_COOKIE: Final = "clash_session"
#: The former release's player cookie, exchanged once for a session (migration 0002_identities).
LEGACY_COOKIE: Final = "clash_player"

MAX_DISPLAY_NAME: Final = MAX_NAME
USERNAME_RE: Final = re.compile(r"[a-z0-9][a-z0-9_.-]{2,31}")
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256

#: Argon2id with argon2-cffi's defaults (RFC 9106's second recommended setting: 3 passes, 64 MiB).
_hasher: Final = PasswordHasher()
#: Verified against when the username is unknown, so an unknown name costs as long as a wrong
#: password (the answer's timing does not tell which usernames exist).
_DUMMY_HASH: Final = _hasher.hash(secrets.token_urlsafe(16))


class InputError(ValueError):
    """A name, username or password that is refused (the message says why)."""


def new_session_id() -> str:
    return secrets.token_urlsafe(32)


def session_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def new_identity_id() -> str:
    return secrets.token_hex(16)


def new_handle() -> str:
    """``guest-`` and 10 random hex digits (40 bits: the database's unique index settles the
    unlikely collision, and the caller tries again)."""
    return "guest-" + secrets.token_hex(5)


def display_name(value: Any) -> str:
    """A display name: text of 1-40 characters after trimming, NFC, no control or format characters
    (no line breaks, no bidirectional overrides that would reorder what others see): web/names.py,
    the rule of every name."""
    try:
        return checked_name(value)
    except NameRefused as exc:
        raise InputError(str(exc)) from None


def username(value: Any) -> str:
    """A username: 3-32 of a-z, 0-9, ``_ . -`` (starting with a letter or digit), case-insensitive
    (stored in lower case, so ``Ada`` and ``ada`` are one account)."""
    if not isinstance(value, str) or not USERNAME_RE.fullmatch(value.lower()):
        raise InputError("a username has 3 to 32 characters: letters a-z, digits, '_', '.', '-'")
    return value.lower()


def password(value: Any) -> str:
    if not isinstance(value, str):
        raise InputError("the password must be text")
    if len(value) < MIN_PASSWORD or len(value) > MAX_PASSWORD:
        raise InputError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if "\x00" in value:
        raise InputError("the password has a NUL character")
    return value


def new_password(value: Any) -> str:
    """A password chosen now (sign-up, a change): :func:`password`'s rules, and not a common one
    (NIST SP 800-63B; web/passwords.py).  Signing in checks only :func:`password`'s."""
    pw = password(value)
    if is_common(pw):
        raise InputError("that password is one of the most common ones; choose another")
    return pw


def hash_password(pw: str) -> str:
    return _hasher.hash(pw)


def verify_password(stored: str | None, pw: str) -> tuple[bool, str | None]:
    """(matches, a new hash when the stored one used older Argon2 parameters)."""
    try:
        _hasher.verify(stored or _DUMMY_HASH, pw)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False, None
    if stored is None:
        return False, None
    return True, (_hasher.hash(pw) if _hasher.check_needs_rehash(stored) else None)
