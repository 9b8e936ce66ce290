"""Exceptions raised for illegal decisions.

Every illegal decision raises a subclass of :class:`RulesError` (itself a :class:`ValueError`) *before*
anything is changed: the game state after a refused action is exactly the state before it.
"""

from __future__ import annotations


class RulesError(ValueError):
    """An action or decision the rules do not allow. The game state is unchanged."""


class UnknownObjectError(RulesError):
    """An action names a card, permanent, player or stack object that does not exist (where it should)."""


class NotYourDecisionError(RulesError):
    """The acting player is not the one who has to make this decision (or does not have priority)."""


class WrongDecisionError(RulesError):
    """The game is waiting for a different kind of decision."""


class TimingError(RulesError):
    """The action is not allowed at this time (wrong step, non-empty stack, not the player's turn...)."""


class GameOverError(RulesError):
    """The game has ended; no further actions are possible."""


class InsufficientManaError(RulesError):
    """The cost cannot be paid from the player's mana pool (or the given payment does not pay it)."""


class IllegalCastError(RulesError):
    """The spell cannot be cast this way (wrong zone, no door chosen, both doors, ...)."""


class IllegalTargetError(RulesError):
    """A chosen target is not legal, or the number of targets is wrong."""


class IllegalAttackError(RulesError):
    """The attack declaration is illegal (109.x, 302.6, 508.1)."""


class IllegalBandError(IllegalAttackError):
    """A declared attacking band is illegal (702.22c-d)."""


class IllegalBlockError(RulesError):
    """The block declaration is illegal (509.1, evasion abilities)."""


class IllegalDamageAssignmentError(RulesError):
    """A combat damage division does not follow 510.1, 702.19b or 702.22j-k."""


class IllegalUnlockError(RulesError):
    """The unlock special action is not allowed (116.2m, 709.5e)."""


class IllegalChoiceError(RulesError):
    """A choice made while a spell or ability resolves is not one of the allowed options."""


class IllegalActivationError(RulesError):
    """An activated ability cannot be activated now or this way (602.2, 602.5, 302.6)."""
