"""Card definitions written as data (JSON), for scenarios that need a card outside the built-in pool.

:func:`card_from_json` turns one definition into a :class:`~mtgrules.cards.CardDef`; every problem is a
:class:`CardDefinitionError` (a :class:`ValueError`) naming the faulty field. The format is documented in
``docs/mtgrules.md`` and in the scenario JSON Schema (``schemas/scenario.schema.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mtgrules.cards import (
    COUNTER_KINDS,
    ActivatedAbility,
    ActivationCost,
    CardDef,
    CardType,
    CopyException,
    Effect,
    EffectKind,
    EntersAsCopy,
    Face,
    Keyword,
    StaticAbility,
    StaticKind,
    TargetKind,
    TargetSpec,
    Trigger,
    TriggeredAbility,
)
from mtgrules.mana import ManaCost, parse_mana

#: Supertypes a defined card may have. "World" (704.5k) and snow are not modelled, so they are refused.
SUPERTYPES = ("Legendary", "Basic")
#: Subtypes the kernel cannot model: an Aura needs "enchant" and attachment rules (303.4, 704.5m).
REFUSED_SUBTYPES = {"Aura": "Auras are not modelled (no enchant or attach rules, so 704.5m cannot arise)"}

_CARD_KEYS = {
    "name",
    "mana_cost",
    "types",
    "subtypes",
    "supertypes",
    "power",
    "toughness",
    "keywords",
    "bands_with_other",
    "triggered",
    "static",
    "spell_effect",
    "mana_ability",
    "text",
    "doors",
    "activated",
    "enters_as_copy",
}
_DOOR_KEYS = {"name", "mana_cost", "triggered", "static", "text", "activated"}
_ROOM_SHARED = {"types", "subtypes", "supertypes", "doors"}


class CardDefinitionError(ValueError):
    """A card definition is malformed or asks for something the kernel does not model."""


def _obj(value: Any, where: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CardDefinitionError(f"{where}: expected an object")
    unknown = set(value) - allowed
    if unknown:
        raise CardDefinitionError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CardDefinitionError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _strs(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise CardDefinitionError(f"{where}: expected a list of strings")
    return tuple(_str(v, f"{where}[{i}]") for i, v in enumerate(value))


def _int(value: Any, where: str, minimum: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise CardDefinitionError(f"{where}: expected an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise CardDefinitionError(f"{where}: must be at least {minimum}")
    return value


def _enum(enum: Any, value: Any, where: str) -> Any:
    try:
        return enum(value)
    except ValueError:
        raise CardDefinitionError(
            f"{where}: unknown value {value!r}; one of {[e.value for e in enum]}"
        ) from None


def _cost(value: Any, where: str) -> ManaCost:
    try:
        return ManaCost.parse(_str(value, where))
    except ValueError as exc:
        raise CardDefinitionError(f"{where}: {exc}") from None


_EFFECT_KEYS = {"kind", "target", "amount", "mana", "until_end_of_turn", "counter", "tap", "untap", "gains"}


def effect_from_json(value: Any, where: str) -> Effect:
    e = _obj(value, where, _EFFECT_KEYS)
    if "kind" not in e:
        raise CardDefinitionError(f"{where}: needs 'kind'")
    kind = _enum(EffectKind, e["kind"], f"{where}.kind")
    target = None
    if "target" in e:
        t = _obj(e["target"], f"{where}.target", {"kind", "min", "max"})
        if "kind" not in t:
            raise CardDefinitionError(f"{where}.target: needs 'kind'")
        lo = _int(t.get("min", 1), f"{where}.target.min", 0)
        hi = _int(t.get("max", 1), f"{where}.target.max", 1)
        if lo > hi:
            raise CardDefinitionError(f"{where}.target: min is greater than max")
        target = TargetSpec(_enum(TargetKind, t["kind"], f"{where}.target.kind"), lo, hi)
    amount = _int(e.get("amount", 0), f"{where}.amount", 0)
    if kind is EffectKind.GAIN_LIFE and amount == 0:
        raise CardDefinitionError(f"{where}: gain_life needs an 'amount' of at least 1")
    mana = ""
    if kind is EffectKind.ADD_MANA:
        mana = _str(e.get("mana"), f"{where}.mana")
        try:
            if not parse_mana(mana):
                raise ValueError("no mana")
        except ValueError as exc:
            raise CardDefinitionError(f'{where}.mana: {exc}; e.g. "{{G}}" or "{{C}}{{C}}"') from None
        if target is not None:
            raise CardDefinitionError(f"{where}: add_mana has no target (a mana ability has none, 605.1a)")
    elif "mana" in e:
        raise CardDefinitionError(f"{where}: 'mana' belongs to add_mana")
    until_eot = e.get("until_end_of_turn", False)
    if not isinstance(until_eot, bool):
        raise CardDefinitionError(f"{where}.until_end_of_turn: expected true/false")
    if until_eot and kind not in _LASTING:
        lasting = sorted(k.value for k in _LASTING)
        raise CardDefinitionError(f"{where}: 'until_end_of_turn' belongs to {lasting}")
    if kind in _NEEDS_TARGET and (target is None or target.min_count < 1):
        raise CardDefinitionError(f"{where}: {kind.value} needs a target (min 1)")
    if kind in (EffectKind.DEAL_DAMAGE, EffectKind.DRAIN, EffectKind.PUT_COUNTERS) and amount == 0:
        raise CardDefinitionError(f"{where}: {kind.value} needs an 'amount' of at least 1")
    return Effect(kind, target, amount, mana, until_eot, *_effect_options(e, kind, where))


_LASTING = {EffectKind.BECOME_COPY, EffectKind.LOSE_ALL_ABILITIES, EffectKind.GAIN_CONTROL}
_NEEDS_TARGET = {
    EffectKind.BECOME_COPY,
    EffectKind.DEAL_DAMAGE,
    EffectKind.DRAIN,
    EffectKind.LOSE_ALL_ABILITIES,
    EffectKind.GAIN_CONTROL,
}


def _effect_options(
    e: Mapping[str, Any], kind: EffectKind, where: str
) -> tuple[str, bool, bool, tuple[Keyword, ...]]:
    """The options a few effects have: a counter kind; tap, untap; keywords gained until end of turn."""
    counter = ""
    if kind in (EffectKind.PUT_COUNTERS, EffectKind.COUNTERS_ON_EACH_CREATURE):
        counter = _str(e.get("counter"), f"{where}.counter")
        if counter not in COUNTER_KINDS:
            raise CardDefinitionError(f"{where}.counter: one of {list(COUNTER_KINDS)} (122.1a)")
        if kind is EffectKind.COUNTERS_ON_EACH_CREATURE and "amount" not in e:
            raise CardDefinitionError(f"{where}: {kind.value} needs an 'amount'")
    elif "counter" in e:
        raise CardDefinitionError(f"{where}: 'counter' belongs to put_counters")
    flags = {}
    for key, owner in (("tap", EffectKind.LOSE_ALL_ABILITIES), ("untap", EffectKind.GAIN_CONTROL)):
        flags[key] = e.get(key, False)
        if not isinstance(flags[key], bool):
            raise CardDefinitionError(f"{where}.{key}: expected true/false")
        if flags[key] and kind is not owner:
            raise CardDefinitionError(f"{where}: '{key}' belongs to {owner.value}")
    gains = tuple(
        _enum(Keyword, k, f"{where}.gains[{i}]")
        for i, k in enumerate(_strs(e.get("gains", []), f"{where}.gains"))
    )
    if gains and kind is not EffectKind.GAIN_CONTROL:
        raise CardDefinitionError(f"{where}: 'gains' belongs to gain_control")
    return counter, flags["tap"], flags["untap"], gains


def _triggered(value: Any, where: str) -> tuple[TriggeredAbility, ...]:
    if not isinstance(value, list):
        raise CardDefinitionError(f"{where}: expected a list of triggered abilities")
    out = []
    for i, raw in enumerate(value):
        w = f"{where}[{i}]"
        a = _obj(raw, w, {"trigger", "effect", "text", "once_each_turn"})
        for key in ("trigger", "effect", "text"):
            if key not in a:
                raise CardDefinitionError(f"{w}: needs {key!r}")
        once = a.get("once_each_turn", False)
        if not isinstance(once, bool):
            raise CardDefinitionError(f"{w}.once_each_turn: expected true/false")
        out.append(
            TriggeredAbility(
                _enum(Trigger, a["trigger"], f"{w}.trigger"),
                effect_from_json(a["effect"], f"{w}.effect"),
                _str(a["text"], f"{w}.text"),
                once_each_turn=once,
            )
        )
    return tuple(out)


def _activated(value: Any, where: str) -> tuple[ActivatedAbility, ...]:
    if not isinstance(value, list):
        raise CardDefinitionError(f"{where}: expected a list of activated abilities")
    out = []
    for i, raw in enumerate(value):
        w = f"{where}[{i}]"
        a = _obj(raw, w, {"cost", "effect", "text", "sorcery_speed"})
        for key in ("cost", "effect", "text"):
            if key not in a:
                raise CardDefinitionError(f"{w}: needs {key!r}")
        c = _obj(a["cost"], f"{w}.cost", {"mana", "tap", "sacrifice"})
        tap, sac = c.get("tap", False), c.get("sacrifice", False)
        if not isinstance(tap, bool) or not isinstance(sac, bool):
            raise CardDefinitionError(f"{w}.cost: 'tap' and 'sacrifice' are true/false")
        mana = _cost(c["mana"], f"{w}.cost.mana") if "mana" in c else None
        if mana is None and not tap and not sac:
            raise CardDefinitionError(f"{w}.cost: give 'mana', 'tap' and/or 'sacrifice' (602.1a)")
        sorcery = a.get("sorcery_speed", False)
        if not isinstance(sorcery, bool):
            raise CardDefinitionError(f"{w}.sorcery_speed: expected true/false")
        effect = effect_from_json(a["effect"], f"{w}.effect")
        if sorcery and effect.kind is EffectKind.ADD_MANA:
            raise CardDefinitionError(f"{w}: a mana ability has no timing restriction here (605.3a)")
        out.append(
            ActivatedAbility(ActivationCost(mana, tap, sac), effect, _str(a["text"], f"{w}.text"), sorcery)
        )
    return tuple(out)


def _enters_as_copy(value: Any, where: str) -> EntersAsCopy:
    d = _obj(value, where, {"of", "except", "text"})
    of = _enum(TargetKind, d.get("of"), f"{where}.of")
    if of not in (TargetKind.PERMANENT, TargetKind.CREATURE):
        raise CardDefinitionError(f"{where}.of: 'permanent' or 'creature'")
    exc = _obj(d.get("except", {}), f"{where}.except", {"name", "supertypes", "activated", "text"})
    supertypes = _strs(exc.get("supertypes", []), f"{where}.except.supertypes")
    for s in supertypes:
        if s not in SUPERTYPES:
            raise CardDefinitionError(f"{where}.except.supertypes: {s!r} is not one of {list(SUPERTYPES)}")
    exception = CopyException(
        name=_str(exc["name"], f"{where}.except.name") if "name" in exc else None,
        supertypes=supertypes,
        activated=_activated(exc.get("activated", []), f"{where}.except.activated"),
        text=_str(exc["text"], f"{where}.except.text") if "text" in exc else "",
    )
    text = _str(d["text"], f"{where}.text") if "text" in d else f"enter as a copy of a {of.value}"
    return EntersAsCopy(of, exception, text)


def _static(value: Any, where: str) -> tuple[StaticAbility, ...]:
    if not isinstance(value, list):
        raise CardDefinitionError(f"{where}: expected a list of static abilities")
    out = []
    for i, raw in enumerate(value):
        w = f"{where}[{i}]"
        a = _obj(raw, w, {"kind", "max_mana_value", "text", "name"})
        if "kind" not in a or "text" not in a:
            raise CardDefinitionError(f"{w}: needs 'kind' and 'text'")
        kind = _enum(StaticKind, a["kind"], f"{w}.kind")
        mv = 0
        if kind is StaticKind.CAST_PERMANENTS_FROM_GRAVEYARD:
            if "max_mana_value" not in a:
                raise CardDefinitionError(f"{w}: {kind.value} needs 'max_mana_value'")
            mv = _int(a["max_mana_value"], f"{w}.max_mana_value", 0)
        elif "max_mana_value" in a:
            raise CardDefinitionError(
                f"{w}: 'max_mana_value' belongs to {StaticKind.CAST_PERMANENTS_FROM_GRAVEYARD}"
            )
        name = None
        if "name" in a:
            if kind is not StaticKind.STOP_ACTIVATED_ABILITIES:
                raise CardDefinitionError(f"{w}: 'name' belongs to {StaticKind.STOP_ACTIVATED_ABILITIES}")
            name = _str(a["name"], f"{w}.name")
        out.append(StaticAbility(kind, mv, _str(a["text"], f"{w}.text"), name))
    return tuple(out)


def card_from_json(value: Any, where: str = "card") -> CardDef:
    """Build a test card from its JSON definition (raises :class:`CardDefinitionError`)."""
    d = _obj(value, where, _CARD_KEYS)
    types = frozenset(
        _enum(CardType, t, f"{where}.types[{i}]")
        for i, t in enumerate(_strs(d.get("types"), f"{where}.types"))
    )
    if not types:
        raise CardDefinitionError(f"{where}.types: a card needs at least one card type")
    subtypes = _strs(d.get("subtypes", []), f"{where}.subtypes")
    supertypes = _strs(d.get("supertypes", []), f"{where}.supertypes")
    for s in supertypes:
        if s not in SUPERTYPES:
            raise CardDefinitionError(
                f"{where}.supertypes: {s!r} is not modelled; use one of {list(SUPERTYPES)}"
            )
    for s in subtypes:
        if s in REFUSED_SUBTYPES:
            raise CardDefinitionError(f"{where}.subtypes: {REFUSED_SUBTYPES[s]}")
    if "doors" in d:
        return _room(d, where, types, subtypes, supertypes)
    if "name" not in d:
        raise CardDefinitionError(f"{where}: needs 'name'")
    creature = CardType.CREATURE in types
    has_pt = "power" in d or "toughness" in d
    if creature and not ("power" in d and "toughness" in d):
        raise CardDefinitionError(f"{where}: a creature needs 'power' and 'toughness'")
    if has_pt and not creature:
        raise CardDefinitionError(f"{where}: only a creature has power and toughness")
    keywords = tuple(
        _enum(Keyword, k, f"{where}.keywords[{i}]")
        for i, k in enumerate(_strs(d.get("keywords", []), f"{where}.keywords"))
    )
    spell_effect = (
        effect_from_json(d["spell_effect"], f"{where}.spell_effect") if "spell_effect" in d else None
    )
    if spell_effect is not None and not types & {CardType.INSTANT, CardType.SORCERY}:
        raise CardDefinitionError(f"{where}.spell_effect: only an instant or sorcery has a spell effect")
    if types & {CardType.INSTANT, CardType.SORCERY} and spell_effect is None:
        raise CardDefinitionError(f"{where}: an instant or sorcery needs a 'spell_effect'")
    mana_ability = None
    if "mana_ability" in d:
        mana_ability = _str(d["mana_ability"], f"{where}.mana_ability")
        if mana_ability not in ("W", "U", "B", "R", "G", "C"):
            raise CardDefinitionError(f"{where}.mana_ability: one mana symbol W, U, B, R, G or C")
    triggered = _triggered(d.get("triggered", []), f"{where}.triggered")
    static = _static(d.get("static", []), f"{where}.static")
    activated = _activated(d.get("activated", []), f"{where}.activated")
    copying = (
        _enters_as_copy(d["enters_as_copy"], f"{where}.enters_as_copy") if "enters_as_copy" in d else None
    )
    if copying is not None and not types & {CardType.ARTIFACT, CardType.CREATURE, CardType.ENCHANTMENT}:
        raise CardDefinitionError(f"{where}.enters_as_copy: only a permanent card enters the battlefield")
    bands_with_other = _strs(d.get("bands_with_other", []), f"{where}.bands_with_other")
    default_text = [k.value.capitalize() for k in keywords]
    default_text += [f"Bands with other {q} creatures" for q in bands_with_other]
    default_text += [a.text for a in activated] + [a.text for a in triggered] + [a.text for a in static]
    if copying is not None:
        default_text.insert(0, ", ".join(t for t in (copying.text, copying.exception.text) if t))
    face = Face(
        name=_str(d["name"], f"{where}.name"),
        mana_cost=_cost(d["mana_cost"], f"{where}.mana_cost") if "mana_cost" in d else None,
        types=types,
        subtypes=subtypes,
        supertypes=supertypes,
        power=_int(d["power"], f"{where}.power") if creature else None,
        toughness=_int(d["toughness"], f"{where}.toughness") if creature else None,
        keywords=keywords,
        bands_with_other=bands_with_other,
        triggered=triggered,
        activated=activated,
        static=static,
        spell_effect=spell_effect,
        mana_ability=mana_ability,
        text=_str(d["text"], f"{where}.text") if "text" in d else "; ".join(default_text),
    )
    return CardDef((face,), test_card=True, enters_as_copy=copying)


def _room(
    d: Mapping[str, Any],
    where: str,
    types: frozenset[CardType],
    subtypes: tuple[str, ...],
    supertypes: tuple[str, ...],
) -> CardDef:
    extra = set(d) - _ROOM_SHARED
    if extra:
        raise CardDefinitionError(
            f"{where}: a Room has only a shared type line and 'doors'; move {sorted(extra)} into the doors"
        )
    if "Room" not in subtypes or types != frozenset({CardType.ENCHANTMENT}):
        raise CardDefinitionError(f"{where}: a card with doors is an 'Enchantment — Room' (709.5j)")
    doors = d["doors"]
    if not isinstance(doors, list) or len(doors) != 2:
        raise CardDefinitionError(f"{where}.doors: a Room has exactly two doors, left then right (709.5)")
    faces = []
    for i, raw in enumerate(doors):
        w = f"{where}.doors[{i}]"
        door = _obj(raw, w, _DOOR_KEYS)
        if "name" not in door or "mana_cost" not in door:
            raise CardDefinitionError(f"{w}: a door needs 'name' and 'mana_cost'")
        triggered = _triggered(door.get("triggered", []), f"{w}.triggered")
        static = _static(door.get("static", []), f"{w}.static")
        activated = _activated(door.get("activated", []), f"{w}.activated")
        faces.append(
            Face(
                name=_str(door["name"], f"{w}.name"),
                mana_cost=_cost(door["mana_cost"], f"{w}.mana_cost"),
                types=types,
                subtypes=subtypes,
                supertypes=supertypes,
                triggered=triggered,
                activated=activated,
                static=static,
                text=_str(door["text"], f"{w}.text")
                if "text" in door
                else " ".join(
                    [a.text for a in activated] + [a.text for a in triggered] + [a.text for a in static]
                ),
            )
        )
    if faces[0].name == faces[1].name:
        raise CardDefinitionError(f"{where}.doors: the two doors need different names")
    return CardDef((faces[0], faces[1]), test_card=True)
