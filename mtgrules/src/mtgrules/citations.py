"""Every Comprehensive Rules number the kernel cites (code, messages, events, scenarios, docs) and its title.

The numbers follow ``RULES_EDITION`` (banding is 702.22, trample's "no blockers left" is 702.19d, haste's {T}
abilities are 702.10c, mana empties by 500.5); each number was looked up there, and the titles are the
kernel's own short summaries, not quotes. ``RULE_TEXTS`` quotes the rules implemented for issue 36 word for
word. ``docs/mtgrules.md`` prints both; a test fails when the code or a scenario cites a number that is not
here, or when the docs and these tables differ.
"""

from __future__ import annotations

CITED_RULES: dict[str, str] = {
    "106.4": "Mana: a mana pool, which empties at the end of each step and phase",
    "111.7": "Tokens: a token in a zone other than the battlefield ceases to exist",
    "111.8": "Tokens: a token that has left the battlefield can't move to another zone",
    "113.7a": "Abilities: an ability on the stack exists independently of its source",
    "115.3": "Targets: the same object can't be chosen twice for one instance of 'target'",
    "115.5": "Targets: a spell or ability on the stack is an illegal target for itself",
    "116.2m": "Special actions: paying a Room's unlock cost",
    "116.3": "Special actions: the player receives priority afterward",
    "117.3c": "Timing and priority: priority again after casting, activating or a special action",
    "117.5": "Timing and priority: state-based actions and triggers before a player receives priority",
    "120.3": "Damage: results of damage dealt to a player or a creature",
    "122.1a": "Counters: +1/+1 and -1/-1 counters",
    "122.3": "Counters: a permanent with both +1/+1 and -1/-1 counters",
    "201.2a": "Name: objects have the same name if they have a name in common; a nameless object shares none",
    "202.2": "Mana cost and color: an object's colors come from its mana cost",
    "202.3": "Mana cost and color: mana value",
    "301.1": "Artifacts: cast in a main phase of your turn with an empty stack",
    "302.6": "Creatures: summoning sickness",
    "303.4": "Enchantments: Auras",
    "307.1": "Sorceries: cast in a main phase of your turn with an empty stack",
    "400.7": "Zones: an object that changes zones becomes a new object",
    "500.1": "Turn structure: phases and steps",
    "500.5": "Turn structure: unused mana empties from mana pools when a step or phase ends",
    "504.1": "Draw step: the active player draws a card",
    "506.4": "Combat phase: removal from combat",
    "506.4b": "Combat phase: tapping or untapping an attacker or blocker doesn't remove it from combat",
    "508.1": "Declare attackers step: declaring attackers",
    "508.1a": "Declare attackers: untapped creatures without summoning sickness",
    "508.1b": "Declare attackers: each attacker attacks an opponent (or their planeswalker or a battle)",
    "508.1e": "Declare attackers: announcing bands",
    "508.8": "Declare attackers: no attackers, skip declare blockers and combat damage",
    "509.1": "Declare blockers step: declaring blockers",
    "509.1a": "Declare blockers: untapped creatures, each blocking one attacker",
    "509.1h": "Declare blockers: blocked creatures stay blocked",
    "510.1": "Combat damage step: assigning combat damage, the active player first",
    "510.1a": "Combat damage: each creature assigns damage equal to its power",
    "510.1b": "Combat damage: an unblocked creature's damage goes to what it attacks",
    "510.1c": "Combat damage: a blocked creature divides its damage among its blockers",
    "510.1d": "Combat damage: a blocking creature divides its damage among the creatures it blocks",
    "510.1e": "Combat damage: an illegal total assignment is undone",
    "510.2": "Combat damage: all combat damage is dealt simultaneously",
    "510.4": "Combat damage: the first-strike combat damage step",
    "514.2": "Cleanup step: damage is removed and 'until end of turn' effects end",
    "601.2a": "Casting spells: the card moves from where it is to the stack",
    "601.2h": "Casting spells: the player pays the total cost",
    "602.1": "Activated abilities: '[Cost]: [Effect.]'",
    "602.1a": "Activated abilities: the activation cost is everything before the colon",
    "602.2": "Activated abilities: activating an ability puts it on the stack and pays its costs",
    "602.5": "Activated abilities: an ability prohibited from being activated can't be activated",
    "602.5d": "Activated abilities: 'Activate only as a sorcery'",
    "603.2": "Triggered abilities: an ability triggers when its trigger event happens",
    "603.3": "Triggered abilities: put on the stack the next time a player would receive priority",
    "603.3b": "Triggered abilities: APNAP order; each player orders their own on the stack",
    "603.3d": "Triggered abilities: targets are chosen as it is put on the stack; none legal, it is removed",
    "603.6a": "Triggered abilities: enters-the-battlefield abilities",
    "603.6c": "Triggered abilities: leaves-the-battlefield abilities",
    "603.10": "Triggered abilities: abilities that look back in time",
    "603.10a": "Triggered abilities: leaves-the-zone abilities look back at the state before the event",
    "605.1a": "Mana abilities: an activated ability without a target that could add mana",
    "605.3a": "Mana abilities: activated whenever the player has priority",
    "605.3b": "Mana abilities: don't use the stack and resolve immediately",
    "608.2b": "Resolving spells and abilities: all targets illegal, it doesn't resolve",
    "608.2h": "Resolving spells and abilities: last known information of a source that has left its zone",
    "608.3f": "Resolving permanent spells: a copy of a permanent spell becomes a token",
    "613.1": "Interaction of continuous effects: the layers, applied in order",
    "613.1b": "Interaction of continuous effects: layer 2, control-changing effects",
    "613.1f": "Interaction of continuous effects: layer 6, ability-adding and ability-removing effects",
    "613.2a": "Interaction of continuous effects: layer 1, copy effects",
    "613.4c": "Interaction of continuous effects: layer 7c, counters (+1/+1, -1/-1)",
    "613.7": "Interaction of continuous effects: timestamp order within a layer",
    "613.8": "Interaction of continuous effects: dependency",
    "614.1c": "Replacement effects: 'as [this] enters' and 'enters as' effects are replacement effects",
    "614.12": "Replacement effects: choices made as a permanent enters the battlefield",
    "700.4": "General: 'dies' means 'is put into a graveyard from the battlefield'",
    "702.2": "Deathtouch",
    "702.2b": "Deathtouch: a creature dealt damage by a deathtouch source is destroyed",
    "702.2c": "Deathtouch: any nonzero damage counts as lethal for assigning damage",
    "702.4": "Double strike",
    "702.4b": "Double strike: deals both first-strike and regular combat damage",
    "702.8a": "Flash: the spell may be cast any time its controller could cast an instant",
    "702.9b": "Flying: blocked only by creatures with flying or reach",
    "702.10": "Haste",
    "702.10b": "Haste: it can attack although not controlled continuously since the turn began",
    "702.10c": "Haste: it can pay {T} or {Q} although not controlled continuously since the turn began",
    "702.14": "Landwalk",
    "702.14c": "Landwalk: unblockable while the defending player controls a land of that type",
    "702.15": "Lifelink",
    "702.15b": "Lifelink: damage dealt by the source also causes its controller to gain that much life",
    "702.19": "Trample",
    "702.19b": "Trample: lethal damage to all blockers, the rest may go to the player",
    "702.19d": "Trample: with no creatures blocking it, all its damage goes to the player",
    "702.20": "Vigilance",
    "702.20b": "Vigilance: attacking doesn't cause the creature to tap",
    "702.22": "Banding",
    "702.22b": "Banding: 'bands with other'; losing banding loses it too",
    "702.22c": "Banding: forming attacking bands",
    "702.22d": "Banding: a band attacks one player, planeswalker or battle",
    "702.22e": "Banding: an announced band lasts for the rest of combat",
    "702.22f": "Banding: a creature removed from combat leaves its band",
    "702.22h": "Banding: blocking one member of a band blocks the whole band",
    "702.22i": "Banding: an effect blocking one member blocks the whole band",
    "702.22j": "Banding: the defending player divides an attacker's damage",
    "702.22k": "Banding: the active player divides a blocker's damage",
    "702.22m": "Banding: multiple instances are redundant",
    "704.3": "State-based actions: performed simultaneously whenever a player would receive priority",
    "704.5a": "State-based actions: a player with 0 or less life loses",
    "704.5b": "State-based actions: a player who drew from an empty library loses",
    "704.5c": "State-based actions: a player with ten or more poison counters loses",
    "704.5d": "State-based actions: a token outside the battlefield ceases to exist",
    "704.5e": "State-based actions: a copy of a spell outside the stack ceases to exist",
    "704.5f": "State-based actions: a creature with toughness 0 or less goes to the graveyard",
    "704.5g": "State-based actions: a creature with lethal damage is destroyed",
    "704.5h": "State-based actions: a creature dealt damage by a deathtouch source is destroyed",
    "704.5i": "State-based actions: a planeswalker with loyalty 0 goes to the graveyard",
    "704.5j": "State-based actions: the legend rule",
    "704.5k": "State-based actions: the 'world rule'",
    "704.5m": "State-based actions: an Aura attached illegally or to nothing goes to the graveyard",
    "704.5q": "State-based actions: +1/+1 and -1/-1 counters on one permanent are removed in pairs",
    "707.2": "Copying objects: copiable values",
    "707.9b": "Copying objects: a copy effect's exceptions become part of the copiable values",
    "707.10": "Copying objects: copying a spell",
    "708.2": "Face-down spells and permanents",
    "708.2a": "Face-down: a 2/2 creature with no text, no name, no subtypes and no mana cost",
    "709.2": "Split cards: each split card is one card",
    "709.3": "Split cards: choosing which half to cast",
    "709.3a": "Split cards: only the chosen half is evaluated",
    "709.3b": "Split cards: on the stack only the cast half's characteristics exist",
    "709.4": "Split cards: outside the stack, the two halves' characteristics combined",
    "709.4a": "Split cards: two names; choosing one of them",
    "709.4b": "Split cards: combined mana cost, colors and mana value",
    "709.4c": "Split cards: each card type and ability of either half",
    "709.5": "Split cards with a shared type line (Rooms)",
    "709.5a": "Rooms: both halves share the type line",
    "709.5b": "Rooms: the existence of each half is a copiable value",
    "709.5c": "Rooms: the unlocked designations",
    "709.5d": "Rooms: a cast half enters unlocked; otherwise neither designation",
    "709.5e": "Rooms: the unlock cost special action",
    "709.5f": "Rooms: effects that unlock a half",
    "709.5g": "Rooms: effects that lock a half",
    "709.5h": "Rooms: 'when you unlock this door' triggers",
    "709.5i": "Rooms: 'fully unlock' triggers",
    "709.5j": "Rooms: a door is a half",
}

#: The edition every quote in ``RULE_TEXTS`` was compared with, word for word and in its own typography
#: (curly quotation marks and apostrophes, en dashes, and one stray opening quotation mark in 614.1c).
RULES_EDITION = "Comprehensive Rules effective September 25, 2026 (MagicCompRules 20260925.txt)"

#: The text of the rules implemented for issue 36, quoted from ``RULES_EDITION``; a quote may stop before
#: a rule's last sentences or its examples. ``docs/mtgrules.md`` prints them under "Quoted rules".
RULE_TEXTS: dict[str, str] = {
    "113.7a": (
        "Once activated or triggered, an ability exists on the stack independently of its source. "
        "Destruction or removal of the source after that time won’t affect the ability."
    ),
    "122.3": (
        "If a permanent has both a +1/+1 counter and a -1/-1 counter on it, N +1/+1 and N -1/-1 "
        "counters are removed from it as a state-based action, where N is the smaller of the number "
        "of +1/+1 and -1/-1 counters on it. See rule 704."
    ),
    "302.6": (
        "A creature’s activated ability with the tap symbol or the untap symbol in its activation "
        "cost can’t be activated unless the creature has been under its controller’s control "
        "continuously since their most recent turn began. A creature can’t attack unless it has "
        "been under its controller’s control continuously since their most recent turn began. This "
        "rule is informally called the “summoning sickness” rule."
    ),
    "400.7": (
        "An object that moves from one zone to another becomes a new object with no memory of, or "
        "relation to, its previous existence."
    ),
    "506.4": (
        "A permanent is removed from combat if it leaves the battlefield, if its controller or "
        "protector changes, if it phases out, if an effect specifically removes it from combat, if "
        "it’s a planeswalker that’s being attacked and stops being a planeswalker, if it’s a battle "
        "that’s being attacked and stops being a battle, or if it’s an attacking or blocking "
        "creature that regenerates (see rule 701.19), stops being a creature, or becomes a battle. "
        "A creature that’s removed from combat stops being an attacking, blocking, blocked, and/or "
        "unblocked creature. A planeswalker or battle that’s removed from combat stops being "
        "attacked."
    ),
    "510.1c": (
        "A blocked creature assigns its combat damage to the creatures blocking it. If no creatures"
        " are currently blocking it (if, for example, they were destroyed or removed from combat), "
        "it assigns no combat damage. If exactly one creature is blocking it, it assigns all its "
        "combat damage to that creature. If two or more creatures are blocking it, it assigns its "
        "combat damage to those creatures divided as its controller chooses among them."
    ),
    "603.6c": (
        "Leaves-the-battlefield abilities trigger when a permanent moves from the battlefield to "
        "another zone, or when a phased-in permanent leaves the game because its owner leaves the "
        "game. These are written as, but aren’t limited to, “When [this object] leaves the "
        "battlefield, . . .” or “Whenever [something] is put into a graveyard from the battlefield, "
        ". . . .” (See also rule 603.10.) An ability that attempts to do something to the card that "
        "left the battlefield checks for it only in the first zone that it went to. An ability that "
        "triggers when a card is put into a certain zone “from anywhere” is never treated as a "
        "leaves-the-battlefield ability, even if an object is put into that zone from the "
        "battlefield."
    ),
    "603.10a": (
        "Some zone-change triggers look back in time. These are leaves-the-battlefield abilities, "
        "abilities that trigger when a player sacrifices a permanent, abilities that trigger when a "
        "card leaves a graveyard, and abilities that trigger when an object that all players can see"
        " is put into a hand or library."
    ),
    "613.1b": "Layer 2: Control-changing effects are applied.",
    "613.1f": (
        "Layer 6: Ability-adding effects, keyword counters, ability-removing effects, and effects "
        "that say an object can’t have an ability are applied."
    ),
    "613.4c": (
        "Layer 7c: Effects and counters that modify power and/or toughness (but don’t set power "
        "and/or toughness to a specific number or value) are applied."
    ),
    "613.7": (
        "Within a layer or sublayer, determining which order effects are applied in is usually done"
        " using a timestamp system. An effect with an earlier timestamp is applied before an effect"
        " with a later timestamp."
    ),
    "613.8": (
        "Within a layer or sublayer, determining which order effects are applied in is sometimes "
        "done using a dependency system. If a dependency exists, it will override the timestamp "
        "system."
    ),
    "614.1c": (
        "Effects that read “[This permanent] enters with . . . ,” “As [this permanent] enters . . . ,”"
        " or “[This permanent] enters as . . . “ are replacement effects."
    ),
    "614.12": (
        "Some replacement effects modify how a permanent enters the battlefield. (See rules "
        "614.1c–d.) Such effects may come from the permanent itself if they affect only that "
        "permanent (as opposed to a general subset of permanents that includes it). They may also "
        "come from other sources. To determine which replacement effects apply and how they apply, "
        "check the characteristics of the permanent as it would exist on the battlefield, taking "
        "into account replacement effects that have already modified how it enters the battlefield "
        "(see rule 616.1), continuous effects from the permanent’s own static abilities that would "
        "apply to it once it’s on the battlefield, and continuous effects that already exist and "
        "would apply to the permanent."
    ),
    "700.4": "The term dies means “is put into a graveyard from the battlefield.”",
    "702.2b": (
        "A creature with toughness greater than 0 that’s been dealt damage by a source with "
        "deathtouch since the last time state-based actions were checked is destroyed as a "
        "state-based action. See rule 704."
    ),
    "702.10b": (
        "If a creature has haste, it can attack even if it hasn’t been controlled by its controller "
        "continuously since their most recent turn began. (See rule 302.6.)"
    ),
    "702.10c": (
        "If a creature has haste, its controller can activate its activated abilities whose cost "
        "includes the tap symbol or the untap symbol even if that creature hasn’t been controlled by"
        " that player continuously since their most recent turn began. (See rule 302.6.)"
    ),
    "702.15b": (
        "Damage dealt by a source with lifelink causes that source’s controller, or its owner if it "
        "has no controller, to gain that much life (in addition to any other results that damage "
        "causes). See rule 120.3."
    ),
    "702.19b": (
        "The controller of an attacking creature with trample first assigns damage to the "
        "creature(s) blocking it. Once all those blocking creatures are assigned lethal damage, any"
        " excess damage is assigned as its controller chooses among those blocking creatures and "
        "the player, planeswalker, or battle the creature is attacking."
    ),
    "702.19d": (
        "If an attacking creature with trample or trample over planeswalkers is blocked, but there "
        "are no creatures blocking it when damage is assigned, its damage is assigned to the "
        "defending player and/or planeswalker as though all blocking creatures have been assigned "
        "lethal damage."
    ),
    "702.22f": "An attacking creature that’s removed from combat is also removed from the band it was in.",
    "704.5q": (
        "If a permanent has both a +1/+1 counter and a -1/-1 counter on it, N +1/+1 and N -1/-1 "
        "counters are removed from it, where N is the smaller of the number of +1/+1 and -1/-1 "
        "counters on it."
    ),
    "708.2a": (
        "If a face-up permanent is turned face down by a spell or ability that doesn’t list any "
        "characteristics for that object, it becomes a 2/2 face-down creature with no text, no "
        "name, no subtypes, and no mana cost. A permanent that enters the battlefield face down also"
        " has these characteristics unless otherwise specified by the effect that put it onto the "
        "battlefield face down or allowed it to be cast face down. These values are the copiable "
        "values of that object’s characteristics."
    ),
}
