"""Named rule options: the digest's Variants (:class:`Ruleset`) and the solo threat options (:class:`Threat`).

Both are frozen dataclasses with documented defaults; ``from_dict`` validates and names any bad key
or value, ``to_dict`` gives the canonical JSON object used in positions and records.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from .errors import InvalidPositionError


def _check_keys(cls: type, data: Any, what: str, word: str, error: type[InvalidPositionError]) -> None:
    """Refuse a non-object or an unknown key, naming it and the known ones."""
    if not isinstance(data, dict):
        raise error(f"{what} must be an object, not {data!r}")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise error(f"{what}: unknown {word} {unknown[0]!r} (known: {', '.join(sorted(known))})")


VARIANT_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "lanes": ("shared", "rotated"),  # R1.5a
    "first_player": ("random", "last_draft_pick"),  # R2.6a
    "incantation_timing": ("summon_and_combat", "summon_only"),  # R5.1a
    "protection": ("targeted", "any_damage"),  # R6.4b
    "automaton_lanes": ("per_creature", "per_card"),  # R7.3b
}


_FIELD_NAMES: dict[type[Any], tuple[str, ...]] = {}


def _field_names(cls: type[Any]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The digest's Variants by name, plus an optional turn cap for simulations.

    Every default is the digest's default.  ``max_turns`` (``None``: no cap) ends a game that reaches
    the end of that turn with a draw: the rules have no draw, simulations need one.
    """

    lanes: str = "shared"
    first_player: str = "random"
    incantation_timing: str = "summon_and_combat"
    protection: str = "targeted"
    automaton_lanes: str = "per_creature"
    max_turns: int | None = None

    def __post_init__(self) -> None:
        for name, choices in VARIANT_CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise InvalidPositionError(
                    f"ruleset: {name} must be one of {', '.join(choices)}, not {value!r}"
                )
        if self.max_turns is not None and (
            not isinstance(self.max_turns, int) or isinstance(self.max_turns, bool) or self.max_turns < 1
        ):
            raise InvalidPositionError(
                f"ruleset: max_turns must be a positive integer or null, not {self.max_turns!r}"
            )

    @classmethod
    def from_dict(cls, data: Any) -> Ruleset:
        """The ruleset of a JSON object (missing keys take the digest's defaults; unknown keys are an error).

        >>> Ruleset.from_dict({"protection": "any_damage"}).protection
        'any_damage'
        """
        _check_keys(cls, data, "ruleset", "key", InvalidPositionError)
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, as positions and records write them."""
        # The names once per class (``fields`` builds them at each call: every frame dumps a position).
        return {name: getattr(self, name) for name in _field_names(type(self))}


THREAT_ABILITIES: Final = ("splash", "perforation", "rage", "protection", "berserk")
THREAT_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "extra_mana_per_creature": (1, 2),
    "base_mana": (6, 7, 8, 9, 10),
    "starts": ("player", "automaton"),
    "resilience": ("bastion", "fort"),
    "defence": ("full", "minus_one"),
}


class ThreatError(InvalidPositionError):
    """An unknown threat option, a bad value, or a total that does not match the chosen level."""


@dataclass(frozen=True, slots=True)
class Threat:
    """The solo standard game's options (R8.2); the defaults are the quick game (R7), 0 threat points."""

    extra_mana_per_creature: int = 1
    base_mana: int = 6
    starts: str = "player"
    resilience: str = "bastion"
    defence: str = "full"
    abilities: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, choices in THREAT_CHOICES.items():
            value = getattr(self, name)
            if value not in choices or isinstance(value, bool):
                raise ThreatError(
                    f"threat: {name} must be one of {', '.join(map(str, choices))}, not {value!r}"
                )
        if not isinstance(self.abilities, tuple):
            object.__setattr__(self, "abilities", tuple(self.abilities))
        for ability in self.abilities:
            if ability not in THREAT_ABILITIES:
                raise ThreatError(
                    f"threat: unknown ability {ability!r} (choose from {', '.join(THREAT_ABILITIES)})"
                )
        if len(set(self.abilities)) != len(self.abilities):
            raise ThreatError("threat: an ability is listed twice")
        # Canonical order, so equal options compare and serialise equal.
        object.__setattr__(self, "abilities", tuple(a for a in THREAT_ABILITIES if a in self.abilities))

    def threat_points(self) -> int:
        """The threat points this configuration costs (R8.2)."""
        return (
            (2 if self.extra_mana_per_creature == 2 else 0)
            + (self.base_mana - 6)
            + (1 if self.starts == "automaton" else 0)
            + (-1 if self.resilience == "fort" else 0)
            + (2 if self.defence == "minus_one" else 0)
            + len(self.abilities)
        )

    @classmethod
    def level(cls, level: int) -> Threat:
        """The plain allocation the digest names for ``--level N`` (R8.3)."""
        if level not in LEVELS:
            raise ThreatError(f"level must be 0 to 5, not {level!r}")
        return LEVELS[level]

    def check_level(self, level: int) -> None:
        """Raise :class:`ThreatError` unless this configuration spends exactly ``level`` points (R8.1)."""
        if not 0 <= level <= 5:
            raise ThreatError(f"level must be 0 to 5, not {level!r}")
        points = self.threat_points()
        if points != level:
            raise ThreatError(
                f"these options cost {points} threat points; level {level} needs exactly {level}"
            )

    @classmethod
    def from_dict(cls, data: Any) -> Threat:
        """The threat options of a JSON object (missing keys: the quick game's values, R7/R8.2).

        >>> Threat.from_dict({"base_mana": 8}).threat_points()
        2
        """
        _check_keys(cls, data, "threat", "option", ThreatError)
        values = dict(data)
        if "abilities" in values:
            if not isinstance(values["abilities"], list | tuple):
                raise ThreatError("threat: abilities must be a list")
            values["abilities"] = tuple(values["abilities"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Every threat option by name, as solo positions and records write them."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["abilities"] = list(self.abilities)
        return out


LEVELS: Final[dict[int, Threat]] = {
    0: Threat(),
    1: Threat(base_mana=7),
    2: Threat(base_mana=8),
    3: Threat(base_mana=9),
    4: Threat(base_mana=10),
    5: Threat(base_mana=10, starts="automaton"),
}
