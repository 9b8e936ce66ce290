"""JSON scenarios: a position, the players' decisions, and the expected outcome.

The format is documented in ``docs/mtgrules.md``. :func:`run_scenario_file` never raises for a bad file:
it returns a :class:`ScenarioResult` with status ``ERROR`` and a clear message instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from mtgrules import errors
from mtgrules.actions import (
    Action,
    ActivateAbility,
    AssignCombatDamage,
    CastSpell,
    ChooseCard,
    ChooseCopy,
    ChooseDoor,
    ChooseLegend,
    ChooseName,
    ChooseTargets,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    OrderTriggers,
    PassPriority,
    TapForMana,
    Unlock,
)
from mtgrules.carddefs import CardDefinitionError, card_from_json
from mtgrules.cards import CardDef
from mtgrules.game import Game, Step, TriggerOrder
from mtgrules.mana import parse_mana


class ScenarioFormatError(Exception):
    """The scenario file is malformed (not a rules failure)."""


class Status(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


@dataclass
class ScenarioResult:
    path: str
    id: str
    status: Status
    message: str = ""
    rules: list[str] = field(default_factory=list)
    title: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.path,
            "id": self.id,
            "status": self.status.value,
            "message": self.message,
            "rules": self.rules,
            "title": self.title,
        }


class _Fail(Exception):
    """An expectation was not met (carries the first difference)."""


# ---------------------------------------------------------------------- small schema helpers

JSON = Any


def _obj(
    value: JSON, where: str, allowed: set[str], required: frozenset[str] | set[str] = frozenset()
) -> dict[str, JSON]:
    if not isinstance(value, dict):
        raise ScenarioFormatError(f"{where}: expected an object, got {type(value).__name__}")
    unknown = set(value) - allowed
    if unknown:
        raise ScenarioFormatError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
    missing = required - set(value)
    if missing:
        raise ScenarioFormatError(f"{where}: missing key(s) {sorted(missing)}")
    return value


def _str(value: JSON, where: str) -> str:
    if not isinstance(value, str):
        raise ScenarioFormatError(f"{where}: expected a string, got {value!r}")
    return value


def _int(value: JSON, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ScenarioFormatError(f"{where}: expected an integer, got {value!r}")
    return value


def _bool(value: JSON, where: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioFormatError(f"{where}: expected true/false, got {value!r}")
    return value


def _strs(value: JSON, where: str) -> list[str]:
    if not isinstance(value, list):
        raise ScenarioFormatError(f"{where}: expected a list of strings, got {value!r}")
    return [_str(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _str_map(value: JSON, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ScenarioFormatError(f"{where}: expected an object of strings, got {value!r}")
    return {_str(k, where): _str(v, f"{where}.{k}") for k, v in value.items()}


# ---------------------------------------------------------------------- setup

_CARD_KEYS = {
    "id",
    "name",
    "owner",
    "zone",
    "controller",
    "tapped",
    "sick",
    "damage",
    "unlocked",
    "token",
    "copy_of",
    "counters",
    "face_down",
}
_SETUP_KEYS = {"players", "life", "active", "step", "turn", "cards", "mana", "trigger_order"}


def _counters(value: JSON, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ScenarioFormatError(f'{where}: expected an object like {{"+1/+1": 2}}')
    return {_str(k, where): _int(v, f"{where}.{k}") for k, v in value.items()}


def card_definitions(value: JSON) -> list[CardDef]:
    """A scenario's ``card_definitions``: its own test cards (see docs/mtgrules.md)."""
    if not isinstance(value, list):
        raise ScenarioFormatError("card_definitions: expected a list of card definitions")
    try:
        return [card_from_json(d, f"card_definitions[{i}]") for i, d in enumerate(value)]
    except CardDefinitionError as exc:
        raise ScenarioFormatError(str(exc)) from None


def build_game(setup: JSON, cards: Sequence[CardDef] = ()) -> Game:
    """Build and start a game from a scenario's ``setup`` object, with ``cards`` added to the pool."""
    s = _obj(setup, "setup", _SETUP_KEYS)
    players = _strs(s.get("players", ["A", "B"]), "setup.players")
    order = _str(s.get("trigger_order", TriggerOrder.CHOOSE.value), "setup.trigger_order")
    if order not in {t.value for t in TriggerOrder}:
        raise ScenarioFormatError(f"setup.trigger_order: {order!r}; one of {[t.value for t in TriggerOrder]}")
    if len(players) != 2 or len(set(players)) != 2:
        raise ScenarioFormatError(
            "setup.players: exactly two distinct players are supported (multiplayer is out of scope)"
        )
    try:
        game = Game(players, cards=cards, trigger_order=order)
    except ValueError as exc:
        raise ScenarioFormatError(f"card_definitions: {exc}") from None
    for p, life in (s.get("life") or {}).items():
        if p not in game.players:
            raise ScenarioFormatError(f"setup.life: unknown player {p!r}")
        game.players[p].life = _int(life, f"setup.life.{p}")
    cards = s.get("cards", [])
    if not isinstance(cards, list):
        raise ScenarioFormatError("setup.cards: expected a list")
    for i, c in enumerate(cards):
        where = f"setup.cards[{i}]"
        c = _obj(c, where, _CARD_KEYS, {"id", "owner", "zone"})
        if ("name" in c) == ("copy_of" in c):
            raise ScenarioFormatError(f"{where}: give exactly one of 'name' and 'copy_of'")
        try:
            game.add_card(
                _str(c["id"], f"{where}.id"),
                _str(c.get("name", ""), f"{where}.name"),
                _str(c["owner"], f"{where}.owner"),
                _str(c["zone"], f"{where}.zone"),
                controller=_str(c["controller"], f"{where}.controller") if "controller" in c else None,
                tapped=_bool(c.get("tapped", False), f"{where}.tapped"),
                sick=_bool(c.get("sick", False), f"{where}.sick"),
                damage=_int(c.get("damage", 0), f"{where}.damage"),
                unlocked=_strs(c.get("unlocked", []), f"{where}.unlocked"),
                token=_bool(c.get("token", False), f"{where}.token"),
                copy_of=_str(c["copy_of"], f"{where}.copy_of") if "copy_of" in c else None,
                counters=_counters(c.get("counters", {}), f"{where}.counters"),
                face_down=_bool(c.get("face_down", False), f"{where}.face_down"),
            )
        except ValueError as exc:
            raise ScenarioFormatError(f"{where}: {exc}") from None
    for p, mana in _str_map(s.get("mana", {}), "setup.mana").items():
        if p not in game.players:
            raise ScenarioFormatError(f"setup.mana: unknown player {p!r}")
        try:
            game.add_mana(p, mana)
        except ValueError as exc:
            raise ScenarioFormatError(f"setup.mana.{p}: {exc}") from None
    try:
        game.start(
            active=_str(s["active"], "setup.active") if "active" in s else None,
            step=_str(s.get("step", "main1"), "setup.step"),
            turn=_int(s.get("turn", 1), "setup.turn"),
        )
    except ValueError as exc:
        raise ScenarioFormatError(f"setup: {exc}") from None
    return game


# ---------------------------------------------------------------------- actions

_ACTION_KEYS: dict[str, set[str]] = {
    "pass": {"player"},
    "tap": {"player", "permanent"},
    "cast": {"player", "card", "door", "targets", "payment"},
    "unlock": {"player", "permanent", "door", "payment"},
    "declare_attackers": {"player", "attackers", "bands"},
    "declare_blockers": {"player", "blocks"},
    "assign_damage": {"player", "assignments"},
    "choose_targets": {"player", "targets"},
    "choose_door": {"player", "door"},
    "choose_card": {"player", "card"},
    "choose_name": {"player", "name"},
    "order_triggers": {"player", "order"},
    "choose_legend": {"player", "keep"},
    "activate": {"player", "permanent", "ability", "targets", "payment"},
    "choose_copy": {"player", "copy_of"},
}
_MACROS = {"pass_until": {"step"}, "resolve": set()}
_STEP_META = {"do", "error", "error_contains", "note"}


def _payment(value: JSON, where: str) -> dict[str, int] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ScenarioFormatError(f'{where}: expected an object like {{"B": 1}}')
    return {_str(k, where): _int(v, f"{where}.{k}") for k, v in value.items()}


def parse_action(step: Mapping[str, JSON], where: str) -> Action:
    """Turn one scenario step (``{"do": "cast", ...}``) into an :class:`Action`."""
    do = step["do"]
    params = {k: v for k, v in step.items() if k not in _STEP_META}
    _obj(params, where, _ACTION_KEYS[do], {"player"})
    player = _str(params["player"], f"{where}.player")

    def need(key: str) -> JSON:
        if key not in params:
            raise ScenarioFormatError(f"{where}: '{do}' needs key {key!r}")
        return params[key]

    match do:
        case "pass":
            return PassPriority(player)
        case "tap":
            return TapForMana(player, _str(need("permanent"), f"{where}.permanent"))
        case "cast":
            door = params.get("door")
            return CastSpell(
                player,
                _str(need("card"), f"{where}.card"),
                None if door is None else _str(door, f"{where}.door"),
                tuple(_strs(params.get("targets", []), f"{where}.targets")),
                _payment(params.get("payment"), f"{where}.payment"),
            )
        case "unlock":
            return Unlock(
                player,
                _str(need("permanent"), f"{where}.permanent"),
                _str(need("door"), f"{where}.door"),
                _payment(params.get("payment"), f"{where}.payment"),
            )
        case "declare_attackers":
            bands = params.get("bands", [])
            if not isinstance(bands, list):
                raise ScenarioFormatError(f"{where}.bands: expected a list of lists")
            return DeclareAttackers(
                player,
                _str_map(params.get("attackers", {}), f"{where}.attackers"),
                tuple(tuple(_strs(b, f"{where}.bands[{i}]")) for i, b in enumerate(bands)),
            )
        case "declare_blockers":
            return DeclareBlockers(player, _str_map(params.get("blocks", {}), f"{where}.blocks"))
        case "assign_damage":
            raw = need("assignments")
            if not isinstance(raw, dict):
                raise ScenarioFormatError(f"{where}.assignments: expected {{source: {{recipient: amount}}}}")
            assignments: dict[str, dict[str, int]] = {}
            for src, division in raw.items():
                if not isinstance(division, dict):
                    raise ScenarioFormatError(f"{where}.assignments.{src}: expected {{recipient: amount}}")
                # amounts are passed through unchecked: the engine refuses non-integers with a rules error
                assignments[src] = dict(division)
            return AssignCombatDamage(player, assignments)
        case "choose_targets":
            return ChooseTargets(player, tuple(_strs(params.get("targets", []), f"{where}.targets")))
        case "choose_door":
            return ChooseDoor(player, _str(need("door"), f"{where}.door"))
        case "choose_card":
            return ChooseCard(player, _str(need("card"), f"{where}.card"))
        case "choose_name":
            return ChooseName(player, _str(need("name"), f"{where}.name"))
        case "order_triggers":
            return OrderTriggers(player, tuple(_strs(need("order"), f"{where}.order")))
        case "choose_legend":
            return ChooseLegend(player, _str(need("keep"), f"{where}.keep"))
        case "activate":
            return ActivateAbility(
                player,
                _str(need("permanent"), f"{where}.permanent"),
                _int(params.get("ability", 0), f"{where}.ability"),
                tuple(_strs(params.get("targets", []), f"{where}.targets")),
                _payment(params.get("payment"), f"{where}.payment"),
            )
        case "choose_copy":
            copy_of = params.get("copy_of")
            return ChooseCopy(player, None if copy_of is None else _str(copy_of, f"{where}.copy_of"))
    raise ScenarioFormatError(f"{where}: unknown action {do!r}")  # pragma: no cover


def _error_class(name: str, where: str) -> type[errors.RulesError]:
    cls = getattr(errors, name, None)
    if not (isinstance(cls, type) and issubclass(cls, errors.RulesError)):
        names = sorted(n for n in dir(errors) if n.endswith("Error") and n != "ScenarioFormatError")
        raise ScenarioFormatError(f"{where}.error: unknown error class {name!r}; one of {names}")
    return cls


def _pass_holder(game: Game, label: str) -> None:
    pending = game.pending
    if pending is None or pending.kind is not DecisionKind.PRIORITY:
        what = "the game is over" if pending is None else f"{pending.kind.value} from {pending.player}"
        raise _Fail(f"{label}: stopped, the game waits for {what}")
    game.apply(PassPriority(pending.player))


def _run_macro(game: Game, step: Mapping[str, JSON], label: str) -> None:
    do = step["do"]
    _obj({k: v for k, v in step.items() if k not in _STEP_META}, label, _MACROS[do])
    if do == "pass_until":
        try:
            target = Step(_str(step.get("step"), f"{label}.step"))
        except ValueError:
            raise ScenarioFormatError(f"{label}: unknown step {step.get('step')!r}") from None
        for _ in range(100):
            if game.step is target:
                return
            if game.stack:
                raise _Fail(f"{label}: the stack is not empty ({[i.id for i in game.stack]}); use 'resolve'")
            _pass_holder(game, label)
        raise _Fail(f"{label}: step {target.value} not reached")
    # resolve: pass until the top object of the stack has left it
    if not game.stack:
        raise _Fail(f"{label}: the stack is empty")
    top = game.stack[-1].id
    for _ in range(10):
        _pass_holder(game, label)
        pending = game.pending
        if all(i.id != top for i in game.stack) or (
            pending is not None and pending.kind is not DecisionKind.PRIORITY
        ):
            return  # resolved, or paused for a choice made while it resolves
    raise _Fail(f"{label}: {top} did not resolve")  # pragma: no cover


# ---------------------------------------------------------------------- expectations


def _event_matches(event: Mapping[str, JSON], pattern: Mapping[str, JSON]) -> bool:
    return all(k in event and event[k] == v for k, v in pattern.items())


def _match_group(
    log: Sequence[Mapping[str, JSON]], start: int, group: Sequence[Mapping[str, JSON]]
) -> int | None:
    """Match each pattern of ``group`` to a distinct event at ``start`` or later, in any order (simultaneous
    events). Returns the position after the last matched event (as early as possible), or None."""
    best: int | None = None

    def search(k: int, used: frozenset[int], last: int) -> None:
        nonlocal best
        if best is not None and last + 1 >= best:
            return
        if k == len(group):
            best = last + 1
            return
        for n in range(start, len(log)):
            if n not in used and _event_matches(log[n], group[k]):
                search(k + 1, used | {n}, max(last, n))

    search(0, frozenset(), start - 1)
    return best


def _eq(label: str, expected: JSON, actual: JSON) -> None:
    if expected != actual:
        raise _Fail(f"{label}: expected {json.dumps(expected)}, got {json.dumps(actual)}")


def _check_permanent_field(game: Game, key: str, exp: JSON, get: Callable[[str], JSON]) -> None:
    for obj_id, value in _obj(exp, f"expect.{key}", set(exp) if isinstance(exp, dict) else set()).items():
        if obj_id not in game.permanents:
            raise _Fail(
                f"{key}.{obj_id}: expected {json.dumps(value)}, but {obj_id} is not on the battlefield"
            )
        _eq(f"{key}.{obj_id}", value, get(obj_id))


_EXPECT_KEYS = {
    "life",
    "zone",
    "tapped",
    "damage",
    "controller",
    "unlocked",
    "counters",
    "characteristics",
    "tokens",
    "hand",
    "graveyard",
    "library",
    "exile",
    "stack",
    "step",
    "turn",
    "active",
    "pending",
    "attacking",
    "blocked",
    "blocks",
    "bands",
    "events",
    "no_events",
    "count_events",
    "count_cards",
    "mana",
    "game_over",
    "note",
}


def check_expectations(game: Game, expect: JSON, label: str = "expect") -> None:
    """Raise :class:`_Fail` with the first difference between ``expect`` and the game."""
    exp = _obj(expect, label, _EXPECT_KEYS)
    for check in (_check_objects, _check_zones, _check_turn_and_combat, _check_pools_and_counts, _check_log):
        check(game, exp, label)


def _check_objects(game: Game, exp: dict[str, JSON], label: str) -> None:
    """Life, zones and the state of permanents."""
    if "life" in exp:
        for p, v in _obj(exp["life"], f"{label}.life", set(game.players)).items():
            _eq(f"life.{p}", v, game.life(p))
    if "zone" in exp:
        for obj_id, z in _str_map(exp["zone"], f"{label}.zone").items():
            zone = game.zone_of(obj_id)
            _eq(f"zone.{obj_id}", z, "none" if zone is None else zone.value)
    if "tapped" in exp:
        _check_permanent_field(game, "tapped", exp["tapped"], lambda o: game.permanents[o].tapped)
    if "damage" in exp:
        _check_permanent_field(game, "damage", exp["damage"], lambda o: game.permanents[o].damage)
    if "controller" in exp:
        _check_permanent_field(game, "controller", exp["controller"], lambda o: game.permanents[o].controller)
    if "unlocked" in exp:
        _check_permanent_field(
            game, "unlocked", exp["unlocked"], lambda o: sorted(d.value for d in game.permanents[o].unlocked)
        )
    if "counters" in exp:
        _check_permanent_field(
            game,
            "counters",
            exp["counters"],
            lambda o: {k: n for k, n in game.permanents[o].counters.items() if n},
        )
    if "characteristics" in exp:
        chars_exp = exp["characteristics"]
        if not isinstance(chars_exp, dict):
            raise ScenarioFormatError(f"{label}.characteristics: expected an object")
        for obj_id, fields in chars_exp.items():
            try:
                actual = game.characteristics(obj_id).to_json()
            except errors.RulesError as exc:
                raise _Fail(f"characteristics.{obj_id}: {exc}") from None
            for k, v in _obj(fields, f"{label}.characteristics.{obj_id}", set(actual)).items():
                _eq(f"characteristics.{obj_id}.{k}", v, actual[k])


def _check_zones(game: Game, exp: dict[str, JSON], label: str) -> None:
    """Tokens, the players' zones, exile and the stack."""
    if "tokens" in exp:
        for p, counts in _obj(exp["tokens"], f"{label}.tokens", set(game.players)).items():
            actual_counts: dict[str, int] = {}
            for pid in game.battlefield:
                obj = game.objects[pid]
                if obj.is_token and game.permanents[pid].controller == p:
                    actual_counts[obj.card.name] = actual_counts.get(obj.card.name, 0) + 1
            _eq(f"tokens.{p}", counts, actual_counts)
    for zone_key in ("hand", "graveyard", "library"):
        if zone_key in exp:
            for p, ids in _obj(exp[zone_key], f"{label}.{zone_key}", set(game.players)).items():
                actual_ids = list(getattr(game.players[p], zone_key))
                want = _strs(ids, f"{label}.{zone_key}.{p}")
                if zone_key != "library":
                    want, actual_ids = sorted(want), sorted(actual_ids)
                _eq(f"{zone_key}.{p}", want, actual_ids)
    if "exile" in exp:
        _eq("exile", sorted(_strs(exp["exile"], f"{label}.exile")), sorted(game.exile))
    if "stack" in exp:
        _eq("stack", _strs(exp["stack"], f"{label}.stack"), [i.id for i in game.stack])


def _check_turn_and_combat(game: Game, exp: dict[str, JSON], label: str) -> None:
    """The turn, the pending decision and combat."""
    if "step" in exp:
        _eq("step", exp["step"], game.step.value)
    if "turn" in exp:
        _eq("turn", exp["turn"], game.turn)
    if "active" in exp:
        _eq("active", exp["active"], game.active)
    if "pending" in exp:
        pending = game.pending
        actual_p = None if pending is None else {"kind": pending.kind.value, "player": pending.player}
        _eq("pending", exp["pending"], actual_p)
    combat = game.combat
    if "attacking" in exp:
        _eq(
            "attacking",
            sorted(_strs(exp["attacking"], f"{label}.attacking")),
            sorted(combat.attackers) if combat else [],
        )
    if "blocked" in exp:
        for c, v in _obj(exp["blocked"], f"{label}.blocked", set(exp["blocked"])).items():
            _eq(f"blocked.{c}", v, combat is not None and c in combat.blocked)
    # blocks and bands are sets: the order of a list in them (or of the bands) never matters
    if "blocks" in exp:
        want_blocks = {
            b: sorted(_strs(a, f"{label}.blocks.{b}"))
            for b, a in _obj(exp["blocks"], f"{label}.blocks", set(exp["blocks"])).items()
        }
        actual_blocks = {} if combat is None else {b: sorted(a) for b, a in combat.blocks.items()}
        _eq("blocks", want_blocks, actual_blocks)
    if "bands" in exp:
        if not isinstance(exp["bands"], list):
            raise ScenarioFormatError(f"{label}.bands: expected a list of lists")
        want_bands = sorted(sorted(_strs(b, f"{label}.bands[{i}]")) for i, b in enumerate(exp["bands"]))
        _eq("bands", want_bands, [] if combat is None else sorted(sorted(b) for b in combat.bands))


def _check_pools_and_counts(game: Game, exp: dict[str, JSON], label: str) -> None:
    """Mana pools, the end of the game and card counts."""
    if "mana" in exp:
        for p, mana in _str_map(exp["mana"], f"{label}.mana").items():
            try:
                want_pool = parse_mana(mana)
            except ValueError as exc:
                raise ScenarioFormatError(f"{label}.mana.{p}: {exc}") from None
            _eq(f"mana.{p}", want_pool, dict(game.players[p].pool.amounts))
    if "game_over" in exp:
        _eq("game_over", exp["game_over"], game.game_over)
    if "count_cards" in exp:
        items = exp["count_cards"]
        if not isinstance(items, list):
            raise ScenarioFormatError(f"{label}.count_cards: expected a list")
        for i, item in enumerate(items):
            where = f"{label}.count_cards[{i}]"
            spec = _obj(item, where, {"player", "zone", "type", "equals"}, {"player", "zone", "equals"})
            if spec["player"] not in game.players or spec["zone"] not in ("hand", "library", "graveyard"):
                raise ScenarioFormatError(f"{where}: needs a known player and zone hand/library/graveyard")
            try:
                n = game.count_cards(spec["player"], spec["zone"], spec.get("type"))
            except ValueError as exc:
                raise ScenarioFormatError(f"{where}: {exc}") from None
            what = f"{spec['player']} {spec['zone']} {spec.get('type') or 'cards'}"
            _eq(f"count_cards[{i}] ({what})", spec["equals"], n)


def _check_log(game: Game, exp: dict[str, JSON], label: str) -> None:
    """The game log: events in order, counts, and events that must not occur."""
    log = [e.to_json() for e in game.events]
    if "events" in exp:
        patterns = exp["events"]
        if not isinstance(patterns, list):
            raise ScenarioFormatError(f"{label}.events: expected a list of partial events")
        pos = 0
        for i, entry in enumerate(patterns):
            group = entry if isinstance(entry, list) else [entry]
            if not group:
                raise ScenarioFormatError(f"{label}.events[{i}]: an empty group")
            for pattern in group:
                if not isinstance(pattern, dict) or "type" not in pattern:
                    raise ScenarioFormatError(f"{label}.events[{i}]: expected an object with a 'type'")
            found = _match_group(log, pos, group)
            if found is None:
                what = json.dumps(entry)
                kind = "events matching the group" if isinstance(entry, list) else "event matching"
                raise _Fail(f"events[{i}]: no {kind} {what} (in order after the previous one)")
            pos = found
    if "count_events" in exp:
        items = exp["count_events"]
        if not isinstance(items, list):
            raise ScenarioFormatError(f"{label}.count_events: expected a list")
        for i, item in enumerate(items):
            spec = _obj(item, f"{label}.count_events[{i}]", {"match", "equals"}, {"match", "equals"})
            if not isinstance(spec["match"], dict):
                raise ScenarioFormatError(f"{label}.count_events[{i}].match: expected a partial event")
            n = sum(1 for e in log if _event_matches(e, spec["match"]))
            _eq(f"count_events[{i}] {json.dumps(spec['match'])}", spec["equals"], n)
    if "no_events" in exp:
        patterns = exp["no_events"]
        if not isinstance(patterns, list):
            raise ScenarioFormatError(f"{label}.no_events: expected a list of partial events")
        for i, pattern in enumerate(patterns):
            for e in log:
                if _event_matches(e, pattern):
                    raise _Fail(f"no_events[{i}]: found event {json.dumps(e)}")


# ---------------------------------------------------------------------- running


def run_scenario(data: JSON, path: str = "<scenario>") -> ScenarioResult:
    """Run one parsed scenario."""
    sid = data.get("id", path) if isinstance(data, dict) else path
    result = ScenarioResult(path, str(sid), Status.PASS)
    try:
        top = _obj(
            data,
            "scenario",
            {"id", "title", "rules", "description", "card_definitions", "setup", "steps", "expect"},
        )
        if "id" not in top or "setup" not in top or "rules" not in top:
            raise ScenarioFormatError("scenario: 'id', 'rules' and 'setup' are required")
        result.rules = _strs(top["rules"], "rules")
        result.title = _str(top.get("title", ""), "title")
        game = build_game(top["setup"], card_definitions(top.get("card_definitions", [])))
        steps = top.get("steps", [])
        if not isinstance(steps, list):
            raise ScenarioFormatError("steps: expected a list")
        for n, step in enumerate(steps, 1):
            _run_step(game, step, n)
        if "expect" in top:
            check_expectations(game, top["expect"])
    except ScenarioFormatError as exc:
        result.status, result.message = Status.ERROR, f"malformed scenario: {exc}"
    except _Fail as exc:
        result.status, result.message = Status.FAIL, str(exc)
    except Exception as exc:  # an engine bug must not crash the runner
        result.status, result.message = Status.ERROR, f"internal error: {type(exc).__name__}: {exc}"
    return result


def _run_step(game: Game, step: JSON, n: int) -> None:
    where = f"steps[{n}]"
    if not isinstance(step, dict):
        raise ScenarioFormatError(f"{where}: expected an object")
    if "expect" in step:
        _obj(step, where, {"expect", "note"})
        try:
            check_expectations(game, step["expect"], f"{where}.expect")
        except _Fail as exc:
            raise _Fail(f"step {n} (expect): {exc}") from None
        return
    if "do" not in step:
        raise ScenarioFormatError(f"{where}: needs 'do' (an action) or 'expect'")
    do = _str(step["do"], f"{where}.do")
    label = f"step {n} ({do}{' by ' + str(step['player']) if 'player' in step else ''})"
    if do in _MACROS:
        if "error" in step:
            raise ScenarioFormatError(f"{where}: 'error' is not allowed on {do!r}")
        try:
            _run_macro(game, step, label)
        except errors.RulesError as exc:
            raise _Fail(f"{label}: refused: {type(exc).__name__}: {exc}") from None
        return
    if do not in _ACTION_KEYS:
        raise ScenarioFormatError(
            f"{where}: unknown action {do!r}; one of {sorted(set(_ACTION_KEYS) | set(_MACROS))}"
        )
    action = parse_action(step, where)
    expected_error = _error_class(_str(step["error"], f"{where}.error"), where) if "error" in step else None
    contains = _str(step.get("error_contains", ""), f"{where}.error_contains")
    before = game.snapshot() if expected_error is not None else None
    try:
        game.apply(action)
    except errors.RulesError as exc:
        if expected_error is None:
            raise _Fail(f"{label}: refused: {type(exc).__name__}: {exc}") from None
        if not isinstance(exc, expected_error):
            raise _Fail(
                f"{label}: expected {expected_error.__name__}, got {type(exc).__name__}: {exc}"
            ) from None
        if contains and contains not in str(exc):
            raise _Fail(f"{label}: error message {str(exc)!r} does not contain {contains!r}") from None
        if game.snapshot() != before:
            raise _Fail(f"{label}: the refused action changed the game state") from None
        return
    if expected_error is not None:
        raise _Fail(f"{label}: expected {expected_error.__name__}, but the action was accepted")


def load_scenario(path: Path) -> JSON:
    """Read a scenario file: UTF-8 JSON (a byte order mark is allowed). Raises ScenarioFormatError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ScenarioFormatError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioFormatError(
            f"not a UTF-8 text file (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "a scenario is UTF-8 JSON"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioFormatError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise ScenarioFormatError("invalid JSON: nested too deeply") from None


def run_scenario_file(path: Path | str) -> ScenarioResult:
    p = Path(path)
    try:
        data = load_scenario(p)
    except ScenarioFormatError as exc:
        return ScenarioResult(str(p), p.stem, Status.ERROR, str(exc))
    return run_scenario(data, str(p))


def run_files(paths: Sequence[Path | str]) -> list[ScenarioResult]:
    """Run scenario files; a directory runs every ``*.json`` in it (sorted)."""
    results = []
    for path in paths:
        p = Path(path)
        files = sorted(p.glob("*.json")) if p.is_dir() else [p]
        results += [run_scenario_file(f) for f in files]
    return results
