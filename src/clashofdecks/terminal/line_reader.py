"""What the terminal commands share (``clash play``, ``clash replay``): reading a line after a
prompt, with line editing and tab completion at a terminal, and the players' display names."""

from __future__ import annotations

import select
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from ..words.i18n import t

#: The commands of ``clash play``'s prompt (besides actions), for tab completion.
COMMANDS = ("help", "hint", "undo", "save ", "load ", "board", "quit")


@dataclass
class LineReader:
    """Reads one line after a prompt.  At a terminal: ``input`` with ``readline`` (arrow keys, history,
    tab completion of :attr:`completions`); otherwise a plain line from standard input.

    Returns ``None`` at end of input (Ctrl-D); Ctrl-C raises :class:`KeyboardInterrupt` to the caller.
    """

    console: Console
    interactive: bool = False
    completions: Callable[[], Sequence[str]] = lambda: ()
    #: Command words completed besides :attr:`completions` (a trailing space: an argument follows).
    commands: Sequence[str] = COMMANDS
    #: Words completed anywhere on the line (the card ids while a custom deck is typed, R2.5).
    words: Callable[[], Sequence[str]] = lambda: ()
    _readline: Any = None

    def __post_init__(self) -> None:
        if self.interactive:
            try:
                import readline
            except ImportError:  # e.g. Windows without pyreadline: plain input()
                readline = None  # type: ignore[assignment]
            if readline is not None:
                readline.set_completer_delims(" ")
                readline.set_completer(self._complete)
                readline.parse_and_bind("tab: complete")
                self._readline = readline

    def _complete(self, text: str, state: int) -> str | None:
        """readline's completer: the next word of every command or legal action the line starts."""
        rl = self._readline
        line = rl.get_line_buffer()[: rl.get_endidx()]
        start = rl.get_begidx()
        words: list[str] = []
        for option in (*self.commands, *self.completions()):
            if option.lower().startswith(line.lower()):
                rest = option[start:]
                word = rest.split(" ", 1)[0]
                word += " " if " " in rest.strip() or option.endswith(" ") else ""
                if word and word not in words:
                    words.append(word)
        if start > 0:
            for extra in self.words():
                if extra.lower().startswith(text.lower()) and f"{extra} " not in words:
                    words.append(f"{extra} ")
        return words[state] if state < len(words) else None

    def __call__(self, prompt: str) -> str | None:
        if self.interactive:
            self.console.file.flush()
            try:
                return input(prompt)
            except EOFError:
                return None
        self.console.print(prompt, end="", highlight=False, markup=False)
        self.console.file.flush()
        line = sys.stdin.readline()
        if not line:
            return None
        return line.rstrip("\n")

    def discard_typeahead(self) -> bool:
        """Throw away what was typed while the other side played (a terminal only); whether anything was."""
        if not self.interactive:
            return False
        try:
            import termios

            ready, _, _ = select.select([sys.stdin], [], [], 0)
            if not ready:
                return False
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
        except (ImportError, OSError, ValueError):
            return False
        return True


def stdin_reader(console: Console, commands: Sequence[str] = COMMANDS) -> LineReader:
    """The reader for this process's standard input (interactive when it is a terminal)."""
    return LineReader(console, interactive=sys.stdin.isatty(), commands=commands)


def localised_names(names: tuple[str, str], lang: str) -> tuple[str, str]:
    """Display names: placeholders ``@player``, ``@player N``, ``@automaton`` become words of ``lang``."""
    out = []
    for n in names:
        if n == "@player":
            out.append(t(lang, "player"))
        elif n.startswith("@player "):
            out.append(f"{t(lang, 'player')} {n.split()[1]}")
        elif n == "@automaton":
            out.append(t(lang, "automaton_name"))
        else:
            out.append(n)
    return out[0], out[1]


__all__ = ["COMMANDS", "LineReader", "localised_names", "stdin_reader"]
