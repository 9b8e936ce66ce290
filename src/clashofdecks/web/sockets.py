"""The socket layer of the game server: a page's messages sent where they belong -- the ``play now``
queue, the table of live games (a page opening a game, a rematch), the live game itself (a move, an
undo, a resignation, a hint) -- and a connection's end.  No game logic lives here (web/live_game.py)."""

from __future__ import annotations

import time

from . import reviews
from .config import ServerConfig
from .connection import Connection
from .game_table import GameTable
from .matchmaking import Matchmaker
from .protocol import Message, ProtocolError
from .services import Background, Database
from .store import Store


class Sockets:
    """The game sockets of one server process."""

    def __init__(
        self,
        config: ServerConfig,
        table: GameTable,
        matchmaker: Matchmaker,
        background: Background,
        db: Database | None = None,
    ) -> None:
        self.config = config
        self.table = table
        self.matchmaker = matchmaker
        self.background = background
        self.db = db
        #: The key of the address hashes of review records (web/reviews.py), read at the start.
        self.review_key = b""

    async def handle(self, conn: Connection, msg: Message) -> None:
        """One message of ``conn``, handled before the next one of this socket is read."""
        if msg.type == "ping":
            await conn.send({"type": "pong", "id": msg.get("id", 0)})
            return
        if msg.type == "hello":
            await self.hello(conn, msg)
            return
        if msg.type in ("queue", "leave_queue", "queue_ai"):
            await self.matchmaker.handle(conn, msg)
            return
        live = conn.live
        if live is None:
            raise ProtocolError("hello_first", "send 'hello' with the game id first")
        if msg.type == "resync":  # a page whose state no longer takes its deltas (spectators too)
            await live.resend(conn)
            return
        if msg.type == "hint" and (live.rated or live.rated_offer):
            if conn.seats:
                conn.refused_hints += 1  # for the review record (written when the page leaves)
            live.refuse_engine_help()  # to spectators too: the same answer as the players'
        if not conn.seats:
            raise ProtocolError("spectator", "spectators watch; they cannot act")
        if msg.type == "hint":
            await live.hint(conn)
        elif msg.type == "rematch":
            await self.table.rematch(conn, live)
        else:
            await live.handle(conn, msg)

    async def hello(self, conn: Connection, msg: Message) -> None:
        """The page opens a game: it follows it from now on, with the seats its tokens or its
        identity give it."""
        if conn.live is not None:
            raise ProtocolError("bad_field", "this connection already follows a game")
        live = await self.table.get(msg.get("game"))
        if live is None:
            raise ProtocolError("no_game", "no such game")
        conn.protocol = msg.get("protocol") or 1
        conn.wants_presence = msg.get("presence") is True
        accept = {"accept_rated": msg.get("rated") is True, "accept_hints": msg.get("hints") is True}
        name = msg.get("name") or conn.display_name  # the invitee's name for the seat it takes
        await live.join(conn, msg.get("tokens"), lang=msg.get("lang") or "en", name=name, **accept)
        conn.live = live
        self._note_visit(conn, 0)

    def failed(self, conn: Connection) -> None:
        """Handling a message of ``conn`` raised an unexpected error: its game's memory may be ahead
        of the store, so the game is reloaded from the store at the next look.  No other game is
        touched."""
        if conn.live is not None:
            self.table.drop(conn.live.id)

    def _note_visit(self, conn: Connection, refused: int) -> None:
        """A player's page of a rated game (``hello``; ``refused``: 0) or the hints it was refused
        (when it leaves) into the game's review record, in the background (web/reviews.py)."""
        live, db = conn.live, self.db
        if live is None or db is None or not conn.seats or not (live.rated or live.rated_offer):
            return
        address = reviews.hashed_address(self.review_key, conn.address)
        game_id, identity, lineage, now = live.id, conn.identity, conn.lineage, time.time()
        for seat in sorted(conn.seats):

            def note(store: Store, seat: int = seat) -> None:
                if refused:
                    reviews.note_refused(store.engine, game_id, seat, refused)
                else:
                    reviews.note_visit(
                        store.engine, game_id, seat, identity, address=address, lineage=lineage, now=now
                    )

            self.background.run(db.run(note))

    def disconnect(self, conn: Connection) -> None:
        if conn.refused_hints:
            self._note_visit(conn, conn.refused_hints)
        if conn.identity is not None and conn.identity in self.matchmaker.queued:
            self.background.run(self.matchmaker.disconnect(conn))
        live = conn.live
        if live is not None and live.leave(conn):
            self.table.let_go(live)
