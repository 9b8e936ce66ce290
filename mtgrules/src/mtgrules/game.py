"""The game: state, turn structure, priority, the stack, combat and Rooms.

Use :class:`Game` to set a position up (:meth:`Game.add_card`, :meth:`Game.add_mana`, :meth:`Game.start`)
and then play it with :meth:`Game.apply`, one explicit decision at a time; :attr:`Game.pending` says which
decision the game waits for and from whom. Every action is verified completely before anything changes:
an illegal one raises a :class:`~mtgrules.errors.RulesError` subclass and the state is untouched
(:meth:`Game.snapshot` before and after is equal).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

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
    Decision,
    DecisionKind,
    DeclareAttackers,
    DeclareBlockers,
    OrderTriggers,
    PassPriority,
    TapForMana,
    Unlock,
)
from mtgrules.carddb import CARDS, HORROR_TOKEN
from mtgrules.cards import (
    COUNTER_KINDS,
    FACE_DOWN,
    LANDWALK,
    ActivatedAbility,
    CardDef,
    CardType,
    Characteristics,
    Door,
    Effect,
    EffectKind,
    Keyword,
    StaticKind,
    TargetKind,
    TargetSpec,
    Trigger,
    TriggeredAbility,
    characteristics,
    with_exception,
)
from mtgrules.combat import CombatState, DamageSource, check_bands, group_triggers_banding_rule
from mtgrules.errors import (
    GameOverError,
    IllegalActivationError,
    IllegalAttackError,
    IllegalBlockError,
    IllegalCastError,
    IllegalChoiceError,
    IllegalDamageAssignmentError,
    IllegalTargetError,
    IllegalUnlockError,
    NotYourDecisionError,
    RulesError,
    TimingError,
    UnknownObjectError,
    WrongDecisionError,
)
from mtgrules.events import Event
from mtgrules.mana import ManaPool, parse_mana


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


def _door(value: str) -> Door:
    try:
        return Door(value)
    except ValueError:
        raise IllegalCastError(f"unknown door {value!r}: a Room's doors are 'left' and 'right'") from None


class Game:
    """A two-player game position and its rules engine."""

    def __init__(
        self,
        players: Iterable[str] = ("A", "B"),
        *,
        life: int = 20,
        cards: Mapping[str, CardDef] | Iterable[CardDef] = (),
        trigger_order: TriggerOrder | str = TriggerOrder.CHOOSE,
    ) -> None:
        """``cards`` adds test cards to the built-in pool (e.g. a scenario's own definitions);
        ``trigger_order`` says whether players order their simultaneous triggers (603.3b) or the
        simulation default (the order they triggered in) is used."""
        names = list(players)
        if len(names) != 2 or len(set(names)) != 2:
            raise ValueError("exactly two distinct players are supported (multiplayer is out of scope)")
        self.card_pool: dict[str, CardDef] = dict(CARDS)
        for card in cards.values() if isinstance(cards, Mapping) else cards:
            self._add_to_pool(card)
        self.trigger_order = TriggerOrder(trigger_order)
        self.players: dict[str, Player] = {n: Player(n, life) for n in names}
        self.order: tuple[str, ...] = tuple(names)
        self.objects: dict[str, GameObject] = {}
        self.zcc: dict[str, int] = {}
        self.battlefield: list[str] = []
        self.permanents: dict[str, Permanent] = {}
        self.exile: list[str] = []
        self.stack: list[StackItem] = []
        self.events: list[Event] = []
        self.turn = 1
        self.active = names[0]
        self.step = Step.MAIN1
        self.started = False
        self.priority: str | None = None
        self.passes = 0
        self.combat: CombatState | None = None
        self.game_over = False
        self._decision: Decision | None = None
        self._priority_next: str | None = None
        self._hits: list[TriggerHit] = []  # abilities that triggered, not yet put on the stack
        self._waiting: list[PendingTrigger] = []
        self._choosing: PendingTrigger | None = None
        self._resolving: StackItem | None = None
        self._plan: DamagePlan | None = None
        self._once_per_turn: set[tuple[str, int, str, int]] = set()  # TriggerHit.ability_key
        self._instances = 0
        self._timestamp = 0  # timestamps of continuous effects (613.7)
        self._counters: Counter[str] = Counter()
        self._ordered: list[str] = []  # ids of waiting triggers whose order was chosen (603.3b)
        self._legend_keep: dict[tuple[str, str], str] = {}  # (player, name) -> permanent kept (704.5j)
        self._legend_question: tuple[str, str] | None = None  # the (player, name) being asked about
        # a permanent waiting for an "as it enters" choice (707.9b copy, chosen name; 614.12)
        self._entering: Entering | None = None

    def _add_to_pool(self, card: CardDef) -> None:
        taken = {f.name for c in self.card_pool.values() for f in c.faces} | set(self.card_pool)
        clash = sorted({card.name, *(f.name for f in card.faces)} & taken)
        if clash:
            raise ValueError(
                f"card name {clash[0]!r} is already in the card pool; give the test card its own name"
            )
        self.card_pool[card.name] = card

    def find_card(self, name: str) -> CardDef:
        """A card of the pool by its full name (``"Defiled Crypt // Cadaver Lab"``) or a Room's door name."""
        if name in self.card_pool:
            return self.card_pool[name]
        for card in self.card_pool.values():
            if card.is_room and name in (f.name for f in card.faces):
                return card
        raise KeyError(name)

    # ------------------------------------------------------------------ setup

    def add_card(
        self,
        obj_id: str,
        name: str,
        owner: str,
        zone: Zone | str,
        *,
        controller: str | None = None,
        tapped: bool = False,
        sick: bool = False,
        damage: int = 0,
        unlocked: Iterable[str] = (),
        token: bool = False,
        copy_of: str | None = None,
        counters: Mapping[str, int] | None = None,
        face_down: bool = False,
    ) -> None:
        """Put a card (or a token, on the battlefield) into the position. Setup only: no events, no
        triggers. ``copy_of`` makes a token that is a copy of that permanent (707.2): it copies the card
        (for a Room, both halves, 709.5), not the permanent's state (tapped, damage, unlocked designations).
        ``counters`` puts +1/+1 and -1/-1 counters on it; ``face_down`` makes it a face-down permanent with
        the characteristics of 708.2a (a scenario flag: no morph, manifest or disguise).
        Raises :class:`ValueError` for an inconsistent setup."""
        zone = Zone(zone)
        if obj_id in self.objects or obj_id in self.order:
            raise ValueError(f"duplicate object id {obj_id!r}")
        if owner not in self.players:
            raise ValueError(f"unknown owner {owner!r}")
        if copy_of is not None:
            if copy_of not in self.permanents:
                raise ValueError(f"copy_of: {copy_of!r} is not a permanent set up earlier on the battlefield")
            card = self.card_of(copy_of)
            token = True
        else:
            try:
                card = self.find_card(name)
            except KeyError:
                raise ValueError(f"unknown card {name!r}") from None
        if token and zone is not Zone.BATTLEFIELD:
            raise ValueError(f"{obj_id}: a token exists only on the battlefield (111.7)")
        doors = {Door(d) for d in unlocked}
        if zone is Zone.STACK:
            raise ValueError("cards cannot be set up on the stack; cast them")
        on_battlefield_only = (tapped, sick, damage, doors, controller, counters, face_down)
        if zone is not Zone.BATTLEFIELD and any(on_battlefield_only):
            raise ValueError(
                f"{obj_id}: tapped/sick/damage/unlocked/controller/counters/face_down need zone battlefield"
            )
        for kind, n in (counters or {}).items():
            if kind not in COUNTER_KINDS or not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ValueError(f"{obj_id}: counters are {list(COUNTER_KINDS)} with a whole number >= 0")
        if doors and not card.is_room:
            raise ValueError(f"{obj_id}: only a Room has doors to unlock")
        self.objects[obj_id] = GameObject(obj_id, card, owner, token)
        self.zcc[obj_id] = 0
        p = self.players[owner]
        if zone is Zone.BATTLEFIELD:
            ctrl = controller or owner
            if ctrl not in self.players:
                raise ValueError(f"unknown controller {ctrl!r}")
            self._instances += 1
            perm = Permanent(obj_id, ctrl, self._instances, tapped, damage, sick, doors, face_down=face_down)
            perm.counters.update(counters or {})
            self.permanents[obj_id] = perm
            self.battlefield.append(obj_id)
        elif zone is Zone.LIBRARY:
            p.library.append(obj_id)
        elif zone is Zone.HAND:
            p.hand.append(obj_id)
        elif zone is Zone.GRAVEYARD:
            p.graveyard.append(obj_id)
        else:
            self.exile.append(obj_id)

    def add_mana(self, player: str, mana: str) -> None:
        """Setup: put mana (e.g. ``"{B}{B}{C}"``) into a player's pool."""
        for sym, n in parse_mana(mana).items():
            self.players[player].pool.add(sym, n)

    def start(self, *, active: str | None = None, step: Step | str = Step.MAIN1, turn: int = 1) -> None:
        """Begin play at the start of ``step`` of turn ``turn`` with ``active`` the active player."""
        step = Step(step)
        if self.started:
            raise ValueError("the game has already started")
        if step not in START_STEPS:
            raise ValueError(f"cannot start in step {step.value}; start in one of {sorted(START_STEPS)}")
        self.active = active or self.order[0]
        if self.active not in self.players:
            raise ValueError(f"unknown active player {self.active!r}")
        self.turn = turn
        self.started = True
        self._enter_step(step, keep_pools=True)

    # ------------------------------------------------------------------ queries

    def opponent(self, player: str) -> str:
        return self.order[1] if player == self.order[0] else self.order[0]

    @property
    def pending(self) -> Decision | None:
        """The decision the game waits for, or None if the game is over."""
        if self.game_over or not self.started:
            return None
        if self._decision is not None:
            return self._decision
        if self.priority is not None:
            return Decision(DecisionKind.PRIORITY, self.priority, f"{self.priority} has priority")
        return None

    def life(self, player: str) -> int:
        return self.players[player].life

    def zone_of(self, obj_id: str) -> Zone | None:
        """The zone an object is in, or None if it does not exist (any more)."""
        if obj_id in self.permanents:
            return Zone.BATTLEFIELD
        if any(item.id == obj_id for item in self.stack):
            return Zone.STACK
        for p in self.players.values():
            if obj_id in p.hand:
                return Zone.HAND
            if obj_id in p.library:
                return Zone.LIBRARY
            if obj_id in p.graveyard:
                return Zone.GRAVEYARD
        if obj_id in self.exile:
            return Zone.EXILE
        return None

    def card_locations(self) -> Counter[str]:
        """How many zones hold each card (tokens and copies excluded). Always 1 for every card."""
        found: Counter[str] = Counter()
        seq: list[str] = list(self.battlefield) + list(self.exile)
        seq += [i.id for i in self.stack if i.is_spell and not i.is_copy]
        for p in self.players.values():
            seq += p.library + p.hand + p.graveyard
        for obj_id in seq:
            if obj_id in self.objects and not self.objects[obj_id].is_token:
                found[obj_id] += 1
        for obj_id, obj in self.objects.items():
            if not obj.is_token:
                found[obj_id] += 0
        return found

    def permanent(self, obj_id: str) -> Permanent:
        try:
            return self.permanents[obj_id]
        except KeyError:
            raise UnknownObjectError(f"{obj_id!r} is not a permanent on the battlefield") from None

    def controller_of(self, obj_id: str) -> str:
        if obj_id in self.permanents:
            return self.permanents[obj_id].controller
        for item in self.stack:
            if item.id == obj_id:
                return item.controller
        return self.objects[obj_id].owner

    def stack_item(self, obj_id: str) -> StackItem | None:
        for item in self.stack:
            if item.id == obj_id:
                return item
        return None

    def characteristics(self, obj_id: str) -> Characteristics:
        """Characteristics of a card, token, permanent or spell in its current zone (709.3b, 709.4, 709.5)."""
        if obj_id in self.permanents:
            perm = self.permanents[obj_id]
            card = self.card_of(obj_id)
            doors = tuple(d for d in (Door.LEFT, Door.RIGHT) if d in perm.unlocked) if card.is_room else None
            return self._later_layers(perm, characteristics(card, doors, loses_banding=perm.loses_banding))
        item = self.stack_item(obj_id)
        if item is not None:
            if item.card is None:
                raise UnknownObjectError(f"{obj_id!r} is an ability, which has no characteristics here")
            return characteristics(item.card, None if item.door is None else (item.door,))
        if obj_id in self.objects:
            return characteristics(self.objects[obj_id].card, None)
        raise UnknownObjectError(f"unknown object {obj_id!r}")

    def card_of(self, obj_id: str) -> CardDef:
        """An object's copiable values: a permanent's newest copy effect (707.2), else its own card; a
        face-down permanent's are those of 708.2a (707.2: as modified by its face-down status)."""
        perm = self.permanents.get(obj_id)
        if perm is not None and perm.face_down:
            return FACE_DOWN
        if perm is not None and perm.copied is not None:
            return perm.copied
        return self.objects[obj_id].card

    def _later_layers(self, perm: Permanent, ch: Characteristics) -> Characteristics:
        """Layers after the copy effects (613.1): ability-adding and -removing effects in timestamp order
        (layer 6, 613.1f, 613.7), then +1/+1 and -1/-1 counters (layer 7c, 613.4c)."""
        for _, what, _ in sorted(perm.ability_effects):
            if what == "lose_all":
                ch = replace(
                    ch,
                    keywords=frozenset(),
                    bands_with_other=frozenset(),
                    triggered=(),
                    activated=(),
                    static=(),
                    mana_ability=None,
                )
            else:
                ch = replace(ch, keywords=ch.keywords | {Keyword(what)})
        change = perm.counters["+1/+1"] - perm.counters["-1/-1"]
        if change and ch.power is not None and ch.toughness is not None:
            ch = replace(ch, power=ch.power + change, toughness=ch.toughness + change)
        return ch

    def activated_abilities(self, obj_id: str) -> tuple[ActivatedAbility, ...]:
        """A permanent's activated abilities now, in the order :class:`ActivateAbility` numbers them."""
        return self.characteristics(obj_id).activated

    def name_of(self, obj_id: str) -> str:
        if obj_id in self.order:
            return obj_id
        if obj_id in self.objects or self.stack_item(obj_id) is not None:
            try:
                names = self.characteristics(obj_id).names
            except UnknownObjectError:
                names = ()
            if names:
                return " // ".join(names)
        return obj_id

    def has_name(self, obj_id: str, name: str) -> bool:
        """709.4a: an object has the chosen name if one of its names is the chosen name."""
        return name in self.characteristics(obj_id).names

    def count_cards(self, player: str, zone: Zone | str, card_type: CardType | str | None = None) -> int:
        """Number of cards (709.2: a split card is one card) in a player's hand/library/graveyard."""
        zone = Zone(zone)
        p = self.players[player]
        cards = {Zone.HAND: p.hand, Zone.LIBRARY: p.library, Zone.GRAVEYARD: p.graveyard}[zone]
        if card_type is None:
            return len(cards)
        ct = CardType(card_type)
        return sum(1 for c in cards if self.characteristics(c).is_type(ct))

    def is_creature(self, obj_id: str) -> bool:
        return obj_id in self.permanents and self.characteristics(obj_id).is_type(CardType.CREATURE)

    def _summoning_sick(self, pid: str) -> bool:
        """302.6: a creature can't attack or pay {T} unless continuously controlled since its controller's
        most recent turn began; haste lifts that (702.10b)."""
        return (
            self.permanents[pid].sick
            and self.is_creature(pid)
            and Keyword.HASTE not in self.characteristics(pid).keywords
        )

    def damage_sources(self) -> list[DamageSource]:
        """The current combat damage step's damage sources (who assigns what), if any."""
        return [] if self._plan is None else list(self._plan.sources)

    def snapshot(self) -> dict[str, Any]:
        """A complete, comparable picture of the state (used to show refused actions change nothing)."""
        return {
            "players": {
                n: {
                    "life": p.life,
                    "pool": dict(p.pool.amounts),
                    "library": list(p.library),
                    "hand": list(p.hand),
                    "graveyard": list(p.graveyard),
                    "drew_from_empty": p.drew_from_empty_library,
                    "lost": p.lost,
                }
                for n, p in self.players.items()
            },
            "objects": {k: (v.card.name, v.owner, v.is_token) for k, v in self.objects.items()},
            "zcc": dict(self.zcc),
            "battlefield": list(self.battlefield),
            "permanents": {k: v.to_json() for k, v in self.permanents.items()},
            "exile": list(self.exile),
            "stack": [i.to_json() for i in self.stack],
            "events": len(self.events),
            "turn": self.turn,
            "active": self.active,
            "step": self.step.value,
            "priority": self.priority,
            "passes": self.passes,
            "combat": None if self.combat is None else self.combat.to_json(),
            "game_over": self.game_over,
            "decision": None if self._decision is None else self._decision.to_json(),
            "priority_next": self._priority_next,
            "trigger_hits": len(self._hits),
            "waiting": [(t.controller, t.source, t.ability.text) for t in self._waiting],
            "choosing": None
            if self._choosing is None
            else (self._choosing.source, self._choosing.ability.text),
            "resolving": None if self._resolving is None else self._resolving.id,
            "plan": None
            if self._plan is None
            else {
                "assigners": list(self._plan.assigners),
                "assigned": {k: dict(v) for k, v in self._plan.assigned.items()},
                "sources": [(s.source, s.assigner, s.forced) for s in self._plan.sources],
            },
            "once_per_turn": sorted(self._once_per_turn),
            "counters": dict(self._counters),
            "ordered": list(self._ordered),
            "legend_keep": sorted(self._legend_keep.items()),
            "legend_question": self._legend_question,
            "waiting_ids": [t.id for t in self._waiting],
            "entering": None
            if self._entering is None
            else (
                self._entering.label,
                None if self._entering.copy_values is None else self._entering.copy_values.name,
                self._entering.copy_chosen,
            ),
        }

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: Action) -> None:
        """Carry out one decision. Raises a :class:`RulesError` subclass (state unchanged) if illegal."""
        if not self.started:
            raise TimingError("the game has not started")
        if self.game_over:
            raise GameOverError("the game is over")
        if action.player not in self.players:
            raise UnknownObjectError(f"unknown player {action.player!r}")
        match action:
            case PassPriority():
                self._expect(DecisionKind.PRIORITY, action.player)
                self._pass(action.player)
            case TapForMana():
                self._tap_for_mana(action)
            case CastSpell():
                self._cast(action)
            case Unlock():
                self._unlock(action)
            case ActivateAbility():
                self._activate(action)
            case ChooseCopy():
                self._choose_copy(action)
            case DeclareAttackers():
                self._declare_attackers(action)
            case DeclareBlockers():
                self._declare_blockers(action)
            case AssignCombatDamage():
                self._assign_damage(action)
            case ChooseTargets():
                self._choose_targets(action)
            case ChooseDoor() | ChooseCard() | ChooseName():
                self._resolution_choice(action)
            case ChooseLegend():
                self._choose_legend(action)
            case OrderTriggers():
                self._order_triggers(action)
            case _:  # pragma: no cover - exhaustive
                raise RulesError(f"unknown action {action!r}")

    def _expect(self, kind: DecisionKind, player: str) -> Decision:
        pending = self.pending
        if pending is None:
            raise WrongDecisionError("the game is not waiting for a decision")
        if pending.kind is not kind:
            raise WrongDecisionError(
                f"the game waits for {pending.kind.value} from {pending.player}, not {kind.value}"
            )
        if pending.player != player:
            raise NotYourDecisionError(f"{pending.kind.value} is {pending.player}'s decision, not {player}'s")
        return pending

    def _log(self, type_: str, **data: Any) -> Event:
        event = Event(type_, data)
        self.events.append(event)
        self._detect_triggers(event)
        return event

    def _new_id(self, prefix: str) -> str:
        self._counters[prefix] += 1
        return f"{prefix}-{self._counters[prefix]}"

    # ------------------------------------------------------------------ turn structure

    def _enter_step(self, step: Step, *, keep_pools: bool = False) -> None:
        if not keep_pools:
            for p in self.players.values():
                if p.pool.total:
                    self._log("mana_emptied", player=p.name, mana=str(p.pool))
                    p.pool.empty()
        self.step = step
        self.passes = 0
        self.priority = None
        self._log("step", step=step.value, turn=self.turn, active=self.active)
        ap = self.active
        if step is Step.UNTAP:
            self._once_per_turn.clear()
            for pid in self.battlefield:
                perm = self.permanents[pid]
                if perm.controller == ap:
                    perm.sick = False
                    if perm.tapped:
                        perm.tapped = False
                        self._log("untap", permanent=pid)
            self._enter_step(Step.UPKEEP)
            return
        if step is Step.DRAW:
            self._draw(ap)
        elif step is Step.DECLARE_ATTACKERS:
            self.combat = CombatState()
            if any(self._can_attack(pid) for pid in self.battlefield):
                self._decision = Decision(
                    DecisionKind.DECLARE_ATTACKERS,
                    ap,
                    "declare attackers, their targets and bands (508.1, 702.22c)",
                    tuple(pid for pid in self.battlefield if self._can_attack(pid)),
                )
                return
            self.combat.attackers_declared = True
            self._log("attackers_declared", player=ap, attackers={}, bands=[])
        elif step is Step.DECLARE_BLOCKERS:
            defender = self.opponent(ap)
            potential = tuple(
                pid
                for pid in self.battlefield
                if self.permanents[pid].controller == defender
                and self.is_creature(pid)
                and not self.permanents[pid].tapped
            )
            if potential:
                self._decision = Decision(
                    DecisionKind.DECLARE_BLOCKERS, defender, "declare blockers (509.1)", potential
                )
                return
            self._finish_blocks({})
            return
        elif step in (Step.FIRST_STRIKE_DAMAGE, Step.COMBAT_DAMAGE):
            self._start_damage_step()
            return
        elif step is Step.CLEANUP:
            for pid in self.battlefield:
                perm = self.permanents[pid]
                perm.damage = 0
                perm.loses_banding = False
                self._end_of_turn_effects(pid)
                ended = [c for c, until_eot in perm.copies if until_eot]
                if ended:  # 514.2: "until end of turn" effects end; an earlier copy effect applies again
                    perm.copies = [(c, u) for c, u in perm.copies if not u]
                    self._log("copy_effect_ends", permanent=pid, copy_of=[c.name for c in ended])
            self._log("cleanup")
            self._next_step()
            return
        self._give_priority(ap)

    def _end_of_turn_effects(self, pid: str) -> None:
        """514.2: "until end of turn" ability and control effects end; an earlier control effect, or the
        player it entered under, controls it again (a change of control makes it new to them, 302.6)."""
        perm = self.permanents[pid]
        if any(u for _, _, u in perm.ability_effects):
            perm.ability_effects = [e for e in perm.ability_effects if not e[2]]
            self._log("ability_effects_end", permanent=pid)
        if any(u for _, _, u in perm.control_effects):
            perm.control_effects = [e for e in perm.control_effects if not e[2]]
            self._set_controller(pid, self._controller_now(perm))

    def _controller_now(self, perm: Permanent) -> str:
        """613.1b, 613.7: the newest control-changing effect decides; else the player it entered under."""
        return max(perm.control_effects)[1] if perm.control_effects else perm.base_controller

    def _set_controller(self, pid: str, player: str) -> None:
        perm = self.permanents[pid]
        if perm.controller != player:
            old, perm.controller, perm.sick = perm.controller, player, True  # 302.6
            self._log("control_changed", permanent=pid, old=old, new=player, rule="613.1b")

    def _next_step(self) -> None:
        step = self.step
        if step is Step.END_COMBAT:
            self.combat = None
            self._log("combat_ended")
        if step is Step.CLEANUP:
            self.active = self.opponent(self.active)
            self.turn += 1
            self._enter_step(Step.UNTAP)
            return
        nxt = STEP_ORDER[STEP_ORDER.index(step) + 1]
        if step is Step.DECLARE_ATTACKERS and self.combat is not None and not self.combat.attackers:
            nxt = Step.END_COMBAT  # 508.8
        if nxt is Step.FIRST_STRIKE_DAMAGE and not self._any_first_strike():
            nxt = Step.COMBAT_DAMAGE  # 510.4
        self._enter_step(nxt)

    def _any_first_strike(self) -> bool:
        if self.combat is None:
            return False
        in_combat = list(self.combat.attackers) + list(self.combat.blocks)
        return any(self.characteristics(c).strikes_first for c in in_combat)

    def _pass(self, player: str) -> None:
        self._log("pass", player=player)
        self.passes += 1
        if self.passes >= len(self.order):
            self.passes = 0
            self.priority = None
            if self.stack:
                self._resolve_top()
            else:
                self._next_step()
        else:
            self.priority = self.opponent(player)

    def _give_priority(self, player: str) -> None:
        """Give ``player`` priority, first performing state-based actions and putting triggered abilities
        on the stack (117.5). A triggered ability needing targets makes the game wait for that choice."""
        self._priority_next = player
        self.priority = None
        self._settle()

    def _settle(self) -> None:
        while True:
            if self._decision is not None:
                return
            self._check_combat_members()
            changed = self._state_based_actions()
            if self._decision is not None:
                return  # the legend rule waits for a choice; nothing was performed yet (704.3)
            self._collect_triggers()
            if self.game_over:
                self.priority = None
                return
            if changed:
                continue
            if self._waiting:
                self._put_next_trigger()
                continue
            break
        self.priority = self._priority_next
        self.passes = 0

    def _draw(self, player: str) -> None:
        p = self.players[player]
        if not p.library:
            p.drew_from_empty_library = True
            self._log("draw_from_empty_library", player=player)
            return
        card = p.library[0]
        self._move(card, Zone.HAND)

    # ------------------------------------------------------------------ state-based actions

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

    # ------------------------------------------------------------------ zones

    def _remove_from_zone(self, obj_id: str) -> Zone:
        zone = self.zone_of(obj_id)
        if zone is None:
            raise UnknownObjectError(f"{obj_id!r} is in no zone")
        if zone is Zone.BATTLEFIELD:
            del self.permanents[obj_id]
            self.battlefield.remove(obj_id)
            if self.combat is not None and self.combat.remove(obj_id):
                self._log("removed_from_combat", creature=obj_id, reason="left the battlefield (506.4)")
        elif zone is Zone.STACK:
            self.stack = [i for i in self.stack if i.id != obj_id]
        elif zone is Zone.EXILE:
            self.exile.remove(obj_id)
        else:
            for p in self.players.values():
                for lst in (p.library, p.hand, p.graveyard):
                    if obj_id in lst:
                        lst.remove(obj_id)
        return zone

    def _move(
        self,
        obj_id: str,
        to: Zone,
        *,
        controller: str | None = None,
        unlocked: Iterable[Door] = (),
        copy_values: CardDef | None = None,
        chosen_name: str | None = None,
        looked_back: bool = False,
    ) -> None:
        """Move an object to a zone (a new object, 400.7). Cards go to their owner's zones. An object
        entering the battlefield other than from a resolving Room spell enters with both doors locked
        (709.5d); ``unlocked`` is only passed by a resolving Room spell. ``copy_values`` makes it enter as
        a copy (707.9b) and ``chosen_name`` is a name chosen as it enters: both are in place as it enters,
        so its enters abilities are the copied ones (603.6a). ``looked_back``: its leaves-the-battlefield
        abilities were already found, together with those of objects leaving at the same time (603.10a)."""
        obj = self.objects[obj_id]
        here = self.zone_of(obj_id)
        if obj.is_token and here is not Zone.BATTLEFIELD and here is not None:
            # 111.8: a token that has left the battlefield can't move to another zone; it stays until
            # state-based actions make it cease to exist (704.5d)
            self._log("token_stays", token=obj_id, zone=here.value, rule="111.8")
            return
        if here is Zone.GRAVEYARD:
            self._leaving_graveyard(obj.owner)
        if here is Zone.BATTLEFIELD and not looked_back:
            self._leaving_battlefield([(obj_id, to)])
        origin = self._remove_from_zone(obj_id)
        self.zcc[obj_id] += 1
        owner = self.players[obj.owner]
        doors = set(unlocked)
        if to is Zone.BATTLEFIELD:
            self._instances += 1
            perm = Permanent(obj_id, controller or obj.owner, self._instances, sick=True, unlocked=doors)
            if copy_values is not None:
                perm.copies.append((copy_values, False))
            perm.chosen_name = chosen_name
            self.permanents[obj_id] = perm
            self.battlefield.append(obj_id)
        elif to is Zone.HAND:
            owner.hand.append(obj_id)
        elif to is Zone.GRAVEYARD:
            owner.graveyard.append(obj_id)
        elif to is Zone.LIBRARY:
            owner.library.insert(0, obj_id)
        elif to is Zone.EXILE:
            self.exile.append(obj_id)
        else:  # pragma: no cover - the stack is entered by casting/copying only
            raise RulesError("cannot move an object onto the stack")
        extra: dict[str, Any] = {"token": True} if obj.is_token else {}
        if to is Zone.BATTLEFIELD:
            extra["instance"] = self.permanents[obj_id].instance
        self._log("zone_change", card=obj_id, owner=obj.owner, origin=origin.value, to=to.value, **extra)
        if to is Zone.BATTLEFIELD and doors:
            perm = self.permanents[obj_id]
            for d in (Door.LEFT, Door.RIGHT):
                if d in doors:
                    self._log(
                        "unlock",
                        permanent=obj_id,
                        door=d.value,
                        name=obj.card.face(d).name,
                        controller=perm.controller,
                        instance=perm.instance,
                        as_enters=True,
                    )
            if len(doors) == 2:
                self._log(
                    "fully_unlock", permanent=obj_id, controller=perm.controller, instance=perm.instance
                )

    def _set_door(self, obj_id: str, door: Door, unlocked: bool, *, how: str) -> None:
        perm = self.permanents[obj_id]
        card = self.card_of(obj_id)
        if unlocked:
            had = len(perm.unlocked)
            perm.unlocked.add(door)
            self._log(
                "unlock",
                permanent=obj_id,
                door=door.value,
                name=card.face(door).name,
                controller=perm.controller,
                instance=perm.instance,
                how=how,
            )
            if had == 1 and len(perm.unlocked) == 2:
                self._log(
                    "fully_unlock", permanent=obj_id, controller=perm.controller, instance=perm.instance
                )
        else:
            perm.unlocked.discard(door)
            self._log("lock", permanent=obj_id, door=door.value, name=card.face(door).name, how=how)

    def _create_token(
        self,
        card: CardDef,
        controller: str,
        *,
        unlocked: Iterable[Door] = (),
        copy_values: CardDef | None = None,
        chosen_name: str | None = None,
    ) -> str:
        tid = self._new_id("token")
        self.objects[tid] = GameObject(tid, card, controller, is_token=True)
        self.zcc[tid] = 0
        self._instances += 1
        doors = set(unlocked)
        perm = Permanent(tid, controller, self._instances, sick=True, unlocked=doors, chosen_name=chosen_name)
        if copy_values is not None:
            perm.copies.append((copy_values, False))
        self.permanents[tid] = perm
        self.battlefield.append(tid)
        self._log("token_created", token=tid, name=card.name, controller=controller, instance=perm.instance)
        for d in (Door.LEFT, Door.RIGHT):
            if d in doors:
                self._log(
                    "unlock",
                    permanent=tid,
                    door=d.value,
                    name=card.face(d).name,
                    controller=controller,
                    instance=perm.instance,
                    as_enters=True,
                )
        return tid

    # ------------------------------------------------------------------ mana, casting, unlocking

    def _tap_for_mana(self, a: TapForMana) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        if perm.controller != a.player:
            raise NotYourDecisionError(f"{a.permanent} is controlled by {perm.controller}, not {a.player}")
        symbol = self.characteristics(a.permanent).mana_ability
        if symbol is None:
            raise RulesError(f"{a.permanent} has no mana ability")
        if perm.tapped:
            raise RulesError(f"{a.permanent} is already tapped")
        if self._summoning_sick(a.permanent):
            raise IllegalActivationError(
                f"{a.permanent} is a creature that has not been under {a.player}'s control since the turn "
                "began; its {T} mana ability can't be activated (302.6)"
            )
        perm.tapped = True
        self.players[a.player].pool.add(symbol)
        self.passes = 0
        self._log("mana_ability", player=a.player, permanent=a.permanent, mana="{" + symbol + "}")

    def _cast(self, a: CastSpell) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        p = self.players[a.player]
        if a.card not in self.objects:
            raise UnknownObjectError(f"unknown card {a.card!r}")
        from_graveyard = a.card in p.graveyard
        if a.card not in p.hand and not from_graveyard:
            raise IllegalCastError(f"{a.card} is not in {a.player}'s hand")
        card = self.objects[a.card].card
        door: Door | None = None
        if card.is_room:
            if a.door is None:
                raise IllegalCastError(f"choose which door of {card.name} to cast (709.3)")
            if a.door == "both":
                raise IllegalCastError(
                    f"{card.name}: there is no way to cast both halves of a Room card; choose one door "
                    "(709.3, Room ruling)"
                )
            door = _door(a.door)
        elif a.door is not None:
            raise IllegalCastError(f"{card.name} is not a split card; it has no door to choose")
        chars = characteristics(card, None if door is None else (door,))  # 709.3a: only that half
        if chars.is_type(CardType.LAND):
            raise IllegalCastError("lands are played, not cast")
        if chars.mana_cost is None:
            raise IllegalCastError(f"{card.name} has no mana cost and cannot be cast")
        if from_graveyard:
            self._check_graveyard_permission(a.player, a.card, chars)
        sorcery_timing = a.player == self.active and self.step in MAIN_PHASES and not self.stack
        instant_speed = chars.is_type(CardType.INSTANT) or Keyword.FLASH in chars.keywords  # 702.8a
        if not instant_speed and not sorcery_timing:
            raise TimingError(
                f"{chars.names[0]} can be cast only in a main phase of {a.player}'s own turn with an empty "
                "stack (307.1, 301.1)"
            )
        spec = chars.spell_effect.target if chars.spell_effect is not None else None
        targets = self._check_targets(spec, a.targets, a.player, a.card)
        spend = p.pool.plan_payment(chars.mana_cost, a.payment)
        # --- all checks passed: cast it
        origin = Zone.GRAVEYARD if from_graveyard else Zone.HAND
        if from_graveyard:
            self._leaving_graveyard(a.player)
        (p.graveyard if from_graveyard else p.hand).remove(a.card)  # 601.2a: the card moves to the stack
        self.zcc[a.card] += 1
        self.stack.append(
            StackItem(
                a.card,
                a.player,
                True,
                card,
                door,
                effect=chars.spell_effect,
                targets=targets,
                text=chars.names[0],
            )
        )
        p.pool.spend(spend)
        self._log(
            "cast",
            player=a.player,
            card=a.card,
            name=chars.names[0],
            door=None if door is None else door.value,
            targets=[t for t, _ in targets],
            mana_value=chars.mana_value,
            origin=origin.value,
        )
        self._give_priority(a.player)

    def _check_graveyard_permission(self, player: str, card_id: str, chars: Characteristics) -> None:
        """A card is cast from its owner's hand unless an effect allows another zone (601.2a). Only the
        cast half's characteristics are considered (709.3a; Room ruling: Bottomless Pool, not Locker Room)."""
        allowances = [
            st.max_mana_value
            for pid in self.battlefield
            if self.permanents[pid].controller == player
            for st in self.characteristics(pid).static
            if st.kind is StaticKind.CAST_PERMANENTS_FROM_GRAVEYARD
        ]
        if not allowances:
            raise IllegalCastError(
                f"{card_id} is in {player}'s graveyard; spells are cast from hand unless an effect allows "
                "another zone (601.2a)"
            )
        limit = max(allowances)
        if not chars.is_permanent_type or chars.mana_value > limit:
            raise IllegalCastError(
                f"{' // '.join(chars.names)} (mana value {chars.mana_value}) is not a permanent spell "
                f"with mana value {limit} or less; only the cast half's characteristics count "
                "(709.3a, Room ruling)"
            )

    def _unlock(self, a: Unlock) -> None:
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        card = self.card_of(a.permanent)  # a permanent that is a copy of a Room has its doors (707.2)
        if perm.controller != a.player:
            raise IllegalUnlockError(
                f"{a.permanent} is controlled by {perm.controller}, not {a.player} (116.2m)"
            )
        if not card.is_room:
            raise IllegalUnlockError(f"{a.permanent} has no doors (it is not a Room)")
        try:
            door = Door(a.door)
        except ValueError:
            raise IllegalUnlockError(
                f"unknown door {a.door!r}: a Room's doors are 'left' and 'right'"
            ) from None
        if door in perm.unlocked:
            raise IllegalUnlockError(
                f"{card.face(door).name} is already unlocked; only a locked door can be unlocked"
            )
        if self.step not in MAIN_PHASES or self.active != a.player or self.stack:
            where = []
            if self.active != a.player:
                where.append(f"it is {self.active}'s turn")
            if self.step not in MAIN_PHASES:
                where.append(f"the step is {self.step.value}")
            if self.stack:
                where.append("the stack is not empty")
            raise IllegalUnlockError(
                "unlocking is a special action a player may take only with priority, an empty stack, during "
                f"a main phase of their own turn (116.2m, 709.5e); here {', '.join(where)}"
            )
        cost = card.face(door).mana_cost
        assert cost is not None
        spend = self.players[a.player].pool.plan_payment(cost, a.payment)
        # --- checks passed
        self.players[a.player].pool.spend(spend)
        self._log("special_action", player=a.player, action="unlock", permanent=a.permanent, cost=str(cost))
        self._set_door(a.permanent, door, True, how="special action")
        self._give_priority(a.player)  # 116.3

    # ------------------------------------------------------------------ activated abilities

    def activation_stopped_by(self, obj_id: str) -> tuple[str, str] | None:
        """The permanent and chosen name that stop ``obj_id``'s activated abilities other than mana abilities
        ("Activated abilities of sources with the chosen name can't be activated"), if any."""
        for pid in self.battlefield:
            for st in self.characteristics(pid).static:
                if st.kind is StaticKind.STOP_ACTIVATED_ABILITIES:
                    name = st.name if st.name is not None else self.permanents[pid].chosen_name
                    if name is not None and self.has_name(obj_id, name):  # 709.4a, 201.2a
                        return pid, name
        return None

    def _activate(self, a: ActivateAbility) -> None:
        """602.2: announce, choose targets, pay the total cost; then the ability is on the stack and its
        controller receives priority (117.3c). A mana ability resolves at once, without the stack (605.3b)."""
        self._expect(DecisionKind.PRIORITY, a.player)
        perm = self.permanent(a.permanent)
        if perm.controller != a.player:
            raise IllegalActivationError(
                f"{a.permanent} is controlled by {perm.controller}; only its controller may activate its "
                "abilities (602.2)"
            )
        abilities = self.activated_abilities(a.permanent)
        if (
            not isinstance(a.ability, int)
            or isinstance(a.ability, bool)
            or not 0 <= a.ability < len(abilities)
        ):
            listing = "; ".join(f"{i}: {ab.text}" for i, ab in enumerate(abilities)) or "none"
            raise IllegalActivationError(
                f"{a.permanent} has no activated ability number {a.ability!r}; its activated abilities now: "
                f"{listing}"
            )
        ab = abilities[a.ability]
        if not ab.is_mana_ability:
            stopped = self.activation_stopped_by(a.permanent)
            if stopped is not None:
                raise IllegalActivationError(
                    f"{self.name_of(a.permanent)}'s activated abilities can't be activated: {stopped[0]} "
                    f"chose the name {stopped[1]} (602.5; mana abilities are exempt)"
                )
        if ab.sorcery_speed and not (a.player == self.active and self.step in MAIN_PHASES and not self.stack):
            raise TimingError(
                f"{ab.text!r} can be activated only as a sorcery: in a main phase of your own turn with an "
                "empty stack (602.5d)"
            )
        if ab.cost.tap:
            if perm.tapped:
                raise IllegalActivationError(
                    f"{a.permanent} is tapped; its {{T}} cost can't be paid (601.2h)"
                )
            if self._summoning_sick(a.permanent):
                raise IllegalActivationError(
                    f"{a.permanent} is a creature that has not been under {a.player}'s control since the "
                    "turn began; it can't pay {T} (302.6)"
                )
        targets = self._check_targets(ab.effect.target, a.targets, a.player, a.permanent)
        pool = self.players[a.player].pool
        spend = pool.plan_payment(ab.cost.mana, a.payment) if ab.cost.mana is not None else {}
        # --- all checks passed: pay the costs (601.2h)
        pool.spend(spend)
        if ab.cost.tap:
            perm.tapped = True
        self._log(
            "activated",
            player=a.player,
            permanent=a.permanent,
            ability=ab.text,
            cost=str(ab.cost),
            mana_ability=ab.is_mana_ability,
            targets=[t for t, _ in targets],
        )
        source_zcc = self.zcc[a.permanent]
        source_lki = self.characteristics(a.permanent)
        if ab.cost.sacrifice:
            self._log("sacrificed", permanent=a.permanent, as_cost=True)
            self._move(a.permanent, Zone.GRAVEYARD)
        if ab.is_mana_ability:  # 605.3b: resolves immediately, without the stack
            self._add_mana(a.player, ab.effect.mana, a.permanent)
        else:
            aid = self._new_id("ability")
            self.stack.append(
                StackItem(
                    aid,
                    a.player,
                    False,
                    None,
                    effect=ab.effect,
                    targets=targets,
                    source=a.permanent,
                    text=ab.text,
                    source_zcc=source_zcc,
                    source_lki=source_lki,
                )
            )
            self._log(
                "ability_on_stack",
                id=aid,
                source=a.permanent,
                controller=a.player,
                ability=ab.text,
                targets=[t for t, _ in targets],
                activated=True,
            )
        self._give_priority(a.player)

    def _add_mana(self, player: str, mana: str, source: str) -> None:
        for sym, n in parse_mana(mana).items():
            self.players[player].pool.add(sym, n)
        self._log("mana_ability", player=player, permanent=source, mana=mana)

    def _source_unchanged(self, item: StackItem) -> bool:
        """Whether an ability's source is still the same permanent (no zone change, 400.7): recorded for
        activated and triggered abilities alike (113.7a)."""
        src = item.source
        return src is not None and src in self.permanents and self.zcc.get(src) == item.source_zcc

    # ------------------------------------------------------------------ targets

    def _target_problem(
        self, spec: TargetSpec, obj_id: str, controller: str, source: str | None
    ) -> str | None:
        """Why ``obj_id`` is not a legal target for ``spec``, or None if it is."""
        kind = spec.kind
        if kind in (TargetKind.PLAYER, TargetKind.ANY) and obj_id in self.players:
            return None
        if kind is TargetKind.PLAYER:
            return f"{obj_id} is not a player"
        if kind is TargetKind.CREATURE_AN_OPPONENT_CONTROLS:
            if not self.is_creature(obj_id):
                return f"{obj_id} is not a creature on the battlefield"
            if self.permanents[obj_id].controller == controller:
                return f"{obj_id} is controlled by {controller}, not by an opponent"
            return None
        if kind is TargetKind.ANY:
            return None if self.is_creature(obj_id) else f"{obj_id} is neither a creature nor a player"
        if kind in (TargetKind.CREATURE, TargetKind.ATTACKING_CREATURE, TargetKind.PERMANENT):
            if obj_id not in self.permanents:
                return f"{obj_id} is not a permanent on the battlefield"
            if kind is not TargetKind.PERMANENT and not self.is_creature(obj_id):
                return f"{obj_id} is not a creature"
            if kind is TargetKind.ATTACKING_CREATURE and (
                self.combat is None or obj_id not in self.combat.attackers
            ):
                return f"{obj_id} is not an attacking creature"
            return None
        if kind is TargetKind.ROOM_YOU_CONTROL:
            if obj_id not in self.permanents:
                return f"{obj_id} is not a permanent on the battlefield"
            if "Room" not in self.characteristics(obj_id).subtypes:
                return f"{obj_id} is not a Room"
            if self.permanents[obj_id].controller != controller:
                return f"{obj_id} is not controlled by {controller}"
            return None
        if kind is TargetKind.SPELL:
            item = self.stack_item(obj_id)
            if item is None or not item.is_spell:
                return f"{obj_id} is not a spell on the stack"
            if obj_id == source:
                return "a spell cannot target itself (115.5)"
            return None
        # graveyard cards
        owner_zone = None
        for p in self.players.values():
            if obj_id in p.graveyard:
                owner_zone = p.name
        if owner_zone is None:
            return f"{obj_id} is not a card in a graveyard"
        chars = self.characteristics(obj_id)
        if kind is TargetKind.CREATURE_CARD_IN_YOUR_GRAVEYARD:
            if owner_zone != controller:
                return f"{obj_id} is not in {controller}'s graveyard"
            if not chars.is_type(CardType.CREATURE):
                return f"{obj_id} is not a creature card"
            return None
        if not chars.is_permanent_type:
            return f"{obj_id} is not a permanent card"
        return None

    def legal_targets(self, spec: TargetSpec, controller: str, source: str | None = None) -> list[str]:
        candidates = list(self.order) + list(self.battlefield) + [i.id for i in self.stack]
        for p in self.players.values():
            candidates += p.graveyard
        return [c for c in candidates if self._target_problem(spec, c, controller, source) is None]

    def _check_targets(
        self, spec: TargetSpec | None, chosen: Iterable[str], controller: str, source: str | None
    ) -> tuple[tuple[str, int], ...]:
        chosen = tuple(chosen)
        if spec is None:
            if chosen:
                raise IllegalTargetError("this spell or ability has no targets")
            return ()
        if not spec.min_count <= len(chosen) <= spec.max_count:
            want = (
                str(spec.min_count)
                if spec.min_count == spec.max_count
                else f"{spec.min_count}-{spec.max_count}"
            )
            raise IllegalTargetError(f"choose {want} target {spec.kind.value}(s), not {len(chosen)}")
        if len(set(chosen)) != len(chosen):
            raise IllegalTargetError("the same object cannot be chosen twice for one 'target' (115.3)")
        for t in chosen:
            problem = self._target_problem(spec, t, controller, source)
            if problem is not None:
                raise IllegalTargetError(f"illegal target {t!r} (target {spec.kind.value}): {problem}")
        return tuple((t, self.zcc.get(t, 0)) for t in chosen)

    def _still_legal(self, item: StackItem) -> list[str]:
        """Targets of ``item`` that are still legal: same object (no zone change) and still matching."""
        if item.effect is None or item.effect.target is None:
            return []
        ok = []
        for t, zc in item.targets:
            if self.zcc.get(t, 0) != zc:
                continue  # it changed zones: a new object (400.7)
            if self._target_problem(item.effect.target, t, item.controller, item.id) is None:
                ok.append(t)
        return ok

    # ------------------------------------------------------------------ triggered abilities

    def _abilities(self, pid: str) -> list[tuple[str, int, TriggeredAbility]]:
        """The triggered abilities ``pid`` has now, each with its door ("" outside a Room) and its position in
        that door's (or card's) own list: a key that stays the same when the other door unlocks."""
        out: list[tuple[str, int, TriggeredAbility]] = []
        counts: Counter[str] = Counter()
        for door, ab in self.characteristics(pid).triggered:  # each face's abilities in that face's order
            label = "" if door is None else door.value
            out.append((label, counts[label], ab))
            counts[label] += 1
        return out

    def _hit(
        self, rank: int, pid: str, door: str, index: int, ab: TriggeredAbility, batch_key: str = ""
    ) -> None:
        perm = self.permanents[pid]
        self._hits.append(
            TriggerHit(
                rank,
                len(self._hits),
                self.battlefield.index(pid),
                pid,
                perm.instance,
                door,
                index,
                perm.controller,
                self.name_of(pid),
                ab,
                batch_key,
                self.zcc[pid],
                self.characteristics(pid),
            )
        )

    def _detect_triggers(self, e: Event) -> None:
        """603.2: abilities trigger at the event, from the game state just after it (603.10: except
        leaves-the-zone abilities, which :meth:`_leaving_graveyard` detects from the state just before)."""
        if e.type == "unlock":
            pid = e["permanent"]
            for door, index, ab in self._abilities(pid):
                if ab.trigger is Trigger.UNLOCK_THIS_DOOR and door == e["door"]:
                    self._hit(0, pid, door, index, ab)
        elif e.type == "fully_unlock":
            for pid in self.battlefield:
                if self.permanents[pid].controller == e["controller"]:
                    for door, index, ab in self._abilities(pid):
                        if ab.trigger is Trigger.FULLY_UNLOCK_ROOM:
                            self._hit(0, pid, door, index, ab)
        elif (e.type == "zone_change" and e["to"] == "battlefield") or e.type == "token_created":
            entered = e["card"] if e.type == "zone_change" else e["token"]
            controller = self.permanents[entered].controller
            # an enters trigger; each "triggers an additional time" static of its controller adds one
            extra = sum(
                1
                for pid in self.battlefield
                if self.permanents[pid].controller == controller
                for st in self.characteristics(pid).static
                if st.kind is StaticKind.ENTERS_TRIGGERS_TWICE
            )
            for door, index, ab in self._abilities(entered):
                if ab.trigger is Trigger.ENTERS:
                    for _ in range(1 + extra):
                        self._hit(1, entered, door, index, ab)
        elif e.type == "damage" and e.get("combat") and e["to_player"]:
            for pid in self.battlefield:
                if self.permanents[pid].controller == e["source_controller"]:
                    for door, index, ab in self._abilities(pid):
                        if ab.trigger is Trigger.COMBAT_DAMAGE_TO_PLAYER:
                            self._hit(2, pid, door, index, ab, batch_key="combat damage")

    def _leaving_battlefield(self, leaving: list[tuple[str, Zone]]) -> None:
        """603.6c, 603.10a: leaves-the-battlefield abilities look back in time: the permanents on the
        battlefield just before the event (the ones leaving included) and their abilities then. "Dies" means
        put into a graveyard from the battlefield (700.4)."""
        for pid in self.battlefield:
            for door, index, ab in self._abilities(pid):
                for gone, to in leaving:
                    dies = to is Zone.GRAVEYARD and self.is_creature(gone)
                    if (
                        (ab.trigger is Trigger.LEAVES_BATTLEFIELD and gone == pid)
                        or (ab.trigger is Trigger.DIES and gone == pid and dies)
                        or (ab.trigger is Trigger.A_CREATURE_DIES and dies)
                    ):
                        self._hit(1, pid, door, index, ab)

    def _leaving_graveyard(self, owner: str) -> None:
        """603.10a: "whenever one or more cards leave your graveyard" looks back in time: the permanents
        that had the ability just before the card left, not the card leaving (it was no permanent then)."""
        for pid in self.battlefield:
            if self.permanents[pid].controller == owner:
                for door, index, ab in self._abilities(pid):
                    if ab.trigger is Trigger.CARDS_LEAVE_YOUR_GRAVEYARD:
                        self._hit(2, pid, door, index, ab, batch_key="leave graveyard")

    def _collect_triggers(self) -> None:
        """Turn the abilities that triggered since the last time into waiting triggers (603.3), in a fixed
        order: unlock-related first, then enters, then the "one or more" abilities by their source's place on
        the battlefield. A "one or more ..." ability triggers once for all the events since the last time."""
        hits, self._hits = self._hits, []
        if not hits:
            return
        first = sorted((h for h in hits if h.rank < 2), key=lambda h: (h.rank, h.seq))
        batched: dict[tuple[tuple[str, int, str, int], str], TriggerHit] = {}
        for h in hits:
            if h.rank == 2:
                batched.setdefault((h.ability_key, h.batch_key), h)
        rest = sorted(batched.values(), key=lambda h: (h.position, h.index, h.seq))
        for h in first + rest:
            if h.ability.once_each_turn:
                if h.ability_key in self._once_per_turn:
                    self.events.append(
                        Event(
                            "trigger_suppressed",
                            {"source": h.source, "reason": "triggers only once each turn"},
                        )
                    )
                    continue
                self._once_per_turn.add(h.ability_key)
            self._trigger(h)

    def _trigger(self, hit: TriggerHit) -> None:
        tid = self._new_id("trigger")
        self._waiting.append(
            PendingTrigger(
                tid, hit.controller, hit.source, hit.source_name, hit.ability, hit.source_zcc, hit.source_lki
            )
        )
        self.events.append(
            Event(
                "trigger",
                {"id": tid, "source": hit.source, "name": hit.source_name, "ability": hit.ability.text},
            )
        )

    def _put_next_trigger(self) -> None:
        # APNAP (603.3b): the active player puts all their triggers on the stack first, in any order they
        # choose; then the other player does the same.
        player = self.active
        if all(t.controller != player for t in self._waiting):
            player = self.opponent(player)
        mine = [t for t in self._waiting if t.controller == player]
        if (
            self.trigger_order is TriggerOrder.CHOOSE
            and len(mine) > 1
            and any(t.id not in self._ordered for t in mine)
            and len({(t.source, t.ability) for t in mine}) > 1  # identical abilities are interchangeable
        ):
            listing = "; ".join(f"{t.id}: {t.source_name}: {t.ability.text}" for t in mine)
            self._decision = Decision(
                DecisionKind.ORDER_TRIGGERS,
                player,
                f"order {player}'s triggered abilities on the stack, first put first; the last resolves "
                f"first (603.3b): {listing}",
                tuple(t.id for t in mine),
            )
            return
        trig = mine[0]
        self._waiting.remove(trig)
        if trig.id in self._ordered:
            self._ordered.remove(trig.id)
        spec = trig.ability.effect.target
        if spec is not None:
            legal = self.legal_targets(spec, trig.controller, None)
            if spec.min_count == 0 and not legal:
                self._push_ability(trig, ())  # "up to one target" with nothing to target
                return
            if spec.min_count > 0 and len(legal) < spec.min_count:
                self._log(
                    "trigger_removed",
                    source=trig.source,
                    ability=trig.ability.text,
                    reason="no legal target; it is removed from the stack (603.3d)",
                )
                return
            self._choosing = trig
            self._decision = Decision(
                DecisionKind.CHOOSE_TARGETS,
                trig.controller,
                f"choose targets for {trig.source_name}: {trig.ability.text}",
                tuple(legal),
            )
            return
        self._push_ability(trig, ())

    def _push_ability(self, trig: PendingTrigger, targets: tuple[tuple[str, int], ...]) -> None:
        aid = self._new_id("ability")
        self.stack.append(
            StackItem(
                aid,
                trig.controller,
                False,
                None,
                effect=trig.ability.effect,
                targets=targets,
                source=trig.source,
                text=trig.ability.text,
                source_zcc=trig.source_zcc,
                source_lki=trig.source_lki,
            )
        )
        self._log(
            "ability_on_stack",
            id=aid,
            trigger=trig.id,
            source=trig.source,
            controller=trig.controller,
            ability=trig.ability.text,
            targets=[t for t, _ in targets],
        )

    def _order_triggers(self, a: OrderTriggers) -> None:
        decision = self._expect(DecisionKind.ORDER_TRIGGERS, a.player)
        order = list(a.order)
        if sorted(order) != sorted(decision.options) or len(set(order)) != len(order):
            raise IllegalChoiceError(
                f"order must list each of {', '.join(decision.options)} exactly once, not {order} (603.3b)"
            )
        by_id = {t.id: t for t in self._waiting}
        others = [t for t in self._waiting if t.controller != a.player]
        self._waiting = [by_id[i] for i in order] + others
        self._ordered = list(order)
        self._decision = None
        self._log("triggers_ordered", player=a.player, order=order, rule="603.3b")
        self._settle()

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

    def _choose_targets(self, a: ChooseTargets) -> None:
        self._expect(DecisionKind.CHOOSE_TARGETS, a.player)
        trig = self._choosing
        assert trig is not None
        targets = self._check_targets(trig.ability.effect.target, a.targets, trig.controller, None)
        self._choosing = None
        self._decision = None
        self._push_ability(trig, targets)
        self._settle()

    # ------------------------------------------------------------------ resolving

    def _resolve_top(self) -> None:
        item = self.stack[-1]
        self._log("resolving", id=item.id, text=item.text)
        if item.effect is not None and item.effect.target is not None and item.targets:
            legal = self._still_legal(item)
            if not legal:
                self._log("fizzles", id=item.id, reason="all its targets are illegal (608.2b)")
                self._finish_resolution(item)
                return
        if item.is_spell and item.card is not None:
            chars = characteristics(item.card, None if item.door is None else (item.door,))
            if chars.is_permanent_type:
                doors = () if item.door is None else (item.door,)
                if item.is_copy:  # 707.10, 608.3f: it becomes a token (709.5b: a Room keeps both halves)
                    self.stack.pop()
                entering = Entering(
                    None if item.is_copy else item.id, item.card, item.controller, doors, spell=item
                )
                if self._enter(entering):
                    self._log("resolved", id=item.id)
                    self._give_priority(self.active)
                return
        if item.effect is not None and not self._do_effect(item):
            return  # waiting for a choice made while resolving
        self._finish_resolution(item)

    def _name_to_choose(self, card: CardDef) -> bool:
        """Whether a card entering the battlefield has "as this enters, choose a card name" (Pithing Needle):
        a stop_activated_abilities static without a name fixed by the card."""
        chars = characteristics(card, None if not card.is_room else ())
        return any(st.kind is StaticKind.STOP_ACTIVATED_ABILITIES and st.name is None for st in chars.static)

    def copy_candidates(self, kind: TargetKind) -> list[str]:
        """What "enter as a copy of a [kind] on the battlefield" may copy (707.9b; not a target)."""
        return [pid for pid in self.battlefield if kind is TargetKind.PERMANENT or self.is_creature(pid)]

    def _enter(self, entering: Entering) -> bool:
        """Put a permanent onto the battlefield, making its "as this enters" choices first (614.1c, 614.12,
        707.9b) however it enters: a resolving spell, an effect returning a card, a token being created.
        Returns False when a player must choose first; the entry then completes with that choice."""
        self._entering = entering
        return self._enter_with_choices()

    def _enter_with_choices(self) -> bool:
        """Whether and what it copies, then a card name it needs; then it enters (709.5d: a cast Room door
        is unlocked as it enters)."""
        e = self._entering
        assert e is not None
        copying = e.card.enters_as_copy
        if copying is not None and not e.copy_chosen:
            options = self.copy_candidates(copying.of)
            if options:
                self._decision = Decision(
                    DecisionKind.CHOOSE_COPY,
                    e.controller,
                    f"{copying.text or 'enter as a copy'}: choose a {copying.of.value} to copy, or none "
                    "(707.9b)",
                    tuple(options),
                )
                return False
        entering_card = e.copy_values if e.copy_values is not None else e.card
        if self._name_to_choose(entering_card):
            self._decision = Decision(
                DecisionKind.CHOOSE_NAME,
                e.controller,
                f"as {e.label} enters, choose a card name (709.4a: one name of a split card)",
                (),
            )
            return False
        self._enter_now()
        return True

    def _choose_copy(self, a: ChooseCopy) -> None:
        decision = self._expect(DecisionKind.CHOOSE_COPY, a.player)
        e = self._entering
        assert e is not None and e.card.enters_as_copy is not None
        if a.copy_of is not None and a.copy_of not in decision.options:
            raise IllegalChoiceError(
                f"{a.copy_of!r} cannot be copied: choose one of {', '.join(decision.options)}, or none "
                f"(a {e.card.enters_as_copy.of.value} on the battlefield, 707.9b)"
            )
        self._decision = None
        e.copy_chosen = True
        if a.copy_of is not None:
            # 707.9b: the exception becomes part of the copiable values, on top of the copied ones (707.2:
            # a copy of a copy copies the copy effect's values, its exceptions included)
            e.copy_values = with_exception(self.card_of(a.copy_of), e.card.enters_as_copy.exception)
        if self._enter_with_choices():
            self._after_entering(e)

    def _enter_now(self, chosen_name: str | None = None) -> None:
        e = self._entering
        assert e is not None
        self._entering, self._decision = None, None
        if e.obj_id is None:
            pid = self._create_token(
                e.card, e.controller, unlocked=e.doors, copy_values=e.copy_values, chosen_name=chosen_name
            )
            if e.copy_of is not None:
                self._log(
                    "permanent_copied", token=pid, original=e.copy_of, controller=e.controller, rule="707.2"
                )
        else:
            pid = e.obj_id
            self._move(
                pid,
                Zone.BATTLEFIELD,
                controller=e.controller,
                unlocked=e.doors,
                copy_values=e.copy_values,
                chosen_name=chosen_name,
            )
        e.obj_id = pid
        if e.copy_values is not None:
            self._log("enters_as_copy", permanent=pid, copy_of=e.copy_values.name, rule="707.9b")
        if chosen_name is not None:
            self._log("name_chosen", player=e.controller, name=chosen_name, permanent=pid, rule="614.12")

    def _after_entering(self, e: Entering) -> None:
        """A permanent that waited for its "as this enters" choices has entered: its spell has resolved, or
        the resolving spell or ability that put it there goes on (and finishes)."""
        if e.spell is not None:
            self._log("resolved", id=e.spell.id)
            self._give_priority(self.active)
        elif e.resume is not None:
            self._finish_resolution(e.resume)
        else:  # pragma: no cover - every entry with choices comes from a spell or an effect
            self._give_priority(self.active)

    def _finish_resolution(self, item: StackItem) -> None:
        self._resolving = None
        self._decision = None
        if item.is_spell and not item.is_copy:
            self._move(item.id, Zone.GRAVEYARD)
        else:
            self.stack = [i for i in self.stack if i.id != item.id]
        self._log("resolved", id=item.id)
        self._give_priority(self.active)

    def _do_effect(self, item: StackItem) -> bool:
        """Carry out ``item``'s effect. Returns False if a player must choose first (resolution pauses)."""
        eff = item.effect
        assert eff is not None
        you = item.controller
        targets = self._still_legal(item)
        t = targets[0] if targets else None
        k = eff.kind
        if k is EffectKind.CREATE_HORROR:
            self._create_token(HORROR_TOKEN, you)
        elif k is EffectKind.ADD_MANA:
            self._add_mana(you, eff.mana, item.source or item.id)
        elif k is EffectKind.RETURN_SELF_TO_HAND:
            if item.source is not None and self._source_unchanged(item):
                self._move(item.source, Zone.HAND)
            else:
                self._log(
                    "no_effect", id=item.id, reason="its source is no longer on the battlefield (400.7)"
                )
        elif k is EffectKind.DRAW:
            self._draw(you)
        elif k is EffectKind.GAIN_LIFE:
            self.players[you].life += eff.amount
            self._log("life_gain", player=you, amount=eff.amount)
        elif k is EffectKind.COUNTERS_ON_EACH_CREATURE:
            for pid in [p for p in self.battlefield if self.is_creature(p)]:
                self._put_counters(pid, eff.counter, eff.amount)
        elif k is EffectKind.PUT_COUNTERS and eff.target is None:
            if self._source_unchanged(item):
                assert item.source is not None
                self._put_counters(item.source, eff.counter, eff.amount)
            else:
                self._log("no_effect", id=item.id, reason="its source left the battlefield (400.7)")
        elif t is None:
            if eff.target is not None:
                self._log("no_effect", id=item.id, reason="no target chosen")
            else:
                return self._effect_with_choice(item)
        elif k is EffectKind.RETURN_TO_HAND or k is EffectKind.GRAVEYARD_TO_HAND:
            self._move(t, Zone.HAND)
        elif k is EffectKind.GRAVEYARD_TO_BATTLEFIELD:  # enters with both doors locked (709.5d)
            return self._enter(Entering(t, self.objects[t].card, you, resume=item))
        elif k is EffectKind.DESTROY:
            self._log("destroyed", permanent=t)
            self._move(t, Zone.GRAVEYARD)
        elif k is EffectKind.FLICKER:
            self._move(t, Zone.EXILE)
            if self.zone_of(t) is Zone.EXILE:  # under its owner's control, both doors locked (709.5d)
                obj = self.objects[t]
                return self._enter(Entering(t, obj.card, obj.owner, resume=item))
        elif k is EffectKind.DEAL_DAMAGE:
            self._deal_damage(item, t, eff.amount)
        elif k is EffectKind.DRAIN:
            self.players[t].life -= eff.amount
            self._log("life_loss", player=t, amount=eff.amount)
            self.players[you].life += eff.amount
            self._log("life_gain", player=you, amount=eff.amount)
        elif k is EffectKind.PUT_COUNTERS:
            self._put_counters(t, eff.counter, eff.amount)
        elif k is EffectKind.LOSE_ALL_ABILITIES:
            if eff.tap and not self.permanents[t].tapped:
                self.permanents[t].tapped = True
                self._log("tapped", permanent=t, cause=item.id)
            self._add_ability_effect(t, "lose_all", eff.until_end_of_turn)
        elif k is EffectKind.GAIN_CONTROL:
            self._gain_control(item, t)
        elif k is EffectKind.LOSE_BANDING:
            self.permanents[t].loses_banding = True
            self._log("loses_banding", permanent=t, until="end of turn")
        elif k is EffectKind.REMOVE_FROM_COMBAT:
            if self.combat is not None and self.combat.remove(t):
                self._log("removed_from_combat", creature=t, reason="effect (506.4)")
        elif k is EffectKind.BECOMES_BLOCKED:
            assert self.combat is not None
            for member in self.combat.band_of(t):  # 702.22i: the whole band becomes blocked
                if member in self.combat.attackers and member not in self.combat.blocked:
                    self.combat.blocked.add(member)
                    self._log("becomes_blocked", creature=member, by=[], cause=item.id)
        elif k is EffectKind.COPY_SPELL:
            orig = self.stack_item(t)
            assert orig is not None
            cid = self._new_id("copy")
            self.stack.append(
                StackItem(
                    cid,
                    you,
                    True,
                    orig.card,
                    orig.door,
                    is_copy=True,
                    effect=orig.effect,
                    targets=orig.targets,
                    text=f"copy of {orig.text}",
                )
            )
            self._log(
                "spell_copied", copy=cid, original=t, controller=you, door=orig.door and orig.door.value
            )
        elif k is EffectKind.BECOME_COPY:
            src = item.source
            if src is None or not self._source_unchanged(item):
                self._log(
                    "no_effect", id=item.id, reason="its source is no longer on the battlefield (400.7)"
                )
            else:
                # 707.2: the copiable values of the target (a copy's are its copy effect's values); the
                # source keeps its status and its unlocked designations (709.5c)
                values = self.card_of(t)
                self.permanents[src].copies.append((values, eff.until_end_of_turn))
                self._log(
                    "becomes_copy",
                    permanent=src,
                    copy_of=t,
                    name=values.name,
                    until="end of turn" if eff.until_end_of_turn else None,
                    rule="707.2",
                )
        elif k is EffectKind.COPY_PERMANENT:
            # 707.2: the copy gets the copiable values, i.e. the card (a Room: both halves, 709.5), not its
            # status or designations; it enters with both doors locked (709.5d: no half was cast)
            # a copy of a copy: the copied values; its own "as this enters" choices are made (614.12)
            return self._enter(Entering(None, self.card_of(t), you, resume=item, copy_of=t))
        elif k in (EffectKind.UNLOCK_DOOR, EffectKind.LOCK_DOOR):
            return self._effect_with_choice(item, t)
        else:  # pragma: no cover
            raise RulesError(f"unhandled effect {k}")
        return True

    def _source_characteristics(self, item: StackItem) -> Characteristics | None:
        """The characteristics of what deals an effect's damage: the spell itself, or the ability's source as
        it is now, or as it last existed on the battlefield if it has left (608.2h)."""
        if item.is_spell and item.card is not None:
            return characteristics(item.card, None if item.door is None else (item.door,))
        if item.source is not None and self._source_unchanged(item):
            return self.characteristics(item.source)
        return item.source_lki

    def _deal_damage(self, item: StackItem, target: str, amount: int) -> None:
        """Noncombat damage (120.3): deathtouch and lifelink work from any source (702.2b, 702.15b)."""
        chars = self._source_characteristics(item)
        keywords = frozenset() if chars is None else chars.keywords
        source = item.id if item.is_spell else (item.source or item.id)
        if target in self.players:
            self.players[target].life -= amount
        else:
            self.permanents[target].damage += amount
            if amount and Keyword.DEATHTOUCH in keywords:
                self.permanents[target].deathtouched = True  # destroyed by 704.5h
        self._log(
            "damage",
            source=source,
            source_controller=item.controller,
            to=target,
            to_player=target in self.players,
            amount=amount,
            combat=False,
        )
        if amount and Keyword.LIFELINK in keywords:
            self.players[item.controller].life += amount
            self._log("life_gain", player=item.controller, amount=amount, source=source, rule="702.15b")

    def _put_counters(self, pid: str, kind: str, amount: int) -> None:
        self.permanents[pid].counters[kind] += amount
        self._log("counters_put", permanent=pid, counter=kind, amount=amount, rule="122.1a")

    def _add_ability_effect(self, pid: str, what: str, until_end_of_turn: bool) -> None:
        """A layer 6 effect (613.1f) with a new timestamp (613.7): "lose_all" or a keyword gained."""
        self._timestamp += 1
        self.permanents[pid].ability_effects.append((self._timestamp, what, until_end_of_turn))
        event = "loses_all_abilities" if what == "lose_all" else "gains_ability"
        self._log(event, permanent=pid, ability=what, until="end of turn" if until_end_of_turn else None)

    def _gain_control(self, item: StackItem, pid: str) -> None:
        """613.1b: a control-changing effect (layer 2) with a new timestamp; then untap it and give it
        keywords until end of turn if the effect says so (Threaten-style)."""
        eff = item.effect
        assert eff is not None
        perm = self.permanents[pid]
        self._timestamp += 1
        perm.control_effects.append((self._timestamp, item.controller, eff.until_end_of_turn))
        self._set_controller(pid, self._controller_now(perm))
        if eff.untap and perm.tapped:
            perm.tapped = False
            self._log("untap", permanent=pid, cause=item.id)
        for keyword in eff.gains:
            self._add_ability_effect(pid, keyword.value, True)

    def _effect_with_choice(self, item: StackItem, target: str | None = None) -> bool:
        eff = item.effect
        assert eff is not None
        you = item.controller
        if eff.kind in (EffectKind.UNLOCK_DOOR, EffectKind.LOCK_DOOR):
            assert target is not None
            unlocking = eff.kind is EffectKind.UNLOCK_DOOR
            perm = self.permanents[target]
            options = [d for d in (Door.LEFT, Door.RIGHT) if (d in perm.unlocked) != unlocking]
            if not options:
                self._log("no_effect", id=item.id, reason=f"no {'locked' if unlocking else 'unlocked'} door")
                return True
            if len(options) == 1:
                self._set_door(target, options[0], unlocking, how=item.id)
                return True
            self._pause(
                item, DecisionKind.CHOOSE_DOOR, f"choose a door of {target}", tuple(o.value for o in options)
            )
            return False
        if eff.kind is EffectKind.DISCARD:
            hand = self.players[you].hand
            if not hand:
                self._log("no_effect", id=item.id, reason="empty hand")
                return True
            if len(hand) == 1:
                self._discard(you, hand[0])
                return True
            self._pause(item, DecisionKind.CHOOSE_CARD, "choose a card to discard", tuple(hand))
            return False
        if eff.kind is EffectKind.NAME_AND_REVEAL:
            self._pause(item, DecisionKind.CHOOSE_NAME, "choose a card name (709.4a)", ())
            return False
        raise RulesError(f"unhandled effect {eff.kind}")  # pragma: no cover

    def _pause(self, item: StackItem, kind: DecisionKind, prompt: str, options: tuple[str, ...]) -> None:
        self._resolving = item
        self._decision = Decision(kind, item.controller, prompt, options)

    def _discard(self, player: str, card: str) -> None:
        self._log("discard", player=player, card=card)
        self._move(card, Zone.GRAVEYARD)

    def _valid_name(self, name: str) -> str:
        valid = {f.name for c in self.card_pool.values() for f in c.faces}
        if name not in valid:
            if " // " in name:
                raise IllegalChoiceError(
                    f"{name!r} is not a card name: a split card has two names; choose one of them, not "
                    "both (709.4a)"
                )
            raise IllegalChoiceError(f"{name!r} is not the name of a card")
        return name

    def _resolution_choice(self, a: ChooseDoor | ChooseCard | ChooseName) -> None:
        kind = {
            ChooseDoor: DecisionKind.CHOOSE_DOOR,
            ChooseCard: DecisionKind.CHOOSE_CARD,
            ChooseName: DecisionKind.CHOOSE_NAME,
        }[type(a)]
        decision = self._expect(kind, a.player)
        if isinstance(a, ChooseName) and self._entering is not None:
            entering = self._entering
            self._enter_now(self._valid_name(a.name))
            self._after_entering(entering)
            return
        item = self._resolving
        assert item is not None and item.effect is not None
        if isinstance(a, ChooseDoor):
            if a.door not in decision.options:
                raise IllegalChoiceError(f"choose one of {', '.join(decision.options)}, not {a.door!r}")
            target = self._still_legal(item)[0]
            self._decision = None
            self._set_door(target, Door(a.door), item.effect.kind is EffectKind.UNLOCK_DOOR, how=item.id)
        elif isinstance(a, ChooseCard):
            if a.card not in decision.options:
                raise IllegalChoiceError(f"{a.card!r} is not a card in {a.player}'s hand")
            self._decision = None
            self._discard(a.player, a.card)
        else:
            self._valid_name(a.name)
            self._decision = None
            hand = self.players[a.player].hand
            n = sum(1 for c in hand if self.has_name(c, a.name))
            self._log("name_chosen", player=a.player, name=a.name, matching_cards=n)
            self.players[a.player].life += n
            self._log("life_gain", player=a.player, amount=n)
        self._finish_resolution(item)

    # ------------------------------------------------------------------ combat: attackers and blockers

    def _check_combat_members(self) -> None:
        """506.4: an attacking or blocking permanent that stops being a creature, or whose controller changes,
        is removed from combat (and from its band, 702.22f)."""
        combat = self.combat
        if combat is None:
            return
        for cid in [*combat.attackers, *(b for b in combat.blocks if b not in combat.attackers)]:
            if cid not in self.permanents:
                continue
            if not self.is_creature(cid):
                reason = "stopped being a creature (506.4)"
            elif self.permanents[cid].controller != combat.controllers.get(cid):
                reason = "its controller changed (506.4)"
            else:
                continue
            if combat.remove(cid):
                self._log("removed_from_combat", creature=cid, reason=reason)

    def _can_attack(self, pid: str) -> bool:
        perm = self.permanents[pid]
        return (
            perm.controller == self.active
            and self.is_creature(pid)
            and not perm.tapped
            and not self._summoning_sick(pid)
        )

    def _declare_attackers(self, a: DeclareAttackers) -> None:
        self._expect(DecisionKind.DECLARE_ATTACKERS, a.player)
        targets = dict(a.attackers)
        for cid, target in targets.items():
            if cid not in self.permanents:
                raise IllegalAttackError(f"{cid!r} is not a permanent on the battlefield")
            perm = self.permanents[cid]
            if perm.controller != a.player:
                raise IllegalAttackError(f"{cid} is controlled by {perm.controller}, not {a.player}")
            if not self.is_creature(cid):
                raise IllegalAttackError(f"{cid} is not a creature")
            if perm.tapped:
                raise IllegalAttackError(f"{cid} is tapped and cannot attack (508.1a)")
            if self._summoning_sick(cid):
                raise IllegalAttackError(
                    f"{cid} has not been under {a.player}'s control since the turn began (302.6)"
                )
            if target == a.player or target not in self.players:
                raise IllegalAttackError(f"{cid} must attack an opponent, not {target!r} (508.1b)")
        bands = [list(b) for b in a.bands]
        check_bands(bands, targets, {c: self.characteristics(c) for c in targets})
        # --- legal: declare
        assert self.combat is not None
        for cid in targets:
            if Keyword.VIGILANCE not in self.characteristics(cid).keywords:  # 702.20b
                self.permanents[cid].tapped = True
        self.combat.attackers = targets
        self.combat.controllers.update({cid: a.player for cid in targets})
        self.combat.bands = bands
        self.combat.attackers_declared = True
        self._decision = None
        self._log(
            "attackers_declared", player=a.player, attackers=dict(targets), bands=[list(b) for b in bands]
        )
        self._give_priority(self.active)

    def block_problem(self, blocker: str, attacker: str) -> str | None:
        """Why ``blocker`` cannot block ``attacker`` now (None if it can), for the defending player."""
        if self.combat is None:
            return "there is no combat"
        return self._block_problem(blocker, attacker, self.opponent(self.active))

    def _block_problem(self, blocker: str, attacker: str, defender: str) -> str | None:
        assert self.combat is not None
        if blocker not in self.permanents:
            return f"{blocker!r} is not a permanent on the battlefield"
        perm = self.permanents[blocker]
        if perm.controller != defender:
            return f"{blocker} is not controlled by {defender}"
        if not self.is_creature(blocker):
            return f"{blocker} is not a creature"
        if perm.tapped:
            return f"{blocker} is tapped (509.1a)"
        if self.combat.attackers.get(attacker) != defender:
            return f"{attacker!r} is not a creature attacking {defender}"
        att = self.characteristics(attacker)
        blk = self.characteristics(blocker)
        if Keyword.FLYING in att.keywords and not ({Keyword.FLYING, Keyword.REACH} & blk.keywords):
            return f"{attacker} has flying and {blocker} has neither flying nor reach (702.9b)"
        for kw, land in LANDWALK.items():
            if kw in att.keywords and any(
                self.permanents[p].controller == defender and land in self.characteristics(p).subtypes
                for p in self.battlefield
            ):
                return f"{attacker} has {kw.value} and {defender} controls a {land} (702.14c)"
        return None

    def _declare_blockers(self, a: DeclareBlockers) -> None:
        self._expect(DecisionKind.DECLARE_BLOCKERS, a.player)
        for blocker, attacker in a.blocks.items():
            problem = self._block_problem(blocker, attacker, a.player)
            if problem is not None:
                raise IllegalBlockError(f"{blocker} cannot block {attacker}: {problem}")
        self._decision = None
        self._finish_blocks(dict(a.blocks))

    def _finish_blocks(self, blocks: dict[str, str]) -> None:
        combat = self.combat
        assert combat is not None
        for blocker, attacker in blocks.items():
            blocked = [attacker]
            # 702.22h: the other members of the band become blocked by the same blocking creature
            blocked += [m for m in combat.band_of(attacker) if m != attacker]
            combat.blocks[blocker] = blocked
            combat.controllers[blocker] = self.permanents[blocker].controller
        combat.blockers_declared = True
        self._log(
            "blockers_declared",
            player=self.opponent(self.active),
            blocks={b: list(v) for b, v in combat.blocks.items()},
        )
        for attacker in list(combat.attackers):
            by = combat.blockers_of(attacker)
            if by and attacker not in combat.blocked:
                combat.blocked.add(attacker)
                self._log("becomes_blocked", creature=attacker, by=by)
        self._give_priority(self.active)

    # ------------------------------------------------------------------ combat damage

    def _start_damage_step(self) -> None:
        combat = self.combat
        assert combat is not None
        in_combat = list(combat.attackers) + [b for b in combat.blocks if b not in combat.attackers]
        if self.step is Step.FIRST_STRIKE_DAMAGE:
            combat.first_strikers = {c for c in in_combat if self.characteristics(c).strikes_first}
            dealing = [c for c in in_combat if c in combat.first_strikers]
        else:
            # 510.4: creatures that had first strike or double strike as the first-strike step began don't
            # deal damage again, except those that have double strike now (702.4b)
            done = combat.first_strikers or set()
            dealing = [
                c
                for c in in_combat
                if c not in done or Keyword.DOUBLE_STRIKE in self.characteristics(c).keywords
            ]
        sources = [s for c in dealing if (s := self._damage_source(c)) is not None]
        order = [self.active, self.opponent(self.active)]  # 510.1: the active player announces first
        assigners = [p for p in order if any(s.assigner == p and s.needs_choice for s in sources)]
        self._plan = DamagePlan(sources, assigners)
        self._next_assigner()

    def _damage_source(self, c: str) -> DamageSource | None:
        combat = self.combat
        assert combat is not None
        power = self.characteristics(c).power or 0
        if power <= 0:
            return None  # 510.1a
        ap, dp = self.active, self.opponent(self.active)
        if c in combat.attackers:
            target = combat.attackers[c]
            trample = Keyword.TRAMPLE in self.characteristics(c).keywords
            if c not in combat.blocked:
                return DamageSource(c, True, power, ap, (), target, "510.1b", {target: power})
            blockers = tuple(combat.blockers_of(c))
            if not blockers:
                if trample:  # 702.19d: as though all its blockers had been assigned lethal damage
                    return DamageSource(c, True, power, ap, (), target, "702.19d", {target: power})
                return None  # 510.1c: blocked, but no creature blocking it any more
            if group_triggers_banding_rule([self.characteristics(b) for b in blockers]):
                forced = {blockers[0]: power} if len(blockers) == 1 else None
                return DamageSource(c, True, power, dp, blockers, None, "702.22j", forced)
            if trample:
                return DamageSource(c, True, power, ap, blockers, target, "702.19b")
            forced = {blockers[0]: power} if len(blockers) == 1 else None
            return DamageSource(c, True, power, ap, blockers, None, "510.1c", forced)
        blocked = tuple(a for a in combat.blocks.get(c, []) if a in combat.attackers)
        if not blocked:
            return None  # 510.1d
        if group_triggers_banding_rule([self.characteristics(x) for x in blocked]):
            forced = {blocked[0]: power} if len(blocked) == 1 else None
            return DamageSource(c, False, power, ap, blocked, None, "702.22k", forced)
        forced = {blocked[0]: power} if len(blocked) == 1 else None
        return DamageSource(c, False, power, dp, blocked, None, "510.1d", forced)

    def _next_assigner(self) -> None:
        plan = self._plan
        assert plan is not None
        if plan.assigners:
            player = plan.assigners[0]
            mine = [s for s in plan.sources if s.assigner == player and s.needs_choice]
            parts = []
            for s in mine:
                among = ", ".join(s.creatures + ((s.player,) if s.player else ()))
                parts.append(f"{s.source} ({s.power} damage, {s.rule}) among {among}")
            desc = "; ".join(parts)
            self._decision = Decision(
                DecisionKind.ASSIGN_COMBAT_DAMAGE,
                player,
                f"divide combat damage: {desc}",
                tuple(s.source for s in mine),
            )
            return
        self._decision = None
        self._deal_combat_damage()

    def _lethal_needed(self, creature: str) -> int:
        tough = self.characteristics(creature).toughness or 0
        return max(0, tough - self.permanents[creature].damage)

    def _has(self, obj_id: str, keyword: Keyword) -> bool:
        return keyword in self.characteristics(obj_id).keywords

    def _lethal_still_needed(self, src: str, blocker: str, assigned: Mapping[str, Mapping[str, int]]) -> int:
        """How much ``src`` must assign to ``blocker`` for lethal damage (702.19b), counting damage already
        marked and the other creatures' assignments in this step. Any nonzero damage from a source with
        deathtouch counts as lethal (702.2c), whether from ``src`` or from another creature."""
        others = {o: d.get(blocker, 0) for o, d in assigned.items() if o != src}
        if any(n > 0 and self._has(o, Keyword.DEATHTOUCH) for o, n in others.items()):
            return 0
        need = max(0, self._lethal_needed(blocker) - sum(others.values()))
        return min(need, 1) if self._has(src, Keyword.DEATHTOUCH) else need

    def _assign_damage(self, a: AssignCombatDamage) -> None:
        self._expect(DecisionKind.ASSIGN_COMBAT_DAMAGE, a.player)
        plan = self._plan
        assert plan is not None
        by_id = {s.source: s for s in plan.sources}
        normalized: dict[str, dict[str, int]] = {}
        for src, division in a.assignments.items():
            s = by_id.get(src)
            if s is None:
                raise IllegalDamageAssignmentError(f"{src!r} assigns no combat damage in this step")
            if s.assigner != a.player:
                raise IllegalDamageAssignmentError(
                    f"{src}'s combat damage is assigned by {s.assigner}, not {a.player} ({s.rule})"
                )
            clean: dict[str, int] = {}
            for rcp, amount in division.items():
                if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                    raise IllegalDamageAssignmentError(f"{src}: amount for {rcp} must be a whole number >= 0")
                if rcp not in s.creatures and rcp != s.player:
                    allowed = ", ".join(s.creatures + ((s.player,) if s.player else ()))
                    raise IllegalDamageAssignmentError(
                        f"{src} cannot assign damage to {rcp}: it may assign only to {allowed} ({s.rule})"
                    )
                if amount:
                    clean[rcp] = clean.get(rcp, 0) + amount
            total = sum(clean.values())
            if total != s.power:
                raise IllegalDamageAssignmentError(
                    f"{src} assigns {total} damage but must assign exactly its power, {s.power} (510.1a)"
                )
            if s.forced is not None and clean != s.forced:
                raise IllegalDamageAssignmentError(f"{src} must assign its damage as {s.forced} ({s.rule})")
            normalized[src] = clean
        missing = [
            s.source
            for s in plan.sources
            if s.assigner == a.player and s.needs_choice and s.source not in normalized
        ]
        if missing:
            raise IllegalDamageAssignmentError(
                f"{a.player} must also divide the damage of {', '.join(missing)}"
            )
        # 702.19b: trample damage to the player only once every blocker is assigned lethal damage
        fixed: dict[str, dict[str, int]] = {s.source: s.forced for s in plan.sources if s.forced is not None}
        fixed.update(plan.assigned)
        fixed.update(normalized)
        for src, division in normalized.items():
            s = by_id[src]
            if s.player is None or not division.get(s.player) or s.rule != "702.19b":
                continue
            for b in s.creatures:
                need = self._lethal_still_needed(src, b, fixed)
                if division.get(b, 0) < need:
                    raise IllegalDamageAssignmentError(
                        f"{src} has trample but assigns {division.get(b, 0)} to {b}, which needs {need} "
                        f"from it for lethal damage; damage can go to {s.player} only once every blocker is "
                        "assigned lethal damage (702.19b; with deathtouch 1 is lethal, 702.2c)"
                    )
        # --- legal
        plan.assigned.update(normalized)
        plan.assigners.pop(0)
        self._next_assigner()

    def _deal_combat_damage(self) -> None:
        plan = self._plan
        combat = self.combat
        assert plan is not None and combat is not None
        dealt: list[tuple[str, str, int]] = []
        for s in plan.sources:
            division = s.forced if s.forced is not None else plan.assigned[s.source]
            self._log(
                "damage_assignment",
                source=s.source,
                assigned_by=s.assigner,
                assignment=dict(division),
                rule=s.rule,
                chosen=s.forced is None,
                step=self.step.value,
            )
            for rcp, amount in division.items():
                dealt.append((s.source, rcp, amount))
        # 510.2: all combat damage is dealt simultaneously
        lifelink: dict[str, int] = {}
        for src, rcp, amount in dealt:
            controller = self.permanents[src].controller
            if rcp in self.players:
                self.players[rcp].life -= amount
            else:
                self.permanents[rcp].damage += amount
                if amount and self._has(src, Keyword.DEATHTOUCH):
                    self.permanents[rcp].deathtouched = True  # 702.2b, destroyed by 704.5h
            self._log(
                "damage",
                source=src,
                source_controller=controller,
                to=rcp,
                to_player=rcp in self.players,
                amount=amount,
                combat=True,
                step=self.step.value,
            )
            combat.dealt_damage.add(src)
            if amount and self._has(src, Keyword.LIFELINK):
                lifelink[src] = lifelink.get(src, 0) + amount
        for src, amount in lifelink.items():  # 702.15b: part of the damage event, not a trigger
            controller = self.permanents[src].controller
            self.players[controller].life += amount
            self._log("life_gain", player=controller, amount=amount, source=src, rule="702.15b")
        self._plan = None
        self._give_priority(self.active)
