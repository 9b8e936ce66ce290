"""The game server's games: loading a game into memory, creating one (new, owned by its players,
imported), sending its state to its connections, its end, and rematches."""

from __future__ import annotations

import contextlib
import functools
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..errors import ClashError, RecordError
from ..events import Event
from ..record import GameRecord
from ..session import REMOTE, GameSession
from . import rematches
from .clocks import ClockState
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    LiveGame,
    NewGame,
    board_abilities,
    clock_control,
    clock_of_row,
    clock_row,
    common_part,
    create_session,
    dumps,
    events_json,
    final_result,
    game_row,
    join_frame,
    rulebook_level,
    seat_part,
    session_of_row,
)
from .protocol import ProtocolError
from .server_core import Connection, ServerCore
from .store import SeatRow, Store
from .sync import StaleError, history_of

log = logging.getLogger("clashofdecks.web")


class GameLifecycle(ServerCore):
    """Games in memory: loaded, created, broadcast, finished, played again."""

    async def get_game(self, game_id: str) -> LiveGame | None:
        live = self.games.get(game_id)
        if live is not None:
            return live
        async with self.load_lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.read_db(lambda s: s.load_game(game_id))
            if row is None:
                return None
            try:
                session = session_of_row(row)
            except ClashError as exc:
                log.error("game %s does not replay from the store: %s", game_id, exc)
                return None
            live = LiveGame(
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
            if row.result is not None and row.result.get("abandoned"):
                live.result_override = row.result
            if session.is_over and row.status != "over":
                # Its process was killed between storing the last action and marking the game over:
                # ended here as it would have been there (the rating, the clock, the campaign).
                with contextlib.suppress(StaleError):  # another process ended it meanwhile
                    await self._finish(live, final_result(session))
            self.games[game_id] = live
            return live

    async def create_game(self, req: NewGame, owner: str) -> tuple[LiveGame, dict[int, str]]:
        game_id = secrets.token_hex(12)
        session, seats, tokens = create_session(req, game_id)
        creator_seat = session.participant_seat(0)
        seats[creator_seat].owner = owner
        if req.kind == "hotseat":
            seats[1 - creator_seat].owner = owner
        live = LiveGame(game_id, req.kind, session, seats, rated_offer=req.rated)
        control = clock_control(req)
        if control is not None:
            live.clock = ClockState.new(control)
            self._start_clock(live)  # both seats held already (a duel the queue made): it runs now
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

        await self.run_db(create)
        self.games[game_id] = live
        self.schedule_agents(live)
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
        live = LiveGame(game_id, req.kind, session, seats, rated=rated)
        row = game_row(live)
        row.rated = rated

        def create(s: Store) -> None:
            with s.engine.begin() as c:
                if with_write is not None:
                    with_write(c, game_id)
                s.create_game(row, c)

        await self.run_db(create)
        self.games[game_id] = live
        self.schedule_agents(live)
        return live

    async def import_record(self, record: GameRecord, owner: str) -> LiveGame:
        from ..session import Seat

        seats = [
            Seat.remote("Player 0"),
            Seat("automaton") if record.mode == "solo" else Seat.remote("Player 1"),
        ]
        game_id = secrets.token_hex(12)
        try:
            session = GameSession.from_record(record, seats=seats, session_id=game_id)
        except ClashError as exc:
            raise RecordError(str(exc)) from None
        names = list(record.players)
        rows = [
            SeatRow(s, seats[s].kind, names[s] if s < len(names) else seats[s].kind, None, None, owner)
            for s in (0, 1)
        ]
        live = LiveGame(game_id, "imported", session, rows)
        row = game_row(live)
        row.status = "over"  # an imported game is for replaying, never continued here
        if row.result is None:
            row.result = {"winner": None, "reason": "imported unfinished", "termination": "imported"}
        await self.run_db(lambda s: s.create_game(row))
        return live

    async def broadcast(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None:
        """A ``state`` frame to every connection of the game, each built for its seats (R9).  The
        public part is built and serialised once per language, each seat's part once per seat, so
        connections that see the same (spectators, one language) share one text."""
        session = live.session
        abilities = None if session.phase == "setup" else board_abilities(session)
        now = self.config.clock()
        common_by_lang: dict[str, str] = {}
        own_by_seats: dict[tuple[frozenset[int], str], dict[str, Any]] = {}
        texts: dict[tuple[frozenset[int], str], str] = {}
        for conn in list(live.connections):
            seats = frozenset(conn.seats)
            key = (seats, conn.lang)
            text = texts.get(key)
            if text is None:
                common = common_by_lang.get(conn.lang)
                if common is None:
                    events_text = events_json(live, events, conn.lang)
                    common = common_by_lang[conn.lang] = dumps(common_part(live, events_text, abilities, now))
                own = own_by_seats.get(key)
                if own is None:
                    own = own_by_seats[key] = seat_part(live, set(seats), conn.lang)
                text = texts[key] = join_frame(own, common)
            await conn.send_text(text)

    async def _finish(self, live: LiveGame, result: dict[str, Any]) -> bool:
        """Store the end of a game played here, and start its analysis (an imported game's waits
        for its replay to be opened).  False, with nothing written, when the store says the game
        was over already (another server process ended it: a timeout or abandonment counts once)."""
        rating = _rating_write(live, result)
        clock = None
        if live.clock is not None:
            live.clock.stop(self.config.clock())
            clock = clock_row(live.clock)
        credit: tuple[str, bool] | None = None
        outcome = live.session.outcome
        player = live.seats[0] if live.seats else None
        if live.campaign_level is not None and player is not None and player.owner and outcome is not None:
            credit = (player.owner, outcome.winner == 0)
        level = live.campaign_level

        ended: list[bool] = []

        def finish(s: Store, c: DbConnection) -> None:
            # The ratings, the stopped clock and the campaign change in the transaction that ends
            # the game: never one without the other, and only if this write ended it.
            ended.append(s.finish(live.id, result, conn=c))
            if not ended[-1]:
                return
            if rating is not None:
                s.apply_rating(live.id, rating[0], rating[1], conn=c)
            if clock is not None:
                s.save_clock(live.id, clock, conn=c)
            if credit is not None and level is not None:
                s.record_campaign(credit[0], level, credit[1], conn=c)

        # The session in memory has ended already: a refused write rebuilds it from the store.
        await self.write_game(live, finish, shown=history_of(live.session))
        if not ended[-1]:
            return False
        if live.kind != "imported" and self.config.auto_analysis:
            self.request_analysis(live.id)  # when "busy", the replay page asks again later
        return True

    async def tick_queue(self) -> None:
        await self.matchmaker.tick()

    async def _rematch(self, conn: Connection, live: LiveGame) -> None:
        """A rematch of a finished duel: between two people both must ask (the first asking offers
        it to the other); against the AI or at one device it starts at once.  Rated again if the
        first game was."""
        async with self.lock(live.id):
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
            offers, made = await self.run_db(lambda s: rematches.offer(s.engine, game_id, asking))
            if made is None and live.kind == "friend" and offers != {0, 1}:
                offer = {"type": "notice", "code": "rematch_offered", "seats": sorted(offers)}
                await self.notify_game(live.id, offer)
                return
            if made is None:
                made = await self._make_rematch(conn, live)
            live.rematch_game = made
        await self.notify_game(live.id, {"type": "rematch", "game": made})

    async def _make_rematch(self, conn: Connection, live: LiveGame) -> str:
        """The rematch game of ``live`` (both have offered): made here, or, when another request
        made it first (on any process), that one."""
        session = live.session
        owners = [o for o in (live.seats[session.participant_seat(p)].owner for p in (0, 1)) if o is not None]
        head = session.record()
        names = [live.seats[session.participant_seat(p)].name for p in (0, 1)]
        req = NewGame(kind=live.kind, format=head.format, name=names[0], name2=names[1], lang=conn.lang)
        if live.kind == "ai":
            agent = live.seats[session.participant_seat(1)].agent
            req.ai = agent if agent in AI_LEVELS else DEFAULT_AI
        game_id = live.id
        try:
            claim = functools.partial(rematches.claim, game_id=game_id)
            new = await self.create_owned_game(req, owners[:2], rated=live.rated, with_write=claim)
        except rematches.RematchMadeError:
            made = await self.run_db(lambda s: rematches.rematch_of(s.engine, game_id))
            assert made is not None  # set in the transaction that raised this
            return made
        return new.id


def _rating_write(live: LiveGame, result: dict[str, Any]) -> tuple[str | None, tuple[str, str]] | None:
    """For a rated duel between two identities: (the winner's identity or None for a draw, both
    identities); None for any other game.  A resignation and an abandonment count as losses."""
    if not live.rated:
        return None
    owners = [s.owner for s in live.seats]
    a, b = owners[0], owners[1]
    if a is None or b is None or a == b:
        return None
    winner = result.get("winner")
    return (owners[winner] if winner in (0, 1) else None), (a, b)
