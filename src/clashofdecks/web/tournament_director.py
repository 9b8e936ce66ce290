"""The tournament director (docs/tournaments.md, "On the server"): every watch tick, the one process
holding the ``tournaments`` lease starts the tournaments due, records the games that ended into the
standings, withdraws the players who missed a pairing, pairs (an arena: the players waiting, at once;
a Swiss: the next round once every game of the round has ended), makes the rated clocked games the
way the queue makes them, and ends an arena at its window's end and a Swiss after its rounds.

Every step reads its state from the database and writes it back in one transaction
(web/store_tournaments.py), so a process killed anywhere leaves the next holder to go on: no round is
lost and nobody is paired twice.
"""

from __future__ import annotations

import functools
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..tournaments import arena, swiss
from . import leases
from . import store_tournaments as st
from .games import NewGame
from .matchmaking import GameMaker
from .services import Database, LeaseKeeper
from .store import Store
from .tournament_schedule import scheduled

log = logging.getLogger("clashofdecks.web")


_ARENA_OUTCOME = {
    st.WIN: arena.Outcome.WIN,
    st.DRAW: arena.Outcome.DRAW,
    st.LOSS: arena.Outcome.LOSS,
    st.ABORTED: arena.Outcome.ABORTED,
}


def player_results(result: dict[str, Any], owners: dict[int, str]) -> tuple[dict[str, str], str | None]:
    """Each player's result of an ended game (a loss on time is a loss; an aborted game is
    ``aborted`` for both), and the player who missed the pairing: the loser of an aborted game
    (timed out, or gone, before finishing a first turn)."""
    winner = result.get("winner")
    if result.get("aborted"):
        missed = next((p for seat, p in owners.items() if winner is not None and seat != winner), None)
        return {p: st.ABORTED for p in owners.values()}, missed
    out = {
        p: (st.DRAW if winner is None else st.WIN if seat == winner else st.LOSS)
        for seat, p in owners.items()
    }
    return out, None


def arena_scores(players: Sequence[str], pairings: Sequence[st.Pairing]) -> dict[str, float]:
    """Each player's arena points (arena.py's scoring over their games in the order paired)."""
    outcomes: dict[str, list[arena.Outcome]] = {p: [] for p in players}
    for p in sorted(pairings, key=lambda p: p.round):
        if p.result in _ARENA_OUTCOME and p.player in outcomes:
            outcomes[p.player].append(_ARENA_OUTCOME[p.result])
    return {p: float(arena.arena_score(o).points) for p, o in outcomes.items()}


_SWISS_SCORE = {st.WIN: swiss.WIN, st.DRAW: swiss.DRAW, st.LOSS: swiss.LOSS}


def swiss_games(pairings: Sequence[st.Pairing]) -> list[swiss.Game]:
    """The played games and byes of a Swiss (aborted and unfinished games left out: swiss.py rule 1)."""
    out: list[swiss.Game] = []
    for p in pairings:
        if p.result == st.BYE:
            out.append(swiss.Game(p.round, p.player, None, swiss.WIN))
        elif p.opponent is not None and p.player < p.opponent and p.result in _SWISS_SCORE:
            out.append(swiss.Game(p.round, p.player, p.opponent, _SWISS_SCORE[p.result]))
    return out


def swiss_table(entries: Sequence[st.Entry], pairings: Sequence[st.Pairing]) -> list[swiss.Standing]:
    return swiss.standings([e.identity_id for e in entries], swiss_games(pairings))


def unmade_games(pairings: Sequence[st.Pairing]) -> list[tuple[int, str, str]]:
    """Pairings whose game is not made yet: (round, player, opponent), each pair once."""
    return sorted(
        (p.round, p.player, p.opponent)
        for p in pairings
        if p.opponent is not None and p.game_id is None and p.result is None and p.player < p.opponent
    )


class TournamentDirector:
    """Runs the tournaments (see the module docstring) on the watcher's tick, under its lease."""

    def __init__(
        self,
        db: Database,
        leases: LeaseKeeper,
        games: GameMaker,
        clock: Callable[[], float],
        schedule: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.leases = leases
        self.games = games
        self.clock = clock
        self.schedule = tuple(schedule)

    async def tick(self) -> None:
        if not await self.leases.holds(leases.TOURNAMENTS):
            return
        now = self.clock()
        if self.schedule:
            for row in scheduled(self.schedule, now):
                await self.db.run(functools.partial(_create, row=row))
        for t in await self.db.run(lambda s: _in_status(s, st.CREATED)):
            if t.starts_at <= now:
                await self.db.run(
                    functools.partial(_set_status, t=t.id, old=st.CREATED, new=st.STARTED, now=now)
                )
        for t in await self.db.run(lambda s: _in_status(s, st.STARTED)):
            try:
                await self.direct(t, now)
            except Exception:  # one tournament's trouble must not stop the others
                log.exception("tournament %s: directing failed", t.id)

    async def direct(self, t: st.TournamentRow, now: float) -> None:
        """One tournament's step: results, then pairing (or its end), then the games to make."""
        entries, pairings = await self.db.run(functools.partial(_record_results, t=t))
        if t.kind == "arena":
            await self._arena(t, entries, pairings, now)
        else:
            await self._swiss(t, entries, pairings, now)
        await self.make_games(t, now)

    async def _arena(
        self, t: st.TournamentRow, entries: list[st.Entry], pairings: list[st.Pairing], now: float
    ) -> None:
        running = {p.player for p in pairings if p.running}
        if t.ends_at is not None and now >= t.ends_at:
            if not running:  # games going on at the end still count; then it is over
                await self.db.run(
                    functools.partial(_set_status, t=t.id, old=st.STARTED, new=st.FINISHED, now=now)
                )
            return
        waiting = [e.identity_id for e in entries if not e.withdrawn and e.identity_id not in running]
        if len(waiting) < 2:
            return
        points = {e.identity_id: int(e.score) for e in entries}
        last: dict[str, str] = {}
        for p in pairings:  # in round order: the last game's opponent stays
            if p.opponent is not None:
                last[p.player] = p.opponent
        rating = await self.db.run(lambda s: _ratings(s, t.format, waiting))
        pairs = arena.pair_waiting(waiting, points, rating, last)
        await self.db.run(functools.partial(_write_pass, t=t, pairs=pairs, bye=None, now=now))

    async def _swiss(
        self, t: st.TournamentRow, entries: list[st.Entry], pairings: list[st.Pairing], now: float
    ) -> None:
        if any(p.running for p in pairings):
            return
        active = [e for e in entries if not e.withdrawn]
        if t.round >= (t.rounds or 0) or len(active) < 2:
            await self.db.run(
                functools.partial(_set_status, t=t.id, old=st.STARTED, new=st.FINISHED, now=now)
            )
            return
        seeds = [e.identity_id for e in entries]
        out = [e.identity_id for e in entries if e.withdrawn]
        pairs, bye = swiss.pair_round(seeds, swiss_games(pairings), out)
        await self.db.run(functools.partial(_write_pass, t=t, pairs=pairs, bye=bye, now=now))

    async def make_games(self, t: st.TournamentRow, now: float) -> None:
        """The rated clocked games of the pairings that have none (made here, or left by a process
        killed between the pairing and its game)."""
        entries, pairings = await self.db.run(functools.partial(_read, t=t.id))
        names = {e.identity_id: e.name for e in entries}
        for round_, a, b in unmade_games(pairings):
            req = NewGame(
                kind="friend",
                format=t.format,
                name=names.get(a, ""),
                name2=names.get(b, ""),
                time_control=t.time_control,
            )
            attach = functools.partial(_attach, tournament_id=t.id, round_=round_, pair=(a, b))
            try:
                live = await self.games.create_owned_game(req, [a, b], rated=True, with_write=attach)
            except st.TournamentError:
                continue  # another process made it meanwhile
            log.info("tournament %s round %d: game %s", t.id, round_, live.id)


def new_tournament_id() -> str:
    return secrets.token_hex(8)


# ---------------------------------------------------------------------------- in the database thread


def _create(store: Store, *, row: st.TournamentRow) -> bool:
    return st.create(store.engine, row)


def _in_status(store: Store, status: str) -> list[st.TournamentRow]:
    with store.engine.connect() as conn:
        return st.in_status(conn, status)


def _set_status(store: Store, *, t: str, old: str, new: str, now: float) -> bool:
    with store.engine.begin() as conn:
        return st.set_status(conn, t, old, new, now)


def _read(store: Store, *, t: str) -> tuple[list[st.Entry], list[st.Pairing]]:
    with store.engine.connect() as conn:
        return st.entries(conn, t), st.pairings(conn, t)


def _ratings(store: Store, fmt: str, players: list[str]) -> dict[str, float]:
    with store.engine.connect() as conn:
        return st.ratings_of(conn, fmt, players)


def _record_results(store: Store, *, t: st.TournamentRow) -> tuple[list[st.Entry], list[st.Pairing]]:
    """The ended games' results into the pairings, the players who missed one withdrawn, the scores
    recomputed: one transaction (done twice, it changes nothing the second time)."""
    with store.engine.begin() as conn:
        for game_id, result, owners in st.ended_games(conn, t.id):
            results, missed = player_results(result, owners)
            for player, outcome in results.items():
                st.record_result(conn, t.id, game_id, player, outcome)
            if missed is not None:
                st.withdraw(conn, t.id, missed)
        entries, pairings = st.entries(conn, t.id), st.pairings(conn, t.id)
        players = [e.identity_id for e in entries]
        if t.kind == "arena":
            scores = arena_scores(players, pairings)
        else:
            scores = {s.player: float(s.score) for s in swiss_table(entries, pairings)}
        changed = {
            p: v for p, v in scores.items() if v != next(e.score for e in entries if e.identity_id == p)
        }
        if not changed:  # the usual tick: nothing ended, nothing written
            return entries, pairings
        st.set_scores(conn, t.id, changed)
        return st.entries(conn, t.id), pairings


def _write_pass(
    store: Store, *, t: st.TournamentRow, pairs: list[tuple[str, str]], bye: str | None, now: float
) -> bool:
    with store.engine.begin() as conn:
        return st.write_pass(conn, t, pairs, bye, now)


def _attach(
    conn: DbConnection, game_id: str, *, tournament_id: str, round_: int, pair: tuple[str, str]
) -> None:
    st.attach_game(conn, tournament_id, round_, pair, game_id)


__all__ = ["TournamentDirector", "arena_scores", "player_results", "swiss_games", "unmade_games"]
