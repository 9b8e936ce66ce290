"""Zones and zone changes (400.7): moving objects, tokens (111), discarding."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mtgrules.base import GameBase
from mtgrules.cards import (
    CardDef,
    Door,
)
from mtgrules.errors import (
    RulesError,
    UnknownObjectError,
)
from mtgrules.objects import (
    GameObject,
    Permanent,
    Zone,
)


class Zones(GameBase):
    """Moving objects between zones (400.7) and creating tokens (111) (part of ``Game``)."""

    def _remove_from_zone(self, obj_id: str) -> Zone:
        zone = self.zone_of(obj_id)
        if zone is None:
            raise UnknownObjectError(f"{obj_id!r} is in no zone")
        if zone is Zone.BATTLEFIELD:
            del self.permanents[obj_id]
            self.battlefield.remove(obj_id)
            if self.combat is not None and self.combat.remove(obj_id):
                self._log("removed_from_combat", creature=obj_id, reason="left the battlefield (506.4)")
        elif zone is Zone.STACK:
            self.stack = [i for i in self.stack if i.id != obj_id]
        elif zone is Zone.EXILE:
            self.exile.remove(obj_id)
        else:
            for p in self.players.values():
                for lst in (p.library, p.hand, p.graveyard):
                    if obj_id in lst:
                        lst.remove(obj_id)
        return zone

    def _move(
        self,
        obj_id: str,
        to: Zone,
        *,
        controller: str | None = None,
        unlocked: Iterable[Door] = (),
        copy_values: CardDef | None = None,
        chosen_name: str | None = None,
        looked_back: bool = False,
    ) -> None:
        """Move an object to a zone (a new object, 400.7). Cards go to their owner's zones. An object
        entering the battlefield other than from a resolving Room spell enters with both doors locked
        (709.5d); ``unlocked`` is only passed by a resolving Room spell. ``copy_values`` makes it enter as
        a copy (707.9b) and ``chosen_name`` is a name chosen as it enters: both are in place as it enters,
        so its enters abilities are the copied ones (603.6a). ``looked_back``: its leaves-the-battlefield
        abilities were already found, together with those of objects leaving at the same time (603.10a)."""
        obj = self.objects[obj_id]
        here = self.zone_of(obj_id)
        if obj.is_token and here is not Zone.BATTLEFIELD and here is not None:
            # 111.8: a token that has left the battlefield can't move to another zone; it stays until
            # state-based actions make it cease to exist (704.5d)
            self._log("token_stays", token=obj_id, zone=here.value, rule="111.8")
            return
        if here is Zone.GRAVEYARD:
            self._leaving_graveyard(obj.owner)
        if here is Zone.BATTLEFIELD and not looked_back:
            self._leaving_battlefield([(obj_id, to)])
        origin = self._remove_from_zone(obj_id)
        self.zcc[obj_id] += 1
        owner = self.players[obj.owner]
        doors = set(unlocked)
        if to is Zone.BATTLEFIELD:
            self._instances += 1
            perm = Permanent(obj_id, controller or obj.owner, self._instances, sick=True, unlocked=doors)
            if copy_values is not None:
                perm.copies.append((copy_values, False))
            perm.chosen_name = chosen_name
            self.permanents[obj_id] = perm
            self.battlefield.append(obj_id)
        elif to is Zone.HAND:
            owner.hand.append(obj_id)
        elif to is Zone.GRAVEYARD:
            owner.graveyard.append(obj_id)
        elif to is Zone.LIBRARY:
            owner.library.insert(0, obj_id)
        elif to is Zone.EXILE:
            self.exile.append(obj_id)
        else:  # pragma: no cover - the stack is entered by casting/copying only
            raise RulesError("cannot move an object onto the stack")
        extra: dict[str, Any] = {"token": True} if obj.is_token else {}
        if to is Zone.BATTLEFIELD:
            extra["instance"] = self.permanents[obj_id].instance
        self._log("zone_change", card=obj_id, owner=obj.owner, origin=origin.value, to=to.value, **extra)
        if to is Zone.BATTLEFIELD and doors:
            perm = self.permanents[obj_id]
            for d in (Door.LEFT, Door.RIGHT):
                if d in doors:
                    self._log(
                        "unlock",
                        permanent=obj_id,
                        door=d.value,
                        name=obj.card.face(d).name,
                        controller=perm.controller,
                        instance=perm.instance,
                        as_enters=True,
                    )
            if len(doors) == 2:
                self._log(
                    "fully_unlock", permanent=obj_id, controller=perm.controller, instance=perm.instance
                )

    def _create_token(
        self,
        card: CardDef,
        controller: str,
        *,
        unlocked: Iterable[Door] = (),
        copy_values: CardDef | None = None,
        chosen_name: str | None = None,
    ) -> str:
        tid = self._new_id("token")
        self.objects[tid] = GameObject(tid, card, controller, is_token=True)
        self.zcc[tid] = 0
        self._instances += 1
        doors = set(unlocked)
        perm = Permanent(tid, controller, self._instances, sick=True, unlocked=doors, chosen_name=chosen_name)
        if copy_values is not None:
            perm.copies.append((copy_values, False))
        self.permanents[tid] = perm
        self.battlefield.append(tid)
        self._log("token_created", token=tid, name=card.name, controller=controller, instance=perm.instance)
        for d in (Door.LEFT, Door.RIGHT):
            if d in doors:
                self._log(
                    "unlock",
                    permanent=tid,
                    door=d.value,
                    name=card.face(d).name,
                    controller=controller,
                    instance=perm.instance,
                    as_enters=True,
                )
        return tid

    def _discard(self, player: str, card: str) -> None:
        self._log("discard", player=player, card=card)
        self._move(card, Zone.GRAVEYARD)
