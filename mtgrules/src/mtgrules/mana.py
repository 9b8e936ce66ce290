"""Colours, mana costs and mana pools."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from mtgrules.errors import InsufficientManaError


class Color(StrEnum):
    """The five colours, in WUBRG order."""

    WHITE = "W"
    BLUE = "U"
    BLACK = "B"
    RED = "R"
    GREEN = "G"


COLOR_ORDER: tuple[Color, ...] = (Color.WHITE, Color.BLUE, Color.BLACK, Color.RED, Color.GREEN)
#: Mana symbols a pool can hold: the five colours and colourless ``C``.
MANA_SYMBOLS: tuple[str, ...] = ("W", "U", "B", "R", "G", "C")

_SYMBOL_RE = re.compile(r"\{([^{}]+)\}")


@dataclass(frozen=True)
class ManaCost:
    """A mana cost made of a generic part and coloured symbols (no hybrid, no X: not needed here)."""

    generic: int = 0
    W: int = 0
    U: int = 0
    B: int = 0
    R: int = 0
    G: int = 0

    def __post_init__(self) -> None:
        if min(self.generic, self.W, self.U, self.B, self.R, self.G) < 0:
            raise ValueError("mana cost parts cannot be negative")

    @classmethod
    def parse(cls, text: str) -> ManaCost:
        """Parse ``"{3}{B}{B}"``. ``"{0}"`` and ``""`` are the zero cost."""
        stripped = text.replace(" ", "")
        symbols = _SYMBOL_RE.findall(stripped)
        if "".join("{" + s + "}" for s in symbols) != stripped:
            raise ValueError(f"not a mana cost: {text!r}")
        generic = 0
        counts = dict.fromkeys("WUBRG", 0)
        for sym in symbols:
            if sym.isdigit():
                generic += int(sym)
            elif sym in counts:
                counts[sym] += 1
            else:
                raise ValueError(f"unsupported mana symbol {{{sym}}} in {text!r}")
        return cls(generic, counts["W"], counts["U"], counts["B"], counts["R"], counts["G"])

    def colored(self, color: Color) -> int:
        """Number of symbols of ``color``."""
        value: int = getattr(self, color.value)
        return value

    @property
    def mana_value(self) -> int:
        """Total amount of mana in the cost (202.3)."""
        return self.generic + self.W + self.U + self.B + self.R + self.G

    @property
    def colors(self) -> frozenset[Color]:
        """Colours of an object with this mana cost (202.2)."""
        return frozenset(c for c in COLOR_ORDER if self.colored(c) > 0)

    def __add__(self, other: ManaCost) -> ManaCost:
        return ManaCost(
            self.generic + other.generic,
            self.W + other.W,
            self.U + other.U,
            self.B + other.B,
            self.R + other.R,
            self.G + other.G,
        )

    def __str__(self) -> str:
        parts: list[str] = []
        if self.generic or self.mana_value == 0:
            parts.append(f"{{{self.generic}}}")
        for c in COLOR_ORDER:
            parts.extend("{" + c.value + "}" for _ in range(self.colored(c)))
        return "".join(parts)


def parse_mana(text: str) -> dict[str, int]:
    """Parse mana to add to a pool, e.g. ``"{B}{B}{C}"`` (generic numbers are not mana)."""
    stripped = text.replace(" ", "")
    symbols = _SYMBOL_RE.findall(stripped)
    if "".join("{" + s + "}" for s in symbols) != stripped:
        raise ValueError(f"not a list of mana symbols: {text!r}")
    out = dict.fromkeys(MANA_SYMBOLS, 0)
    for sym in symbols:
        if sym not in out:
            raise ValueError(f"unknown mana symbol {{{sym}}} in {text!r}")
        out[sym] += 1
    return out


@dataclass
class ManaPool:
    """A player's mana pool (106.4). Amounts per symbol W, U, B, R, G, C."""

    amounts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MANA_SYMBOLS, 0))

    def add(self, symbol: str, n: int = 1) -> None:
        if symbol not in MANA_SYMBOLS or n < 0:
            raise ValueError(f"cannot add {n} {symbol!r} mana")
        self.amounts[symbol] += n

    @property
    def total(self) -> int:
        return sum(self.amounts.values())

    def empty(self) -> None:
        for k in self.amounts:
            self.amounts[k] = 0

    def __str__(self) -> str:
        return "".join("{" + s + "}" for s in MANA_SYMBOLS for _ in range(self.amounts[s])) or "(empty)"

    def plan_payment(self, cost: ManaCost, payment: Mapping[str, int] | None = None) -> dict[str, int]:
        """Return the mana to spend for ``cost`` without changing the pool.

        ``payment`` is the player's explicit choice of which mana to spend; without it, coloured symbols
        are paid with their colour and the generic part with colourless mana first, then colours in WUBRG
        order. Raises :class:`InsufficientManaError` if the cost cannot be paid (or ``payment`` does not
        pay it exactly).
        """
        if payment is not None:
            spend = dict.fromkeys(MANA_SYMBOLS, 0)
            for sym, n in payment.items():
                if sym not in spend or not isinstance(n, int) or isinstance(n, bool) or n < 0:
                    raise InsufficientManaError(f"invalid payment entry {sym!r}: {n!r}")
                spend[sym] = n
            for sym, n in spend.items():
                if n > self.amounts[sym]:
                    raise InsufficientManaError(
                        f"payment spends {n} {{{sym}}} but the pool holds {self.amounts[sym]}"
                    )
            if sum(spend.values()) != cost.mana_value:
                raise InsufficientManaError(
                    f"payment spends {sum(spend.values())} mana for a cost of {cost} (mana value "
                    f"{cost.mana_value})"
                )
            for c in COLOR_ORDER:
                if spend[c.value] < cost.colored(c):
                    raise InsufficientManaError(f"payment does not cover the {{{c.value}}} symbols of {cost}")
            return spend
        spend = dict.fromkeys(MANA_SYMBOLS, 0)
        left = dict(self.amounts)
        for c in COLOR_ORDER:
            need = cost.colored(c)
            if left[c.value] < need:
                raise InsufficientManaError(
                    f"cannot pay {cost}: needs {need} {{{c.value}}}, pool has {self.amounts[c.value]}"
                )
            left[c.value] -= need
            spend[c.value] += need
        generic = cost.generic
        for sym in ("C", "W", "U", "B", "R", "G"):
            take = min(generic, left[sym])
            spend[sym] += take
            left[sym] -= take
            generic -= take
        if generic:
            raise InsufficientManaError(f"cannot pay {cost}: pool {self} is {generic} mana short")
        return spend

    def spend(self, amounts: Mapping[str, int]) -> None:
        for sym, n in amounts.items():
            if n > self.amounts[sym]:
                raise InsufficientManaError("internal: spending more than the pool holds")
        for sym, n in amounts.items():
            self.amounts[sym] -= n
