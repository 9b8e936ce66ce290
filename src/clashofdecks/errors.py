"""The engine's errors: small ``ValueError`` subclasses, each naming what was wrong."""

from __future__ import annotations


class ClashError(ValueError):
    """Base class of every error the engine raises for bad input."""


class IllegalActionError(ClashError):
    """A well-formed action that the rules do not allow now (the game is left unchanged)."""


class ActionSyntaxError(ClashError):
    """Action text (or an action integer) that does not name any action."""


class InvalidPositionError(ClashError):
    """A position (JSON) that is malformed or breaks a hard rule."""


class ScenarioError(ClashError):
    """A scenario file that is malformed."""


class RecordError(ClashError):
    """A game record that is malformed or does not replay."""


class FormatError(ClashError):
    """An unknown mode or format, or a combination the rules do not allow (custom in solo, R2.2)."""
