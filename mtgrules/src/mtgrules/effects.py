"""What resolving spells and abilities do: the effects of the kernel's cards (609), noncombat damage
(120.3), counters (122), resolution-time choices."""

from __future__ import annotations

from mtgrules.actions import (
    DecisionKind,
)
from mtgrules.base import GameBase
from mtgrules.carddb import HORROR_TOKEN
from mtgrules.cards import (
    Characteristics,
    Door,
    EffectKind,
    Keyword,
    characteristics,
)
from mtgrules.errors import (
    RulesError,
)
from mtgrules.objects import (
    Entering,
    StackItem,
    Zone,
)

_SECOND_HALF = frozenset(
    {
        EffectKind.COPY_SPELL,
        EffectKind.BECOME_COPY,
        EffectKind.COPY_PERMANENT,
        EffectKind.UNLOCK_DOOR,
        EffectKind.LOCK_DOOR,
    }
)


class Effects(GameBase):
    """The effects of resolving spells and abilities (part of ``Game``)."""

    def _do_effect(self, item: StackItem) -> bool:
        """Carry out ``item``'s effect. Returns False if a player must choose first (resolution pauses)."""
        eff = item.effect
        assert eff is not None
        you = item.controller
        targets = self._still_legal(item)
        t = targets[0] if targets else None
        k = eff.kind
        if k is EffectKind.CREATE_HORROR:
            self._create_token(HORROR_TOKEN, you)
        elif k is EffectKind.ADD_MANA:
            self._add_mana(you, eff.mana, item.source or item.id)
        elif k is EffectKind.RETURN_SELF_TO_HAND:
            if item.source is not None and self._source_unchanged(item):
                self._move(item.source, Zone.HAND)
            else:
                self._log(
                    "no_effect", id=item.id, reason="its source is no longer on the battlefield (400.7)"
                )
        elif k is EffectKind.DRAW:
            self._draw(you)
        elif k is EffectKind.GAIN_LIFE:
            self.players[you].life += eff.amount
            self._log("life_gain", player=you, amount=eff.amount)
        elif k is EffectKind.COUNTERS_ON_EACH_CREATURE:
            for pid in [p for p in self.battlefield if self.is_creature(p)]:
                self._put_counters(pid, eff.counter, eff.amount)
        elif k is EffectKind.PUT_COUNTERS and eff.target is None:
            if self._source_unchanged(item):
                assert item.source is not None
                self._put_counters(item.source, eff.counter, eff.amount)
            else:
                self._log("no_effect", id=item.id, reason="its source left the battlefield (400.7)")
        elif t is None:
            if eff.target is not None:
                self._log("no_effect", id=item.id, reason="no target chosen")
            else:
                return self._effect_with_choice(item)
        else:
            return self._do_targeted_effect(item, t)
        return True

    def _do_targeted_effect(self, item: StackItem, t: str) -> bool:
        """The effects with a target, ``t`` its first legal one. False if a player must choose first."""
        eff = item.effect
        assert eff is not None
        you = item.controller
        k = eff.kind
        if k is EffectKind.RETURN_TO_HAND or k is EffectKind.GRAVEYARD_TO_HAND:
            self._move(t, Zone.HAND)
        elif k is EffectKind.GRAVEYARD_TO_BATTLEFIELD:  # enters with both doors locked (709.5d)
            return self._enter(Entering(t, self.objects[t].card, you, resume=item))
        elif k is EffectKind.DESTROY:
            self._log("destroyed", permanent=t)
            self._move(t, Zone.GRAVEYARD)
        elif k is EffectKind.FLICKER:
            self._move(t, Zone.EXILE)
            if self.zone_of(t) is Zone.EXILE:  # under its owner's control, both doors locked (709.5d)
                obj = self.objects[t]
                return self._enter(Entering(t, obj.card, obj.owner, resume=item))
        elif k is EffectKind.DEAL_DAMAGE:
            self._deal_damage(item, t, eff.amount)
        elif k is EffectKind.DRAIN:
            self.players[t].life -= eff.amount
            self._log("life_loss", player=t, amount=eff.amount)
            self.players[you].life += eff.amount
            self._log("life_gain", player=you, amount=eff.amount)
        elif k is EffectKind.PUT_COUNTERS:
            self._put_counters(t, eff.counter, eff.amount)
        elif k is EffectKind.LOSE_ALL_ABILITIES:
            if eff.tap and not self.permanents[t].tapped:
                self.permanents[t].tapped = True
                self._log("tapped", permanent=t, cause=item.id)
            self._add_ability_effect(t, "lose_all", eff.until_end_of_turn)
        elif k is EffectKind.GAIN_CONTROL:
            self._gain_control(item, t)
        elif k is EffectKind.LOSE_BANDING:
            self.permanents[t].loses_banding = True
            self._log("loses_banding", permanent=t, until="end of turn")
        elif k is EffectKind.REMOVE_FROM_COMBAT:
            if self.combat is not None and self.combat.remove(t):
                self._log("removed_from_combat", creature=t, reason="effect (506.4)")
        elif k is EffectKind.BECOMES_BLOCKED:
            assert self.combat is not None
            for member in self.combat.band_of(t):  # 702.22i: the whole band becomes blocked
                if member in self.combat.attackers and member not in self.combat.blocked:
                    self.combat.blocked.add(member)
                    self._log("becomes_blocked", creature=member, by=[], cause=item.id)
        elif k in _SECOND_HALF:
            return self._do_copy_or_door_effect(item, t)
        else:  # pragma: no cover
            raise RulesError(f"unhandled effect {k}")
        return True

    def _do_copy_or_door_effect(self, item: StackItem, t: str) -> bool:
        """Copy effects (707.2, 707.10) and locking or unlocking a door (709.5f-g)."""
        eff = item.effect
        assert eff is not None
        you = item.controller
        k = eff.kind
        if k is EffectKind.COPY_SPELL:
            orig = self.stack_item(t)
            assert orig is not None
            cid = self._new_id("copy")
            self.stack.append(
                StackItem(
                    cid,
                    you,
                    True,
                    orig.card,
                    orig.door,
                    is_copy=True,
                    effect=orig.effect,
                    targets=orig.targets,
                    text=f"copy of {orig.text}",
                )
            )
            self._log(
                "spell_copied", copy=cid, original=t, controller=you, door=orig.door and orig.door.value
            )
        elif k is EffectKind.BECOME_COPY:
            src = item.source
            if src is None or not self._source_unchanged(item):
                self._log(
                    "no_effect", id=item.id, reason="its source is no longer on the battlefield (400.7)"
                )
            else:
                # 707.2: the copiable values of the target (a copy's are its copy effect's values); the
                # source keeps its status and its unlocked designations (709.5c)
                values = self.card_of(t)
                self.permanents[src].copies.append((values, eff.until_end_of_turn))
                self._log(
                    "becomes_copy",
                    permanent=src,
                    copy_of=t,
                    name=values.name,
                    until="end of turn" if eff.until_end_of_turn else None,
                    rule="707.2",
                )
        elif k is EffectKind.COPY_PERMANENT:
            # 707.2: the copy gets the copiable values, i.e. the card (a Room: both halves, 709.5), not its
            # status or designations; it enters with both doors locked (709.5d: no half was cast)
            # a copy of a copy: the copied values; its own "as this enters" choices are made (614.12)
            return self._enter(Entering(None, self.card_of(t), you, resume=item, copy_of=t))
        elif k in (EffectKind.UNLOCK_DOOR, EffectKind.LOCK_DOOR):
            return self._effect_with_choice(item, t)
        else:  # pragma: no cover
            raise RulesError(f"unhandled effect {k}")
        return True

    def _source_characteristics(self, item: StackItem) -> Characteristics | None:
        """The characteristics of what deals an effect's damage: the spell itself, or the ability's source as
        it is now, or as it last existed on the battlefield if it has left (608.2h)."""
        if item.is_spell and item.card is not None:
            return characteristics(item.card, None if item.door is None else (item.door,))
        if item.source is not None and self._source_unchanged(item):
            return self.characteristics(item.source)
        return item.source_lki

    def _deal_damage(self, item: StackItem, target: str, amount: int) -> None:
        """Noncombat damage (120.3): deathtouch and lifelink work from any source (702.2b, 702.15b)."""
        chars = self._source_characteristics(item)
        keywords = frozenset() if chars is None else chars.keywords
        source = item.id if item.is_spell else (item.source or item.id)
        if target in self.players:
            self.players[target].life -= amount
        else:
            self.permanents[target].damage += amount
            if amount and Keyword.DEATHTOUCH in keywords:
                self.permanents[target].deathtouched = True  # destroyed by 704.5h
        self._log(
            "damage",
            source=source,
            source_controller=item.controller,
            to=target,
            to_player=target in self.players,
            amount=amount,
            combat=False,
        )
        if amount and Keyword.LIFELINK in keywords:
            self.players[item.controller].life += amount
            self._log("life_gain", player=item.controller, amount=amount, source=source, rule="702.15b")

    def _put_counters(self, pid: str, kind: str, amount: int) -> None:
        self.permanents[pid].counters[kind] += amount
        self._log("counters_put", permanent=pid, counter=kind, amount=amount, rule="122.1a")

    def _effect_with_choice(self, item: StackItem, target: str | None = None) -> bool:
        eff = item.effect
        assert eff is not None
        you = item.controller
        if eff.kind in (EffectKind.UNLOCK_DOOR, EffectKind.LOCK_DOOR):
            assert target is not None
            unlocking = eff.kind is EffectKind.UNLOCK_DOOR
            perm = self.permanents[target]
            options = [d for d in (Door.LEFT, Door.RIGHT) if (d in perm.unlocked) != unlocking]
            if not options:
                self._log("no_effect", id=item.id, reason=f"no {'locked' if unlocking else 'unlocked'} door")
                return True
            if len(options) == 1:
                self._set_door(target, options[0], unlocking, how=item.id)
                return True
            self._pause(
                item, DecisionKind.CHOOSE_DOOR, f"choose a door of {target}", tuple(o.value for o in options)
            )
            return False
        if eff.kind is EffectKind.DISCARD:
            hand = self.players[you].hand
            if not hand:
                self._log("no_effect", id=item.id, reason="empty hand")
                return True
            if len(hand) == 1:
                self._discard(you, hand[0])
                return True
            self._pause(item, DecisionKind.CHOOSE_CARD, "choose a card to discard", tuple(hand))
            return False
        if eff.kind is EffectKind.NAME_AND_REVEAL:
            self._pause(item, DecisionKind.CHOOSE_NAME, "choose a card name (709.4a)", ())
            return False
        raise RulesError(f"unhandled effect {eff.kind}")  # pragma: no cover
