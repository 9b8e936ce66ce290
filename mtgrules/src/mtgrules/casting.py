"""Casting spells (601), targets (115), resolving (608), and permanents entering with their
"as this enters" choices (614.1c, 614.12, 707.9b)."""

from __future__ import annotations

from collections.abc import Iterable

from mtgrules.actions import (
    CastSpell,
    ChooseCard,
    ChooseCopy,
    ChooseDoor,
    ChooseName,
    Decision,
    DecisionKind,
)
from mtgrules.base import GameBase
from mtgrules.cards import (
    CardDef,
    CardType,
    Characteristics,
    Door,
    EffectKind,
    Keyword,
    StaticKind,
    TargetKind,
    TargetSpec,
    characteristics,
    with_exception,
)
from mtgrules.errors import (
    IllegalCastError,
    IllegalChoiceError,
    IllegalTargetError,
    TimingError,
    UnknownObjectError,
)
from mtgrules.objects import (
    MAIN_PHASES,
    Entering,
    StackItem,
    Zone,
)


def _door(value: str) -> Door:
    try:
        return Door(value)
    except ValueError:
        raise IllegalCastError(f"unknown door {value!r}: a Room's doors are 'left' and 'right'") from None


class CastingAndStack(GameBase):
    """Casting, targets, resolving, and permanents entering with their choices (part of ``Game``)."""

    def _cast(self, a: CastSpell) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        p = self.players[a.player]
        if a.card not in self.objects:
            raise UnknownObjectError(f"unknown card {a.card!r}")
        from_graveyard = a.card in p.graveyard
        if a.card not in p.hand and not from_graveyard:
            raise IllegalCastError(f"{a.card} is not in {a.player}'s hand")
        card = self.objects[a.card].card
        door: Door | None = None
        if card.is_room:
            if a.door is None:
                raise IllegalCastError(f"choose which door of {card.name} to cast (709.3)")
            if a.door == "both":
                raise IllegalCastError(
                    f"{card.name}: there is no way to cast both halves of a Room card; choose one door "
                    "(709.3, Room ruling)"
                )
            door = _door(a.door)
        elif a.door is not None:
            raise IllegalCastError(f"{card.name} is not a split card; it has no door to choose")
        chars = characteristics(card, None if door is None else (door,))  # 709.3a: only that half
        if chars.is_type(CardType.LAND):
            raise IllegalCastError("lands are played, not cast")
        if chars.mana_cost is None:
            raise IllegalCastError(f"{card.name} has no mana cost and cannot be cast")
        if from_graveyard:
            self._check_graveyard_permission(a.player, a.card, chars)
        sorcery_timing = a.player == self.active and self.step in MAIN_PHASES and not self.stack
        instant_speed = chars.is_type(CardType.INSTANT) or Keyword.FLASH in chars.keywords  # 702.8a
        if not instant_speed and not sorcery_timing:
            raise TimingError(
                f"{chars.names[0]} can be cast only in a main phase of {a.player}'s own turn with an empty "
                "stack (307.1, 301.1)"
            )
        spec = chars.spell_effect.target if chars.spell_effect is not None else None
        targets = self._check_targets(spec, a.targets, a.player, a.card)
        spend = p.pool.plan_payment(chars.mana_cost, a.payment)
        # --- all checks passed: cast it
        origin = Zone.GRAVEYARD if from_graveyard else Zone.HAND
        if from_graveyard:
            self._leaving_graveyard(a.player)
        (p.graveyard if from_graveyard else p.hand).remove(a.card)  # 601.2a: the card moves to the stack
        self.zcc[a.card] += 1
        self.stack.append(
            StackItem(
                a.card,
                a.player,
                True,
                card,
                door,
                effect=chars.spell_effect,
                targets=targets,
                text=chars.names[0],
            )
        )
        p.pool.spend(spend)
        self._log(
            "cast",
            player=a.player,
            card=a.card,
            name=chars.names[0],
            door=None if door is None else door.value,
            targets=[t for t, _ in targets],
            mana_value=chars.mana_value,
            origin=origin.value,
        )
        self._give_priority(a.player)

    def _check_graveyard_permission(self, player: str, card_id: str, chars: Characteristics) -> None:
        """A card is cast from its owner's hand unless an effect allows another zone (601.2a). Only the
        cast half's characteristics are considered (709.3a; Room ruling: Bottomless Pool, not Locker Room)."""
        allowances = [
            st.max_mana_value
            for pid in self.battlefield
            if self.permanents[pid].controller == player
            for st in self.characteristics(pid).static
            if st.kind is StaticKind.CAST_PERMANENTS_FROM_GRAVEYARD
        ]
        if not allowances:
            raise IllegalCastError(
                f"{card_id} is in {player}'s graveyard; spells are cast from hand unless an effect allows "
                "another zone (601.2a)"
            )
        limit = max(allowances)
        if not chars.is_permanent_type or chars.mana_value > limit:
            raise IllegalCastError(
                f"{' // '.join(chars.names)} (mana value {chars.mana_value}) is not a permanent spell "
                f"with mana value {limit} or less; only the cast half's characteristics count "
                "(709.3a, Room ruling)"
            )

    def _target_problem(
        self, spec: TargetSpec, obj_id: str, controller: str, source: str | None
    ) -> str | None:
        """Why ``obj_id`` is not a legal target for ``spec``, or None if it is."""
        kind = spec.kind
        if kind in (TargetKind.PLAYER, TargetKind.ANY) and obj_id in self.players:
            return None
        if kind is TargetKind.PLAYER:
            return f"{obj_id} is not a player"
        if kind is TargetKind.CREATURE_AN_OPPONENT_CONTROLS:
            if not self.is_creature(obj_id):
                return f"{obj_id} is not a creature on the battlefield"
            if self.permanents[obj_id].controller == controller:
                return f"{obj_id} is controlled by {controller}, not by an opponent"
            return None
        if kind is TargetKind.ANY:
            return None if self.is_creature(obj_id) else f"{obj_id} is neither a creature nor a player"
        if kind in (TargetKind.CREATURE, TargetKind.ATTACKING_CREATURE, TargetKind.PERMANENT):
            if obj_id not in self.permanents:
                return f"{obj_id} is not a permanent on the battlefield"
            if kind is not TargetKind.PERMANENT and not self.is_creature(obj_id):
                return f"{obj_id} is not a creature"
            if kind is TargetKind.ATTACKING_CREATURE and (
                self.combat is None or obj_id not in self.combat.attackers
            ):
                return f"{obj_id} is not an attacking creature"
            return None
        if kind is TargetKind.ROOM_YOU_CONTROL:
            if obj_id not in self.permanents:
                return f"{obj_id} is not a permanent on the battlefield"
            if "Room" not in self.characteristics(obj_id).subtypes:
                return f"{obj_id} is not a Room"
            if self.permanents[obj_id].controller != controller:
                return f"{obj_id} is not controlled by {controller}"
            return None
        if kind is TargetKind.SPELL:
            item = self.stack_item(obj_id)
            if item is None or not item.is_spell:
                return f"{obj_id} is not a spell on the stack"
            if obj_id == source:
                return "a spell cannot target itself (115.5)"
            return None
        # graveyard cards
        owner_zone = None
        for p in self.players.values():
            if obj_id in p.graveyard:
                owner_zone = p.name
        if owner_zone is None:
            return f"{obj_id} is not a card in a graveyard"
        chars = self.characteristics(obj_id)
        if kind is TargetKind.CREATURE_CARD_IN_YOUR_GRAVEYARD:
            if owner_zone != controller:
                return f"{obj_id} is not in {controller}'s graveyard"
            if not chars.is_type(CardType.CREATURE):
                return f"{obj_id} is not a creature card"
            return None
        if not chars.is_permanent_type:
            return f"{obj_id} is not a permanent card"
        return None

    def legal_targets(self, spec: TargetSpec, controller: str, source: str | None = None) -> list[str]:
        candidates = list(self.order) + list(self.battlefield) + [i.id for i in self.stack]
        for p in self.players.values():
            candidates += p.graveyard
        return [c for c in candidates if self._target_problem(spec, c, controller, source) is None]

    def _check_targets(
        self, spec: TargetSpec | None, chosen: Iterable[str], controller: str, source: str | None
    ) -> tuple[tuple[str, int], ...]:
        chosen = tuple(chosen)
        if spec is None:
            if chosen:
                raise IllegalTargetError("this spell or ability has no targets")
            return ()
        if not spec.min_count <= len(chosen) <= spec.max_count:
            want = (
                str(spec.min_count)
                if spec.min_count == spec.max_count
                else f"{spec.min_count}-{spec.max_count}"
            )
            raise IllegalTargetError(f"choose {want} target {spec.kind.value}(s), not {len(chosen)}")
        if len(set(chosen)) != len(chosen):
            raise IllegalTargetError("the same object cannot be chosen twice for one 'target' (115.3)")
        for t in chosen:
            problem = self._target_problem(spec, t, controller, source)
            if problem is not None:
                raise IllegalTargetError(f"illegal target {t!r} (target {spec.kind.value}): {problem}")
        return tuple((t, self.zcc.get(t, 0)) for t in chosen)

    def _still_legal(self, item: StackItem) -> list[str]:
        """Targets of ``item`` that are still legal: same object (no zone change) and still matching."""
        if item.effect is None or item.effect.target is None:
            return []
        ok = []
        for t, zc in item.targets:
            if self.zcc.get(t, 0) != zc:
                continue  # it changed zones: a new object (400.7)
            if self._target_problem(item.effect.target, t, item.controller, item.id) is None:
                ok.append(t)
        return ok

    def _resolve_top(self) -> None:
        item = self.stack[-1]
        self._log("resolving", id=item.id, text=item.text)
        if item.effect is not None and item.effect.target is not None and item.targets:
            legal = self._still_legal(item)
            if not legal:
                self._log("fizzles", id=item.id, reason="all its targets are illegal (608.2b)")
                self._finish_resolution(item)
                return
        if item.is_spell and item.card is not None:
            chars = characteristics(item.card, None if item.door is None else (item.door,))
            if chars.is_permanent_type:
                doors = () if item.door is None else (item.door,)
                if item.is_copy:  # 707.10, 608.3f: it becomes a token (709.5b: a Room keeps both halves)
                    self.stack.pop()
                entering = Entering(
                    None if item.is_copy else item.id, item.card, item.controller, doors, spell=item
                )
                if self._enter(entering):
                    self._log("resolved", id=item.id)
                    self._give_priority(self.active)
                return
        if item.effect is not None and not self._do_effect(item):
            return  # waiting for a choice made while resolving
        self._finish_resolution(item)

    def _finish_resolution(self, item: StackItem) -> None:
        self._resolving = None
        self._decision = None
        if item.is_spell and not item.is_copy:
            self._move(item.id, Zone.GRAVEYARD)
        else:
            self.stack = [i for i in self.stack if i.id != item.id]
        self._log("resolved", id=item.id)
        self._give_priority(self.active)

    def _pause(self, item: StackItem, kind: DecisionKind, prompt: str, options: tuple[str, ...]) -> None:
        self._resolving = item
        self._decision = Decision(kind, item.controller, prompt, options)

    def _valid_name(self, name: str) -> str:
        valid = {f.name for c in self.card_pool.values() for f in c.faces}
        if name not in valid:
            if " // " in name:
                raise IllegalChoiceError(
                    f"{name!r} is not a card name: a split card has two names; choose one of them, not "
                    "both (709.4a)"
                )
            raise IllegalChoiceError(f"{name!r} is not the name of a card")
        return name

    def _resolution_choice(self, a: ChooseDoor | ChooseCard | ChooseName) -> None:
        kind = {
            ChooseDoor: DecisionKind.CHOOSE_DOOR,
            ChooseCard: DecisionKind.CHOOSE_CARD,
            ChooseName: DecisionKind.CHOOSE_NAME,
        }[type(a)]
        decision = self._expect(kind, a.player)
        if isinstance(a, ChooseName) and self._entering is not None:
            entering = self._entering
            self._enter_now(self._valid_name(a.name))
            self._after_entering(entering)
            return
        item = self._resolving
        assert item is not None and item.effect is not None
        if isinstance(a, ChooseDoor):
            if a.door not in decision.options:
                raise IllegalChoiceError(f"choose one of {', '.join(decision.options)}, not {a.door!r}")
            target = self._still_legal(item)[0]
            self._decision = None
            self._set_door(target, Door(a.door), item.effect.kind is EffectKind.UNLOCK_DOOR, how=item.id)
        elif isinstance(a, ChooseCard):
            if a.card not in decision.options:
                raise IllegalChoiceError(f"{a.card!r} is not a card in {a.player}'s hand")
            self._decision = None
            self._discard(a.player, a.card)
        else:
            self._valid_name(a.name)
            self._decision = None
            hand = self.players[a.player].hand
            n = sum(1 for c in hand if self.has_name(c, a.name))
            self._log("name_chosen", player=a.player, name=a.name, matching_cards=n)
            self.players[a.player].life += n
            self._log("life_gain", player=a.player, amount=n)
        self._finish_resolution(item)

    def _name_to_choose(self, card: CardDef) -> bool:
        """Whether a card entering the battlefield has "as this enters, choose a card name" (Pithing Needle):
        a stop_activated_abilities static without a name fixed by the card."""
        chars = characteristics(card, None if not card.is_room else ())
        return any(st.kind is StaticKind.STOP_ACTIVATED_ABILITIES and st.name is None for st in chars.static)

    def copy_candidates(self, kind: TargetKind) -> list[str]:
        """What "enter as a copy of a [kind] on the battlefield" may copy (707.9b; not a target)."""
        return [pid for pid in self.battlefield if kind is TargetKind.PERMANENT or self.is_creature(pid)]

    def _enter(self, entering: Entering) -> bool:
        """Put a permanent onto the battlefield, making its "as this enters" choices first (614.1c, 614.12,
        707.9b) however it enters: a resolving spell, an effect returning a card, a token being created.
        Returns False when a player must choose first; the entry then completes with that choice."""
        self._entering = entering
        return self._enter_with_choices()

    def _enter_with_choices(self) -> bool:
        """Whether and what it copies, then a card name it needs; then it enters (709.5d: a cast Room door
        is unlocked as it enters)."""
        e = self._entering
        assert e is not None
        copying = e.card.enters_as_copy
        if copying is not None and not e.copy_chosen:
            options = self.copy_candidates(copying.of)
            if options:
                self._decision = Decision(
                    DecisionKind.CHOOSE_COPY,
                    e.controller,
                    f"{copying.text or 'enter as a copy'}: choose a {copying.of.value} to copy, or none "
                    "(707.9b)",
                    tuple(options),
                )
                return False
        entering_card = e.copy_values if e.copy_values is not None else e.card
        if self._name_to_choose(entering_card):
            self._decision = Decision(
                DecisionKind.CHOOSE_NAME,
                e.controller,
                f"as {e.label} enters, choose a card name (709.4a: one name of a split card)",
                (),
            )
            return False
        self._enter_now()
        return True

    def _choose_copy(self, a: ChooseCopy) -> None:
        decision = self._expect(DecisionKind.CHOOSE_COPY, a.player)
        e = self._entering
        assert e is not None and e.card.enters_as_copy is not None
        if a.copy_of is not None and a.copy_of not in decision.options:
            raise IllegalChoiceError(
                f"{a.copy_of!r} cannot be copied: choose one of {', '.join(decision.options)}, or none "
                f"(a {e.card.enters_as_copy.of.value} on the battlefield, 707.9b)"
            )
        self._decision = None
        e.copy_chosen = True
        if a.copy_of is not None:
            # 707.9b: the exception becomes part of the copiable values, on top of the copied ones (707.2:
            # a copy of a copy copies the copy effect's values, its exceptions included)
            e.copy_values = with_exception(self.card_of(a.copy_of), e.card.enters_as_copy.exception)
        if self._enter_with_choices():
            self._after_entering(e)

    def _enter_now(self, chosen_name: str | None = None) -> None:
        e = self._entering
        assert e is not None
        self._entering, self._decision = None, None
        if e.obj_id is None:
            pid = self._create_token(
                e.card, e.controller, unlocked=e.doors, copy_values=e.copy_values, chosen_name=chosen_name
            )
            if e.copy_of is not None:
                self._log(
                    "permanent_copied", token=pid, original=e.copy_of, controller=e.controller, rule="707.2"
                )
        else:
            pid = e.obj_id
            self._move(
                pid,
                Zone.BATTLEFIELD,
                controller=e.controller,
                unlocked=e.doors,
                copy_values=e.copy_values,
                chosen_name=chosen_name,
            )
        e.obj_id = pid
        if e.copy_values is not None:
            self._log("enters_as_copy", permanent=pid, copy_of=e.copy_values.name, rule="707.9b")
        if chosen_name is not None:
            self._log("name_chosen", player=e.controller, name=chosen_name, permanent=pid, rule="614.12")

    def _after_entering(self, e: Entering) -> None:
        """A permanent that waited for its "as this enters" choices has entered: its spell has resolved, or
        the resolving spell or ability that put it there goes on (and finishes)."""
        if e.spell is not None:
            self._log("resolved", id=e.spell.id)
            self._give_priority(self.active)
        elif e.resume is not None:
            self._finish_resolution(e.resume)
        else:  # pragma: no cover - every entry with choices comes from a spell or an effect
            self._give_priority(self.active)
