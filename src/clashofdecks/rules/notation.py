"""The text notation of a game's actions (``play OGRE top``, ``order A B``): parse and format in the
context of the decision at hand (:mod:`clashofdecks.actions` holds the grammar)."""

from __future__ import annotations

from .. import actions as A
from ..errors import ClashError
from ..events import Event
from .core import GameCore
from .state import _BUILD


class NotationRules(GameCore):
    """Actions as text."""

    __slots__ = ()

    def parse_action(self, text: str) -> int:
        """Action text → integer (syntax only; legality is checked by :meth:`apply`)."""
        return A.parse_action(text, self._pending[1] if self._pending else None)

    def action_text(self, action: int) -> str:
        """The text notation of ``action`` (the inverse of :meth:`parse_action`)."""
        return A.format_action(action, self._pending[1] if self._pending else None)

    def legal_action_texts(self) -> list[str]:
        """The legal actions as text.  Refused in the custom build stage, where every one of the
        C(32, 10) decks is legal (write ``build`` with ten card ids instead)."""
        legal = self.legal_actions()
        if self.decision_kind is _BUILD:
            raise ClashError(f"{len(legal):,} builds are legal now: write 'build' and ten card ids")
        return [self.action_text(a) for a in legal]

    def apply_text(self, text: str) -> tuple[Event, ...]:
        """Parse and apply action text."""
        return self.apply(self.parse_action(text))
