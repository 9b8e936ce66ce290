"""Passwords people may not choose: those of a list of common passwords, as NIST SP 800-63B
(5.1.1.2) asks of a verifier.  The list is the 30,000 most frequent passwords of public breaches
that the ``zxcvbn`` package ships and keeps (``zxcvbn.frequency_lists``), not a list typed here."""

from __future__ import annotations

import functools

#: Passwords this long and longer are passphrases, not in any breach list's head: not looked up.
_LONGEST_LISTED = 64


@functools.cache
def _common() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # type: ignore[import-untyped]

    return frozenset(str(p) for p in FREQUENCY_LISTS["passwords"])


def is_common(password: str) -> bool:
    """Whether ``password`` (compared in lower case, as the list is) is a common password."""
    return len(password) < _LONGEST_LISTED and password.lower() in _common()
