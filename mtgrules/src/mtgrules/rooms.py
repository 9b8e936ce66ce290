"""Rooms (709.5): the unlock special action (116.2m) and locking and unlocking doors."""

from __future__ import annotations

from mtgrules.actions import (
    DecisionKind,
    Unlock,
)
from mtgrules.base import GameBase
from mtgrules.cards import (
    Door,
)
from mtgrules.errors import (
    IllegalUnlockError,
)
from mtgrules.objects import (
    MAIN_PHASES,
)


class Rooms(GameBase):
    """The unlock special action and locking and unlocking doors (709.5, 116.2m) (part of ``Game``)."""

    def _unlock(self, a: Unlock) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        card = self.card_of(a.permanent)  # a permanent that is a copy of a Room has its doors (707.2)
        if perm.controller != a.player:
            raise IllegalUnlockError(
                f"{a.permanent} is controlled by {perm.controller}, not {a.player} (116.2m)"
            )
        if not card.is_room:
            raise IllegalUnlockError(f"{a.permanent} has no doors (it is not a Room)")
        try:
            door = Door(a.door)
        except ValueError:
            raise IllegalUnlockError(
                f"unknown door {a.door!r}: a Room's doors are 'left' and 'right'"
            ) from None
        if door in perm.unlocked:
            raise IllegalUnlockError(
                f"{card.face(door).name} is already unlocked; only a locked door can be unlocked"
            )
        if self.step not in MAIN_PHASES or self.active != a.player or self.stack:
            where = []
            if self.active != a.player:
                where.append(f"it is {self.active}'s turn")
            if self.step not in MAIN_PHASES:
                where.append(f"the step is {self.step.value}")
            if self.stack:
                where.append("the stack is not empty")
            raise IllegalUnlockError(
                "unlocking is a special action a player may take only with priority, an empty stack, during "
                f"a main phase of their own turn (116.2m, 709.5e); here {', '.join(where)}"
            )
        cost = card.face(door).mana_cost
        assert cost is not None
        spend = self.players[a.player].pool.plan_payment(cost, a.payment)
        # --- checks passed
        self.players[a.player].pool.spend(spend)
        self._log("special_action", player=a.player, action="unlock", permanent=a.permanent, cost=str(cost))
        self._set_door(a.permanent, door, True, how="special action")
        self._give_priority(a.player)  # 116.3

    def _set_door(self, obj_id: str, door: Door, unlocked: bool, *, how: str) -> None:
        perm = self.permanents[obj_id]
        card = self.card_of(obj_id)
        if unlocked:
            had = len(perm.unlocked)
            perm.unlocked.add(door)
            self._log(
                "unlock",
                permanent=obj_id,
                door=door.value,
                name=card.face(door).name,
                controller=perm.controller,
                instance=perm.instance,
                how=how,
            )
            if had == 1 and len(perm.unlocked) == 2:
                self._log(
                    "fully_unlock", permanent=obj_id, controller=perm.controller, instance=perm.instance
                )
        else:
            perm.unlocked.discard(door)
            self._log("lock", permanent=obj_id, door=door.value, name=card.face(door).name, how=how)
