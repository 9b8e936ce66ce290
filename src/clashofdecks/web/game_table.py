"""The table of live games of one server process: a game loaded from the store when a page, a scan or
a catch-up asks for it, created (new, owned by its players, imported, a rematch), and let go when
nothing here follows it any more (the store keeps every game: docs/web.md, "Several processes")."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..errors import ClashError
from ..events import Event
from ..record import GameRecord
from ..session import REMOTE, GameSession
from . import bots, hint_terms, rematches
from .clocks import ClockState
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    GameState,
    NewGame,
    clock_control,
    clock_of_row,
    clock_row,
    create_session,
    final_result,
    game_row,
    rulebook_level,
    session_of_row,
)
from .live_game import GameServices, LiveGame, Subscriber
from .protocol import ProtocolError
from .store import GameRow, Store
from .sync import StaleError
from .workers import imported_game

log = logging.getLogger("clashofdecks.web")


class GameTable:
    """The live games of this process, by id."""

    def __init__(self, services: GameServices) -> None:
        self.services = services
        self.db = services.db
        self.games: dict[str, LiveGame] = {}
        self.load_lock = asyncio.Lock()

    async def get(self, game_id: str) -> LiveGame | None:
        """The game in memory, loaded from the store if it is not (None: no such game, or one that
        does not replay)."""
        live = self.games.get(game_id)
        if live is not None:
            return live
        async with self.load_lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.db.read(lambda s: s.load_game(game_id))
            if row is None:
                return None
            # Replayed in a thread: a long stored game (an imported record of up to ``record_actions``)
            # opened by a spectator holds the event loop only between the thread's GIL slices.
            session = await asyncio.to_thread(_replayed, row)
            if session is None:
                return None
            live = self._of_row(row, session)
            if live.session.is_over and row.status != "over":
                # Its process was killed between storing the last action and marking the game over:
                # ended here as it would have been there (the rating, the clock, the campaign).
                with contextlib.suppress(StaleError):  # another process ended it meanwhile
                    await live.finish(final_result(live.session))
            self.games[game_id] = live
            return live

    def _of_row(self, row: GameRow, session: GameSession) -> LiveGame:
        live = LiveGame(
            self.services,
            row.id,
            row.kind,
            session,
            row.seats,
            rated=row.rated,
            rated_offer=row.rated_offer,
            revision=row.revision,
        )
        if row.clock is not None:
            live.clock = clock_of_row(row.clock)
        if row.kind == "solo":
            live.campaign_level = rulebook_level(row.setup.get("threat"))
        if row.result is not None and (row.result.get("abandoned") or row.result.get("aborted")):
            live.result_override = row.result
        return live

    async def current(self, game_id: str) -> LiveGame | None:
        """The game as the store has it now: a copy in memory that is behind the store (another
        process wrote it) catches up (web/sync.py), and this process's pages are shown the change.
        Compared under the game's lock, so a write under way here is not taken for a difference."""
        live = await self.get(game_id)
        if live is None:
            return None
        async with live.lock:
            await live.sync.catch_up_if_moved(live)
        return live

    def let_go(self, live: LiveGame) -> None:
        """Forget ``live`` here if nothing follows it, no agent thinks and no message is handled:
        the store keeps it (clocks, presence and agent turns too), and a page opening it again, or
        a scan, reloads it."""
        idle = not live.connections and not live.agent_busy and not live.lock.locked()
        if idle and self.games.get(live.id) is live:
            del self.games[live.id]

    def evict_idle(self, now: float) -> int:
        """Let go every game that nothing has used for ``idle_game_seconds`` before ``now`` (a
        ``time.monotonic`` reading) and that no page follows, no agent thinks for and no message
        holds: loaded by a scan, made and never opened.  The store keeps each; the next page,
        scan or catch-up that asks for one reloads it.  The number let go."""
        limit = now - self.services.config.idle_game_seconds
        idle = [live for live in self.games.values() if live.last_used <= limit]
        for live in idle:
            self.let_go(live)
        return sum(1 for live in idle if live.id not in self.games)

    def drop(self, game_id: str) -> None:
        """Forget a game whose handling failed (its memory may be ahead of the store): the next
        look reloads it from the store.  Only that game: every other stays as it is."""
        self.games.pop(game_id, None)

    async def broadcast(self, live: GameState, events: Sequence[Event | dict[str, Any]]) -> None:
        """What the change bus's side (web/sync.py) calls once it has caught a game up."""
        assert isinstance(live, LiveGame)
        await live.broadcast(events)

    # ------------------------------------------------------------------ new games

    async def create_game(self, req: NewGame, owner: str) -> tuple[LiveGame, dict[int, str]]:
        """A new game from the lobby, its creator's seat (both, in a hot-seat game) held by
        ``owner``; the tokens of the seats still open, by seat (shown once)."""
        game_id = secrets.token_hex(12)
        session, seats, tokens = create_session(req, game_id)
        creator_seat = session.participant_seat(0)
        seats[creator_seat].owner = owner
        if req.kind == "hotseat":
            seats[1 - creator_seat].owner = owner
        live = LiveGame(self.services, game_id, req.kind, session, seats, rated_offer=req.rated)
        control = clock_control(req)
        if control is not None:
            live.clock = ClockState.new(control)
            live.start_clock()  # both seats held already (a duel the queue made): it runs now
        if req.deck is not None and session.to_move == creator_seat and req.kind == "solo":
            session.act(creator_seat, f"deck {req.deck}")
        row = game_row(live)
        row.rated_offer = req.rated
        if req.kind == "solo":  # the same rule as for a game loaded from the store
            live.campaign_level = rulebook_level(row.setup.get("threat"))
        clock = None if live.clock is None else clock_row(live.clock)

        def create(s: Store) -> None:
            s.create_game(row)
            if clock is not None:
                s.save_clock(game_id, clock)
            if req.hints:
                hint_terms.offer(s.engine, game_id)

        await self.db.run(create)
        self.games[game_id] = live
        live.schedule_agents()
        return live, tokens

    async def create_owned_game(
        self,
        req: NewGame,
        owners: Sequence[str],
        *,
        rated: bool = False,
        with_write: Callable[[DbConnection, str], None] | None = None,
    ) -> LiveGame:
        """A game whose people's seats belong to ``owners`` from the start (participant order; one
        owner holds both seats of a hot-seat game): no invite, no token.  Queue games, rematches.
        ``with_write(conn, game_id)`` runs in the transaction that creates the game (the queue's
        pairing: no game is made for a pair whose entries were taken meanwhile)."""
        game_id = secrets.token_hex(12)
        session, seats, _tokens = create_session(req, game_id)
        for participant, owner in enumerate(owners):
            seats[session.participant_seat(participant)].owner = owner
        for seat in seats:
            if req.kind == "hotseat" and seat.kind == REMOTE:
                seat.owner = owners[0]
            seat.token_hash = None
        live = LiveGame(self.services, game_id, req.kind, session, seats, rated=rated)
        control = clock_control(req)
        if control is not None:  # the queue's games and rematches of clocked games
            live.clock = ClockState.new(control)
            live.start_clock()  # both seats are held from the start: it runs now
        clock = None if live.clock is None else clock_row(live.clock)
        row = game_row(live)
        row.rated = rated

        def create(s: Store) -> set[str]:
            with s.engine.begin() as c:
                if with_write is not None:
                    with_write(c, game_id)
                s.create_game(row, c)
                if clock is not None:
                    s.save_clock(game_id, clock, conn=c)
                return bots.bot_ids(c, owners)

        owned_by_bots = await self.db.run(create)
        for seat in seats:
            seat.bot = seat.owner in owned_by_bots
        self.games[game_id] = live
        live.schedule_agents()
        return live

    async def import_record(self, record: GameRecord, owner: str) -> GameRow:
        """A finished game's record kept for its replay (never continued here, so never live): it is
        replayed in the workers' optional lane, within its budget, off the event loop."""
        game_id = secrets.token_hex(12)
        assert self.services.pool is not None
        run = self.services.pool.run_optional
        row: GameRow = await run(imported_game, record.to_dict(), game_id, owner, kind="import")
        await self.db.run(lambda s: s.create_game(row))
        return row

    async def rematch(self, conn: Subscriber, live: LiveGame) -> None:
        """A rematch of a finished duel: between two people both must ask (the first asking offers
        it to the other); against the AI or at one device it starts at once.  Rated again if the
        first game was."""
        async with live.lock:
            session = live.session
            if not session.is_over or session.is_solo or live.kind not in ("friend", "ai", "hotseat"):
                raise ProtocolError("rematch_refused", "a rematch is offered in a finished duel only")
            if live.rematch_game is not None:
                await conn.send({"type": "rematch", "game": live.rematch_game})
                return
            owners = [live.seats[session.participant_seat(p)].owner for p in (0, 1)]
            people = [o for o in owners if o is not None]
            if live.kind == "friend" and (len(set(people)) != 2 or len(people) != 2):
                raise ProtocolError("rematch_refused", "both seats of this duel need their players")
            game_id, asking = live.id, set(conn.seats)
            # The offers are in the store: an offer made through another process counts here.
            offers, made = await self.db.run(lambda s: rematches.offer(s.engine, game_id, asking))
            if made is None and live.kind == "friend" and offers != {0, 1}:
                await live.notify({"type": "notice", "code": "rematch_offered", "seats": sorted(offers)})
                return
            if made is None:
                made = await self._make_rematch(conn, live)
            live.rematch_game = made
        await live.notify({"type": "rematch", "game": made})

    async def _make_rematch(self, conn: Subscriber, live: LiveGame) -> str:
        """The rematch game of ``live`` (both have offered): made here, or, when another request
        made it first (on any process), that one."""
        session = live.session
        owners = [o for o in (live.seats[session.participant_seat(p)].owner for p in (0, 1)) if o is not None]
        head = session.record()
        names = [live.seats[session.participant_seat(p)].name for p in (0, 1)]
        req = NewGame(kind=live.kind, format=head.format, name=names[0], name2=names[1], lang=conn.lang)
        if live.clock is not None:  # a rematch keeps the time control of the game it repeats
            req.time_control = live.clock.control.name
        if live.kind == "ai":
            agent = live.seats[session.participant_seat(1)].agent
            req.ai = agent if agent in AI_LEVELS else DEFAULT_AI
        game_id = live.id
        try:
            claim = functools.partial(rematches.claim, game_id=game_id)
            new = await self.create_owned_game(req, owners[:2], rated=live.rated, with_write=claim)
        except rematches.RematchMadeError:
            made = await self.db.run(lambda s: rematches.rematch_of(s.engine, game_id))
            assert made is not None  # set in the transaction that raised this
            return made
        return new.id


def _replayed(row: GameRow) -> GameSession | None:
    """The stored game's session, its actions replayed (None, logged: it does not replay)."""
    try:
        return session_of_row(row)
    except ClashError as exc:
        log.error("game %s does not replay from the store: %s", row.id, exc)
        return None
