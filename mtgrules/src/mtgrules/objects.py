"""The game's objects and bookkeeping records: steps, zones, permanents, stack items, players, triggers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from mtgrules.cards import (
    CardDef,
    Characteristics,
    Door,
    Effect,
    TriggeredAbility,
)
from mtgrules.combat import DamageSource
from mtgrules.mana import ManaPool


class Step(StrEnum):
    """Steps of a turn, in order (500.1). Main phases have no steps; they are listed as steps here."""

    UNTAP = "untap"
    UPKEEP = "upkeep"
    DRAW = "draw"
    MAIN1 = "main1"
    BEGIN_COMBAT = "begin_combat"
    DECLARE_ATTACKERS = "declare_attackers"
    DECLARE_BLOCKERS = "declare_blockers"
    FIRST_STRIKE_DAMAGE = "first_strike_damage"
    COMBAT_DAMAGE = "combat_damage"
    END_COMBAT = "end_combat"
    MAIN2 = "main2"
    END = "end"
    CLEANUP = "cleanup"


STEP_ORDER: tuple[Step, ...] = tuple(Step)


MAIN_PHASES = frozenset({Step.MAIN1, Step.MAIN2})


START_STEPS = frozenset(
    {Step.UPKEEP, Step.DRAW, Step.MAIN1, Step.BEGIN_COMBAT, Step.DECLARE_ATTACKERS, Step.MAIN2, Step.END}
)


class TriggerOrder(StrEnum):
    """How a player's simultaneous triggered abilities are ordered on the stack (603.3b)."""

    CHOOSE = "choose"  # the player decides (DecisionKind.ORDER_TRIGGERS): the exact rules
    AS_TRIGGERED = "as_triggered"  # the documented default for simulations: the order they triggered in


class Zone(StrEnum):
    LIBRARY = "library"
    HAND = "hand"
    BATTLEFIELD = "battlefield"
    GRAVEYARD = "graveyard"
    STACK = "stack"
    EXILE = "exile"


@dataclass
class GameObject:
    """A card, or a token. Its id is stable across zones (rule 400.7's "new object" is tracked by the
    zone-change counter and by a fresh :class:`Permanent` each time it enters the battlefield)."""

    id: str
    card: CardDef
    owner: str
    is_token: bool = False


@dataclass
class Permanent:
    id: str
    controller: str
    instance: int  # a new object each time it enters the battlefield
    tapped: bool = False
    damage: int = 0
    sick: bool = False  # not continuously controlled since its controller's most recent turn began
    unlocked: set[Door] = field(default_factory=set)
    loses_banding: bool = False  # "loses banding until end of turn" (702.22b)
    deathtouched: bool = False  # dealt damage by a deathtouch source since the last SBA check (704.5h)
    # copy effects, oldest first: (copiable values, ends in the cleanup step); the newest applies (707.2,
    # 613.2a layer 1). The unlocked designations above are not copiable values and stay (709.5c).
    copies: list[tuple[CardDef, bool]] = field(default_factory=list)
    chosen_name: str | None = None  # a name chosen as it entered (stop_activated_abilities)
    counters: Counter[str] = field(default_factory=Counter)  # +1/+1 and -1/-1 counters (122.1a)
    face_down: bool = False  # a scenario flag: 708.2a characteristics (no morph, manifest or disguise)
    # layer 6 effects (613.1f) in timestamp order (613.7): (timestamp, "lose_all" or a keyword gained,
    # ends in the cleanup step)
    ability_effects: list[tuple[int, str, bool]] = field(default_factory=list)
    # layer 2 control-changing effects (613.1b): (timestamp, new controller, ends in the cleanup step); the
    # newest applies; without any, the player it entered under controls it
    control_effects: list[tuple[int, str, bool]] = field(default_factory=list)
    base_controller: str = ""

    def __post_init__(self) -> None:
        self.base_controller = self.base_controller or self.controller

    @property
    def copied(self) -> CardDef | None:
        return self.copies[-1][0] if self.copies else None

    def to_json(self) -> dict[str, object]:
        return {
            "controller": self.controller,
            "instance": self.instance,
            "tapped": self.tapped,
            "damage": self.damage,
            "sick": self.sick,
            "unlocked": sorted(d.value for d in self.unlocked),
            "loses_banding": self.loses_banding,
            "deathtouched": self.deathtouched,
            "copy_of": None if self.copied is None else self.copied.name,
            "copies": len(self.copies),
            "chosen_name": self.chosen_name,
            "counters": {k: n for k, n in sorted(self.counters.items()) if n},
            "face_down": self.face_down,
            "ability_effects": [list(e) for e in self.ability_effects],
            "control_effects": [list(e) for e in self.control_effects],
        }


@dataclass
class StackItem:
    """A spell (from a card or a copy) or a triggered ability on the stack."""

    id: str
    controller: str
    is_spell: bool
    card: CardDef | None  # the spell's card (or copied card); None for abilities
    door: Door | None = None  # the cast Room half (709.3)
    is_copy: bool = False
    effect: Effect | None = None
    targets: tuple[tuple[str, int], ...] = ()  # (object id, zone-change count when targeted)
    source: str | None = None  # an ability's source
    text: str = ""
    source_zcc: int | None = None  # the source object as it was activated or triggered (113.7a, 400.7)
    source_lki: Characteristics | None = None  # its source as it last was on the battlefield (608.2h)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "controller": self.controller,
            "spell": self.is_spell,
            "card": None if self.card is None else self.card.name,
            "door": None if self.door is None else self.door.value,
            "copy": self.is_copy,
            "targets": [t for t, _ in self.targets],
            "source": self.source,
            "text": self.text,
        }


@dataclass
class Player:
    name: str
    life: int = 20
    pool: ManaPool = field(default_factory=ManaPool)
    library: list[str] = field(default_factory=list)  # index 0 is the top
    hand: list[str] = field(default_factory=list)
    graveyard: list[str] = field(default_factory=list)
    drew_from_empty_library: bool = False
    lost: bool = False


@dataclass
class PendingTrigger:
    id: str  # "trigger-N": how an OrderTriggers decision names it
    controller: str
    source: str
    source_name: str
    ability: TriggeredAbility
    source_zcc: int | None = None  # the source object as it triggered (113.7a, 400.7)
    source_lki: Characteristics | None = None


@dataclass(frozen=True)
class TriggerHit:
    """An ability that triggered at an event (603.2), with what it needs from the game state of that moment:
    its source's last known information (608.2h) and, for 603.10a look-back abilities, the state just before
    the event. It is put on the stack the next time a player would receive priority (603.3), whether or not
    its source is still there (113.7a)."""

    # collection order: 0 unlock and fully unlock, 1 enters, 2 leaves-the-graveyard and combat damage
    rank: int
    seq: int  # when it triggered
    position: int  # the source's place on the battlefield at that moment (ordering within rank 2)
    source: str
    instance: int  # the source's battlefield instance (400.7): with ``door`` and ``index`` the ability's key
    door: str  # "left"/"right" for a Room door's ability, "" otherwise
    index: int  # the ability's position in its own face's (door's) list, which unlocking never shifts
    controller: str
    source_name: str
    ability: TriggeredAbility
    batch_key: str = ""  # abilities that trigger once per batch of events ("one or more ...") share a key
    source_zcc: int = 0  # the source's zone-change count as it triggered: which object it is (400.7)
    source_lki: Characteristics | None = None  # the source as it was then (608.2h)

    @property
    def ability_key(self) -> tuple[str, int, str, int]:
        """The object (id and battlefield instance) and the ability: what "once each turn" belongs to."""
        return (self.source, self.instance, self.door, self.index)


@dataclass
class Entering:
    """A permanent about to enter the battlefield, with its "as this enters" choices (614.1c, 614.12)."""

    obj_id: str | None  # the card that moves there; None for a token still to be created
    card: CardDef  # its copiable values before any copy choice (a token's card)
    controller: str
    doors: tuple[Door, ...] = ()  # a cast Room half enters unlocked (709.5d)
    spell: StackItem | None = None  # the resolving permanent spell (or copy) it is
    resume: StackItem | None = None  # the resolving spell or ability whose effect puts it there
    copy_values: CardDef | None = None  # what it enters as a copy of (707.9b), once chosen
    copy_chosen: bool = False
    copy_of: str | None = None  # a token made as a copy of this permanent (707.2)

    @property
    def label(self) -> str:
        return self.obj_id or f"a token copy of {self.card.name}"


@dataclass
class DamagePlan:
    sources: list[DamageSource]
    assigners: list[str]  # players still to announce, in order (510.1: active player first)
    assigned: dict[str, dict[str, int]] = field(default_factory=dict)
