"""The game's state and the questions one can ask it, shared by the rules chapters.

:class:`GameBase` holds the state and the core; each chapter of the rules is a class of its own module
(turn structure, casting and the stack, effects, abilities, combat, state-based actions, continuous
effects and copies, Rooms, zones, setup), and :class:`~mtgrules.game.Game` joins them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

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
from mtgrules.carddb import CARDS
from mtgrules.cards import (
    ActivatedAbility,
    CardDef,
    CardType,
    Characteristics,
    Door,
    TargetSpec,
)
from mtgrules.combat import CombatState, DamageSource
from mtgrules.errors import (
    GameOverError,
    NotYourDecisionError,
    RulesError,
    TimingError,
    UnknownObjectError,
    WrongDecisionError,
)
from mtgrules.events import Event
from mtgrules.objects import (
    DamagePlan,
    Entering,
    GameObject,
    PendingTrigger,
    Permanent,
    Player,
    StackItem,
    Step,
    TriggerHit,
    TriggerOrder,
    Zone,
)


class GameBase:
    """The state of a two-player game and its core: queries, applying an action, the log."""

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

    def damage_sources(self) -> list[DamageSource]:
        """The current combat damage step's damage sources (who assigns what), if any."""
        return [] if self._plan is None else list(self._plan.sources)

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

    if TYPE_CHECKING:  # the chapters' methods, which the chapters call on one another
        # turns.py
        def _enter_step(self, step: Step, *, keep_pools: bool = False) -> None:
            raise NotImplementedError

        def _pass(self, player: str) -> None:
            raise NotImplementedError

        def _give_priority(self, player: str) -> None:
            raise NotImplementedError

        def _settle(self) -> None:
            raise NotImplementedError

        def _draw(self, player: str) -> None:
            raise NotImplementedError

        # zones.py
        def _remove_from_zone(self, obj_id: str) -> Zone:
            raise NotImplementedError

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
            raise NotImplementedError

        def _create_token(
            self,
            card: CardDef,
            controller: str,
            *,
            unlocked: Iterable[Door] = (),
            copy_values: CardDef | None = None,
            chosen_name: str | None = None,
        ) -> str:
            raise NotImplementedError

        def _discard(self, player: str, card: str) -> None:
            raise NotImplementedError

        # casting.py
        def _cast(self, a: CastSpell) -> None:
            raise NotImplementedError

        def legal_targets(self, spec: TargetSpec, controller: str, source: str | None = None) -> list[str]:
            raise NotImplementedError

        def _check_targets(
            self, spec: TargetSpec | None, chosen: Iterable[str], controller: str, source: str | None
        ) -> tuple[tuple[str, int], ...]:
            raise NotImplementedError

        def _still_legal(self, item: StackItem) -> list[str]:
            raise NotImplementedError

        def _resolve_top(self) -> None:
            raise NotImplementedError

        def _pause(self, item: StackItem, kind: DecisionKind, prompt: str, options: tuple[str, ...]) -> None:
            raise NotImplementedError

        def _resolution_choice(self, a: ChooseDoor | ChooseCard | ChooseName) -> None:
            raise NotImplementedError

        def _enter(self, entering: Entering) -> bool:
            raise NotImplementedError

        def _choose_copy(self, a: ChooseCopy) -> None:
            raise NotImplementedError

        # effects.py
        def _do_effect(self, item: StackItem) -> bool:
            raise NotImplementedError

        # abilities.py
        def _tap_for_mana(self, a: TapForMana) -> None:
            raise NotImplementedError

        def _activate(self, a: ActivateAbility) -> None:
            raise NotImplementedError

        def _add_mana(self, player: str, mana: str, source: str) -> None:
            raise NotImplementedError

        def _source_unchanged(self, item: StackItem) -> bool:
            raise NotImplementedError

        def _detect_triggers(self, e: Event) -> None:
            raise NotImplementedError

        def _leaving_battlefield(self, leaving: list[tuple[str, Zone]]) -> None:
            raise NotImplementedError

        def _leaving_graveyard(self, owner: str) -> None:
            raise NotImplementedError

        def _collect_triggers(self) -> None:
            raise NotImplementedError

        def _put_next_trigger(self) -> None:
            # APNAP (603.3b): the active player puts all their triggers on the stack first, in any order they
            # choose; then the other player does the same.
            raise NotImplementedError

        def _order_triggers(self, a: OrderTriggers) -> None:
            raise NotImplementedError

        def _choose_targets(self, a: ChooseTargets) -> None:
            raise NotImplementedError

        # combat_steps.py
        def _check_combat_members(self) -> None:
            raise NotImplementedError

        def _can_attack(self, pid: str) -> bool:
            raise NotImplementedError

        def _declare_attackers(self, a: DeclareAttackers) -> None:
            raise NotImplementedError

        def _declare_blockers(self, a: DeclareBlockers) -> None:
            raise NotImplementedError

        def _finish_blocks(self, blocks: dict[str, str]) -> None:
            raise NotImplementedError

        def _start_damage_step(self) -> None:
            raise NotImplementedError

        def _assign_damage(self, a: AssignCombatDamage) -> None:
            raise NotImplementedError

        # sba.py
        def _state_based_actions(self) -> bool:
            raise NotImplementedError

        def _choose_legend(self, a: ChooseLegend) -> None:
            raise NotImplementedError

        # layers.py
        def characteristics(self, obj_id: str) -> Characteristics:
            raise NotImplementedError

        def card_of(self, obj_id: str) -> CardDef:
            raise NotImplementedError

        def _summoning_sick(self, pid: str) -> bool:
            raise NotImplementedError

        def _end_of_turn_effects(self, pid: str) -> None:
            raise NotImplementedError

        def _add_ability_effect(self, pid: str, what: str, until_end_of_turn: bool) -> None:
            raise NotImplementedError

        def _gain_control(self, item: StackItem, pid: str) -> None:
            raise NotImplementedError

        # rooms.py
        def _unlock(self, a: Unlock) -> None:
            raise NotImplementedError

        def _set_door(self, obj_id: str, door: Door, unlocked: bool, *, how: str) -> None:
            raise NotImplementedError
