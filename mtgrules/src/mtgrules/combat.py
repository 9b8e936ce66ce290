"""Pure combat rules: band legality (702.22c-d) and who divides a creature's damage (510.1c-d, 702.22j-k).

These functions take characteristics and declarations only, so they can be checked in isolation (e.g.
702.22d with several attack targets, which a two-player game cannot produce).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mtgrules.cards import Characteristics
from mtgrules.errors import IllegalBandError


def band_composition_ok(members: Sequence[Characteristics]) -> bool:
    """702.22c: one or more creatures with banding plus up to one without (even one with "bands with
    other"); or one or more [quality] creatures with "bands with other [quality]" plus any number of other
    [quality] creatures."""
    with_banding = sum(1 for m in members if m.has_banding)
    if with_banding >= 1 and len(members) - with_banding <= 1:
        return True
    qualities = {q for m in members for q in m.bands_with_other}
    for q in qualities:
        if any(q in m.bands_with_other and m.has_quality(q) for m in members) and all(
            m.has_quality(q) for m in members
        ):
            return True
    return False


def check_bands(
    bands: Sequence[Sequence[str]],
    attack_targets: Mapping[str, str],
    chars: Mapping[str, Characteristics],
) -> None:
    """Raise :class:`IllegalBandError` unless every declared band is legal.

    ``attack_targets`` maps each declared attacker to what it attacks; ``chars`` gives the attackers'
    characteristics.
    """
    seen: set[str] = set()
    for band in bands:
        label = "+".join(band)
        if len(band) < 2:
            raise IllegalBandError(f"band [{label}]: a band needs at least two creatures")
        for c in band:
            if c not in attack_targets:
                raise IllegalBandError(f"band [{label}]: {c} is not declared as an attacking creature")
            if c in seen:
                raise IllegalBandError(
                    f"band [{label}]: {c} is already in a band; each creature may be a member of only one "
                    "band (702.22c)"
                )
            seen.add(c)
        targets = sorted({attack_targets[c] for c in band})
        if len(targets) > 1:
            raise IllegalBandError(
                f"band [{label}]: its members attack different players/planeswalkers/battles "
                f"({', '.join(targets)}); all creatures in an attacking band must attack the same one "
                "(702.22d)"
            )
        members = [chars[c] for c in band]
        if not band_composition_ok(members):
            without = [c for c in band if not chars[c].has_banding]
            raise IllegalBandError(
                f"band [{label}]: {len(without)} members without banding ({', '.join(without)}); a band is "
                "creatures with banding plus up to one creature without banding, or [quality] creatures "
                "with 'bands with other [quality]' and other [quality] creatures (702.22c)"
            )


def group_triggers_banding_rule(group: Sequence[Characteristics]) -> bool:
    """Whether a group of creatures (the blockers of an attacker, or the attackers a blocker blocks)
    contains a creature with banding, or both a [quality] creature with "bands with other [quality]" and
    another [quality] creature (702.22j-k)."""
    if any(c.has_banding for c in group):
        return True
    for i, c in enumerate(group):
        for q in c.bands_with_other:
            if c.has_quality(q) and any(j != i and d.has_quality(q) for j, d in enumerate(group)):
                return True
    return False


@dataclass
class DamageSource:
    """How one creature's combat damage may be assigned in this combat damage step."""

    source: str
    attacking: bool
    power: int
    assigner: str
    creatures: tuple[str, ...]  # creatures that may be assigned damage
    player: str | None  # the player that may be assigned damage (unblocked or trample), if any
    rule: str  # the rule that decides the assignment
    forced: dict[str, int] | None = None  # the assignment when there is nothing to choose

    @property
    def needs_choice(self) -> bool:
        return self.forced is None


@dataclass
class CombatState:
    """Combat bookkeeping (506-511)."""

    attackers: dict[str, str] = field(default_factory=dict)  # attacking creature -> player it attacks
    bands: list[list[str]] = field(default_factory=list)
    blocked: set[str] = field(default_factory=set)  # attacking creatures that are blocked (509.1h)
    blocks: dict[str, list[str]] = field(default_factory=dict)  # blocking creature -> creatures it blocks
    attackers_declared: bool = False
    blockers_declared: bool = False
    # creatures with first strike or double strike as the first-strike damage step began (510.4)
    first_strikers: set[str] | None = None
    dealt_damage: set[str] = field(default_factory=set)
    # who controlled each attacking or blocking creature as it was declared (506.4: a change removes it)
    controllers: dict[str, str] = field(default_factory=dict)

    def blockers_of(self, attacker: str) -> list[str]:
        return [b for b, atts in self.blocks.items() if attacker in atts]

    def band_of(self, creature: str) -> list[str]:
        for band in self.bands:
            if creature in band:
                return band
        return [creature]

    def remove(self, creature: str) -> bool:
        """Remove a creature from combat (506.4) and from its band (702.22f). Returns whether it was in it."""
        was = creature in self.attackers or creature in self.blocks
        self.controllers.pop(creature, None)
        self.attackers.pop(creature, None)
        self.blocked.discard(creature)
        self.blocks.pop(creature, None)
        for atts in self.blocks.values():
            if creature in atts:
                atts.remove(creature)
        for band in self.bands:
            if creature in band:
                band.remove(creature)
        self.bands = [b for b in self.bands if len(b) >= 2]
        return was

    def to_json(self) -> dict[str, object]:
        return {
            "attackers": dict(self.attackers),
            "bands": [list(b) for b in self.bands],
            "blocked": sorted(self.blocked),
            "blocks": {k: list(v) for k, v in self.blocks.items()},
            "attackers_declared": self.attackers_declared,
            "blockers_declared": self.blockers_declared,
            "first_strikers": None if self.first_strikers is None else sorted(self.first_strikers),
            "dealt_damage": sorted(self.dealt_damage),
        }
