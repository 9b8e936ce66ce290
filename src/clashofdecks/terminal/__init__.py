"""The terminal front end (``clash play``, ``clash replay``): the Rich screens (:mod:`.render`), the
line reader (:mod:`.line_reader`), one game at the terminal (:mod:`.game`), starting one
(:mod:`.start`) and stepping through a record (:mod:`.replay`).

Its words come from :mod:`clashofdecks.words`, as the web's and the environments' do; the web and
the environments never import this package (tests/test_architecture.py).
"""

from .game import TerminalGame
from .replay import replay_in_terminal
from .start import PlayOptions, play_in_terminal

__all__ = ["PlayOptions", "TerminalGame", "play_in_terminal", "replay_in_terminal"]
