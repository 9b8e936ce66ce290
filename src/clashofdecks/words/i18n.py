"""The words of the front ends, looked up by key in the catalogs (:mod:`clashofdecks.words.catalog`).

Card names stay as printed (the Starter Kit prints one name per card); ability names come from the
card data (:data:`clashofdecks.cards.ABILITY_NAMES`), so the screen uses the same words as the
rulebook of each language.  Everything else the player reads (UI words, event sentences, the rules
summary of ``help``, the command list, table headers, why a game ended, the web page's words) is a
message of the language's catalog: ``ui.<key>`` for :func:`t`, ``event.<key>`` for
:func:`event_text`, ``ability.<key>`` for :func:`ability_help`, ``rules.NN`` for
:func:`rules_summary`, ``web.<key>`` for the page.  A key a language lacks falls back to English;
``tests/test_render.py`` checks that every language has every key with the same placeholders, that no
entry repeats the English except the listed same-word ones, and that no English UI word appears on a
German, French or Japanese screen.  A value ``n`` picks the singular key ``key_one`` where the
catalog's plural rule says so ("1 place left"); French elides ``de`` before a vowel ("royaume
d'Ismcts").  Action *notation* (``play BRUTE top``) and the command words are never translated: they
are the terminal's input language, the same in every language, like chess notation.
"""

from __future__ import annotations

import re
from typing import Final

from ..cards import ABILITY_NAMES
from . import catalog
from .glossary import german_names

#: The languages with a catalog when the program started, English first (see :func:`languages`).
LANGUAGES: Final = catalog.languages()


def languages() -> tuple[str, ...]:
    """The languages with a catalog in the folder in use now, English first."""
    return catalog.languages()


def check_language(lang: str) -> str:
    """``lang`` if it has a catalog, else :class:`ValueError` naming the choices."""
    choices = languages()
    if lang not in choices:
        raise ValueError(f"unknown language {lang!r} (choose {', '.join(choices)})")
    return lang


def _message(prefix: str, lang: str, key: str, values: dict[str, object]) -> str:
    """The message ``prefix.key`` in ``lang`` (English if missing), its singular ``key_one`` where
    the value ``n`` asks for it; :class:`KeyError` for a key no catalog has."""
    if "n" in values and catalog.singular(lang, values["n"]):
        one = catalog.lookup(lang, f"{prefix}.{key}_one")
        if one is not None:
            return one
    text = catalog.lookup(lang, f"{prefix}.{key}")
    if text is None:
        raise KeyError(f"{prefix}.{key}")
    return text


#: French elision of ``de`` before a name that starts with a vowel (``royaume d'Ismcts``).
_FR_ELISION = re.compile(r"(?<![\w'])([Dd])e (?=[AEIOUYÉÈÊÂÎ])")


def _finish(template: str, lang: str, values: dict[str, object]) -> str:
    # German names the automaton and the opponent by a common noun, with its article and case.
    text = (german_names(template, values) if lang == "de" else template).format(**values)
    if lang == "fr":
        text = _FR_ELISION.sub(r"\1'", text)
    if template.startswith(("{name}", "{who}", "{loser}", "{winner}")) and text[:1].islower():
        text = text[0].upper() + text[1:]  # a sentence starts with a capital (l'Automate → L'Automate)
    return text


def t(lang: str, key: str, **values: object) -> str:
    """The UI text ``key`` in ``lang`` with ``values`` filled in (English if the key is untranslated).

    A value ``n`` chooses the singular form ``key_one`` where the language says so ("1 place left")."""
    return _finish(_message("ui", lang, key, values), lang, values)


def phrase(lang: str, key: str, **values: object) -> str:
    """Any message by its full key (``action.play_top``, ``prompt.summon``) filled in like :func:`t`."""
    section, _, rest = key.partition(".")
    return _finish(_message(section, lang, rest, values), lang, values)


def event_text(lang: str, key: str, **values: object) -> str:
    """An event sentence (``event.<key>``: placeholders ``{who}`` the actor, ``{card}``, ``{lane}``,
    ``{n}`` an amount, ``{tgt}`` the target player's name, ``{tcard}`` the target card, ``{detail}``;
    card names already rendered) filled in (singular forms as in :func:`t`)."""
    return _finish(_message("event", lang, key, values), lang, values)


def ability_name(lang: str, ability: str) -> str:
    """The printed ability word in ``lang`` (from the card data)."""
    names = ABILITY_NAMES.get(ability, {})
    return names.get(lang) or names.get("en") or ability


def ability_help(lang: str, ability: str) -> str:
    """What ``ability`` does, with its rule number."""
    return _message("ability", lang, ability, {})


def ability_keys() -> tuple[str, ...]:
    """The abilities ``help`` explains, in the digest's order."""
    return tuple(k for k in catalog.section(catalog.FALLBACK, "ability."))


def rules_summary(lang: str) -> tuple[str, ...]:
    """A short summary of the rules, one rule per line, each starting with its number."""
    own = catalog.section(lang, "rules.") or catalog.section(catalog.FALLBACK, "rules.")
    return tuple(own[k] for k in sorted(own))


def has_key(key: str) -> bool:
    """Whether ``ui.<key>`` is in the English catalog."""
    return catalog.lookup(catalog.FALLBACK, f"ui.{key}") is not None


def translation_tables() -> dict[str, dict[str, tuple[str, ...]]]:
    """Every section of the catalogs by name: key -> its text in each of :func:`languages` (an empty
    string where a language lacks it), for the completeness tests.  Sections: ``ui``, ``events``,
    ``abilities``, ``actions``, ``prompts``, ``web``, ``language``."""
    cats = catalog.catalogs()
    langs = tuple(cats)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for name, prefix in (
        ("ui", "ui."),
        ("events", "event."),
        ("abilities", "ability."),
        ("actions", "action."),
        ("prompts", "prompt."),
        ("web", "web."),
        ("language", "language."),
    ):
        keys = [k for k in cats[catalog.FALLBACK].messages if k.startswith(prefix)]
        out[name] = {k[len(prefix) :]: tuple(cats[lang].messages.get(k, "") for lang in langs) for k in keys}
    return out


def web_words(lang: str) -> dict[str, str]:
    """The web page's words in ``lang`` (``web.<key>`` without the prefix; no English fallback)."""
    return catalog.section(lang, "web.")


def language_name(lang: str) -> str:
    """The language's own name (``Deutsch``), for a language menu."""
    return catalog.lookup(lang, "language.name") or lang


__all__ = [
    "LANGUAGES",
    "ability_help",
    "ability_keys",
    "ability_name",
    "check_language",
    "event_text",
    "has_key",
    "language_name",
    "languages",
    "phrase",
    "rules_summary",
    "t",
    "translation_tables",
    "web_words",
]
