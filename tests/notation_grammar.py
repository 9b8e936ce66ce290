"""The action notation as a regular expression, built from the grammar table of docs/formats.md
("Text actions"), for the tests that no player-facing text is notation (issue 22, item 1).

Notation here is what the issue defines: a verb of the grammar followed by a card id in capitals
(``play BRUTE top``, ``order OGRE TROLL``), ``chance coin N``, a target address (``1.top.0``), or a
bare ``next``, ``end`` or ``deck N``.  Card names as printed ("Brute", "Boom!") are not card ids.
"""

from __future__ import annotations

import re
from pathlib import Path

FORMATS_MD = Path(__file__).resolve().parent.parent / "docs" / "formats.md"


def grammar_verbs() -> set[str]:
    """The verbs of the "Text actions" table: the first word of each action cell."""
    text = FORMATS_MD.read_text(encoding="utf-8")
    section = text.split("## Text actions", 1)[1].split("\n## ", 1)[0]
    verbs = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            cell = line.split("|")[1]
            verbs |= {code.split()[0] for code in re.findall(r"`([^`]+)`", cell)}
    return verbs


def notation_regex() -> re.Pattern[str]:
    verbs = grammar_verbs()
    bare = sorted(v for v in verbs if v in ("next", "end"))
    with_args = sorted(verbs - set(bare))
    assert {"play", "cast", "order", "deck", "pick", "build", "ban", "chance"} <= set(with_args), verbs
    assert bare == ["end", "next"], verbs
    card_id = r"[A-Z][A-Z0-9_]+\b"
    return re.compile(
        rf"(?i:\b(?:{'|'.join(with_args)})\b)\s+(?:{card_id}|(?i:coin)\s+\d)"  # verb + a card id in capitals
        r"|\b[01]\.(?i:top|bottom)\.\d+\b"  # a target address
        rf"|^\s*(?i:{'|'.join(bare)}|deck\s+\d+)\s*$",  # a bare next, end or deck N
        re.MULTILINE,
    )


NOTATION = notation_regex()


def is_notation(text: str) -> bool:
    return NOTATION.search(text) is not None


#: Where a page shows a player words (buttons, move-list entries, the prompt, log lines, the hint).
PLAYER_TEXT = (
    ("button", "button"),
    ("move", "[data-testid=moves] li"),
    ("prompt", "[data-testid=prompt]"),
    ("log", "[data-testid=log] li"),
    ("hint", "[data-testid=hint-result]"),
)


def notation_on_screen(page: object) -> list[tuple[str, str]]:
    """(where, text) for each visible player text of a Playwright ``page`` that is notation (the
    move list's hidden ``.notation`` spans, shown only by the notation toggle, do not count)."""
    found: list[tuple[str, str]] = []
    for where, selector in PLAYER_TEXT:
        for text in page.locator(selector).all_inner_texts():  # type: ignore[attr-defined]
            if is_notation(text):
                found.append((where, text))
    return found
