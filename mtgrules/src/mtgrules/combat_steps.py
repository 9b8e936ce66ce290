"""The combat phase (506-511): removal from combat, declaring attackers and blockers, bands, and
combat damage (510, 702.19, 702.22j-k)."""

from __future__ import annotations

from collections.abc import Mapping

from mtgrules.actions import (
    AssignCombatDamage,
    Decision,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
)
from mtgrules.base import GameBase
from mtgrules.cards import (
    LANDWALK,
    Keyword,
)
from mtgrules.combat import DamageSource, check_bands, group_triggers_banding_rule
from mtgrules.errors import (
    IllegalAttackError,
    IllegalBlockError,
    IllegalDamageAssignmentError,
)
from mtgrules.objects import (
    DamagePlan,
    Step,
)


class CombatSteps(GameBase):
    """Attackers, blockers, removal from combat and combat damage, 506-511 (part of ``Game``)."""

    def _check_combat_members(self) -> None:
        """506.4: an attacking or blocking permanent that stops being a creature, or whose controller changes,
        is removed from combat (and from its band, 702.22f)."""
        combat = self.combat
        if combat is None:
            return
        for cid in [*combat.attackers, *(b for b in combat.blocks if b not in combat.attackers)]:
            if cid not in self.permanents:
                continue
            if not self.is_creature(cid):
                reason = "stopped being a creature (506.4)"
            elif self.permanents[cid].controller != combat.controllers.get(cid):
                reason = "its controller changed (506.4)"
            else:
                continue
            if combat.remove(cid):
                self._log("removed_from_combat", creature=cid, reason=reason)

    def _can_attack(self, pid: str) -> bool:
        perm = self.permanents[pid]
        return (
            perm.controller == self.active
            and self.is_creature(pid)
            and not perm.tapped
            and not self._summoning_sick(pid)
        )

    def _declare_attackers(self, a: DeclareAttackers) -> None:
        self._expect(DecisionKind.DECLARE_ATTACKERS, a.player)
        targets = dict(a.attackers)
        for cid, target in targets.items():
            if cid not in self.permanents:
                raise IllegalAttackError(f"{cid!r} is not a permanent on the battlefield")
            perm = self.permanents[cid]
            if perm.controller != a.player:
                raise IllegalAttackError(f"{cid} is controlled by {perm.controller}, not {a.player}")
            if not self.is_creature(cid):
                raise IllegalAttackError(f"{cid} is not a creature")
            if perm.tapped:
                raise IllegalAttackError(f"{cid} is tapped and cannot attack (508.1a)")
            if self._summoning_sick(cid):
                raise IllegalAttackError(
                    f"{cid} has not been under {a.player}'s control since the turn began (302.6)"
                )
            if target == a.player or target not in self.players:
                raise IllegalAttackError(f"{cid} must attack an opponent, not {target!r} (508.1b)")
        bands = [list(b) for b in a.bands]
        check_bands(bands, targets, {c: self.characteristics(c) for c in targets})
        # --- legal: declare
        assert self.combat is not None
        for cid in targets:
            if Keyword.VIGILANCE not in self.characteristics(cid).keywords:  # 702.20b
                self.permanents[cid].tapped = True
        self.combat.attackers = targets
        self.combat.controllers.update({cid: a.player for cid in targets})
        self.combat.bands = bands
        self.combat.attackers_declared = True
        self._decision = None
        self._log(
            "attackers_declared", player=a.player, attackers=dict(targets), bands=[list(b) for b in bands]
        )
        self._give_priority(self.active)

    def block_problem(self, blocker: str, attacker: str) -> str | None:
        """Why ``blocker`` cannot block ``attacker`` now (None if it can), for the defending player."""
        if self.combat is None:
            return "there is no combat"
        return self._block_problem(blocker, attacker, self.opponent(self.active))

    def _block_problem(self, blocker: str, attacker: str, defender: str) -> str | None:
        assert self.combat is not None
        if blocker not in self.permanents:
            return f"{blocker!r} is not a permanent on the battlefield"
        perm = self.permanents[blocker]
        if perm.controller != defender:
            return f"{blocker} is not controlled by {defender}"
        if not self.is_creature(blocker):
            return f"{blocker} is not a creature"
        if perm.tapped:
            return f"{blocker} is tapped (509.1a)"
        if self.combat.attackers.get(attacker) != defender:
            return f"{attacker!r} is not a creature attacking {defender}"
        att = self.characteristics(attacker)
        blk = self.characteristics(blocker)
        if Keyword.FLYING in att.keywords and not ({Keyword.FLYING, Keyword.REACH} & blk.keywords):
            return f"{attacker} has flying and {blocker} has neither flying nor reach (702.9b)"
        for kw, land in LANDWALK.items():
            if kw in att.keywords and any(
                self.permanents[p].controller == defender and land in self.characteristics(p).subtypes
                for p in self.battlefield
            ):
                return f"{attacker} has {kw.value} and {defender} controls a {land} (702.14c)"
        return None

    def _declare_blockers(self, a: DeclareBlockers) -> None:
        self._expect(DecisionKind.DECLARE_BLOCKERS, a.player)
        for blocker, attacker in a.blocks.items():
            problem = self._block_problem(blocker, attacker, a.player)
            if problem is not None:
                raise IllegalBlockError(f"{blocker} cannot block {attacker}: {problem}")
        self._decision = None
        self._finish_blocks(dict(a.blocks))

    def _finish_blocks(self, blocks: dict[str, str]) -> None:
        combat = self.combat
        assert combat is not None
        for blocker, attacker in blocks.items():
            blocked = [attacker]
            # 702.22h: the other members of the band become blocked by the same blocking creature
            blocked += [m for m in combat.band_of(attacker) if m != attacker]
            combat.blocks[blocker] = blocked
            combat.controllers[blocker] = self.permanents[blocker].controller
        combat.blockers_declared = True
        self._log(
            "blockers_declared",
            player=self.opponent(self.active),
            blocks={b: list(v) for b, v in combat.blocks.items()},
        )
        for attacker in list(combat.attackers):
            by = combat.blockers_of(attacker)
            if by and attacker not in combat.blocked:
                combat.blocked.add(attacker)
                self._log("becomes_blocked", creature=attacker, by=by)
        self._give_priority(self.active)

    def _start_damage_step(self) -> None:
        combat = self.combat
        assert combat is not None
        in_combat = list(combat.attackers) + [b for b in combat.blocks if b not in combat.attackers]
        if self.step is Step.FIRST_STRIKE_DAMAGE:
            combat.first_strikers = {c for c in in_combat if self.characteristics(c).strikes_first}
            dealing = [c for c in in_combat if c in combat.first_strikers]
        else:
            # 510.4: creatures that had first strike or double strike as the first-strike step began don't
            # deal damage again, except those that have double strike now (702.4b)
            done = combat.first_strikers or set()
            dealing = [
                c
                for c in in_combat
                if c not in done or Keyword.DOUBLE_STRIKE in self.characteristics(c).keywords
            ]
        sources = [s for c in dealing if (s := self._damage_source(c)) is not None]
        order = [self.active, self.opponent(self.active)]  # 510.1: the active player announces first
        assigners = [p for p in order if any(s.assigner == p and s.needs_choice for s in sources)]
        self._plan = DamagePlan(sources, assigners)
        self._next_assigner()

    def _damage_source(self, c: str) -> DamageSource | None:
        combat = self.combat
        assert combat is not None
        power = self.characteristics(c).power or 0
        if power <= 0:
            return None  # 510.1a
        ap, dp = self.active, self.opponent(self.active)
        if c in combat.attackers:
            target = combat.attackers[c]
            trample = Keyword.TRAMPLE in self.characteristics(c).keywords
            if c not in combat.blocked:
                return DamageSource(c, True, power, ap, (), target, "510.1b", {target: power})
            blockers = tuple(combat.blockers_of(c))
            if not blockers:
                if trample:  # 702.19d: as though all its blockers had been assigned lethal damage
                    return DamageSource(c, True, power, ap, (), target, "702.19d", {target: power})
                return None  # 510.1c: blocked, but no creature blocking it any more
            if group_triggers_banding_rule([self.characteristics(b) for b in blockers]):
                forced = {blockers[0]: power} if len(blockers) == 1 else None
                return DamageSource(c, True, power, dp, blockers, None, "702.22j", forced)
            if trample:
                return DamageSource(c, True, power, ap, blockers, target, "702.19b")
            forced = {blockers[0]: power} if len(blockers) == 1 else None
            return DamageSource(c, True, power, ap, blockers, None, "510.1c", forced)
        blocked = tuple(a for a in combat.blocks.get(c, []) if a in combat.attackers)
        if not blocked:
            return None  # 510.1d
        if group_triggers_banding_rule([self.characteristics(x) for x in blocked]):
            forced = {blocked[0]: power} if len(blocked) == 1 else None
            return DamageSource(c, False, power, ap, blocked, None, "702.22k", forced)
        forced = {blocked[0]: power} if len(blocked) == 1 else None
        return DamageSource(c, False, power, dp, blocked, None, "510.1d", forced)

    def _next_assigner(self) -> None:
        plan = self._plan
        assert plan is not None
        if plan.assigners:
            player = plan.assigners[0]
            mine = [s for s in plan.sources if s.assigner == player and s.needs_choice]
            parts = []
            for s in mine:
                among = ", ".join(s.creatures + ((s.player,) if s.player else ()))
                parts.append(f"{s.source} ({s.power} damage, {s.rule}) among {among}")
            desc = "; ".join(parts)
            self._decision = Decision(
                DecisionKind.ASSIGN_COMBAT_DAMAGE,
                player,
                f"divide combat damage: {desc}",
                tuple(s.source for s in mine),
            )
            return
        self._decision = None
        self._deal_combat_damage()

    def _lethal_needed(self, creature: str) -> int:
        tough = self.characteristics(creature).toughness or 0
        return max(0, tough - self.permanents[creature].damage)

    def _has(self, obj_id: str, keyword: Keyword) -> bool:
        return keyword in self.characteristics(obj_id).keywords

    def _lethal_still_needed(self, src: str, blocker: str, assigned: Mapping[str, Mapping[str, int]]) -> int:
        """How much ``src`` must assign to ``blocker`` for lethal damage (702.19b), counting damage already
        marked and the other creatures' assignments in this step. Any nonzero damage from a source with
        deathtouch counts as lethal (702.2c), whether from ``src`` or from another creature."""
        others = {o: d.get(blocker, 0) for o, d in assigned.items() if o != src}
        if any(n > 0 and self._has(o, Keyword.DEATHTOUCH) for o, n in others.items()):
            return 0
        need = max(0, self._lethal_needed(blocker) - sum(others.values()))
        return min(need, 1) if self._has(src, Keyword.DEATHTOUCH) else need

    def _assign_damage(self, a: AssignCombatDamage) -> None:
        self._expect(DecisionKind.ASSIGN_COMBAT_DAMAGE, a.player)
        plan = self._plan
        assert plan is not None
        by_id = {s.source: s for s in plan.sources}
        normalized: dict[str, dict[str, int]] = {}
        for src, division in a.assignments.items():
            s = by_id.get(src)
            if s is None:
                raise IllegalDamageAssignmentError(f"{src!r} assigns no combat damage in this step")
            if s.assigner != a.player:
                raise IllegalDamageAssignmentError(
                    f"{src}'s combat damage is assigned by {s.assigner}, not {a.player} ({s.rule})"
                )
            clean: dict[str, int] = {}
            for rcp, amount in division.items():
                if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                    raise IllegalDamageAssignmentError(f"{src}: amount for {rcp} must be a whole number >= 0")
                if rcp not in s.creatures and rcp != s.player:
                    allowed = ", ".join(s.creatures + ((s.player,) if s.player else ()))
                    raise IllegalDamageAssignmentError(
                        f"{src} cannot assign damage to {rcp}: it may assign only to {allowed} ({s.rule})"
                    )
                if amount:
                    clean[rcp] = clean.get(rcp, 0) + amount
            total = sum(clean.values())
            if total != s.power:
                raise IllegalDamageAssignmentError(
                    f"{src} assigns {total} damage but must assign exactly its power, {s.power} (510.1a)"
                )
            if s.forced is not None and clean != s.forced:
                raise IllegalDamageAssignmentError(f"{src} must assign its damage as {s.forced} ({s.rule})")
            normalized[src] = clean
        missing = [
            s.source
            for s in plan.sources
            if s.assigner == a.player and s.needs_choice and s.source not in normalized
        ]
        if missing:
            raise IllegalDamageAssignmentError(
                f"{a.player} must also divide the damage of {', '.join(missing)}"
            )
        # 702.19b: trample damage to the player only once every blocker is assigned lethal damage
        fixed: dict[str, dict[str, int]] = {s.source: s.forced for s in plan.sources if s.forced is not None}
        fixed.update(plan.assigned)
        fixed.update(normalized)
        for src, division in normalized.items():
            s = by_id[src]
            if s.player is None or not division.get(s.player) or s.rule != "702.19b":
                continue
            for b in s.creatures:
                need = self._lethal_still_needed(src, b, fixed)
                if division.get(b, 0) < need:
                    raise IllegalDamageAssignmentError(
                        f"{src} has trample but assigns {division.get(b, 0)} to {b}, which needs {need} "
                        f"from it for lethal damage; damage can go to {s.player} only once every blocker is "
                        "assigned lethal damage (702.19b; with deathtouch 1 is lethal, 702.2c)"
                    )
        # --- legal
        plan.assigned.update(normalized)
        plan.assigners.pop(0)
        self._next_assigner()

    def _deal_combat_damage(self) -> None:
        plan = self._plan
        combat = self.combat
        assert plan is not None and combat is not None
        dealt: list[tuple[str, str, int]] = []
        for s in plan.sources:
            division = s.forced if s.forced is not None else plan.assigned[s.source]
            self._log(
                "damage_assignment",
                source=s.source,
                assigned_by=s.assigner,
                assignment=dict(division),
                rule=s.rule,
                chosen=s.forced is None,
                step=self.step.value,
            )
            for rcp, amount in division.items():
                dealt.append((s.source, rcp, amount))
        # 510.2: all combat damage is dealt simultaneously
        lifelink: dict[str, int] = {}
        for src, rcp, amount in dealt:
            controller = self.permanents[src].controller
            if rcp in self.players:
                self.players[rcp].life -= amount
            else:
                self.permanents[rcp].damage += amount
                if amount and self._has(src, Keyword.DEATHTOUCH):
                    self.permanents[rcp].deathtouched = True  # 702.2b, destroyed by 704.5h
            self._log(
                "damage",
                source=src,
                source_controller=controller,
                to=rcp,
                to_player=rcp in self.players,
                amount=amount,
                combat=True,
                step=self.step.value,
            )
            combat.dealt_damage.add(src)
            if amount and self._has(src, Keyword.LIFELINK):
                lifelink[src] = lifelink.get(src, 0) + amount
        for src, amount in lifelink.items():  # 702.15b: part of the damage event, not a trigger
            controller = self.permanents[src].controller
            self.players[controller].life += amount
            self._log("life_gain", player=controller, amount=amount, source=src, rule="702.15b")
        self._plan = None
        self._give_priority(self.active)
