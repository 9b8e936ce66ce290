"""Actions (decisions) and the decisions the game waits for.

Every choice in the game is an explicit action of the player who makes it. :meth:`mtgrules.game.Game.apply`
checks an action completely before changing anything: an illegal action raises a
:class:`mtgrules.errors.RulesError` subclass and leaves the state exactly as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class DecisionKind(StrEnum):
    PRIORITY = "priority"  # pass, cast a spell, activate a mana ability, take a special action (unlock)
    DECLARE_ATTACKERS = (
        "declare_attackers"  # active player: attackers, attack targets, bands (508.1, 702.22c)
    )
    DECLARE_BLOCKERS = "declare_blockers"  # defending player (509.1)
    ASSIGN_COMBAT_DAMAGE = "assign_combat_damage"  # 510.1, with 702.22j-k deciding who assigns
    CHOOSE_TARGETS = "choose_targets"  # targets of a triggered ability being put on the stack (603.3d)
    CHOOSE_DOOR = "choose_door"  # a door to lock/unlock while an effect resolves (709.5f-g)
    CHOOSE_CARD = "choose_card"  # a card to discard while an effect resolves
    CHOOSE_NAME = "choose_name"  # a card name (709.4a)
    ORDER_TRIGGERS = "order_triggers"  # the order of a player's simultaneous triggered abilities (603.3b)
    CHOOSE_LEGEND = "choose_legend"  # the legend rule: which same-named legend to keep (704.5j)
    CHOOSE_COPY = "choose_copy"  # "you may have this enter as a copy of ..." (707.9b): which, or none


@dataclass(frozen=True)
class Decision:
    """What the game is waiting for, and from whom."""

    kind: DecisionKind
    player: str
    prompt: str = ""
    options: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "player": self.player,
            "prompt": self.prompt,
            "options": list(self.options),
        }


@dataclass(frozen=True)
class PassPriority:
    player: str


@dataclass(frozen=True)
class TapForMana:
    """Activate a land's mana ability ("{T}: Add {B}.")."""

    player: str
    permanent: str


@dataclass(frozen=True)
class CastSpell:
    """Cast a spell from hand. ``door`` ("left"/"right") is required for a Room and refused otherwise."""

    player: str
    card: str
    door: str | None = None
    targets: tuple[str, ...] = ()
    payment: Mapping[str, int] | None = None


@dataclass(frozen=True)
class Unlock:
    """The unlock special action: pay a locked door's mana cost to unlock it (116.2m, 709.5e)."""

    player: str
    permanent: str
    door: str
    payment: Mapping[str, int] | None = None


@dataclass(frozen=True)
class ActivateAbility:
    """Activate an activated ability of a permanent (602.2). ``ability`` is its 0-based position among the
    permanent's activated abilities now (:meth:`mtgrules.game.Game.activated_abilities`)."""

    player: str
    permanent: str
    ability: int = 0
    targets: tuple[str, ...] = ()
    payment: Mapping[str, int] | None = None


@dataclass(frozen=True)
class ChooseCopy:
    """As a permanent with "you may have this enter as a copy of ..." enters: the permanent to copy, or
    None to have it enter as itself (707.9b)."""

    player: str
    copy_of: str | None = None


@dataclass(frozen=True)
class DeclareAttackers:
    """``attackers`` maps each attacking creature to the player it attacks; ``bands`` lists the bands."""

    player: str
    attackers: Mapping[str, str] = field(default_factory=dict)
    bands: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class DeclareBlockers:
    """``blocks`` maps each blocking creature to the attacking creature it blocks."""

    player: str
    blocks: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AssignCombatDamage:
    """``assignments`` maps each creature whose damage this player divides to {recipient: amount}.

    A recipient is a creature id or a player name (unblocked or trampling damage).
    """

    player: str
    assignments: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class ChooseTargets:
    player: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChooseDoor:
    player: str
    door: str


@dataclass(frozen=True)
class ChooseCard:
    player: str
    card: str


@dataclass(frozen=True)
class ChooseName:
    player: str
    name: str


@dataclass(frozen=True)
class OrderTriggers:
    """Put the waiting triggered abilities ``order`` (trigger ids) on the stack, first listed first: the
    last one listed is on top and resolves first (603.3b)."""

    player: str
    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChooseLegend:
    """The legend rule: keep ``keep``; the other same-named legends go to their owners' graveyards
    (704.5j)."""

    player: str
    keep: str


Action = (
    PassPriority
    | TapForMana
    | CastSpell
    | Unlock
    | ActivateAbility
    | ChooseCopy
    | DeclareAttackers
    | DeclareBlockers
    | AssignCombatDamage
    | ChooseTargets
    | ChooseDoor
    | ChooseCard
    | ChooseName
    | OrderTriggers
    | ChooseLegend
)
