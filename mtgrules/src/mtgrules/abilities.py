"""Activated abilities (602), mana abilities (605) and triggered abilities (603): triggering, look-back
(603.10a), ordering (603.3b) and putting them on the stack."""

from __future__ import annotations

from collections import Counter

from mtgrules.actions import (
    ActivateAbility,
    ChooseTargets,
    Decision,
    DecisionKind,
    OrderTriggers,
    TapForMana,
)
from mtgrules.base import GameBase
from mtgrules.cards import (
    ActivatedAbility,
    StaticKind,
    Trigger,
    TriggeredAbility,
)
from mtgrules.errors import (
    IllegalActivationError,
    IllegalChoiceError,
    NotYourDecisionError,
    RulesError,
    TimingError,
)
from mtgrules.events import Event
from mtgrules.mana import parse_mana
from mtgrules.objects import (
    MAIN_PHASES,
    PendingTrigger,
    Permanent,
    StackItem,
    TriggerHit,
    TriggerOrder,
    Zone,
)


class Abilities(GameBase):
    """Activated, mana and triggered abilities (602, 605, 603) (part of ``Game``)."""

    def _tap_for_mana(self, a: TapForMana) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        if perm.controller != a.player:
            raise NotYourDecisionError(f"{a.permanent} is controlled by {perm.controller}, not {a.player}")
        symbol = self.characteristics(a.permanent).mana_ability
        if symbol is None:
            raise RulesError(f"{a.permanent} has no mana ability")
        if perm.tapped:
            raise RulesError(f"{a.permanent} is already tapped")
        if self._summoning_sick(a.permanent):
            raise IllegalActivationError(
                f"{a.permanent} is a creature that has not been under {a.player}'s control since the turn "
                "began; its {T} mana ability can't be activated (302.6)"
            )
        perm.tapped = True
        self.players[a.player].pool.add(symbol)
        self.passes = 0
        self._log("mana_ability", player=a.player, permanent=a.permanent, mana="{" + symbol + "}")

    def activation_stopped_by(self, obj_id: str) -> tuple[str, str] | None:
        """The permanent and chosen name that stop ``obj_id``'s activated abilities other than mana abilities
        ("Activated abilities of sources with the chosen name can't be activated"), if any."""
        for pid in self.battlefield:
            for st in self.characteristics(pid).static:
                if st.kind is StaticKind.STOP_ACTIVATED_ABILITIES:
                    name = st.name if st.name is not None else self.permanents[pid].chosen_name
                    if name is not None and self.has_name(obj_id, name):  # 709.4a, 201.2a
                        return pid, name
        return None

    def _ability_to_activate(self, a: ActivateAbility, perm: Permanent) -> ActivatedAbility:
        """The ability ``a`` names, if it may be activated now (602.5, 602.5d, 302.6); else a refusal."""
        abilities = self.activated_abilities(a.permanent)
        if (
            not isinstance(a.ability, int)
            or isinstance(a.ability, bool)
            or not 0 <= a.ability < len(abilities)
        ):
            listing = "; ".join(f"{i}: {ab.text}" for i, ab in enumerate(abilities)) or "none"
            raise IllegalActivationError(
                f"{a.permanent} has no activated ability number {a.ability!r}; its activated abilities now: "
                f"{listing}"
            )
        ab = abilities[a.ability]
        if not ab.is_mana_ability:
            stopped = self.activation_stopped_by(a.permanent)
            if stopped is not None:
                raise IllegalActivationError(
                    f"{self.name_of(a.permanent)}'s activated abilities can't be activated: {stopped[0]} "
                    f"chose the name {stopped[1]} (602.5; mana abilities are exempt)"
                )
        if ab.sorcery_speed and not (a.player == self.active and self.step in MAIN_PHASES and not self.stack):
            raise TimingError(
                f"{ab.text!r} can be activated only as a sorcery: in a main phase of your own turn with an "
                "empty stack (602.5d)"
            )
        if ab.cost.tap:
            if perm.tapped:
                raise IllegalActivationError(
                    f"{a.permanent} is tapped; its {{T}} cost can't be paid (601.2h)"
                )
            if self._summoning_sick(a.permanent):
                raise IllegalActivationError(
                    f"{a.permanent} is a creature that has not been under {a.player}'s control since the "
                    "turn began; it can't pay {T} (302.6)"
                )
        return ab

    def _activate(self, a: ActivateAbility) -> None:
        """602.2: announce, choose targets, pay the total cost; then the ability is on the stack and its
        controller receives priority (117.3c). A mana ability resolves at once, without the stack (605.3b)."""
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        if perm.controller != a.player:
            raise IllegalActivationError(
                f"{a.permanent} is controlled by {perm.controller}; only its controller may activate its "
                "abilities (602.2)"
            )
        ab = self._ability_to_activate(a, perm)
        targets = self._check_targets(ab.effect.target, a.targets, a.player, a.permanent)
        pool = self.players[a.player].pool
        spend = pool.plan_payment(ab.cost.mana, a.payment) if ab.cost.mana is not None else {}
        # --- all checks passed: pay the costs (601.2h)
        pool.spend(spend)
        if ab.cost.tap:
            perm.tapped = True
        self._log(
            "activated",
            player=a.player,
            permanent=a.permanent,
            ability=ab.text,
            cost=str(ab.cost),
            mana_ability=ab.is_mana_ability,
            targets=[t for t, _ in targets],
        )
        source_zcc = self.zcc[a.permanent]
        source_lki = self.characteristics(a.permanent)
        if ab.cost.sacrifice:
            self._log("sacrificed", permanent=a.permanent, as_cost=True)
            self._move(a.permanent, Zone.GRAVEYARD)
        if ab.is_mana_ability:  # 605.3b: resolves immediately, without the stack
            self._add_mana(a.player, ab.effect.mana, a.permanent)
        else:
            aid = self._new_id("ability")
            self.stack.append(
                StackItem(
                    aid,
                    a.player,
                    False,
                    None,
                    effect=ab.effect,
                    targets=targets,
                    source=a.permanent,
                    text=ab.text,
                    source_zcc=source_zcc,
                    source_lki=source_lki,
                )
            )
            self._log(
                "ability_on_stack",
                id=aid,
                source=a.permanent,
                controller=a.player,
                ability=ab.text,
                targets=[t for t, _ in targets],
                activated=True,
            )
        self._give_priority(a.player)

    def _add_mana(self, player: str, mana: str, source: str) -> None:
        for sym, n in parse_mana(mana).items():
            self.players[player].pool.add(sym, n)
        self._log("mana_ability", player=player, permanent=source, mana=mana)

    def _source_unchanged(self, item: StackItem) -> bool:
        """Whether an ability's source is still the same permanent (no zone change, 400.7): recorded for
        activated and triggered abilities alike (113.7a)."""
        src = item.source
        return src is not None and src in self.permanents and self.zcc.get(src) == item.source_zcc

    def _abilities(self, pid: str) -> list[tuple[str, int, TriggeredAbility]]:
        """The triggered abilities ``pid`` has now, each with its door ("" outside a Room) and its position in
        that door's (or card's) own list: a key that stays the same when the other door unlocks."""
        out: list[tuple[str, int, TriggeredAbility]] = []
        counts: Counter[str] = Counter()
        for door, ab in self.characteristics(pid).triggered:  # each face's abilities in that face's order
            label = "" if door is None else door.value
            out.append((label, counts[label], ab))
            counts[label] += 1
        return out

    def _hit(
        self, rank: int, pid: str, door: str, index: int, ab: TriggeredAbility, batch_key: str = ""
    ) -> None:
        perm = self.permanents[pid]
        self._hits.append(
            TriggerHit(
                rank,
                len(self._hits),
                self.battlefield.index(pid),
                pid,
                perm.instance,
                door,
                index,
                perm.controller,
                self.name_of(pid),
                ab,
                batch_key,
                self.zcc[pid],
                self.characteristics(pid),
            )
        )

    def _detect_triggers(self, e: Event) -> None:
        """603.2: abilities trigger at the event, from the game state just after it (603.10: except
        leaves-the-zone abilities, which :meth:`_leaving_graveyard` detects from the state just before)."""
        if e.type == "unlock":
            pid = e["permanent"]
            for door, index, ab in self._abilities(pid):
                if ab.trigger is Trigger.UNLOCK_THIS_DOOR and door == e["door"]:
                    self._hit(0, pid, door, index, ab)
        elif e.type == "fully_unlock":
            for pid in self.battlefield:
                if self.permanents[pid].controller == e["controller"]:
                    for door, index, ab in self._abilities(pid):
                        if ab.trigger is Trigger.FULLY_UNLOCK_ROOM:
                            self._hit(0, pid, door, index, ab)
        elif (e.type == "zone_change" and e["to"] == "battlefield") or e.type == "token_created":
            entered = e["card"] if e.type == "zone_change" else e["token"]
            controller = self.permanents[entered].controller
            # an enters trigger; each "triggers an additional time" static of its controller adds one
            extra = sum(
                1
                for pid in self.battlefield
                if self.permanents[pid].controller == controller
                for st in self.characteristics(pid).static
                if st.kind is StaticKind.ENTERS_TRIGGERS_TWICE
            )
            for door, index, ab in self._abilities(entered):
                if ab.trigger is Trigger.ENTERS:
                    for _ in range(1 + extra):
                        self._hit(1, entered, door, index, ab)
        elif e.type == "damage" and e.get("combat") and e["to_player"]:
            for pid in self.battlefield:
                if self.permanents[pid].controller == e["source_controller"]:
                    for door, index, ab in self._abilities(pid):
                        if ab.trigger is Trigger.COMBAT_DAMAGE_TO_PLAYER:
                            self._hit(2, pid, door, index, ab, batch_key="combat damage")

    def _leaving_battlefield(self, leaving: list[tuple[str, Zone]]) -> None:
        """603.6c, 603.10a: leaves-the-battlefield abilities look back in time: the permanents on the
        battlefield just before the event (the ones leaving included) and their abilities then. "Dies" means
        put into a graveyard from the battlefield (700.4)."""
        for pid in self.battlefield:
            for door, index, ab in self._abilities(pid):
                for gone, to in leaving:
                    dies = to is Zone.GRAVEYARD and self.is_creature(gone)
                    if (
                        (ab.trigger is Trigger.LEAVES_BATTLEFIELD and gone == pid)
                        or (ab.trigger is Trigger.DIES and gone == pid and dies)
                        or (ab.trigger is Trigger.A_CREATURE_DIES and dies)
                    ):
                        self._hit(1, pid, door, index, ab)

    def _leaving_graveyard(self, owner: str) -> None:
        """603.10a: "whenever one or more cards leave your graveyard" looks back in time: the permanents
        that had the ability just before the card left, not the card leaving (it was no permanent then)."""
        for pid in self.battlefield:
            if self.permanents[pid].controller == owner:
                for door, index, ab in self._abilities(pid):
                    if ab.trigger is Trigger.CARDS_LEAVE_YOUR_GRAVEYARD:
                        self._hit(2, pid, door, index, ab, batch_key="leave graveyard")

    def _collect_triggers(self) -> None:
        """Turn the abilities that triggered since the last time into waiting triggers (603.3), in a fixed
        order: unlock-related first, then enters, then the "one or more" abilities by their source's place on
        the battlefield. A "one or more ..." ability triggers once for all the events since the last time."""
        hits, self._hits = self._hits, []
        if not hits:
            return
        first = sorted((h for h in hits if h.rank < 2), key=lambda h: (h.rank, h.seq))
        batched: dict[tuple[tuple[str, int, str, int], str], TriggerHit] = {}
        for h in hits:
            if h.rank == 2:
                batched.setdefault((h.ability_key, h.batch_key), h)
        rest = sorted(batched.values(), key=lambda h: (h.position, h.index, h.seq))
        for h in first + rest:
            if h.ability.once_each_turn:
                if h.ability_key in self._once_per_turn:
                    self.events.append(
                        Event(
                            "trigger_suppressed",
                            {"source": h.source, "reason": "triggers only once each turn"},
                        )
                    )
                    continue
                self._once_per_turn.add(h.ability_key)
            self._trigger(h)

    def _trigger(self, hit: TriggerHit) -> None:
        tid = self._new_id("trigger")
        self._waiting.append(
            PendingTrigger(
                tid, hit.controller, hit.source, hit.source_name, hit.ability, hit.source_zcc, hit.source_lki
            )
        )
        self.events.append(
            Event(
                "trigger",
                {"id": tid, "source": hit.source, "name": hit.source_name, "ability": hit.ability.text},
            )
        )

    def _put_next_trigger(self) -> None:
        # APNAP (603.3b): the active player puts all their triggers on the stack first, in any order they
        # choose; then the other player does the same.
        player = self.active
        if all(t.controller != player for t in self._waiting):
            player = self.opponent(player)
        mine = [t for t in self._waiting if t.controller == player]
        if (
            self.trigger_order is TriggerOrder.CHOOSE
            and len(mine) > 1
            and any(t.id not in self._ordered for t in mine)
            and len({(t.source, t.ability) for t in mine}) > 1  # identical abilities are interchangeable
        ):
            listing = "; ".join(f"{t.id}: {t.source_name}: {t.ability.text}" for t in mine)
            self._decision = Decision(
                DecisionKind.ORDER_TRIGGERS,
                player,
                f"order {player}'s triggered abilities on the stack, first put first; the last resolves "
                f"first (603.3b): {listing}",
                tuple(t.id for t in mine),
            )
            return
        trig = mine[0]
        self._waiting.remove(trig)
        if trig.id in self._ordered:
            self._ordered.remove(trig.id)
        spec = trig.ability.effect.target
        if spec is not None:
            legal = self.legal_targets(spec, trig.controller, None)
            if spec.min_count == 0 and not legal:
                self._push_ability(trig, ())  # "up to one target" with nothing to target
                return
            if spec.min_count > 0 and len(legal) < spec.min_count:
                self._log(
                    "trigger_removed",
                    source=trig.source,
                    ability=trig.ability.text,
                    reason="no legal target; it is removed from the stack (603.3d)",
                )
                return
            self._choosing = trig
            self._decision = Decision(
                DecisionKind.CHOOSE_TARGETS,
                trig.controller,
                f"choose targets for {trig.source_name}: {trig.ability.text}",
                tuple(legal),
            )
            return
        self._push_ability(trig, ())

    def _push_ability(self, trig: PendingTrigger, targets: tuple[tuple[str, int], ...]) -> None:
        aid = self._new_id("ability")
        self.stack.append(
            StackItem(
                aid,
                trig.controller,
                False,
                None,
                effect=trig.ability.effect,
                targets=targets,
                source=trig.source,
                text=trig.ability.text,
                source_zcc=trig.source_zcc,
                source_lki=trig.source_lki,
            )
        )
        self._log(
            "ability_on_stack",
            id=aid,
            trigger=trig.id,
            source=trig.source,
            controller=trig.controller,
            ability=trig.ability.text,
            targets=[t for t, _ in targets],
        )

    def _order_triggers(self, a: OrderTriggers) -> None:
        decision = self._expect(DecisionKind.ORDER_TRIGGERS, a.player)
        order = list(a.order)
        if sorted(order) != sorted(decision.options) or len(set(order)) != len(order):
            raise IllegalChoiceError(
                f"order must list each of {', '.join(decision.options)} exactly once, not {order} (603.3b)"
            )
        by_id = {t.id: t for t in self._waiting}
        others = [t for t in self._waiting if t.controller != a.player]
        self._waiting = [by_id[i] for i in order] + others
        self._ordered = list(order)
        self._decision = None
        self._log("triggers_ordered", player=a.player, order=order, rule="603.3b")
        self._settle()

    def _choose_targets(self, a: ChooseTargets) -> None:
        self._expect(DecisionKind.CHOOSE_TARGETS, a.player)
        trig = self._choosing
        assert trig is not None
        targets = self._check_targets(trig.ability.effect.target, a.targets, trig.controller, None)
        self._choosing = None
        self._decision = None
        self._push_ability(trig, targets)
        self._settle()
