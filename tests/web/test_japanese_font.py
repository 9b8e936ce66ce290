"""The Japanese web font ships every character of the app's Japanese words (outside ASCII, which
style.css leaves to the system font, as every other language does), with its licence."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from clashofdecks.web import fontsubset

ROOT = Path(__file__).resolve().parents[2]


def test_the_collection_reads_every_source_of_japanese_words() -> None:
    texts = fontsubset.japanese_text()
    assert "クラッシュ・オブ・デッキ" in texts  # the page's words (the catalog's web. messages)
    assert "プレイヤー" in texts  # a UI word of the catalog
    assert any(t.startswith("R1.3 手札はライフ") for t in texts)  # the rules summary of /api/rules
    assert "貫通" in texts  # an ability name of the card data (/api/cards)
    tutorial = fontsubset._tutorial_texts("ja")
    assert tutorial and set(tutorial) <= set(texts)  # the tutorial's Japanese texts
    assert all(t.strip() for t in texts), "an empty Japanese entry"


def test_every_character_of_the_japanese_words_is_in_the_font() -> None:
    pytest.importorskip("fontTools", reason="fontTools (the dev extra) reads the font's cmap")
    from fontTools.ttLib import TTFont

    cmap = TTFont(str(fontsubset.FONT_PATH))["cmap"].getBestCmap()
    chars = fontsubset.characters(fontsubset.japanese_text())
    missing = "".join(c for c in chars if ord(c) not in cmap)
    assert not missing, f"not in the font (run `make font`): {missing!r}"
    assert "城" in chars and "・" in chars and "a" not in chars  # ASCII stays the system font's
    assert fontsubset.missing_characters() == ""


def test_the_font_ships_in_the_package_with_its_licence() -> None:
    fonts = fontsubset.FONT_PATH.parent
    assert fontsubset.FONT_PATH.stat().st_size < 200_000  # a subset, not the 19 MB collection
    licence = (fonts / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and "Copyright 2014-2021 Adobe" in licence
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "web/static/fonts/*" in package_data["clashofdecks"]
