"""The one rule for every name a person or a record can set: display names, the seat names of a new
game, the player names of an imported record, a ``hello``'s name (docs/web.md, "Identities").

1-40 characters after trimming and NFC; no control, format (bidirectional overrides, zero-width),
surrogate, private-use or unassigned characters, so no name reorders or hides what others see, and
no NUL reaches the database."""

from __future__ import annotations

import unicodedata
from typing import Any, Final

MAX_NAME: Final = 40
_REFUSED_CATEGORIES: Final = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))


class NameRefused(ValueError):
    """A name that breaks the rule (the message says how)."""


def checked_name(value: Any, what: str = "the name") -> str:
    """``value`` as a name (trimmed, NFC), or :class:`NameRefused`."""
    if not isinstance(value, str):
        raise NameRefused(f"{what} must be text")
    name = unicodedata.normalize("NFC", value).strip()
    if not name or len(name) > MAX_NAME:
        raise NameRefused(f"{what} must have 1 to {MAX_NAME} characters")
    if any(unicodedata.category(c) in _REFUSED_CATEGORIES for c in name):
        raise NameRefused(f"{what} has a control or invisible character")
    return name


def optional_name(value: Any, what: str = "the name") -> str:
    """A name that may be left empty (blank: ``""``, the default name is used)."""
    if isinstance(value, str) and not value.strip():
        return ""
    return checked_name(value, what)
