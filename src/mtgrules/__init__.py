"""mtgrules: a small, exact Magic: The Gathering rules kernel for banding (702.22) and Room cards (709.5).

Independent of ``clashofdecks``. See ``docs/mtgrules.md``.
"""

from mtgrules.actions import (
    Action,
    AssignCombatDamage,
    CastSpell,
    ChooseCard,
    ChooseDoor,
    ChooseName,
    ChooseTargets,
    Decision,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    PassPriority,
    TapForMana,
    Unlock,
)
from mtgrules.game import Game, Step, Zone

__all__ = [
    "Action",
    "AssignCombatDamage",
    "CastSpell",
    "ChooseCard",
    "ChooseDoor",
    "ChooseName",
    "ChooseTargets",
    "Decision",
    "DecisionKind",
    "DeclareAttackers",
    "DeclareBlockers",
    "Game",
    "PassPriority",
    "Step",
    "TapForMana",
    "Unlock",
    "Zone",
]
