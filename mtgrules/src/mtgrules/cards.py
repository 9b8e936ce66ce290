"""Card definitions (as data) and characteristics.

A :class:`CardDef` has one :class:`Face`, or two for a Room (a split card with a shared type line, 709.5).
:func:`characteristics` computes an object's characteristics from the faces that "exist" for it in its
current zone: both halves outside the stack and battlefield (709.4), the cast half on the stack (709.3b),
the unlocked halves on the battlefield (709.5).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    HASTE = "haste"
    FLASH = "flash"
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
    # leaves-the-battlefield abilities (603.6c), which look back in time (603.10a)
    DIES = "dies"  # "When this creature dies" (put into a graveyard from the battlefield, 700.4)
    LEAVES_BATTLEFIELD = "leaves_battlefield"  # "When this permanent leaves the battlefield"
    A_CREATURE_DIES = "a_creature_dies"  # "Whenever this creature or another creature dies"


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
    ADD_MANA = "add_mana"  # add ``mana`` to your pool: an ability with it is a mana ability (605.1a)
    BECOME_COPY = "become_copy"  # this permanent becomes a copy of target permanent (707.2)
    RETURN_SELF_TO_HAND = "return_self_to_hand"  # return this permanent to its owner's hand
    DEAL_DAMAGE = "deal_damage"  # this spell or ability's source deals ``amount`` damage to the target
    DRAIN = "drain"  # target player loses ``amount`` life and you gain ``amount`` life
    LOSE_ALL_ABILITIES = "lose_all_abilities"  # target creature loses all abilities (613.1f)
    PUT_COUNTERS = "put_counters"  # put ``amount`` ``counter`` counters on the target (or this permanent)
    COUNTERS_ON_EACH_CREATURE = "counters_on_each_creature"  # ... on each creature
    GAIN_CONTROL = "gain_control"  # gain control of target permanent (613.1b)


class StaticKind(StrEnum):
    """The static abilities test cards may have."""

    # "You may cast permanent spells with mana value N or less from your graveyard." (Room ruling: only the
    # cast door's characteristics are considered)
    CAST_PERMANENTS_FROM_GRAVEYARD = "cast_permanents_from_graveyard"
    # "If a permanent entering the battlefield causes a triggered ability of a permanent you control to
    # trigger, that ability triggers an additional time." (Room ruling: a door unlocking as the Room enters
    # is not such a cause)
    ENTERS_TRIGGERS_TWICE = "enters_triggers_twice"
    # "As this enters, choose a card name. Activated abilities of sources with the chosen name can't be
    # activated unless they're mana abilities." (like Pithing Needle; 602.5)
    STOP_ACTIVATED_ABILITIES = "stop_activated_abilities"


@dataclass(frozen=True)
class StaticAbility:
    kind: StaticKind
    max_mana_value: int = 0
    text: str = ""
    name: str | None = None  # stop_activated_abilities: a name fixed by the card; None = chosen as it enters


class TargetKind(StrEnum):
    CREATURE = "creature"
    ATTACKING_CREATURE = "attacking creature"
    PERMANENT = "permanent"
    SPELL = "spell"
    CREATURE_CARD_IN_YOUR_GRAVEYARD = "creature card in your graveyard"
    PERMANENT_CARD_IN_A_GRAVEYARD = "permanent card in a graveyard"
    ROOM_YOU_CONTROL = "Room you control"
    CREATURE_AN_OPPONENT_CONTROLS = "creature an opponent controls"
    PLAYER = "player"
    ANY = "any target"  # a creature or a player (planeswalkers and battles are out of scope)


#: The counters the kernel models: +1/+1 and -1/-1 (122.1a, 613.4c).
COUNTER_KINDS = ("+1/+1", "-1/-1")


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
    mana: str = ""  # add_mana: the mana added, e.g. "{G}"
    until_end_of_turn: bool = False  # the continuous effect ends in the cleanup step (514.2)
    counter: str = ""  # put_counters, counters_on_each_creature: "+1/+1" or "-1/-1"
    tap: bool = False  # lose_all_abilities: "tap target creature. It loses all abilities ..."
    untap: bool = False  # gain_control: "... Untap that creature."
    gains: tuple[Keyword, ...] = ()  # gain_control: "It gains haste until end of turn."


@dataclass(frozen=True)
class TriggeredAbility:
    trigger: Trigger
    effect: Effect
    text: str
    once_each_turn: bool = False


@dataclass(frozen=True)
class ActivationCost:
    """The cost of an activated ability (602.1a): mana, and/or {T}, and/or "Sacrifice this permanent"."""

    mana: ManaCost | None = None
    tap: bool = False
    sacrifice: bool = False

    def __str__(self) -> str:
        parts = [] if self.mana is None else [str(self.mana)]
        parts += ["{T}"] if self.tap else []
        parts += ["Sacrifice this permanent"] if self.sacrifice else []
        return ", ".join(parts) or "{0}"


@dataclass(frozen=True)
class ActivatedAbility:
    """ "[Cost]: [Effect.]" (602.1). ``sorcery_speed``: "Activate only as a sorcery" (602.5d)."""

    cost: ActivationCost
    effect: Effect
    text: str
    sorcery_speed: bool = False

    @property
    def is_mana_ability(self) -> bool:
        """605.1a: no target, and it could add mana as it resolves (the kernel's add_mana effect)."""
        return self.effect.kind is EffectKind.ADD_MANA and self.effect.target is None


@dataclass(frozen=True)
class CopyException:
    """The "except ..." of "enters as a copy of ..., except ..." (707.9b): these values become part of the
    copy's copiable values (707.9b), on top of what was copied."""

    name: str | None = None  # "its name is ..."
    supertypes: tuple[str, ...] = ()  # "it's legendary in addition to its other types"
    activated: tuple[ActivatedAbility, ...] = ()  # "it has '...'"
    text: str = ""


@dataclass(frozen=True)
class EntersAsCopy:
    """ "You may have this enter as a copy of a [kind] on the battlefield, except ..." (707.9b)."""

    of: TargetKind  # permanent or creature
    exception: CopyException = CopyException()
    text: str = ""


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
    activated: tuple[ActivatedAbility, ...] = ()
    spell_effect: Effect | None = None
    mana_ability: str | None = None  # "{T}: Add {X}." for basic lands
    static: tuple[StaticAbility, ...] = ()
    color_indicator: frozenset[Color] | None = None  # tokens
    text: str = ""


@dataclass(frozen=True)
class CardDef:
    """A card's copiable values. A copy effect's values are a ``CardDef`` too: the copied object's card
    with ``exception`` applied on top (707.9b)."""

    faces: tuple[Face, ...]
    test_card: bool = False  # a card defined for the scenarios, not a printed card
    enters_as_copy: EntersAsCopy | None = None
    exception: CopyException | None = None  # set on a copy's values by "enters as a copy, except ..."

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
    activated: tuple[ActivatedAbility, ...] = ()

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
            "abilities": [a.text for a in self.activated]
            + [a.text for _, a in self.triggered]
            + [a.text for a in self.static],
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
    names = tuple(f.name for _, f in faces if f.name)  # a face-down permanent has no name (708.2a)
    supertypes = shared.supertypes
    activated = tuple(a for _, f in faces for a in f.activated)
    exc = card.exception
    if exc is not None:  # 707.9b: part of the copiable values, whichever halves exist
        names = names if exc.name is None else (exc.name,)
        supertypes += tuple(t for t in exc.supertypes if t not in supertypes)
        activated += exc.activated
    return Characteristics(
        names=names,
        mana_cost=cost,
        colors=colors,
        types=shared.types,
        subtypes=shared.subtypes,
        supertypes=supertypes,
        power=shared.power,
        toughness=shared.toughness,
        keywords=keywords,
        bands_with_other=bwo,
        triggered=tuple((d, a) for d, f in faces for a in f.triggered),
        spell_effect=effect,
        mana_ability=shared.mana_ability if faces else None,
        static=tuple(a for _, f in faces for a in f.static),
        activated=activated,
    )


#: 708.2a: a face-down permanent is a 2/2 creature with no text, no name, no subtypes and no mana cost.
FACE_DOWN = CardDef(
    (Face(name="", mana_cost=None, types=frozenset({CardType.CREATURE}), power=2, toughness=2),)
)


def with_exception(card: CardDef, exception: CopyException) -> CardDef:
    """``card``'s values with the "except ..." of 707.9b on top; an exception the copied values already have
    (a copy of a copy) stays, and the new one overrides its name."""
    old = card.exception
    if old is not None:
        exception = CopyException(
            name=exception.name if exception.name is not None else old.name,
            supertypes=old.supertypes + tuple(t for t in exception.supertypes if t not in old.supertypes),
            activated=old.activated + exception.activated,
            text="; ".join(t for t in (old.text, exception.text) if t),
        )
    return replace(card, exception=exception, enters_as_copy=None)
