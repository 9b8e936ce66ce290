"""The Japanese web font: a subset of Noto Sans CJK JP with exactly the characters the app shows.

A machine without a Japanese font shows Japanese as empty boxes, so the app ships its own: the
characters of every Japanese word the pages can show, cut from Noto Sans CJK JP (SIL Open Font
License 1.1, the licence file is beside the font) and stored as WOFF2.  ``style.css`` uses it only
for ``:lang(ja)`` and only for characters outside ASCII (``unicode-range``): ASCII (card names,
numbers, rule numbers, the action notation) is drawn by the system font as in every other
language, which every machine has, and the line metrics stay the system font's, so card faces keep
the layout the browser tests check.

Rebuild it after the Japanese words change (``tests/web/test_japanese_font.py`` fails until then)::

    make font                                   # or:
    python -m clashofdecks.web.fontsubset --source /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

The source font comes from Debian's ``fonts-noto-cjk`` package; building needs fontTools and brotli
(the ``dev`` extra).  Serving needs neither: the WOFF2 file is a static file of the package.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"
FONT_PATH = STATIC / "fonts" / "NotoSansJP-clash.woff2"
TUTORIAL = Path(__file__).resolve().parents[1] / "data" / "tutorial.json"
DEFAULT_SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
#: The face of the collection to cut from (the collection also holds the KR, SC, TC and HK faces,
#: whose kanji shapes differ from Japanese ones).
SOURCE_FAMILY = "Noto Sans CJK JP"
#: The face covers only characters from here on (``unicode-range`` in style.css): ASCII stays the
#: system font's.
FIRST_CHARACTER = 0x80


#: Hiragana and katakana (U+3041-U+309F, U+30A0-U+30FF), the script of most names typed in Japanese.
KANA = "".join(chr(c) for c in range(0x3041, 0x3100) if chr(c).isprintable())


def japanese_text() -> list[str]:
    """Every Japanese string the app can show: the one place that knows where they live.

    They are the Japanese word catalog (``locale/ja``: the page's ``web.`` words, the UI words, event
    and action sentences, prompts, ability help and the rules summary the server sends), the
    Japanese ability names of the card data (``/api/cards``) and the tutorial's Japanese texts
    (``data/tutorial.json``); and every hiragana and katakana, so a name a player types in kana is
    drawn too (names are the players' own: kanji are too many to ship)."""
    from ..cards import ABILITY_NAMES
    from ..words.catalog import catalogs

    texts = [text for text in catalogs()["ja"].messages.values() if text]
    texts.extend(names["ja"] for names in ABILITY_NAMES.values() if "ja" in names)
    texts.extend(_tutorial_texts("ja"))
    texts.append(KANA)
    return texts


def _tutorial_texts(lang: str) -> list[str]:
    """The strings of the tutorial data file in ``lang`` (its steps' ``text.<lang>`` fields)."""
    data = json.loads(TUTORIAL.read_text(encoding="utf-8"))
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for step in data["steps"]:
        walk(step.get("text", {}).get(lang))
    return [text for text in out if text]


def characters(texts: Iterable[str]) -> str:
    """The characters the font must hold: those of ``texts`` outside ASCII (see FIRST_CHARACTER)."""
    chars = {c for text in texts for c in text if ord(c) >= FIRST_CHARACTER and c.isprintable()}
    return "".join(sorted(chars))


def _japanese_face(source: Path) -> int:
    """The index of the Japanese face in a font collection (0 for a single font)."""
    from fontTools.ttLib import TTCollection

    if source.suffix.lower() not in (".ttc", ".otc"):
        return 0
    collection: Any = TTCollection(str(source), lazy=True)
    for index, font in enumerate(collection.fonts):
        if font["name"].getDebugName(1) == SOURCE_FAMILY:
            return index
    raise ValueError(f"{source} holds no {SOURCE_FAMILY!r} face")


def build(source: Path, out: Path = FONT_PATH) -> int:
    """Cut the subset from ``source`` into ``out`` (WOFF2); returns its size in bytes."""
    from fontTools import subset

    chars = characters(japanese_text())
    options: Any = subset.Options()
    options.flavor = "woff2"
    options.font_number = _japanese_face(source)
    options.hinting = False  # browsers rasterise CJK outlines well without hints; a third smaller
    options.desubroutinize = True  # WOFF2's compression does better on plain outlines
    options.layout_features = ["ccmp", "locl", "kern"]  # no vertical or proportional forms: unused
    font: Any = subset.load_font(str(source), options)
    subsetter: Any = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(out), options)
    return out.stat().st_size


def missing_characters(font_path: Path = FONT_PATH) -> str:
    """The characters of :func:`characters` that the shipped font lacks (empty when in step)."""
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(font_path))["cmap"].getBestCmap()
    return "".join(c for c in characters(japanese_text()) if ord(c) not in cmap)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="Noto Sans CJK (.ttc or .otf)")
    parser.add_argument("--out", type=Path, default=FONT_PATH)
    args = parser.parse_args(argv)
    if not args.source.exists():
        print(f"{args.source} not found: apt-get install fonts-noto-cjk, or pass --source", file=sys.stderr)
        return 2
    size = build(args.source, args.out)
    count = len(characters(japanese_text()))
    print(f"{args.out}: {count} characters, {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
