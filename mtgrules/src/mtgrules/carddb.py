"""The cards of the scenarios, as data.

Printed cards use their Oracle characteristics (only what these rules need). Cards whose name starts with
"Test " are test cards defined with exactly the characteristics a scenario needs (README: "define a test
card with exactly the needed characteristics").
"""

from __future__ import annotations

from mtgrules.cards import (
    CardDef,
    CardType,
    Effect,
    EffectKind,
    Face,
    Keyword,
    TargetKind,
    TargetSpec,
    Trigger,
    TriggeredAbility,
)
from mtgrules.mana import Color, ManaCost

C = CardType
K = Keyword
_CREATURE = frozenset({C.CREATURE})
_ROOM_TYPES = frozenset({C.ENCHANTMENT})


def _creature(
    name: str,
    cost: str,
    power: int,
    toughness: int,
    subtypes: tuple[str, ...],
    keywords: tuple[Keyword, ...] = (),
    *,
    bands_with_other: tuple[str, ...] = (),
    supertypes: tuple[str, ...] = (),
    test: bool = False,
) -> CardDef:
    text = ", ".join(k.value.capitalize() for k in keywords)
    if bands_with_other:
        extra = "; ".join(f"Bands with other {q} creatures" for q in bands_with_other)
        text = f"{text}; {extra}" if text else extra
    face = Face(
        name=name,
        mana_cost=ManaCost.parse(cost),
        types=_CREATURE,
        subtypes=subtypes,
        supertypes=supertypes,
        power=power,
        toughness=toughness,
        keywords=keywords,
        bands_with_other=bands_with_other,
        text=text,
    )
    return CardDef((face,), test_card=test)


def _spell(name: str, cost: str, kind: CardType, effect: Effect, text: str) -> CardDef:
    face = Face(
        name=name, mana_cost=ManaCost.parse(cost), types=frozenset({kind}), spell_effect=effect, text=text
    )
    return CardDef((face,), test_card=True)


def _land(name: str, color: str) -> CardDef:
    face = Face(
        name=name,
        mana_cost=None,
        types=frozenset({C.LAND}),
        subtypes=(name,),
        supertypes=("Basic",),
        mana_ability=color,
        text=f"{{T}}: Add {{{color}}}.",
    )
    return CardDef((face,))


_ROOM_REMINDER = (
    "(You may cast either half. That door unlocks on the battlefield. As a sorcery, you may pay the mana "
    "cost of a locked door to unlock it.)"
)


def _door(name: str, cost: str, abilities: tuple[TriggeredAbility, ...]) -> Face:
    return Face(
        name=name,
        mana_cost=ManaCost.parse(cost),
        types=_ROOM_TYPES,
        subtypes=("Room",),
        triggered=abilities,
        text=" ".join(a.text for a in abilities) + " " + _ROOM_REMINDER,
    )


DEFILED_CRYPT_CADAVER_LAB = CardDef(
    (
        _door(
            "Defiled Crypt",
            "{3}{B}",
            (
                TriggeredAbility(
                    Trigger.CARDS_LEAVE_YOUR_GRAVEYARD,
                    Effect(EffectKind.CREATE_HORROR),
                    "Whenever one or more cards leave your graveyard, create a 2/2 black Horror enchantment "
                    "creature token. This ability triggers only once each turn.",
                    once_each_turn=True,
                ),
            ),
        ),
        _door(
            "Cadaver Lab",
            "{B}",
            (
                TriggeredAbility(
                    Trigger.UNLOCK_THIS_DOOR,
                    Effect(
                        EffectKind.GRAVEYARD_TO_HAND, TargetSpec(TargetKind.CREATURE_CARD_IN_YOUR_GRAVEYARD)
                    ),
                    "When you unlock this door, return target creature card from your graveyard to your "
                    "hand.",
                ),
            ),
        ),
    )
)

BOTTOMLESS_POOL_LOCKER_ROOM = CardDef(
    (
        _door(
            "Bottomless Pool",
            "{U}",
            (
                TriggeredAbility(
                    Trigger.UNLOCK_THIS_DOOR,
                    Effect(EffectKind.RETURN_TO_HAND, TargetSpec(TargetKind.CREATURE, 0, 1)),
                    "When you unlock this door, return up to one target creature to its owner's hand.",
                ),
            ),
        ),
        _door(
            "Locker Room",
            "{4}{U}",
            (
                TriggeredAbility(
                    Trigger.COMBAT_DAMAGE_TO_PLAYER,
                    Effect(EffectKind.DRAW),
                    "Whenever one or more creatures you control deal combat damage to a player, draw a card.",
                ),
            ),
        ),
    )
)

HORROR_TOKEN = CardDef(
    (
        Face(
            name="Horror",
            mana_cost=None,
            types=frozenset({C.ENCHANTMENT, C.CREATURE}),
            subtypes=("Horror",),
            power=2,
            toughness=2,
            color_indicator=frozenset({Color.BLACK}),
            text="2/2 black Horror enchantment creature token",
        ),
    )
)


def _t(kind: TargetKind, lo: int = 1, hi: int = 1) -> TargetSpec:
    return TargetSpec(kind, lo, hi)


CARDS: dict[str, CardDef] = {
    # --- printed cards of the scenarios ---
    "Benalish Infantry": _creature("Benalish Infantry", "{2}{W}", 1, 3, ("Human", "Soldier"), (K.BANDING,)),
    "Squire": _creature("Squire", "{1}{W}", 1, 2, ("Human", "Soldier")),
    "Eager Cadet": _creature("Eager Cadet", "{G}", 1, 1, ("Human", "Soldier")),
    "Naga Eternal": _creature("Naga Eternal", "{2}{U}", 3, 2, ("Zombie", "Naga")),
    "Alpine Grizzly": _creature("Alpine Grizzly", "{2}{G}", 4, 2, ("Bear",)),
    "Sanctuary Cat": _creature("Sanctuary Cat", "{W}", 1, 2, ("Cat",)),
    "Mesa Pegasus": _creature("Mesa Pegasus", "{1}{W}", 1, 1, ("Pegasus",), (K.FLYING, K.BANDING)),
    "Bog Wraith": _creature("Bog Wraith", "{3}{B}", 3, 3, ("Wraith",), (K.SWAMPWALK,)),
    "Defiled Crypt // Cadaver Lab": DEFILED_CRYPT_CADAVER_LAB,
    "Bottomless Pool // Locker Room": BOTTOMLESS_POOL_LOCKER_ROOM,
    "Plains": _land("Plains", "W"),
    "Island": _land("Island", "U"),
    "Swamp": _land("Swamp", "B"),
    "Mountain": _land("Mountain", "R"),
    "Forest": _land("Forest", "G"),
    # --- test creatures ---
    "Test Legendary Bander": _creature(
        "Test Legendary Bander",
        "{2}{W}",
        2,
        2,
        ("Human", "Knight"),
        bands_with_other=("Legendary",),
        supertypes=("Legendary",),
        test=True,
    ),
    "Test Legend": _creature(
        "Test Legend", "{2}{W}", 2, 2, ("Human", "Knight"), supertypes=("Legendary",), test=True
    ),
    "Test Double Bander": _creature(
        "Test Double Bander",
        "{1}{W}",
        2,
        2,
        ("Human", "Knight"),
        (K.BANDING, K.BANDING),
        bands_with_other=("Legendary",),
        supertypes=("Legendary",),
        test=True,
    ),
    "Test Grunt": _creature("Test Grunt", "{1}{R}", 2, 2, ("Human", "Warrior"), test=True),
    "Test Brute": _creature("Test Brute", "{3}{R}", 4, 4, ("Ogre",), test=True),
    "Test Giant": _creature("Test Giant", "{4}{G}", 5, 5, ("Giant",), test=True),
    "Test Trampling Giant": _creature(
        "Test Trampling Giant", "{4}{G}", 5, 5, ("Giant",), (K.TRAMPLE,), test=True
    ),
    "Test Trampling Behemoth": _creature(
        "Test Trampling Behemoth", "{4}{G}{G}", 6, 6, ("Beast",), (K.TRAMPLE,), test=True
    ),
    "Test Sky Guard": _creature("Test Sky Guard", "{1}{U}", 1, 3, ("Bird",), (K.FLYING,), test=True),
    "Test Banding Lancer": _creature(
        "Test Banding Lancer", "{1}{W}{W}", 2, 2, ("Human", "Knight"), (K.FIRST_STRIKE, K.BANDING), test=True
    ),
    "Test Ox": _creature("Test Ox", "{2}{G}", 2, 5, ("Ox",), test=True),
    # --- test spells and permanents for the effects the scenarios need ---
    "Test Blockade": _spell(
        "Test Blockade",
        "{W}",
        C.INSTANT,
        Effect(EffectKind.BECOMES_BLOCKED, _t(TargetKind.ATTACKING_CREATURE)),
        "Target attacking creature becomes blocked.",
    ),
    "Test Recall": _spell(
        "Test Recall",
        "{1}{U}",
        C.INSTANT,
        Effect(EffectKind.RETURN_TO_HAND, _t(TargetKind.PERMANENT)),
        "Return target permanent to its owner's hand.",
    ),
    "Test Disband": _spell(
        "Test Disband",
        "{W}",
        C.INSTANT,
        Effect(EffectKind.LOSE_BANDING, _t(TargetKind.CREATURE)),
        "Target creature loses banding until end of turn.",
    ),
    "Test Mirror": _spell(
        "Test Mirror",
        "{U}{U}",
        C.INSTANT,
        Effect(EffectKind.COPY_SPELL, _t(TargetKind.SPELL)),
        "Copy target spell.",
    ),
    "Test Reanimation": _spell(
        "Test Reanimation",
        "{1}{B}",
        C.SORCERY,
        Effect(EffectKind.GRAVEYARD_TO_BATTLEFIELD, _t(TargetKind.PERMANENT_CARD_IN_A_GRAVEYARD)),
        "Return target permanent card from a graveyard to the battlefield under your control.",
    ),
    "Test Flicker": _spell(
        "Test Flicker",
        "{W}",
        C.INSTANT,
        Effect(EffectKind.FLICKER, _t(TargetKind.PERMANENT)),
        "Exile target permanent, then return that card to the battlefield under its owner's control.",
    ),
    "Test Withdraw": _spell(
        "Test Withdraw",
        "{W}",
        C.INSTANT,
        Effect(EffectKind.REMOVE_FROM_COMBAT, _t(TargetKind.CREATURE)),
        "Remove target creature from combat.",
    ),
    "Test Destroy": _spell(
        "Test Destroy",
        "{1}{B}",
        C.INSTANT,
        Effect(EffectKind.DESTROY, _t(TargetKind.CREATURE)),
        "Destroy target creature.",
    ),
    "Test Lockpick": _spell(
        "Test Lockpick",
        "{1}",
        C.INSTANT,
        Effect(EffectKind.UNLOCK_DOOR, _t(TargetKind.ROOM_YOU_CONTROL)),
        "Unlock a locked door of target Room you control.",
    ),
    "Test Padlock": _spell(
        "Test Padlock",
        "{1}",
        C.INSTANT,
        Effect(EffectKind.LOCK_DOOR, _t(TargetKind.ROOM_YOU_CONTROL)),
        "Lock an unlocked door of target Room you control.",
    ),
    "Test Replica": _spell(
        "Test Replica",
        "{1}{U}",
        C.SORCERY,
        Effect(EffectKind.COPY_PERMANENT, _t(TargetKind.PERMANENT)),
        "Create a token that's a copy of target permanent.",
    ),
    "Test Purge": _spell("Test Purge", "{B}", C.SORCERY, Effect(EffectKind.DISCARD), "Discard a card."),
    "Test Name Check": _spell(
        "Test Name Check",
        "{W}",
        C.SORCERY,
        Effect(EffectKind.NAME_AND_REVEAL),
        "Choose a card name. You gain 1 life for each card in your hand with that name.",
    ),
    "Test Ledger": CardDef(
        (
            Face(
                name="Test Ledger",
                mana_cost=ManaCost.parse("{1}{W}"),
                types=frozenset({C.ENCHANTMENT}),
                triggered=(
                    TriggeredAbility(
                        Trigger.FULLY_UNLOCK_ROOM,
                        Effect(EffectKind.GAIN_LIFE, amount=1),
                        "Whenever you fully unlock a Room, you gain 1 life.",
                    ),
                ),
                text="Whenever you fully unlock a Room, you gain 1 life.",
            ),
        ),
        test_card=True,
    ),
}
