"""Setting a position up (add_card, add_mana, start) and the comparable snapshot of a state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mtgrules.base import GameBase
from mtgrules.cards import (
    COUNTER_KINDS,
    Door,
)
from mtgrules.mana import parse_mana
from mtgrules.objects import (
    START_STEPS,
    GameObject,
    Permanent,
    Step,
    Zone,
)


class Setup(GameBase):
    """Setting up a position and taking a comparable snapshot of it (part of ``Game``)."""

    def add_card(
        self,
        obj_id: str,
        name: str,
        owner: str,
        zone: Zone | str,
        *,
        controller: str | None = None,
        tapped: bool = False,
        sick: bool = False,
        damage: int = 0,
        unlocked: Iterable[str] = (),
        token: bool = False,
        copy_of: str | None = None,
        counters: Mapping[str, int] | None = None,
        face_down: bool = False,
    ) -> None:
        """Put a card (or a token, on the battlefield) into the position. Setup only: no events, no
        triggers. ``copy_of`` makes a token that is a copy of that permanent (707.2): it copies the card
        (for a Room, both halves, 709.5), not the permanent's state (tapped, damage, unlocked designations).
        ``counters`` puts +1/+1 and -1/-1 counters on it; ``face_down`` makes it a face-down permanent with
        the characteristics of 708.2a (a scenario flag: no morph, manifest or disguise).
        Raises :class:`ValueError` for an inconsistent setup."""
        zone = Zone(zone)
        if obj_id in self.objects or obj_id in self.order:
            raise ValueError(f"duplicate object id {obj_id!r}")
        if owner not in self.players:
            raise ValueError(f"unknown owner {owner!r}")
        if copy_of is not None:
            if copy_of not in self.permanents:
                raise ValueError(f"copy_of: {copy_of!r} is not a permanent set up earlier on the battlefield")
            card = self.card_of(copy_of)
            token = True
        else:
            try:
                card = self.find_card(name)
            except KeyError:
                raise ValueError(f"unknown card {name!r}") from None
        if token and zone is not Zone.BATTLEFIELD:
            raise ValueError(f"{obj_id}: a token exists only on the battlefield (111.7)")
        doors = {Door(d) for d in unlocked}
        if zone is Zone.STACK:
            raise ValueError("cards cannot be set up on the stack; cast them")
        on_battlefield_only = (tapped, sick, damage, doors, controller, counters, face_down)
        if zone is not Zone.BATTLEFIELD and any(on_battlefield_only):
            raise ValueError(
                f"{obj_id}: tapped/sick/damage/unlocked/controller/counters/face_down need zone battlefield"
            )
        for kind, n in (counters or {}).items():
            if kind not in COUNTER_KINDS or not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ValueError(f"{obj_id}: counters are {list(COUNTER_KINDS)} with a whole number >= 0")
        if doors and not card.is_room:
            raise ValueError(f"{obj_id}: only a Room has doors to unlock")
        self.objects[obj_id] = GameObject(obj_id, card, owner, token)
        self.zcc[obj_id] = 0
        p = self.players[owner]
        if zone is Zone.BATTLEFIELD:
            ctrl = controller or owner
            if ctrl not in self.players:
                raise ValueError(f"unknown controller {ctrl!r}")
            self._instances += 1
            perm = Permanent(obj_id, ctrl, self._instances, tapped, damage, sick, doors, face_down=face_down)
            perm.counters.update(counters or {})
            self.permanents[obj_id] = perm
            self.battlefield.append(obj_id)
        elif zone is Zone.LIBRARY:
            p.library.append(obj_id)
        elif zone is Zone.HAND:
            p.hand.append(obj_id)
        elif zone is Zone.GRAVEYARD:
            p.graveyard.append(obj_id)
        else:
            self.exile.append(obj_id)

    def add_mana(self, player: str, mana: str) -> None:
        """Setup: put mana (e.g. ``"{B}{B}{C}"``) into a player's pool."""
        for sym, n in parse_mana(mana).items():
            self.players[player].pool.add(sym, n)

    def start(self, *, active: str | None = None, step: Step | str = Step.MAIN1, turn: int = 1) -> None:
        """Begin play at the start of ``step`` of turn ``turn`` with ``active`` the active player."""
        step = Step(step)
        if self.started:
            raise ValueError("the game has already started")
        if step not in START_STEPS:
            raise ValueError(f"cannot start in step {step.value}; start in one of {sorted(START_STEPS)}")
        self.active = active or self.order[0]
        if self.active not in self.players:
            raise ValueError(f"unknown active player {self.active!r}")
        self.turn = turn
        self.started = True
        self._enter_step(step, keep_pools=True)

    def snapshot(self) -> dict[str, Any]:
        """A complete, comparable picture of the state (used to show refused actions change nothing)."""
        return {
            "players": {
                n: {
                    "life": p.life,
                    "pool": dict(p.pool.amounts),
                    "library": list(p.library),
                    "hand": list(p.hand),
                    "graveyard": list(p.graveyard),
                    "drew_from_empty": p.drew_from_empty_library,
                    "lost": p.lost,
                }
                for n, p in self.players.items()
            },
            "objects": {k: (v.card.name, v.owner, v.is_token) for k, v in self.objects.items()},
            "zcc": dict(self.zcc),
            "battlefield": list(self.battlefield),
            "permanents": {k: v.to_json() for k, v in self.permanents.items()},
            "exile": list(self.exile),
            "stack": [i.to_json() for i in self.stack],
            "events": len(self.events),
            "turn": self.turn,
            "active": self.active,
            "step": self.step.value,
            "priority": self.priority,
            "passes": self.passes,
            "combat": None if self.combat is None else self.combat.to_json(),
            "game_over": self.game_over,
            "decision": None if self._decision is None else self._decision.to_json(),
            "priority_next": self._priority_next,
            "trigger_hits": len(self._hits),
            "waiting": [(t.controller, t.source, t.ability.text) for t in self._waiting],
            "choosing": None
            if self._choosing is None
            else (self._choosing.source, self._choosing.ability.text),
            "resolving": None if self._resolving is None else self._resolving.id,
            "plan": None
            if self._plan is None
            else {
                "assigners": list(self._plan.assigners),
                "assigned": {k: dict(v) for k, v in self._plan.assigned.items()},
                "sources": [(s.source, s.assigner, s.forced) for s in self._plan.sources],
            },
            "once_per_turn": sorted(self._once_per_turn),
            "counters": dict(self._counters),
            "ordered": list(self._ordered),
            "legend_keep": sorted(self._legend_keep.items()),
            "legend_question": self._legend_question,
            "waiting_ids": [t.id for t in self._waiting],
            "entering": None
            if self._entering is None
            else (
                self._entering.label,
                None if self._entering.copy_values is None else self._entering.copy_values.name,
                self._entering.copy_chosen,
            ),
        }
