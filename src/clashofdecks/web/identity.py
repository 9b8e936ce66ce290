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
import unicodedata
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

SESSION_COOKIE: Final = "clash_session"
#: The former release's player cookie, exchanged once for a session (migration 0002_identities).
LEGACY_COOKIE: Final = "clash_player"

MAX_DISPLAY_NAME: Final = 40
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
    (no line breaks, no bidirectional overrides that would reorder what others see)."""
    if not isinstance(value, str):
        raise InputError("the name must be text")
    name = unicodedata.normalize("NFC", value).strip()
    if not name or len(name) > MAX_DISPLAY_NAME:
        raise InputError(f"the name must have 1 to {MAX_DISPLAY_NAME} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in name):
        raise InputError("the name has a control or invisible character")
    return name


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
