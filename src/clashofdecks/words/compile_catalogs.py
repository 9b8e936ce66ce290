"""Compile the word catalogs: each ``locale/<lang>/LC_MESSAGES/clashofdecks.po`` to the ``.mo``
beside it, which the program reads (:mod:`clashofdecks.words.catalog`).

``python -m clashofdecks.words.compile_catalogs [DIR]`` compiles; ``--check`` only says which compiled
files differ from their source (exit 1).  Needs Babel (the ``dev`` extra): playing needs only the
compiled files and the standard library.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from .catalog import DOMAIN, locale_dir, read_mo


def po_messages(po: Path) -> dict[str, str]:
    """The translated messages of a PO file (as :func:`compile_po` would write them)."""
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, domain=DOMAIN)
    return {str(m.id): str(m.string) for m in catalog if m.id and m.string}


def compile_po(po: Path) -> bytes:
    """The ``.mo`` bytes of a PO file (fuzzy entries left out, as gettext's msgfmt does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def stale(directory: Path | None = None) -> list[Path]:
    """The PO files whose compiled catalog is missing or says something else."""
    root = directory or locale_dir()
    out = []
    for po in sorted(root.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists():
            out.append(po)
            continue
        compiled = read_mo(mo)
        compiled.pop("", None)
        if compiled != po_messages(po):
            out.append(po)
    return out


def compile_all(directory: Path | None = None) -> list[Path]:
    """Write every catalog's ``.mo``; the files written."""
    root = directory or locale_dir()
    written = []
    for po in sorted(root.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        po.with_suffix(".mo").write_bytes(compile_po(po))
        written.append(po.with_suffix(".mo"))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("directory", nargs="?", type=Path, help="folder of catalogs (default: the package's)")
    parser.add_argument(
        "--check", action="store_true", help="only report compiled files that are out of date"
    )
    args = parser.parse_args(argv)
    if args.check:
        old = stale(args.directory)
        for po in old:
            print(f"out of date: {po.with_suffix('.mo')}")
        return 1 if old else 0
    for mo in compile_all(args.directory):
        print(f"wrote {mo}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
