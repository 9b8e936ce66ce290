"""Types of the compiled core (``_native.c``); clashofdecks.native is its Python face."""

from collections.abc import Callable, Sequence

STATE_SIZE: int
SOURCE_HASH: str
#: The constants compiled in, by their Python names (checked at import by clashofdecks.native).
LAYOUT: dict[str, int]
BATCH_ACTION_SPACE: int

class Core:
    def __init__(self, config: Sequence[int], state: Sequence[object]) -> None: ...
    def export(
        self,
    ) -> tuple[
        int,
        int,
        int,
        int,
        int | None,
        int,
        int,
        tuple[int, ...],
        tuple[int, ...],
        tuple[tuple[tuple[int, int, bool, bool, bool, int], ...], ...],
        int,
        int,
        tuple[int, ...],
        tuple[int, ...],
        tuple[int, tuple[int, ...]] | None,
        tuple[int, int] | None,
        tuple[int, int] | None,
        bool,
        tuple[int, int, int] | None,
        bool,
        int,
    ]: ...
    def config(self) -> tuple[int, ...]: ...
    def legal_actions(self) -> tuple[int, ...]: ...
    def is_legal(self, action: int) -> bool: ...
    def apply(self, action: int) -> None: ...
    def copy(self) -> Core: ...
    def resume(self) -> None: ...
    def determinize(
        self, player: int, getrandbits: Callable[[int], int], hidden_identities: bool
    ) -> Core: ...
    def playout(self, seed: int, max_actions: int = ...) -> int: ...
    def search(
        self,
        player: int,
        mt_state: tuple[int, ...],
        iterations: int,
        deadline: float | None,
        clock: Callable[[], float],
        c: float,
        perfect_information: bool,
        hidden_identities: bool,
        cutoff_turns: int,
        max_rollout_actions: int,
        score: Callable[[Core], float] | tuple[object, ...],
        mix: float = ...,
    ) -> tuple[int, tuple[int, ...], tuple[tuple[int, int, float], ...]]: ...
    def learned_features(self, seat: int, packed_model: tuple[object, ...]) -> tuple[float, ...]: ...
    def net_evaluate(
        self,
        net: object,
        seat: int,
        layout: Sequence[int],
        threat: Sequence[float],
        hidden_identities: bool,
        context: int,
        packed_model: tuple[object, ...],
    ) -> tuple[bytes, tuple[float, ...], float]: ...
    def net_search(
        self,
        net: object,
        player: int,
        mt_state: tuple[int, ...],
        iterations: int,
        c: float,
        hidden_identities: bool,
        layout: Sequence[int],
        threat: Sequence[float],
        context: int,
        packed_model: tuple[object, ...],
        cutoff_turns: int,
        max_rollout_actions: int,
        value_weight: float,
        noise: float = ...,
        noise_alpha: float = ...,
        fpu_cut: float = ...,
    ) -> tuple[tuple[int, tuple[int, ...], tuple[tuple[int, int, float], ...]], int]: ...
    def learned_win_chance(self, seat: int, packed_model: tuple[object, ...]) -> float: ...
    def rollout(self, rnd: Callable[[], float], max_actions: int, turn_limit: int = ...) -> int: ...
    def evaluate(self, player: int, weights: Sequence[float]) -> float: ...
    def greedy_action(
        self,
        getrandbits: Callable[[int], int],
        hidden_identities: bool,
        weights: Sequence[float],
        finish_turn: bool,
    ) -> int: ...
    def greedy_rollout(
        self, rnd: Callable[[], float], weights: Sequence[float], max_actions: int, turn_limit: int = ...
    ) -> int: ...
    @property
    def current_player(self) -> int: ...
    @property
    def stage(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def active(self) -> int: ...
    @property
    def mana(self) -> int: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def termination(self) -> int: ...

def set_cards(
    cost: Sequence[int],
    attack: Sequence[int],
    health: Sequence[int],
    is_incantation: Sequence[int],
    abilities: Sequence[int],
    aura: Sequence[int],
) -> int: ...
def blake2b_512(data: bytes) -> bytes: ...
def random_duel(seed: int) -> Core: ...
def random_duel_games(first_seed: int, games: int, choice_seed: int) -> tuple[int, int, int, int, int]: ...

# The batched environment (envs/vector.py): slots in a bytearray, arrays through the buffer protocol.
# spec: (the layout's offsets, uint8 observation, the greedy opponent's 9 weights or None: random[,
# self-play: no opponent, every row the view of its seat to decide; envs/selfplay.py]).
BatchSpec = (
    tuple[Sequence[int], bool, Sequence[float] | None]
    | tuple[Sequence[int], bool, Sequence[float] | None, bool]
)

def net_new(payload: bytes, sizes: tuple[int, int, int, int, int]) -> object: ...
def batch_slot_size() -> int: ...
def mt_seeded_state(seed: int) -> tuple[int, ...]: ...
def batch_reset(
    slots: bytearray,
    indices: object,
    capsules: list[object],
    config: Sequence[int],
    game: Sequence[float],
    spec: BatchSpec,
    obs: object,
    mask: object,
    turns: object,
    seats: object,
) -> None: ...
def batch_step(
    slots: bytearray,
    spec: BatchSpec,
    penalty: float,
    actions: object,
    skip: object,
    obs: object,
    mask: object,
    rewards: object,
    terminated: object,
    truncated: object,
    turn: object,
    illegal: object,
    winner: object,
    termination: object,
    seats: object | None = None,
) -> None: ...
