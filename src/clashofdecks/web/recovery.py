"""Recovery codes: a reset of a forgotten password that needs no e-mail (docs/web.md, "Identities
and accounts").

An account gets :data:`CODES` codes when it is made, shown once; only the SHA-256 of each is kept (a
code holds 60 random bits, so a fast hash is enough: guessing is throttled like a login, and the
space cannot be searched).  A code sets a new password once, then it is gone; the operator's
``clash admin reset-password`` is the way back for an owner who lost them all.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from . import logins
from .store_tables import identities, recovery_codes

CODES: Final = 8
#: Letters and digits no one confuses when copying a code by hand (no 0/o, 1/l/i).
_ALPHABET: Final = "abcdefghjkmnpqrstuvwxyz23456789"
_GROUPS: Final = 3
_GROUP_LEN: Final = 4


def new_codes(n: int = CODES) -> list[str]:
    """``n`` codes such as ``k7qm-x2ra-9bdt`` (12 characters of 31: about 59 bits each)."""
    return [
        "-".join("".join(secrets.choice(_ALPHABET) for _ in range(_GROUP_LEN)) for _ in range(_GROUPS))
        for _ in range(n)
    ]


def code_hash(code: str) -> str:
    """The kept form of a code: spaces, dashes and case do not matter when it is typed back."""
    typed = "".join(ch for ch in code.lower() if ch not in " -")
    return hashlib.sha256(typed.encode()).hexdigest()


def replace_codes(conn: Connection, identity_id: str, codes: list[str]) -> None:
    """``codes`` become the account's only codes (the old ones stop working)."""
    conn.execute(recovery_codes.delete().where(recovery_codes.c.identity_id == identity_id))
    now = time.time()
    conn.execute(
        recovery_codes.insert(),
        [{"identity_id": identity_id, "code_hash": code_hash(c), "created_at": now} for c in codes],
    )


def reset_with_code(engine: Engine, identity_id: str, code: str, new_hash: str) -> int | None:
    """Use ``code`` to set the password hash ``new_hash``: every session ends (their sockets close:
    web/signouts.py); the codes left, or None (nothing changed) when it is no code of the account."""
    with engine.begin() as conn:
        used = conn.execute(
            recovery_codes.delete().where(
                recovery_codes.c.identity_id == identity_id, recovery_codes.c.code_hash == code_hash(code)
            )
        )
        if used.rowcount != 1:
            return None
        conn.execute(identities.update().where(identities.c.id == identity_id).values(password_hash=new_hash))
    logins.end_sessions(engine, identity_id)
    return codes_left(engine, identity_id)


def codes_left(engine: Engine, identity_id: str) -> int:
    with engine.connect() as conn:
        query = sa.select(sa.func.count()).where(recovery_codes.c.identity_id == identity_id)
        return int(conn.execute(query).scalar() or 0)
