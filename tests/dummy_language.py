"""A dummy language for the tests that adding a language is adding files: a copy of the package's
catalogs plus ``xx``, the English catalog with every message marked ``[xx]``, compiled with Babel."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

MARK = "[xx] "


def make_dummy_locale(folder: Path) -> Path:
    """A folder of catalogs: the package's four languages and ``xx``; returns the folder."""
    pytest.importorskip("babel", reason="Babel (the dev extra) compiles the catalogs")
    from babel.messages.pofile import read_po, write_po

    from clashofdecks.words import catalog
    from clashofdecks.words.compile_catalogs import compile_all

    root = folder / "locale"
    shutil.copytree(catalog.locale_dir(), root)
    with (root / "en" / "LC_MESSAGES" / "clashofdecks.po").open("rb") as f:
        po = read_po(f, domain=catalog.DOMAIN)
    for message in po:
        if message.id and isinstance(message.string, str):
            message.string = "Dummy" if message.id == "language.name" else MARK + message.string
    po.locale = None  # keep the English header's Plural-Forms; the language is named by its folder
    out = root / "xx" / "LC_MESSAGES" / "clashofdecks.po"
    out.parent.mkdir(parents=True)
    with out.open("wb") as f:
        write_po(f, po)
    compile_all(root)
    return root
