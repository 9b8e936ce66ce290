"""Continuous effects and copies (613): characteristics through the layers, copiable values (707.2),
control (613.1b), ability effects (613.1f), counters (613.4c), and their end (514.2)."""

from __future__ import annotations

from dataclasses import replace

from mtgrules.base import GameBase
from mtgrules.cards import (
    FACE_DOWN,
    CardDef,
    Characteristics,
    Door,
    Keyword,
    characteristics,
)
from mtgrules.errors import (
    UnknownObjectError,
)
from mtgrules.objects import (
    Permanent,
    StackItem,
)


class ContinuousEffects(GameBase):
    """Characteristics through the layers (613) and effects ending, 514.2 (part of ``Game``)."""

    def characteristics(self, obj_id: str) -> Characteristics:
        """Characteristics of a card, token, permanent or spell in its current zone (709.3b, 709.4, 709.5)."""
        if obj_id in self.permanents:
            perm = self.permanents[obj_id]
            card = self.card_of(obj_id)
            doors = tuple(d for d in (Door.LEFT, Door.RIGHT) if d in perm.unlocked) if card.is_room else None
            return self._later_layers(perm, characteristics(card, doors, loses_banding=perm.loses_banding))
        item = self.stack_item(obj_id)
        if item is not None:
            if item.card is None:
                raise UnknownObjectError(f"{obj_id!r} is an ability, which has no characteristics here")
            return characteristics(item.card, None if item.door is None else (item.door,))
        if obj_id in self.objects:
            return characteristics(self.objects[obj_id].card, None)
        raise UnknownObjectError(f"unknown object {obj_id!r}")

    def card_of(self, obj_id: str) -> CardDef:
        """An object's copiable values: a permanent's newest copy effect (707.2), else its own card; a
        face-down permanent's are those of 708.2a (707.2: as modified by its face-down status)."""
        perm = self.permanents.get(obj_id)
        if perm is not None and perm.face_down:
            return FACE_DOWN
        if perm is not None and perm.copied is not None:
            return perm.copied
        return self.objects[obj_id].card

    def _later_layers(self, perm: Permanent, ch: Characteristics) -> Characteristics:
        """Layers after the copy effects (613.1): ability-adding and -removing effects in timestamp order
        (layer 6, 613.1f, 613.7), then +1/+1 and -1/-1 counters (layer 7c, 613.4c)."""
        for _, what, _ in sorted(perm.ability_effects):
            if what == "lose_all":
                ch = replace(
                    ch,
                    keywords=frozenset(),
                    bands_with_other=frozenset(),
                    triggered=(),
                    activated=(),
                    static=(),
                    mana_ability=None,
                )
            else:
                ch = replace(ch, keywords=ch.keywords | {Keyword(what)})
        change = perm.counters["+1/+1"] - perm.counters["-1/-1"]
        if change and ch.power is not None and ch.toughness is not None:
            ch = replace(ch, power=ch.power + change, toughness=ch.toughness + change)
        return ch

    def _summoning_sick(self, pid: str) -> bool:
        """302.6: a creature can't attack or pay {T} unless continuously controlled since its controller's
        most recent turn began; haste lifts that (702.10b, 702.10c)."""
        return (
            self.permanents[pid].sick
            and self.is_creature(pid)
            and Keyword.HASTE not in self.characteristics(pid).keywords
        )

    def _end_of_turn_effects(self, pid: str) -> None:
        """514.2: "until end of turn" ability and control effects end; an earlier control effect, or the
        player it entered under, controls it again (a change of control makes it new to them, 302.6)."""
        perm = self.permanents[pid]
        if any(u for _, _, u in perm.ability_effects):
            perm.ability_effects = [e for e in perm.ability_effects if not e[2]]
            self._log("ability_effects_end", permanent=pid)
        if any(u for _, _, u in perm.control_effects):
            perm.control_effects = [e for e in perm.control_effects if not e[2]]
            self._set_controller(pid, self._controller_now(perm))

    def _controller_now(self, perm: Permanent) -> str:
        """613.1b, 613.7: the newest control-changing effect decides; else the player it entered under."""
        return max(perm.control_effects)[1] if perm.control_effects else perm.base_controller

    def _set_controller(self, pid: str, player: str) -> None:
        perm = self.permanents[pid]
        if perm.controller != player:
            old, perm.controller, perm.sick = perm.controller, player, True  # 302.6
            self._log("control_changed", permanent=pid, old=old, new=player, rule="613.1b")

    def _add_ability_effect(self, pid: str, what: str, until_end_of_turn: bool) -> None:
        """A layer 6 effect (613.1f) with a new timestamp (613.7): "lose_all" or a keyword gained."""
        self._timestamp += 1
        self.permanents[pid].ability_effects.append((self._timestamp, what, until_end_of_turn))
        event = "loses_all_abilities" if what == "lose_all" else "gains_ability"
        self._log(event, permanent=pid, ability=what, until="end of turn" if until_end_of_turn else None)

    def _gain_control(self, item: StackItem, pid: str) -> None:
        """613.1b: a control-changing effect (layer 2) with a new timestamp; then untap it and give it
        keywords until end of turn if the effect says so (Threaten-style)."""
        eff = item.effect
        assert eff is not None
        perm = self.permanents[pid]
        self._timestamp += 1
        perm.control_effects.append((self._timestamp, item.controller, eff.until_end_of_turn))
        self._set_controller(pid, self._controller_now(perm))
        if eff.untap and perm.tapped:
            perm.tapped = False
            self._log("untap", permanent=pid, cause=item.id)
        for keyword in eff.gains:
            self._add_ability_effect(pid, keyword.value, True)
