"""Everything a player reads, for every front end: the terminal, the web and the research environments.

- :mod:`.catalog` and :mod:`.compile_catalogs`: the word catalogs (gettext ``.po``/``.mo`` files in
  ``locale/``) and their compiler (``python -m clashofdecks.words.compile_catalogs``);
- :mod:`.i18n`: the language list and the look-ups by key (:func:`t`, :func:`phrase`, ...);
- :mod:`.cards`: card names, facts and abilities;
- :mod:`.actions`: an action as a sentence (:func:`describe_action`, the one of the program) and the
  prompt line (:func:`prompt_line`);
- :mod:`.events`: an event as a sentence (:func:`event_sentence`) and why a game ended;
- :mod:`.board`: the board as plain text (the environments' ``ansi`` and ``human`` render modes).

Standard library only (but the catalogs' compiler, which uses Babel of the ``dev`` extra), below the
session (tests/test_architecture.py): the session says its sentences
with it, and no front end imports another's words.  The terminal's drawing (Rich) is in
:mod:`clashofdecks.terminal`.
"""

from .actions import default_names, describe_action, describe_actions, describe_sequence, prompt_line
from .board import plain_board
from .cards import card_name
from .events import Context, event_sentence, outcome_reason
from .i18n import LANGUAGES, languages, t

__all__ = [
    "LANGUAGES",
    "Context",
    "card_name",
    "default_names",
    "describe_action",
    "describe_actions",
    "describe_sequence",
    "event_sentence",
    "languages",
    "outcome_reason",
    "plain_board",
    "prompt_line",
    "t",
]
