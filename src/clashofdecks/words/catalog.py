"""The catalogs of words: one gettext catalog per language, read with the standard library.

Every word a player reads — the terminal's screens, the web page, the environments' board text — is
a message of the catalog ``clashofdecks`` of its language:
``src/clashofdecks/locale/<lang>/LC_MESSAGES/clashofdecks.po`` is the source people edit (gettext's
PO format, handled with Babel), ``clashofdecks.mo`` beside it the compiled file read here at run time
(``python -m clashofdecks.words.compile_catalogs`` writes it; a test checks it is current).  Messages
are named by key (``ui.hand``, ``event.played``, ``web.undo``, ``rules.03``) and the English catalog
is the fallback for a key a language lacks.  The languages are the folders that hold a compiled
catalog, so adding a language is adding its two files.  ``CLASH_LOCALE_DIR`` points the whole
program at another folder of catalogs (how a test adds a dummy language).
"""

from __future__ import annotations

import gettext
import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

DOMAIN: Final = "clashofdecks"
ENV_VAR: Final = "CLASH_LOCALE_DIR"
FALLBACK: Final = "en"
_PACKAGE_DIR: Final = Path(__file__).resolve().parent.parent / "locale"


class CatalogError(ValueError):
    """A compiled catalog that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Catalog:
    """One language's messages by key and its plural rule (from the catalog's Plural-Forms)."""

    lang: str
    messages: Mapping[str, str]
    plural: Callable[[int], int]

    def singular(self, n: object) -> bool:
        """Whether the count ``n`` takes the language's first (singular) form: English 1, French 0
        and 1, Japanese every number."""
        if not isinstance(n, int) or isinstance(n, bool):
            return False
        return self.plural(n) == 0


def locale_dir() -> Path:
    """The folder of catalogs in use: ``$CLASH_LOCALE_DIR`` if set, else the package's own (or the
    folder :func:`pin_locale_dir` fixed for the process)."""
    if _PINNED is not None:
        return _PINNED[0]
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else _PACKAGE_DIR


#: The folder a long-running process fixed at its start (:func:`pin_locale_dir`) and its catalogs.
_PINNED: tuple[Path, dict[str, Catalog]] | None = None


def pin_locale_dir() -> Path:
    """Read ``$CLASH_LOCALE_DIR`` once, now, and use that folder for the rest of the process: the
    game server does at its start (every sentence of every frame looks its words up, and reading the
    environment at each lookup was a twentieth of a move's cost in the server)."""
    global _PINNED
    _PINNED = None
    folder = locale_dir()
    _PINNED = (folder, catalogs(folder))
    return folder


def read_mo(path: Path) -> dict[str, str]:
    """Every message of a compiled gettext catalog (``.mo``), the header under the empty key.

    Read here rather than through :class:`gettext.GNUTranslations`, which offers no public way to
    list its keys (the page's words are all the ``web.`` keys)."""
    data = path.read_bytes()
    if len(data) < 28:
        raise CatalogError(f"{path}: not a compiled gettext catalog")
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else ""
    if not order:
        raise CatalogError(f"{path}: not a compiled gettext catalog (bad magic number)")
    _revision, count, keys_at, values_at = struct.unpack(order + "4I", data[4:20])
    out: dict[str, str] = {}
    try:
        for i in range(count):
            klen, kpos = struct.unpack(order + "2I", data[keys_at + 8 * i : keys_at + 8 * i + 8])
            vlen, vpos = struct.unpack(order + "2I", data[values_at + 8 * i : values_at + 8 * i + 8])
            key = data[kpos : kpos + klen].decode("utf-8")
            value = data[vpos : vpos + vlen].decode("utf-8")
            # A plural entry holds its forms separated by NUL; this catalog uses one form per key.
            out[key.split("\0", 1)[0]] = value.split("\0", 1)[0]
    except (struct.error, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: damaged catalog ({exc})") from exc
    return out


def _plural_rule(header: str) -> Callable[[int], int]:
    for line in header.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "plural-forms":
            for part in value.split(";"):
                key, _, expr = part.strip().partition("=")
                if key.strip() == "plural" and expr.strip():
                    return gettext.c2py(expr.strip())
    return lambda n: int(n != 1)  # gettext's default: the Germanic rule


_CACHE: dict[Path, dict[str, Catalog]] = {}


def catalogs(directory: Path | None = None) -> dict[str, Catalog]:
    """Every language's catalog in ``directory`` (default :func:`locale_dir`), English first, then
    by language code; read once per folder (every word of every screen comes through here, so the
    cache is keyed by the path as given, without resolving it)."""
    if directory is None and _PINNED is not None:
        return _PINNED[1]
    key = directory or locale_dir()
    found = _CACHE.get(key)
    if found is None:
        root = key.resolve()
        found = {}
        paths = sorted(root.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
        paths.sort(key=lambda p: p.parent.parent.name != FALLBACK)  # stable: English, then the rest
        for path in paths:
            lang = path.parent.parent.name
            messages = read_mo(path)
            header = messages.pop("", "")
            found[lang] = Catalog(lang, messages, _plural_rule(header))
        if FALLBACK not in found:
            raise CatalogError(f"no English catalog in {root} (the fallback of every language)")
        _CACHE[key] = found
    return found


def languages(directory: Path | None = None) -> tuple[str, ...]:
    """The languages that have a catalog, English first."""
    return tuple(catalogs(directory))


def lookup(lang: str, key: str, directory: Path | None = None) -> str | None:
    """The message ``key`` in ``lang``, else in English, else ``None``."""
    cats = catalogs(directory)
    cat = cats.get(lang)
    if cat is not None and cat.messages.get(key):
        return cat.messages[key]
    return cats[FALLBACK].messages.get(key) or None


def singular(lang: str, n: object, directory: Path | None = None) -> bool:
    cats = catalogs(directory)
    return (cats.get(lang) or cats[FALLBACK]).singular(n)


def section(lang: str, prefix: str, directory: Path | None = None) -> dict[str, str]:
    """The messages whose key starts with ``prefix`` (e.g. ``web.``) in ``lang`` only, the prefix
    taken off (no fallback: a caller that wants one merges English under it)."""
    cat = catalogs(directory).get(lang)
    if cat is None:
        return {}
    return {k[len(prefix) :]: v for k, v in cat.messages.items() if k.startswith(prefix) and v}


def clear_cache() -> None:
    """Forget the catalogs read so far (after the files or ``$CLASH_LOCALE_DIR`` changed)."""
    _CACHE.clear()


__all__ = [
    "DOMAIN",
    "ENV_VAR",
    "Catalog",
    "CatalogError",
    "catalogs",
    "clear_cache",
    "languages",
    "locale_dir",
    "lookup",
    "read_mo",
    "section",
    "singular",
]
