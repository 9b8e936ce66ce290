"""State-based actions (704): performed together whenever a player would receive priority; the legend
rule's choice (704.5j)."""

from __future__ import annotations

from mtgrules.actions import (
    ChooseLegend,
    Decision,
    DecisionKind,
)
from mtgrules.base import GameBase
from mtgrules.cards import (
    CardType,
)
from mtgrules.errors import (
    IllegalChoiceError,
)
from mtgrules.objects import (
    Zone,
)


class StateBasedActions(GameBase):
    """State-based actions (704), the legend rule's choice included (part of ``Game``)."""

    def _state_based_actions(self) -> bool:
        """Check every state-based action and perform all that apply at once (704.3). Returns whether any
        was performed. If the legend rule needs its player's choice (704.5j), the game waits for that
        choice and performs nothing yet; the check is repeated after the choice."""
        losers = [
            p.name for p in self.players.values() if not p.lost and (p.life <= 0 or p.drew_from_empty_library)
        ]  # 704.5a, 704.5b
        dying: list[tuple[str, str]] = []
        for pid in self.battlefield:
            ch = self.characteristics(pid)
            if not ch.is_type(CardType.CREATURE) or ch.toughness is None:
                continue
            if ch.toughness <= 0:
                dying.append((pid, "toughness 0 or less (704.5f)"))
            elif self.permanents[pid].damage >= ch.toughness:
                dying.append((pid, "lethal damage (704.5g)"))
            elif self.permanents[pid].deathtouched and self.permanents[pid].damage > 0:
                dying.append((pid, "damage from a source with deathtouch (704.5h, 702.2b)"))
        legend: list[tuple[str, str, str, str]] = []
        if not losers:  # a player losing ends the game: nobody is asked to choose
            found = self._legend_rule()
            if found is None:
                return False
            legend = [x for x in found if x[0] not in {d for d, _ in dying}]
        gone_tokens = [
            obj_id for obj_id, obj in self.objects.items() if obj.is_token and obj_id not in self.permanents
        ]  # 704.5d
        for name in losers:
            self.players[name].lost = True
            self._log("player_loses", player=name)
        for obj_id in gone_tokens:
            self._remove_from_zone(obj_id)
            del self.objects[obj_id]
            self._log("token_ceases_to_exist", token=obj_id, rule="704.5d")
        # 603.10a: they leave at the same time; each one's abilities see the others leave
        going = [pid for pid, _ in dying] + [x[0] for x in legend]
        self._leaving_battlefield([(pid, Zone.GRAVEYARD) for pid in going])
        for pid, why in dying:
            self._log("dies", permanent=pid, reason=why)
            self._move(pid, Zone.GRAVEYARD, looked_back=True)
        for pid, player, name, kept in legend:
            self._log("legend_rule", permanent=pid, player=player, name=name, kept=kept, rule="704.5j")
            self._move(pid, Zone.GRAVEYARD, looked_back=True)
        self._legend_keep.clear()
        if losers:
            alive = [p.name for p in self.players.values() if not p.lost]
            self.game_over = True
            self._log("game_over", winner=alive[0] if len(alive) == 1 else None)
        annihilated = self._annihilate_counters()
        for perm in self.permanents.values():
            perm.deathtouched = False  # 704.5h looks at damage since the last check only
        return bool(losers or dying or legend or gone_tokens or annihilated)

    def _annihilate_counters(self) -> bool:
        """704.5q: a permanent with both +1/+1 and -1/-1 counters loses N of each, N the smaller number."""
        done = False
        for pid in list(self.battlefield):
            if pid not in self.permanents:
                continue
            counters = self.permanents[pid].counters
            n = min(counters["+1/+1"], counters["-1/-1"])
            if n:
                counters["+1/+1"] -= n
                counters["-1/-1"] -= n
                self._log("counters_removed", permanent=pid, each=n, rule="704.5q")
                done = True
        return done

    def legend_groups(self) -> list[tuple[str, str, list[str]]]:
        """Legendary permanents sharing a name under one controller (704.5j, 201.2a): (player, name, ids).

        An object with no name (a Room with both doors locked) shares a name with nothing (201.2a)."""
        groups = []
        for player in (self.active, self.opponent(self.active)):
            legends = [
                pid
                for pid in self.battlefield
                if self.permanents[pid].controller == player
                and "Legendary" in self.characteristics(pid).supertypes
            ]
            for name in sorted({n for pid in legends for n in self.characteristics(pid).names}):
                group = [pid for pid in legends if name in self.characteristics(pid).names]
                if len(group) >= 2:
                    groups.append((player, name, group))
        return groups

    def _legend_rule(self) -> list[tuple[str, str, str, str]] | None:
        """704.5j: for each group of same-named legends (active player first, names in alphabetical order)
        its controller chooses one to keep; the rest are put into graveyards. Returns (permanent, player,
        name, kept) for each one that goes, or None after asking for a choice. A permanent that a previous
        group already sends away does not count in a later group."""
        going: list[tuple[str, str, str, str]] = []
        for player, name, members in self.legend_groups():
            group = [pid for pid in members if all(pid != g[0] for g in going)]
            if len(group) < 2:
                continue
            keep = self._legend_keep.get((player, name))
            if keep not in group:
                self._decision = Decision(
                    DecisionKind.CHOOSE_LEGEND,
                    player,
                    f"legend rule (704.5j): {player} controls {len(group)} legendary permanents named "
                    f"{name}; "
                    "choose the one to keep, the rest are put into their owners' graveyards",
                    tuple(group),
                )
                self._legend_question = (player, name)
                return None
            going += [(pid, player, name, keep) for pid in group if pid != keep]
        return going

    def _choose_legend(self, a: ChooseLegend) -> None:
        decision = self._expect(DecisionKind.CHOOSE_LEGEND, a.player)
        if a.keep not in decision.options:
            raise IllegalChoiceError(
                f"keep one of {', '.join(decision.options)}, not {a.keep!r} (legend rule, 704.5j)"
            )
        assert self._legend_question is not None
        self._legend_keep[self._legend_question] = a.keep
        self._legend_question = None
        self._decision = None
        self._settle()
