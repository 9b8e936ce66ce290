"""Card definitions (as data) and characteristics.

A :class:`CardDef` has one :class:`Face`, or two for a Room (a split card with a shared type line, 709.5).
:func:`characteristics` computes an object's characteristics from the faces that "exist" for it in its
current zone: both halves outside the stack and battlefield (709.4), the cast half on the stack (709.3b),
the unlocked halves on the battlefield (709.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mtgrules.mana import COLOR_ORDER, Color, ManaCost


class CardType(StrEnum):
    ARTIFACT = "artifact"
    CREATURE = "creature"
    ENCHANTMENT = "enchantment"
    INSTANT = "instant"
    LAND = "land"
    SORCERY = "sorcery"


PERMANENT_TYPES = frozenset({CardType.ARTIFACT, CardType.CREATURE, CardType.ENCHANTMENT, CardType.LAND})


class Keyword(StrEnum):
    BANDING = "banding"
    DEATHTOUCH = "deathtouch"
    DOUBLE_STRIKE = "double strike"
    FIRST_STRIKE = "first strike"
    FLYING = "flying"
    LIFELINK = "lifelink"
    REACH = "reach"
    TRAMPLE = "trample"
    VIGILANCE = "vigilance"
    SWAMPWALK = "swampwalk"
    ISLANDWALK = "islandwalk"
    FORESTWALK = "forestwalk"
    MOUNTAINWALK = "mountainwalk"
    PLAINSWALK = "plainswalk"


#: Landwalk keyword -> land subtype it refers to (702.14).
LANDWALK: dict[Keyword, str] = {
    Keyword.SWAMPWALK: "Swamp",
    Keyword.ISLANDWALK: "Island",
    Keyword.FORESTWALK: "Forest",
    Keyword.MOUNTAINWALK: "Mountain",
    Keyword.PLAINSWALK: "Plains",
}


class Door(StrEnum):
    """A half of a Room (709.5j)."""

    LEFT = "left"
    RIGHT = "right"


class Trigger(StrEnum):
    """Trigger conditions of the triggered abilities the scenario cards need."""

    UNLOCK_THIS_DOOR = "unlock_this_door"  # "When you unlock this door" (709.5h)
    FULLY_UNLOCK_ROOM = "fully_unlock_room"  # "Whenever you fully unlock a Room" (709.5i)
    CARDS_LEAVE_YOUR_GRAVEYARD = "cards_leave_your_graveyard"  # "Whenever one or more cards leave..."
    COMBAT_DAMAGE_TO_PLAYER = "combat_damage_to_player"  # "Whenever one or more creatures you control..."
    ENTERS = "enters"  # "When this permanent enters" (an enters-the-battlefield trigger)


class EffectKind(StrEnum):
    """The effects of the scenario cards."""

    RETURN_TO_HAND = "return_to_hand"  # return target permanent/creature to its owner's hand
    GRAVEYARD_TO_HAND = "graveyard_to_hand"  # return target card from your graveyard to your hand
    GRAVEYARD_TO_BATTLEFIELD = "graveyard_to_battlefield"  # ... from a graveyard to the battlefield
    CREATE_HORROR = "create_horror"  # create a 2/2 black Horror enchantment creature token
    DRAW = "draw"  # draw a card
    GAIN_LIFE = "gain_life"
    BECOMES_BLOCKED = "becomes_blocked"  # target attacking creature becomes blocked
    LOSE_BANDING = "lose_banding"  # target creature loses banding until end of turn
    COPY_SPELL = "copy_spell"  # copy target spell
    FLICKER = "flicker"  # exile target permanent, then return it to the battlefield
    REMOVE_FROM_COMBAT = "remove_from_combat"
    DESTROY = "destroy"
    UNLOCK_DOOR = "unlock_door"  # unlock a locked door of target Room you control (709.5f)
    LOCK_DOOR = "lock_door"  # lock an unlocked door of target Room you control (709.5g)
    DISCARD = "discard"  # discard a card
    NAME_AND_REVEAL = "name_and_reveal"  # choose a card name; gain 1 life per card in hand with it
    COPY_PERMANENT = "copy_permanent"  # create a token that's a copy of target permanent (707.2)


class StaticKind(StrEnum):
    """The static abilities test cards may have."""

    # "You may cast permanent spells with mana value N or less from your graveyard." (Room ruling: only the
    # cast door's characteristics are considered)
    CAST_PERMANENTS_FROM_GRAVEYARD = "cast_permanents_from_graveyard"
    # "If a permanent entering the battlefield causes a triggered ability of a permanent you control to
    # trigger, that ability triggers an additional time." (Room ruling: a door unlocking as the Room enters
    # is not such a cause)
    ENTERS_TRIGGERS_TWICE = "enters_triggers_twice"


@dataclass(frozen=True)
class StaticAbility:
    kind: StaticKind
    max_mana_value: int = 0
    text: str = ""


class TargetKind(StrEnum):
    CREATURE = "creature"
    ATTACKING_CREATURE = "attacking creature"
    PERMANENT = "permanent"
    SPELL = "spell"
    CREATURE_CARD_IN_YOUR_GRAVEYARD = "creature card in your graveyard"
    PERMANENT_CARD_IN_A_GRAVEYARD = "permanent card in a graveyard"
    ROOM_YOU_CONTROL = "Room you control"


@dataclass(frozen=True)
class TargetSpec:
    kind: TargetKind
    min_count: int = 1
    max_count: int = 1


@dataclass(frozen=True)
class Effect:
    kind: EffectKind
    target: TargetSpec | None = None
    amount: int = 0


@dataclass(frozen=True)
class TriggeredAbility:
    trigger: Trigger
    effect: Effect
    text: str
    once_each_turn: bool = False


@dataclass(frozen=True)
class Face:
    """One face (or Room door) of a card. For a Room, each door repeats the shared type line (709.5a)."""

    name: str
    mana_cost: ManaCost | None
    types: frozenset[CardType]
    subtypes: tuple[str, ...] = ()
    supertypes: tuple[str, ...] = ()
    power: int | None = None
    toughness: int | None = None
    keywords: tuple[Keyword, ...] = ()  # may repeat: two instances of banding are redundant (702.22m)
    bands_with_other: tuple[str, ...] = ()  # qualities, e.g. "Legendary" (702.22b)
    triggered: tuple[TriggeredAbility, ...] = ()
    spell_effect: Effect | None = None
    mana_ability: str | None = None  # "{T}: Add {X}." for basic lands
    static: tuple[StaticAbility, ...] = ()
    color_indicator: frozenset[Color] | None = None  # tokens
    text: str = ""


@dataclass(frozen=True)
class CardDef:
    faces: tuple[Face, ...]
    test_card: bool = False  # a card defined for the scenarios, not a printed card

    @property
    def is_room(self) -> bool:
        return len(self.faces) == 2

    @property
    def name(self) -> str:
        return " // ".join(f.name for f in self.faces)

    def face(self, door: Door | None) -> Face:
        if door is None:
            return self.faces[0]
        return self.faces[0 if door is Door.LEFT else 1]


@dataclass(frozen=True)
class Characteristics:
    """An object's characteristics in its current zone (after the few effects modelled here)."""

    names: tuple[str, ...]
    mana_cost: ManaCost | None
    colors: frozenset[Color]
    types: frozenset[CardType]
    subtypes: tuple[str, ...]
    supertypes: tuple[str, ...]
    power: int | None
    toughness: int | None
    keywords: frozenset[Keyword]
    bands_with_other: frozenset[str]
    triggered: tuple[tuple[Door | None, TriggeredAbility], ...]
    spell_effect: Effect | None
    mana_ability: str | None
    static: tuple[StaticAbility, ...] = ()

    @property
    def mana_value(self) -> int:
        return 0 if self.mana_cost is None else self.mana_cost.mana_value

    @property
    def strikes_first(self) -> bool:
        """First strike or double strike: deals damage in the first-strike damage step (510.4, 702.4b)."""
        return bool({Keyword.FIRST_STRIKE, Keyword.DOUBLE_STRIKE} & self.keywords)

    @property
    def has_banding(self) -> bool:
        return Keyword.BANDING in self.keywords

    def is_type(self, card_type: CardType) -> bool:
        return card_type in self.types

    @property
    def is_permanent_type(self) -> bool:
        return bool(self.types & PERMANENT_TYPES)

    def has_quality(self, quality: str) -> bool:
        """Whether this object is a "[quality]" object (supertype, card type or subtype; 702.22c)."""
        q = quality.casefold()
        words = {s.casefold() for s in self.supertypes} | {s.casefold() for s in self.subtypes}
        words |= {t.value for t in self.types}
        return q in words

    def to_json(self) -> dict[str, object]:
        return {
            "names": list(self.names),
            "mana_cost": None if self.mana_cost is None else str(self.mana_cost),
            "mana_value": self.mana_value,
            "colors": [c.value for c in COLOR_ORDER if c in self.colors],
            "types": sorted(t.value for t in self.types),
            "subtypes": list(self.subtypes),
            "supertypes": list(self.supertypes),
            "power": self.power,
            "toughness": self.toughness,
            "keywords": sorted(k.value for k in self.keywords),
            "bands_with_other": sorted(self.bands_with_other),
            "abilities": [a.text for _, a in self.triggered] + [a.text for a in self.static],
        }


def characteristics(
    card: CardDef, doors: tuple[Door, ...] | None, *, loses_banding: bool = False
) -> Characteristics:
    """Characteristics of ``card`` with only the halves ``doors`` existing.

    ``doors=None`` means "the whole card" (every zone but stack and battlefield; 709.4). For a Room,
    ``()`` is a Room with both halves locked: no name, no mana cost, no abilities (709.5, ruling).
    ``loses_banding`` applies "loses banding", which also removes "bands with other" (702.22b).
    """
    if not card.is_room:
        faces: tuple[tuple[Door | None, Face], ...] = ((None, card.faces[0]),)
    elif doors is None:
        faces = ((Door.LEFT, card.faces[0]), (Door.RIGHT, card.faces[1]))
    else:
        faces = tuple((d, card.face(d)) for d in (Door.LEFT, Door.RIGHT) if d in doors)
    shared = card.faces[0]  # the shared type line (709.5a); a normal card's only face
    cost: ManaCost | None = None
    for _, f in faces:
        if f.mana_cost is not None:
            cost = f.mana_cost if cost is None else cost + f.mana_cost
    colors = cost.colors if cost is not None else frozenset()
    if shared.color_indicator is not None:
        colors = shared.color_indicator
    keywords = frozenset(k for _, f in faces for k in f.keywords)
    bwo = frozenset(q for _, f in faces for q in f.bands_with_other)
    if loses_banding:
        keywords = keywords - {Keyword.BANDING}
        bwo = frozenset()
    effect = faces[0][1].spell_effect if len(faces) == 1 else None
    return Characteristics(
        names=tuple(f.name for _, f in faces),
        mana_cost=cost,
        colors=colors,
        types=shared.types,
        subtypes=shared.subtypes,
        supertypes=shared.supertypes,
        power=shared.power,
        toughness=shared.toughness,
        keywords=keywords,
        bands_with_other=bwo,
        triggered=tuple((d, a) for d, f in faces for a in f.triggered),
        spell_effect=effect,
        mana_ability=shared.mana_ability if faces else None,
        static=tuple(a for _, f in faces for a in f.static),
    )
