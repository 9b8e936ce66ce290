"""mtgrules: a small, exact Magic: The Gathering rules kernel for banding (702.22) and Room cards (709.5).

Independent of ``clashofdecks``. See ``docs/mtgrules.md``.
"""

from mtgrules.actions import (
    Action,
    ActivateAbility,
    AssignCombatDamage,
    CastSpell,
    ChooseCard,
    ChooseCopy,
    ChooseDoor,
    ChooseLegend,
    ChooseName,
    ChooseTargets,
    Decision,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    OrderTriggers,
    PassPriority,
    TapForMana,
    Unlock,
)
from mtgrules.game import Game, Step, TriggerOrder, Zone

__all__ = [
    "Action",
    "ActivateAbility",
    "AssignCombatDamage",
    "CastSpell",
    "ChooseCard",
    "ChooseCopy",
    "ChooseDoor",
    "ChooseLegend",
    "ChooseName",
    "ChooseTargets",
    "Decision",
    "DecisionKind",
    "DeclareAttackers",
    "DeclareBlockers",
    "Game",
    "OrderTriggers",
    "PassPriority",
    "Step",
    "TapForMana",
    "TriggerOrder",
    "Unlock",
    "Zone",
]
