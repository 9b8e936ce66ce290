"""Turn structure (500-514): steps and phases, priority and passing it, drawing."""

from __future__ import annotations

from mtgrules.actions import (
    Decision,
    DecisionKind,
)
from mtgrules.base import GameBase
from mtgrules.combat import CombatState
from mtgrules.objects import (
    STEP_ORDER,
    Step,
    Zone,
)


class TurnStructure(GameBase):
    """Steps, priority and passing it (500-514, 117) (part of ``Game``)."""

    def _enter_step(self, step: Step, *, keep_pools: bool = False) -> None:
        if not keep_pools:
            for p in self.players.values():
                if p.pool.total:
                    self._log("mana_emptied", player=p.name, mana=str(p.pool))
                    p.pool.empty()
        self.step = step
        self.passes = 0
        self.priority = None
        self._log("step", step=step.value, turn=self.turn, active=self.active)
        ap = self.active
        if step is Step.UNTAP:
            self._once_per_turn.clear()
            for pid in self.battlefield:
                perm = self.permanents[pid]
                if perm.controller == ap:
                    perm.sick = False
                    if perm.tapped:
                        perm.tapped = False
                        self._log("untap", permanent=pid)
            self._enter_step(Step.UPKEEP)
            return
        if step is Step.DRAW:
            self._draw(ap)
        elif step is Step.DECLARE_ATTACKERS:
            self.combat = CombatState()
            if any(self._can_attack(pid) for pid in self.battlefield):
                self._decision = Decision(
                    DecisionKind.DECLARE_ATTACKERS,
                    ap,
                    "declare attackers, their targets and bands (508.1, 702.22c)",
                    tuple(pid for pid in self.battlefield if self._can_attack(pid)),
                )
                return
            self.combat.attackers_declared = True
            self._log("attackers_declared", player=ap, attackers={}, bands=[])
        elif step is Step.DECLARE_BLOCKERS:
            defender = self.opponent(ap)
            potential = tuple(
                pid
                for pid in self.battlefield
                if self.permanents[pid].controller == defender
                and self.is_creature(pid)
                and not self.permanents[pid].tapped
            )
            if potential:
                self._decision = Decision(
                    DecisionKind.DECLARE_BLOCKERS, defender, "declare blockers (509.1)", potential
                )
                return
            self._finish_blocks({})
            return
        elif step in (Step.FIRST_STRIKE_DAMAGE, Step.COMBAT_DAMAGE):
            self._start_damage_step()
            return
        elif step is Step.CLEANUP:
            for pid in self.battlefield:
                perm = self.permanents[pid]
                perm.damage = 0
                perm.loses_banding = False
                self._end_of_turn_effects(pid)
                ended = [c for c, until_eot in perm.copies if until_eot]
                if ended:  # 514.2: "until end of turn" effects end; an earlier copy effect applies again
                    perm.copies = [(c, u) for c, u in perm.copies if not u]
                    self._log("copy_effect_ends", permanent=pid, copy_of=[c.name for c in ended])
            self._log("cleanup")
            self._next_step()
            return
        self._give_priority(ap)

    def _next_step(self) -> None:
        step = self.step
        if step is Step.END_COMBAT:
            self.combat = None
            self._log("combat_ended")
        if step is Step.CLEANUP:
            self.active = self.opponent(self.active)
            self.turn += 1
            self._enter_step(Step.UNTAP)
            return
        nxt = STEP_ORDER[STEP_ORDER.index(step) + 1]
        if step is Step.DECLARE_ATTACKERS and self.combat is not None and not self.combat.attackers:
            nxt = Step.END_COMBAT  # 508.8
        if nxt is Step.FIRST_STRIKE_DAMAGE and not self._any_first_strike():
            nxt = Step.COMBAT_DAMAGE  # 510.4
        self._enter_step(nxt)

    def _any_first_strike(self) -> bool:
        if self.combat is None:
            return False
        in_combat = list(self.combat.attackers) + list(self.combat.blocks)
        return any(self.characteristics(c).strikes_first for c in in_combat)

    def _pass(self, player: str) -> None:
        self._log("pass", player=player)
        self.passes += 1
        if self.passes >= len(self.order):
            self.passes = 0
            self.priority = None
            if self.stack:
                self._resolve_top()
            else:
                self._next_step()
        else:
            self.priority = self.opponent(player)

    def _give_priority(self, player: str) -> None:
        """Give ``player`` priority, first performing state-based actions and putting triggered abilities
        on the stack (117.5). A triggered ability needing targets makes the game wait for that choice."""
        self._priority_next = player
        self.priority = None
        self._settle()

    def _settle(self) -> None:
        while True:
            if self._decision is not None:
                return
            self._check_combat_members()
            changed = self._state_based_actions()
            if self._decision is not None:
                return  # the legend rule waits for a choice; nothing was performed yet (704.3)
            self._collect_triggers()
            if self.game_over:
                self.priority = None
                return
            if changed:
                continue
            if self._waiting:
                self._put_next_trigger()
                continue
            break
        self.priority = self._priority_next
        self.passes = 0

    def _draw(self, player: str) -> None:
        p = self.players[player]
        if not p.library:
            p.drew_from_empty_library = True
            self._log("draw_from_empty_library", player=player)
            return
        card = p.library[0]
        self._move(card, Zone.HAND)
