"""Property tests (Hypothesis).

1. In any combat, the total combat damage dealt equals the total the assigning players divided (chosen
   divisions and forced ones), every chosen division is dealt exactly as chosen, and life lost equals the
   damage dealt to players.
2. Through random play (legal and illegal decisions alike) every card is in exactly one zone, every
   refused decision leaves the state unchanged, and whenever a player has priority no state-based action
   is left to perform: no player controls two same-named legends (704.5j), no token is outside the
   battlefield (704.5d), no creature has lethal damage or toughness 0 (704.5f-g).
3. A player's simultaneous triggers: whatever order the player chooses is the order they go on the stack.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("hypothesis", reason="property tests need Hypothesis (the 'dev' extra)")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtgrules import (
    AssignCombatDamage,
    CastSpell,
    ChooseCard,
    ChooseDoor,
    ChooseLegend,
    ChooseName,
    ChooseTargets,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    Game,
    OrderTriggers,
    PassPriority,
    TapForMana,
    Unlock,
)
from mtgrules.cards import CardType, Door, characteristics
from mtgrules.combat import band_composition_ok
from mtgrules.errors import RulesError
from mtgrules.game import Step, Zone

CREATURES = [
    "Benalish Infantry",
    "Squire",
    "Eager Cadet",
    "Naga Eternal",
    "Alpine Grizzly",
    "Sanctuary Cat",
    "Mesa Pegasus",
    "Bog Wraith",
    "Test Legendary Bander",
    "Test Legend",
    "Test Double Bander",
    "Test Trampling Giant",
    "Test Trampling Behemoth",
    "Test Sky Guard",
    "Test Banding Lancer",
    "Test Ox",
    "Test Brute",
]

FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _split(draw: Any, total: int, parts: int) -> list[int]:
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=parts - 1, max_size=parts - 1)))
    bounds = [0, *cuts, total]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


@st.composite
def combats(draw: Any) -> tuple[Game, list[dict[str, dict[str, int]]]]:
    """Play out a random combat; return the game and the divisions the players submitted."""
    g = Game()
    attackers = draw(st.lists(st.sampled_from(CREATURES), min_size=1, max_size=4))
    blockers = draw(st.lists(st.sampled_from(CREATURES), min_size=1, max_size=4))
    for i, name in enumerate(attackers):
        g.add_card(f"a{i}", name, "A", "battlefield")
    for i, name in enumerate(blockers):
        g.add_card(f"b{i}", name, "B", "battlefield")
    if draw(st.booleans()):
        g.add_card("swamp", "Swamp", "B", "battlefield")
    g.start(active="A", step="declare_attackers", turn=3)
    att_ids = [f"a{i}" for i in range(len(attackers))]
    members = draw(st.lists(st.sampled_from(att_ids), unique=True, max_size=len(att_ids)))
    bands: tuple[tuple[str, ...], ...] = ()
    if len(members) >= 2 and band_composition_ok([g.characteristics(m) for m in members]):
        bands = (tuple(members),)
    g.apply(DeclareAttackers("A", dict.fromkeys(att_ids, "B"), bands))
    submitted: list[dict[str, dict[str, int]]] = []
    for _ in range(200):
        pending = g.pending
        if pending is None or g.step is Step.END_COMBAT:
            break
        if pending.kind is DecisionKind.DECLARE_BLOCKERS:
            blocks = {}
            for b in pending.options:
                choice = draw(st.sampled_from([None, *att_ids, *att_ids]))
                if choice is not None and g.block_problem(b, choice) is None:
                    blocks[b] = choice
            g.apply(DeclareBlockers("B", blocks))
        elif pending.kind is DecisionKind.ASSIGN_COMBAT_DAMAGE:
            division: dict[str, dict[str, int]] = {}
            for s in g.damage_sources():
                if s.assigner != pending.player or not s.needs_choice:
                    continue
                spill = s.player is not None and draw(st.booleans())
                if spill:  # trample: lethal to every blocker first, rest (if any) to the player
                    need = {
                        c: max(0, (g.characteristics(c).toughness or 0) - g.permanents[c].damage)
                        for c in s.creatures
                    }
                    if sum(need.values()) <= s.power:
                        d = dict(need)
                        d[s.player] = s.power - sum(need.values())  # type: ignore[index]
                        division[s.source] = d
                        continue
                amounts = _split(draw, s.power, len(s.creatures))
                division[s.source] = dict(zip(s.creatures, amounts, strict=True))
            g.apply(AssignCombatDamage(pending.player, division))
            submitted.append(division)
        elif pending.kind is DecisionKind.CHOOSE_LEGEND:  # two Test Legends on one side (704.5j)
            g.apply(ChooseLegend(pending.player, draw(st.sampled_from(pending.options))))
        else:
            g.apply(PassPriority(pending.player))
    return g, submitted


@pytest.mark.slow
@FAST
@given(combats())
def test_total_combat_damage_equals_what_was_divided(
    case: tuple[Game, list[dict[str, dict[str, int]]]],
) -> None:
    g, submitted = case
    assignments = [e for e in g.events if e.type == "damage_assignment"]
    dealt = [e for e in g.events if e.type == "damage" and e.get("combat")]
    assert sum(e["amount"] for e in dealt) == sum(sum(e["assignment"].values()) for e in assignments)
    # every division a player submitted is exactly what was dealt from that source
    chosen = {e["source"] + e["step"]: e["assignment"] for e in assignments if e["chosen"]}
    flat = {src: {k: v for k, v in d.items() if v} for div in submitted for src, d in div.items()}
    assert sorted(flat.values(), key=str) == sorted(chosen.values(), key=str)
    for e in assignments:
        from_source = {
            d["to"]: d["amount"] for d in dealt if d["source"] == e["source"] and d["step"] == e["step"]
        }
        assert from_source == e["assignment"]
    # each creature deals combat damage in at most one step (no double damage for first strike)
    steps_per_source: dict[str, set[str]] = {}
    for d in dealt:
        steps_per_source.setdefault(d["source"], set()).add(d["step"])
    assert all(len(v) == 1 for v in steps_per_source.values())
    # life lost equals damage dealt to players
    assert 20 - g.life("B") == sum(d["amount"] for d in dealt if d["to"] == "B")


# ---------------------------------------------------------------- random play keeps the zone invariant

POSITION_CARDS = [
    ("r1", "Defiled Crypt // Cadaver Lab", "A", "hand"),
    ("r2", "Bottomless Pool // Locker Room", "A", "hand"),
    ("r3", "Defiled Crypt // Cadaver Lab", "B", "battlefield"),
    ("naga", "Naga Eternal", "A", "graveyard"),
    ("squire", "Squire", "B", "graveyard"),
    ("inf", "Benalish Infantry", "A", "battlefield"),
    ("cat", "Sanctuary Cat", "B", "battlefield"),
    ("mirror", "Test Mirror", "A", "hand"),
    ("recall", "Test Recall", "B", "hand"),
    ("flicker", "Test Flicker", "A", "hand"),
    ("reanim", "Test Reanimation", "A", "hand"),
    ("purge", "Test Purge", "B", "hand"),
    ("pick", "Test Lockpick", "A", "hand"),
    ("lib1", "Squire", "A", "library"),
    ("lib2", "Eager Cadet", "A", "library"),
    ("lib3", "Squire", "B", "library"),
    ("lib4", "Eager Cadet", "B", "library"),
    ("legend", "Test Legend", "A", "battlefield"),
    ("replica", "Test Replica", "A", "hand"),
    ("replica2", "Test Replica", "B", "hand"),
    ("ledger", "Test Ledger", "A", "battlefield"),
    ("destroy", "Test Destroy", "B", "hand"),
]


def _position() -> Game:
    g = Game()
    for cid, name, owner, zone in POSITION_CARDS:
        g.add_card(cid, name, owner, zone)
    for i in range(4):
        g.add_card(f"sa{i}", "Swamp", "A", "battlefield")
        g.add_card(f"ia{i}", "Island", "A", "battlefield")
        g.add_card(f"sb{i}", "Swamp", "B", "battlefield")
        g.add_card(f"ib{i}", "Island", "B", "battlefield")
    g.add_card("wa", "Plains", "A", "battlefield")
    g.start(active="A", step="main1", turn=2)
    return g


def _candidates(g: Game) -> list[Any]:
    pending = g.pending
    if pending is None:
        return []
    p = pending.player
    if pending.kind is DecisionKind.PRIORITY:
        out: list[Any] = [PassPriority(p)] * 2
        out += [TapForMana(p, pid) for pid in g.battlefield if g.permanents[pid].controller == p]
        for card in g.players[p].hand:
            definition = g.objects[card].card
            doors: list[str | None] = ["left", "right", "both", None] if definition.is_room else [None]
            for door in doors:
                half = None if door in (None, "both") else (Door(door),)
                effect = characteristics(definition, half).spell_effect
                if effect is None or effect.target is None:
                    out += [CastSpell(p, card, door)] * 2
                    continue
                legal = g.legal_targets(effect.target, p, card)
                out += [CastSpell(p, card, door, (t,)) for t in [*legal[:4], "lib1"]]
        out += [
            Unlock(p, pid, d)
            for pid in g.battlefield
            if g.objects[pid].card.is_room
            for d in ("left", "right")
        ]
        return out
    if pending.kind is DecisionKind.CHOOSE_TARGETS:
        return [
            ChooseTargets(p, ()),
            *(ChooseTargets(p, (o,)) for o in pending.options),
            ChooseTargets(p, ("inf",)),
        ]
    if pending.kind is DecisionKind.CHOOSE_DOOR:
        return [ChooseDoor(p, "left"), ChooseDoor(p, "right")]
    if pending.kind is DecisionKind.CHOOSE_CARD:
        return [ChooseCard(p, c) for c in [*pending.options, "naga"]]
    if pending.kind is DecisionKind.CHOOSE_NAME:
        return [ChooseName(p, "Cadaver Lab"), ChooseName(p, "Defiled Crypt // Cadaver Lab")]
    if pending.kind is DecisionKind.CHOOSE_LEGEND:
        return [ChooseLegend(p, o) for o in pending.options] + [ChooseLegend(p, "inf")]
    if pending.kind is DecisionKind.ORDER_TRIGGERS:
        opts = list(pending.options)
        return [OrderTriggers(p, tuple(opts)), OrderTriggers(p, tuple(reversed(opts))), OrderTriggers(p, ())]
    if pending.kind is DecisionKind.DECLARE_ATTACKERS:
        return [DeclareAttackers(p, {}), DeclareAttackers(p, {"inf": "B"}), DeclareAttackers(p, {"cat": "B"})]
    if pending.kind is DecisionKind.DECLARE_BLOCKERS:
        return [DeclareBlockers(p, {}), DeclareBlockers(p, {"cat": "inf"})]
    srcs = [s for s in g.damage_sources() if s.assigner == p and s.needs_choice]
    return [AssignCombatDamage(p, {s.source: {s.creatures[0]: s.power} for s in srcs})]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_card_is_always_in_exactly_one_zone(data: st.DataObject) -> None:
    g = _position()
    cards = {cid for cid, o in g.objects.items() if not o.is_token}
    for _ in range(60):
        options = _candidates(g)
        if not options:
            break
        action = data.draw(st.sampled_from(options))
        before = g.snapshot()
        try:
            g.apply(action)
        except RulesError:
            assert g.snapshot() == before, f"refused {action} changed the state"
        locations = g.card_locations()
        assert set(locations) == cards
        assert all(n == 1 for n in locations.values()), locations
        pending = g.pending
        if pending is not None and pending.kind is DecisionKind.PRIORITY:
            assert not g.legend_groups(), g.legend_groups()
            assert all(g.zone_of(o) is Zone.BATTLEFIELD for o, obj in g.objects.items() if obj.is_token)
            for pid in g.battlefield:
                ch = g.characteristics(pid)
                if ch.toughness is not None and ch.is_type(CardType.CREATURE):
                    assert ch.toughness > 0 and g.permanents[pid].damage < ch.toughness


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_chosen_trigger_order_is_the_stack_order(data: st.DataObject) -> None:
    """Three different triggers of A at once (603.3b): any order chosen is the order they go on the stack;
    one without a legal target is removed when its turn comes (603.3d)."""
    g = Game()
    g.add_card("crypt", "Defiled Crypt // Cadaver Lab", "A", "battlefield", unlocked=["left"])
    g.add_card("ledger", "Test Ledger", "A", "battlefield")
    g.add_card("ledger2", "Test Ledger", "A", "battlefield")
    g.add_mana("A", "{B}")
    g.start(active="A", step="main1", turn=3)
    g.apply(Unlock("A", "crypt", "right"))  # Cadaver Lab's unlock trigger and both Ledgers' triggers
    pending = g.pending
    assert pending is not None and pending.kind is DecisionKind.ORDER_TRIGGERS
    assert len(pending.options) == 3
    chosen = data.draw(st.permutations(pending.options))
    g.apply(OrderTriggers("A", tuple(chosen)))
    put = [e["trigger"] for e in g.events if e.type == "ability_on_stack"]
    removed = [e for e in g.events if e.type == "trigger_removed"]
    assert len(put) == 2 and len(removed) == 1  # the graveyard holds no creature card to target
    assert put == [i for i in chosen if i in put]
    assert [item.source for item in g.stack] == [
        next(e["source"] for e in g.events if e.type == "ability_on_stack" and e["trigger"] == i) for i in put
    ]
