"""The store of games: Parquet files that DuckDB queries directly (``clash simulate --out DIR``,
``clash stats DIR QUERY``, ``clash report DIR``).

A run writes into its own folder ``DIR/<run id>/``: ``run.json`` (the batch's settings and how
many games were written), and blocks of games as ``games-NNNNNNN.parquet`` (one row per game) and
``cards-NNNNNNN.parquet`` (one row per card and seat of those games), ``NNNNNNN`` being the block's
first game.  A block holds the runner's chunks until it has at least :data:`BLOCK_GAMES` games, so
a million games make a few hundred files, not tens of thousands; each file is written to a
temporary name and renamed, so an interrupted run leaves only whole files.  The columns are
:data:`GAME_COLUMNS` and :data:`CARD_COLUMNS` (documented in docs/simulation.md; a test keeps the
two in step).  Every folder under ``DIR`` is read together: several runs (a duel batch, solo batches
per level) make one store, and ``run`` tells them apart.

PyArrow and DuckDB are the optional ``analysis`` extra; nothing imports them until a store is used.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..options import Threat
from .game import GameResult, SimulationError

#: Least games per Parquet file (the last block of a run may be smaller).
BLOCK_GAMES: Final = 4096

#: The games table: (column, Arrow type, description).  Seat 0 is the seat of the first turn
#: in duel; in solo the agent is seat 0 and the automaton seat 1 whoever starts (``first_seat``).
GAME_COLUMNS: Final[tuple[tuple[str, str, str], ...]] = (
    ("run", "string", "the run's id (its folder's name)"),
    ("game", "int32", "the game's index in its run (0, 1, …)"),
    ("seed", "int64", "the game seed (with the agents' seeds, derived from it, it fixes the game)"),
    ("mode", "string", "duel or solo"),
    ("format", "string", "draft, precon, custom or random"),
    ("agent0", "string", "the agent in seat 0 (solo: the player)"),
    ("agent1", "string", "the agent in seat 1 (solo: automaton)"),
    ("deck0", "int8", "seat 0's preconstructed deck number (R2.3), null for any other deck"),
    ("deck1", "int8", "seat 1's preconstructed deck number, null for any other deck"),
    ("first_seat", "int8", "the seat that took the first turn (duel: 0; solo: 1 if the automaton starts)"),
    ("winner", "int8", "the winning seat, null for a draw (the turn cap)"),
    ("winner_agent", "string", "the winning seat's agent, null for a draw"),
    ("termination", "string", "fort_rightmost (R4.3), survived_last_turn (R7.8) or turn_cap"),
    ("turns", "int16", "turns played (each player's turn counts)"),
    ("actions", "int32", "decisions taken (setup included)"),
    ("max_turns", "int32", "the turn cap, null for none"),
    ("threat_points", "int8", "solo: the threat points (R8.2; the level for --level), null in duel"),
    ("threat_base_mana", "int8", "solo threat option base_mana (6-10), null in duel"),
    ("threat_extra_mana", "int8", "solo threat option extra_mana_per_creature (1 or 2), null in duel"),
    ("threat_starts", "string", "solo threat option starts (player or automaton), null in duel"),
    ("threat_resilience", "string", "solo threat option resilience (bastion or fort), null in duel"),
    ("threat_defence", "string", "solo threat option defence (full or minus_one), null in duel"),
    ("threat_abilities", "string", "solo threat abilities joined by '+', '' for none; null in duel"),
)

#: The cards table: one row per card a seat owned when the setup ended (see :mod:`.cardstats`).
CARD_COLUMNS: Final[tuple[tuple[str, str, str], ...]] = (
    ("run", "string", "the run's id (join with games on run and game)"),
    ("game", "int32", "the game's index in its run"),
    ("mode", "string", "duel or solo (copied from the game, for short queries)"),
    ("format", "string", "the game's format (copied from the game)"),
    ("seat", "int8", "the owner's seat"),
    ("agent", "string", "the owner's agent (automaton for the solo automaton)"),
    ("card", "string", "the card id (e.g. OGRE)"),
    ("source", "string", "pick (chosen in the draft), given (a draft's left-over card), deck (any other)"),
    ("pick", "int8", "for source pick: its place among the seat's picks (1 = first pick), else null"),
    ("played", "int16", "times played: creature summoned (R3.3) or incantation cast (R5.1)"),
    ("turns_in_play", "int16", "turn ends it spent on the battlefield"),
    ("damage", "int32", "damage its attacks and incantations dealt (creatures, plus direct attacks)"),
    ("kills", "int16", "creatures destroyed by its attacks and incantations"),
    ("destroyed", "int16", "times it was destroyed"),
    ("won", "bool", "whether the owner's seat won the game (null for a draw)"),
)


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise SimulationError(
            f"the store of games needs {name.partition('.')[0]}: pip install 'clashofdecks[analysis]'"
        ) from exc


def arrow_schema(columns: Sequence[tuple[str, str, str]]) -> Any:
    """The PyArrow schema of ``columns`` (:data:`GAME_COLUMNS` or :data:`CARD_COLUMNS`)."""
    pa = _module("pyarrow")
    # The documented type names are Arrow's; PyArrow spells its boolean factory ``bool_``.
    return pa.schema(
        [pa.field(name, getattr(pa, "bool_" if kind == "bool" else kind)()) for name, kind, _ in columns]
    )


def run_id(mode: str, format: str, agents: Sequence[str], seed: int, games: int, level: str | None) -> str:
    """A folder name that says what a run is (agent specs reduced to safe characters)."""
    who = "-vs-".join(re.sub(r"[^A-Za-z0-9.]+", "_", a) for a in agents)
    where = f"-{level}" if level else ""
    return f"{mode}-{format}{where}-{who}-seed{seed}-n{games}"


@dataclass
class RunInfo:
    """What is the same for every game of a run (written to ``run.json`` and into every row)."""

    run: str
    mode: str
    format: str
    max_turns: int | None
    threat: Threat | None
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.mode not in ("duel", "solo"):
            raise SimulationError(f"a run's mode is 'duel' or 'solo', not {self.mode!r}")
        if self.mode == "solo" and self.threat is None:
            # The report groups solo games by threat points: a solo row without them says nothing.
            raise SimulationError(f"solo run {self.run!r} needs its threat (the automaton's level)")


def _threat_columns(threat: Threat | None) -> dict[str, Any]:
    if threat is None:
        return dict.fromkeys(
            (
                "threat_points",
                "threat_base_mana",
                "threat_extra_mana",
                "threat_starts",
                "threat_resilience",
                "threat_defence",
                "threat_abilities",
            )
        )
    return {
        "threat_points": threat.threat_points(),
        "threat_base_mana": threat.base_mana,
        "threat_extra_mana": threat.extra_mana_per_creature,
        "threat_starts": threat.starts,
        "threat_resilience": threat.resilience,
        "threat_defence": threat.defence,
        "threat_abilities": "+".join(threat.abilities),
    }


def game_rows(info: RunInfo, results: Sequence[GameResult]) -> dict[str, list[Any]]:
    """The games table's columns for ``results``."""
    threat = _threat_columns(info.threat)
    first_seat = 1 if info.threat is not None and info.threat.starts == "automaton" else 0
    cols: dict[str, list[Any]] = {name: [] for name, _, _ in GAME_COLUMNS}
    for r in results:
        row = {
            "run": info.run,
            "game": r.index,
            "seed": r.seed,
            "mode": info.mode,
            "format": info.format,
            "agent0": r.seats[0],
            "agent1": r.seats[1],
            "deck0": r.decks[0],
            "deck1": r.decks[1],
            "first_seat": first_seat,
            "winner": r.winner,
            "winner_agent": r.winner_name,
            "termination": r.termination,
            "turns": r.turns,
            "actions": r.actions,
            "max_turns": info.max_turns,
            **threat,
        }
        for name, value in row.items():
            cols[name].append(value)
    return cols


def card_rows(info: RunInfo, results: Sequence[GameResult]) -> dict[str, list[Any]]:
    """The cards table's columns for ``results`` (played with card statistics)."""
    cols: dict[str, list[Any]] = {name: [] for name, _, _ in CARD_COLUMNS}
    for r in results:
        for c in r.cards:
            row = {
                "run": info.run,
                "game": r.index,
                "mode": info.mode,
                "format": info.format,
                "seat": c.seat,
                "agent": r.seats[c.seat],
                "card": c.card,
                "source": c.source,
                "pick": c.pick,
                "played": c.played,
                "turns_in_play": c.turns_in_play,
                "damage": c.damage,
                "kills": c.kills,
                "destroyed": c.destroyed,
                "won": None if r.winner is None else r.winner == c.seat,
            }
            for name, value in row.items():
                cols[name].append(value)
    return cols


class StoreWriter:
    """Writes one run into ``root/<run id>/`` block by block (see the module).

    Refuses a run folder that already holds games (a store is never silently mixed or
    overwritten).  Call :meth:`add` with each chunk's results in game order and :meth:`close` at
    the end, interrupted or not; ``run.json`` then says how many games the files hold.
    """

    def __init__(self, root: str | Path, info: RunInfo, *, block_games: int = BLOCK_GAMES) -> None:
        self._pa = _module("pyarrow")
        self._pq = _module("pyarrow.parquet")
        self._game_schema = arrow_schema(GAME_COLUMNS)
        self._card_schema = arrow_schema(CARD_COLUMNS)
        self.info = info
        self.folder = Path(root) / info.run
        if self.folder.exists() and any(self.folder.glob("*.parquet")):
            raise SimulationError(
                f"{self.folder} already holds a run's games: choose another --out or delete that folder"
            )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SimulationError(f"cannot create {self.folder}: {exc.strerror or exc}") from exc
        self._block: list[GameResult] = []
        self._block_games = block_games
        self.games_written = 0
        self.files: list[Path] = []
        self._write_run_json(complete=False)

    def add(self, results: Sequence[GameResult]) -> None:
        self._block.extend(results)
        if len(self._block) >= self._block_games:
            self.flush()

    def flush(self) -> None:
        """Write the games held so far as one block of files."""
        if not self._block:
            return
        first = self._block[0].index
        for stem, rows, schema in (
            ("games", game_rows(self.info, self._block), self._game_schema),
            ("cards", card_rows(self.info, self._block), self._card_schema),
        ):
            table = self._pa.Table.from_pydict(rows, schema=schema)
            path = self.folder / f"{stem}-{first:07d}.parquet"
            tmp = path.with_name(path.name + ".tmp")
            self._pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, path)
            self.files.append(path)
        self.games_written += len(self._block)
        self._block = []

    def close(self, *, complete: bool = True) -> None:
        """Write what is left and ``run.json`` (``complete``: the run played every game)."""
        self.flush()
        self._write_run_json(complete=complete)

    def _write_run_json(self, *, complete: bool) -> None:
        data = {
            "run": self.info.run,
            "mode": self.info.mode,
            "format": self.info.format,
            "max_turns": self.info.max_turns,
            "threat": None if self.info.threat is None else self.info.threat.to_dict(),
            "settings": self.info.settings,
            "games_written": self.games_written,
            "complete": complete,
        }
        (self.folder / "run.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def connect(root: str | Path) -> Any:
    """An in-memory DuckDB connection with the views ``games`` and ``cards`` over every Parquet file
    under ``root`` (raises :class:`SimulationError` for a folder without games)."""
    duckdb = _module("duckdb")
    folder = Path(root)
    if not folder.is_dir():
        raise SimulationError(f"{folder} is not a folder")
    if not any(folder.rglob("games-*.parquet")):
        raise SimulationError(
            f"{folder} holds no games (games-*.parquet): write some with clash simulate --out"
        )
    con = duckdb.connect(":memory:")
    base = str(folder.resolve()).replace("'", "''")
    for view in ("games", "cards"):
        files = f"{base}/**/{view}-*.parquet"
        con.execute(f"CREATE VIEW {view} AS SELECT * FROM read_parquet('{files}', union_by_name=true)")
    return con


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]


def query(root: str | Path, sql: str) -> QueryResult:
    """Run ``sql`` over the store at ``root`` (views ``games`` and ``cards``)."""
    duckdb = _module("duckdb")
    con = connect(root)
    try:
        cursor = con.execute(sql)
        if cursor.description is None:
            return QueryResult([], [])
        columns = [d[0] for d in cursor.description]
        return QueryResult(columns, [tuple(row) for row in cursor.fetchall()])
    except duckdb.Error as exc:
        raise SimulationError(f"query failed: {exc}") from exc
    finally:
        con.close()


__all__ = [
    "BLOCK_GAMES",
    "CARD_COLUMNS",
    "GAME_COLUMNS",
    "QueryResult",
    "RunInfo",
    "StoreWriter",
    "arrow_schema",
    "card_rows",
    "connect",
    "game_rows",
    "query",
    "run_id",
]
