"""Test files have unique names: pytest imports them by basename, so a twin stops the whole run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_two_test_files_share_a_name() -> None:
    names = Counter(p.name for d in ("tests", "mtgrules/tests") for p in (ROOT / d).rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1]
