"""Games as the web server holds them: a :class:`~clashofdecks.session.GameSession` with its seats'
tokens, and the frames each seat, and each spectator, is sent (R9: only what that seat may know).

Nothing here does I/O: the server (``server.py``) stores actions and sends frames.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..agents.registry import STRENGTHS
from ..cards import ABILITY_NAMES, CARDS
from ..errors import ClashError
from ..events import Event, EventKind
from ..formats import setup_summary
from ..options import LEVELS, Ruleset, Threat
from ..record import GameRecord, result_of
from ..rules import Game
from ..session import AGENT, AUTOMATON, REMOTE, GameSession, Seat, abilities_of
from . import metrics
from .clocks import ClockState, TimeControl, time_control
from .frame_words import PositionWords, event_dict, names_of_seats, steps_done
from .store import ClockRow, GameRow, SeatRow, token_hash

try:
    import orjson

    _fast_dumps: Callable[..., bytes] | None = orjson.dumps
    _FAST_OPTIONS = orjson.OPT_NON_STR_KEYS
except ImportError:  # pragma: no cover - the web extra installs it
    _fast_dumps, _FAST_OPTIONS = None, 0

KINDS: Final = ("solo", "ai", "friend", "hotseat", "imported")
WEB_FORMATS: Final = ("precon", "draft", "custom")
#: AI strengths offered in the lobby, weakest first: the AI's named strengths (``agents.registry``,
#: docs/agents.md).  A new game's AI seat stores the strength's name as its agent spec; games stored
#: before these existed name a plain spec (``random``, ``greedy``, ``ismcts:200,cutoff=2``) and load
#: as they were, because a seat's agent is rebuilt from the stored spec, never from this list.
AI_LEVELS: Final[tuple[str, ...]] = tuple(STRENGTHS)
DEFAULT_AI: Final = "casual"


class GameSetupError(ClashError):
    """A request for a new game with options the server does not offer; the message says which."""


def new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class NewGame:
    """What the lobby asked for (validated by :func:`create_session`)."""

    kind: str = "solo"
    format: str = "draft"
    deck: int | None = None  # precon: the deck the (first) player takes; None = choose in the game
    level: int = 0
    threat: dict[str, Any] | None = None  # custom threat options (R8.2) instead of a level
    ai: str = DEFAULT_AI
    name: str = ""
    name2: str = ""
    seed: int | None = None
    #: The lobby's language: the default names of unnamed seats are given in it ("Spieler 1").
    lang: str = "en"
    #: A friend duel offered as rated: rated once the invitee accepts too.
    rated: bool = False
    #: The game's clock (``clocks.TIME_CONTROLS``: "3+2", "10+5", "1d", "3d"), or None (or "none")
    #: for an unclocked game.  Only duels between two people on their own devices take one (the
    #: lobby's friend duel; a play-now queue creating duels passes its control here).
    time_control: str | None = None
    #: Turns the game lasts at most, then a draw (the ruleset's ``max_turns``; web/limits.py).
    max_turns: int | None = 200
    #: An unrated friend duel whose creator offers hints: given once the invitee agrees too.
    hints: bool = False


@dataclass(eq=False)
class GameState:
    """What the server holds of one game in memory (the frames are built from it); the live game of
    ``live_game.py`` is this state with what changes it."""

    id: str
    kind: str
    session: GameSession
    seats: list[SeatRow]
    #: Connections watching this game (the server's objects; opaque here).
    connections: set[Any] = field(default_factory=set)
    #: Seats with an open connection right now (for the abandonment clock).
    present: dict[int, int] = field(default_factory=dict)
    agent_busy: bool = False
    #: A result the session does not know how to say (an abandoned duel: stored as a resignation).
    result_override: dict[str, Any] | None = None
    #: A rated duel (from the queue, or a rematch of one): its end changes both players' ratings.
    rated: bool = False
    #: A friend duel offered as rated whose invitee has not answered yet.
    rated_offer: bool = False
    #: The rematch of this finished duel once it exists (the offers are in the store: web/rematches.py).
    rematch_game: str | None = None
    #: The clock of a clocked game (it replaces the abandonment rule), else None.
    clock: ClockState | None = None
    #: The rulebook level (0-5) of a solo game that counts for the campaign; None otherwise.
    campaign_level: int | None = None
    #: The stored game's revision this copy is at: every write of the game expects it (web/sync.py).
    revision: int = 0
    #: Held while a message, an agent decision, a scan or a catch-up changes this game: they are
    #: handled one at a time, in the order they asked (asyncio's lock is first come, first served).
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    #: The words of the session's current position (web/frame_words.py), made on first use.
    words: PositionWords | None = field(default=None, repr=False, compare=False)

    @property
    def n_actions(self) -> int:
        return steps_done(self.session)

    def seats_for_tokens(self, tokens: list[str]) -> set[int]:
        hashes = {token_hash(t) for t in tokens}
        return {s.seat for s in self.seats if s.token_hash is not None and s.token_hash in hashes}

    def names(self) -> list[str]:
        return [s.name for s in self.seats]


def _threat(req: NewGame) -> Threat:
    if req.threat is not None:
        return Threat.from_dict(req.threat)
    return Threat.level(req.level)


def rulebook_level(threat: dict[str, Any] | None) -> int | None:
    """The rulebook level (R8.1) whose threat this is, or None for a custom threat."""
    if threat is None:
        return None
    for level, known in LEVELS.items():
        if known.to_dict() == threat:
            return level
    return None


def clock_control(req: NewGame) -> TimeControl | None:
    """The request's time control, checked: only duels between two people on their own devices."""
    control = time_control(req.time_control)
    if control is not None and req.kind != "friend":
        raise GameSetupError("a time control is for duels between two people (kind 'friend')")
    return control


def clock_row(clock: ClockState) -> ClockRow:
    return ClockRow(
        clock.control.name, (clock.remaining[0], clock.remaining[1]), clock.running, clock.deadline
    )


def clock_of_row(row: ClockRow) -> ClockState:
    control = time_control(row.control)
    assert control is not None
    return ClockState(control, list(row.remaining), row.running, row.deadline)


def create_session(req: NewGame, game_id: str) -> tuple[GameSession, list[SeatRow], dict[int, str]]:
    """A new session for the lobby's request, its seat rows and the tokens by seat (shown once)."""
    if req.kind not in ("solo", "ai", "friend", "hotseat"):
        raise GameSetupError(f"unknown game kind {req.kind!r} (solo, ai, friend or hotseat)")
    clock_control(req)
    if req.format not in WEB_FORMATS:
        raise GameSetupError(f"format {req.format!r} is not offered here (precon, draft or custom)")
    if req.deck is not None and (req.format != "precon" or req.deck not in (1, 2, 3, 4)):
        raise GameSetupError("a deck (1-4) is chosen only in the precon format")
    from ..words.i18n import t, web_words

    name = req.name.strip()[:40] or t(req.lang, "default_player", n=1)
    second = t(req.lang, "default_player", n=2)
    # Names nobody typed in a duel between two devices stay blank: each reader sees the default
    # name in its own language, never the creator's (web/frame_words.py).
    typed = [req.name.strip()[:40], req.name2.strip()[:40]] if req.kind == "friend" else None
    if req.kind == "solo":
        session = GameSession.new(
            mode="solo",
            format=req.format,
            seed=req.seed,
            participants=[Seat.remote(name)],
            threat=_threat(req),
            ruleset=Ruleset(max_turns=req.max_turns),
            session_id=game_id,
        )
    else:
        if req.kind == "ai":
            if req.ai not in AI_LEVELS:
                raise GameSetupError(f"unknown AI strength {req.ai!r} ({', '.join(AI_LEVELS)})")
            strength = web_words(req.lang).get(f"ai_{req.ai}") or web_words("en").get(f"ai_{req.ai}", req.ai)
            other = Seat.agent_seat(req.ai, t(req.lang, "default_ai", strength=strength))
        else:  # a friend or the second player at this device
            other = Seat.remote(req.name2.strip()[:40] or second)
        session = GameSession.new(
            mode="duel",
            format=req.format,
            seed=req.seed,
            participants=[Seat.remote(name), other],
            ruleset=Ruleset(max_turns=req.max_turns),
            session_id=game_id,
            allow_undo_between_people=req.kind == "hotseat",
        )
    rows: list[SeatRow] = []
    tokens: dict[int, str] = {}
    # The names typed, by seat after the coin toss (participant 0 may sit in seat 1).
    typed_at = {} if typed is None else {session.participant_seat(i): typed[i] for i in (0, 1)}
    for s, seat in enumerate(session.seats):
        token = new_token() if seat.kind == REMOTE else None
        if token is not None:
            tokens[s] = token
        rows.append(
            SeatRow(
                s,
                seat.kind,
                _row_name(seat, None if typed is None else typed_at[s]),
                seat.agent,
                token_hash(token) if token else None,
            )
        )
    return session, rows, tokens


def _row_name(seat: Seat, typed: str | None) -> str:
    """A new seat row's name: what was typed (``typed``, for a duel between two devices), else the
    session's name ("Automaton" for the automaton)."""
    if typed is not None:
        return typed
    return seat.name or ("Automaton" if seat.kind == AUTOMATON else "")


def game_row(live: GameState) -> GameRow:
    """The database row of a new game (its record head; actions are appended one by one)."""
    rec = live.session.record()
    head = rec.to_dict()
    setup: dict[str, Any] = {k: head[k] for k in ("ruleset", "threat", "position", "players") if k in head}
    return GameRow(
        id=live.id,
        kind=live.kind,
        mode=rec.mode,
        format=rec.format,
        seed=rec.seed,
        setup=setup,
        status="over" if live.session.is_over else "active",
        result=rec.result,
        seats=live.seats,
        actions=[(st.seat, st.action) for st in live.session.steps],
    )


def final_result(session: GameSession) -> dict[str, Any]:
    """The record's ``result`` of a finished game, as ``session.record().result`` gives it, without
    building the record (which replays the whole game: milliseconds on the event loop)."""
    outcome = session.outcome
    return {} if outcome is None else result_of(outcome, session.turn)


def imported_row(record: GameRecord, game_id: str, owner: str) -> GameRow:
    """The stored row of an imported record, owned by ``owner``: replayed once to check it (a
    record that does not replay raises :class:`~clashofdecks.errors.RecordError`), kept finished,
    for its replay (never continued on the site)."""
    from ..errors import RecordError

    seats = [
        Seat.remote("Player 0"),
        Seat("automaton") if record.mode == "solo" else Seat.remote("Player 1"),
    ]
    try:
        session = GameSession.from_record(record, seats=seats, session_id=game_id)
    except ClashError as exc:
        raise RecordError(str(exc)) from None
    names = list(record.players)
    rows = [
        SeatRow(s, seats[s].kind, names[s] if s < len(names) else seats[s].kind, None, None, owner)
        for s in (0, 1)
    ]
    row = game_row(GameState(game_id, "imported", session, rows))
    row.status = "over"  # an imported game is for replaying, never continued here
    if row.result is None:
        row.result = {"winner": None, "reason": "imported unfinished", "termination": "imported"}
    return row


def record_of_row(row: GameRow) -> GameRecord:
    data: dict[str, Any] = {
        "record_version": 1,
        "mode": row.mode,
        "format": row.format,
        "seed": row.seed,
        **row.setup,
        "actions": [text for _seat, text in row.actions],
        "result": row.result,
    }
    return GameRecord.from_dict(data)


def session_of_row(row: GameRow) -> GameSession:
    """Rebuild a stored game by replaying its actions (how a restarted server resumes)."""
    seats: list[Seat] = []
    for s in row.seats:
        if s.kind == AGENT and s.agent is not None:
            seats.append(Seat.agent_seat(s.agent, s.name))
        else:
            seats.append(Seat(s.kind, s.name))
    return GameSession.from_record(
        record_of_row(row),
        seats=seats,
        session_id=row.id,
        allow_undo_between_people=row.kind == "hotseat",
    )


#: Why a rated game was aborted (docs/web.md, "Fair play in rated games"), in its stored result.
ABORT_REASON: Final = (
    "the game ended before each player had finished a first turn of the play phase: aborted, not rated"
)


#: The same reason as a code the page says in its own language (``abort_reason`` stays, in English,
#: for pages of former releases).
ABORT_CODE: Final = "before_first_turns"


def first_turns_done(session: GameSession) -> bool:
    """Whether each seat has finished its first own turn of the play phase (setup picks do not
    count): until then a rated game that ends is aborted and unrated."""
    ended = {
        e.player
        for step in session.steps
        if not step.setup
        for e in step.events
        if e.kind == EventKind.TURN_ENDED
    }
    return {0, 1} <= ended


def aborted_result(result: dict[str, Any]) -> dict[str, Any]:
    """A rated game's result when it ends before :func:`first_turns_done`: stored as it ended (a
    resignation, an abandonment, a time-out), marked aborted, with the reason."""
    return {**result, "aborted": True, "abort_reason": ABORT_REASON, "abort_code": ABORT_CODE}


def abandoned_result(session: GameSession, absent: int) -> dict[str, Any]:
    """The absent seat loses (its opponent is told); stored like a resignation, with its own reason."""
    outcome = session.resign(absent)
    result = result_of(outcome, session.turn)
    result["reason"] = f"player {absent} left the game and did not come back in time"
    result["abandoned"] = True
    return result


# ---------------------------------------------------------------------------- frames


def event_json(event: Event, lang: str = "en", names: tuple[str, str] | None = None) -> dict[str, Any]:
    """An engine event for the client: its fields (public by construction: events describe what both
    players saw happen) and its sentence in ``lang`` with the players' ``names`` (the terminal's
    words, :func:`clashofdecks.words.event_sentence`)."""
    from ..words.events import Context, event_sentence

    ctx = None if names is None else Context(lang=lang, names=names, viewer=None)
    return _event_json(event, ctx, event_sentence)


_event_json = event_dict


def _words(live: GameState) -> PositionWords:
    """The words cache of ``live``'s session (a new one when a catch-up replaced the session)."""
    words = live.words
    if words is None or words.session is not live.session:
        words = live.words = PositionWords(live.session)
    return words


def seat_names(live: GameState, lang: str) -> tuple[str, str]:
    """The players' names for event sentences (the automaton in the page's language)."""
    return _words(live).names(live.seats, lang)


def events_json(live: GameState, events: Sequence[Event | dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    """Events for the client in ``lang``: engine events as sentences (the last step's from the words
    cache, web/frame_words.py); the server's own events (undo, resignation) as they are, an undo's
    sentences (``labels_by_lang``) as ``labels`` in ``lang``."""
    from ..words.events import Context, event_sentence

    if not events:
        return []
    words = _words(live)
    names = words.names(live.seats, lang)
    cached = words.last_step_events(events, lang, names)
    if cached is not None:
        return cached
    ctx = Context(lang=lang, names=names, viewer=None)
    out = []
    for e in events:
        if isinstance(e, Event):
            out.append(_event_json(e, ctx, event_sentence))
            metrics.sentences_rendered(1)
        elif "labels_by_lang" in e:
            by_lang = e["labels_by_lang"]
            labels = by_lang.get(lang) or by_lang.get("en") or []
            out.append({**{k: v for k, v in e.items() if k != "labels_by_lang"}, "labels": labels})
        else:
            out.append(e)
    return out


def history_json(live: GameState, lang: str, latest: int = 0) -> list[dict[str, Any]]:
    """The game's events so far for the client in ``lang`` (a page's log when it opens the game):
    every one, or the ``latest`` ones (> 0); only the steps shown are rendered, each once per
    language (web/frame_words.py), so opening a long game renders no more than a short one."""
    words = _words(live)
    steps = words.history(lang, words.names(live.seats, lang), at_least=latest)
    events = [e for step in steps for e in step]
    return events[-latest:] if latest > 0 else events


def undo_event(live: GameState, taken: list[str]) -> dict[str, Any]:
    """The log's entry for an undo (called right after it, when the game is where the taken-back
    actions started): the actions in notation and as sentences in every language."""
    from ..words.i18n import languages

    by_lang = {
        lang: live.session.describe_sequence(taken, lang, names=seat_names(live, lang))
        for lang in languages()
    }
    metrics.sentences_rendered(len(by_lang))
    text = "taken back: " + "; ".join(by_lang.get("en", taken))
    return {"kind": "undo", "rule": "", "actions": taken, "labels_by_lang": by_lang, "text": text}


def setup_view(
    session: GameSession, seat: int | None, dumped: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The setup stage as ``seat`` may see it: the engine's view (R9: the face-down draft pile only
    as a count, a custom deck hidden from the opponent until both are built), in the page's terms.
    ``dumped``: the position's dump, made once for every seat of a broadcast."""
    setup = session.view(seat, dumped)["setup"]
    steps = [s for s in setup["steps"] if s[0] in ("deck", "pick", "build", "ban")]
    decision, player = steps[0] if steps else ("", -1)
    return {
        "format": setup["format"],
        "decision": decision,
        "player": player,
        "revealed": list(setup["revealed"]),
        "cards": [list(c) for c in setup["cards"]],
        "decks_taken": list(setup["decks"]),
        "face_down": len(setup["pool"]),
    }


def frame_for(
    live: GameState,
    seats: set[int],
    events: list[dict[str, Any]] | None = None,
    abilities: dict[str, list[list[list[str]]]] | None = None,
    lang: str = "en",
    now: float = 0.0,
) -> dict[str, Any]:
    """The ``state`` frame for a connection holding ``seats`` (empty: a spectator).

    ``abilities`` (:func:`board_abilities`, the same for every seat) may be computed once per broadcast.

    A connection that holds both seats (hot-seat on one device) sees the view of the seat to move.
    """
    own = seat_part(live, seats, lang)
    common = common_part(live, events, abilities, now)
    return {**own, **common}


def seat_part(
    live: GameState, seats: set[int], lang: str = "en", dumped: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The fields of a ``state`` frame that depend on who looks: the seat, its view (R9), its legal
    actions (notation, for the client to send back) with their sentences in ``lang`` (``labels``),
    the ``prompt`` line (what the seat can do now, or whom it waits for), its playable cards, whether
    it may undo.  ``dumped``: the position's dump (:func:`position_dump`), made once for every seat
    of a broadcast."""
    session = live.session
    if dumped is None:
        dumped = position_dump(live)
    words = _words(live)
    to_move = session.to_move
    if not seats:
        seat: int | None = None
    elif len(seats) == 1:
        seat = next(iter(seats))
    else:
        seat = to_move if to_move in seats else min(seats)
    in_setup = session.phase == "setup"  # also a game resigned during its setup
    legal = words.legal(seat) if seat is not None and seat == to_move else []
    build = seat is not None and seat == to_move and session.is_build_stage()
    names = words.names(live.seats, lang)
    own: dict[str, Any] = {
        "type": "state",
        "seat": seat,
        "seats": sorted(seats),
        "setup": setup_view(session, seat, dumped) if in_setup else None,
        "build": build,
        "view": None if in_setup else session.view(seat, dumped),
        "legal": legal,
        "labels": words.labels(seat, lang, names) if seat is not None and legal else [],
        "prompt": words.prompt(
            lang,
            seat,
            names,
            to_move=-1 if session.is_over else to_move,
            thinking=live.agent_busy,
            build=build,
        ),
        "can_undo": seat is not None and not session.is_over and session.can_undo(seat),
        # A rated game can be aborted by either player until each has finished a first turn.
        "can_abort": seat is not None
        and live.rated
        and not session.is_over
        and not first_turns_done(session),
    }
    if not in_setup and seat is not None:
        own["playable"] = session.playable_cards(seat)
    return own


def position_dump(live: GameState) -> dict[str, Any]:
    """The position as it is now, dumped once for the views of every seat and spectator of a frame
    (``position.view``; counted: ``metrics.position_dumped``)."""
    metrics.position_dumped()
    return live.session.dump()


def common_part(
    live: GameState,
    events: list[dict[str, Any]] | None = None,
    abilities: dict[str, list[list[list[str]]]] | None = None,
    now: float = 0.0,
) -> dict[str, Any]:
    """The fields of a ``state`` frame that are the same for every connection (public facts): a
    broadcast serialises them once for all the game's connections of one language.  ``now`` is the
    server's time, for a clocked game's time left."""
    session = live.session
    common: dict[str, Any] = {
        "game": live.id,
        "kind": live.kind,
        "rated": live.rated,
        "mode": "solo" if session.is_solo else "duel",
        "index": steps_done(session),
        "turn": session.turn,
        "phase": "over" if session.is_over else session.phase,
        "active": session.active,
        "to_move": session.to_move,
        # "bot" only on a bot account's seat: every other seat's entry is as it was before bot accounts.
        "players": [{"name": s.name, "kind": s.kind, **({"bot": True} if s.bot else {})} for s in live.seats],
        "events": events or [],
        "thinking": live.agent_busy,
        "result": None,
        "clock": None if live.clock is None else live.clock.to_json(now),
    }
    outcome = session.outcome
    if outcome is not None:
        override = live.result_override or {}
        common["result"] = {
            "winner": outcome.winner,
            "termination": "abandoned" if override.get("abandoned") else outcome.termination.value,
            "reason": override.get("reason", outcome.reason),
        }
        if override.get("aborted"):
            common["result"]["aborted"] = True
            common["result"]["abort_reason"] = override.get("abort_reason", ABORT_REASON)
            common["result"]["abort_code"] = override.get("abort_code", ABORT_CODE)
    if session.phase != "setup":
        common["abilities"] = abilities if abilities is not None else board_abilities(session)
    return common


#: One encoder for every frame (``json.dumps`` with options makes a new one per call); frames are
#: trees of fresh dicts and lists, never cyclic, so the check for cycles is left out.
_ENCODE: Final = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def dumps(data: Any) -> str:
    """Compact JSON, as every frame is sent: with orjson (the ``web`` extra), about four times
    faster than the standard library's encoder (JSON was about a seventh of a move's cost in the
    server); its text differs only in leaving non-ASCII characters unescaped (UTF-8 on the wire
    either way).  Without orjson, and for what it refuses, the standard library's."""
    if _fast_dumps is not None:
        try:
            return _fast_dumps(data, option=_FAST_OPTIONS).decode()
        except TypeError:  # what orjson refuses (an integer beyond 64 bits): the standard library's
            pass
    return _ENCODE(data)


def join_frame(own: dict[str, Any], common_json: str) -> str:
    """One frame's JSON text from its own part and the common part's JSON text (an object), without
    serialising the common part again."""
    return dumps(own)[:-1] + "," + common_json[1:]


def board_abilities(session: GameSession) -> dict[str, list[list[list[str]]]]:
    """Per player and lane, each creature's current abilities and which of them are granted (Aura,
    solo threat): public facts of the board."""
    return session.abilities()


def game_abilities(game: Game) -> dict[str, list[list[list[str]]]]:
    """:func:`board_abilities` of a game without a session (the tutorial's positions)."""
    return abilities_of(game)


def card_catalogue() -> dict[str, Any]:
    """Card facts for the client (the board is drawn from these)."""
    return {
        "cards": {
            c.id: {
                "name": c.name,
                "kind": c.kind,
                "cost": c.cost,
                "attack": c.attack,
                "health": c.health,
                "abilities": list(c.abilities),
                "aura": list(c.aura),
                "deck": c.deck,
            }
            for c in CARDS
        },
        "ability_names": ABILITY_NAMES,
    }


def replay_frames(
    record: GameRecord, lang: str = "en", names: tuple[str, str] | None = None
) -> list[dict[str, Any]]:
    """A finished game step by step for the replay page: the full position after each action (every
    card may be shown once the game is over) with the action (notation, and as a sentence in
    ``lang``: ``label``) and its events, in ``lang`` with the players' ``names``."""
    frames: list[dict[str, Any]] = replay_page(record, lang, names)["frames"]
    return frames


def replay_page(
    record: GameRecord,
    lang: str = "en",
    names: tuple[str, str] | None = None,
    start: int = 0,
    count: int = 0,
    log_events: int = 0,
) -> dict[str, Any]:
    """The frames ``start`` to ``start + count - 1`` of :func:`replay_frames` (``count`` 0: to the
    end), ``total`` (how many frames the replay has) and ``log``: the events before ``start`` as
    sentences (the latest ``log_events`` of them; 0: all).  Only the frames asked for are built:
    the steps before them are replayed, not described."""
    from ..position import dump_position
    from ..record import Replay
    from ..words.actions import default_names, describe_action

    replay = Replay(record, record_events=True)
    game = replay.game
    names = names or default_names(game, lang)
    end = start + count if count > 0 else None
    frames: list[dict[str, Any]] = []
    earlier: list[Event] = []  # the events before the window (only the latest are kept)

    def wanted(frame: int) -> bool:
        return frame >= start and (end is None or frame < end)

    def keep(
        frame: int, action: str | None, label: str | None, seat: int | None, events: Sequence[Event]
    ) -> None:
        if not wanted(frame):
            if frame < start:
                earlier.extend(events)
                if log_events and len(earlier) > 2 * log_events:
                    del earlier[:-log_events]
            return
        setup = game.phase == "setup"
        frames.append(
            {
                "action": action,
                "label": label,
                "seat": seat,
                "turn": game.turn,
                "phase": game.phase,
                "setup": {k: v for k, v in setup_summary(game).items()} if setup else None,
                "view": None if setup else dump_position(game),
                "events": [event_json(e, lang, names) for e in events],
            }
        )

    #: The step being applied: its frame, text, sentence (said before it is played) and seat.
    before: list[tuple[int, str, str | None, int]] = []

    def apply(action: int) -> None:
        frame, text, label, seat = before.pop()
        keep(frame, text, label, seat, game.apply(action))

    keep(0, None, None, None, game.take_events())
    total = 1
    for step in replay.steps(apply=apply):
        total += 1
        label = (
            describe_action(game, step.text, lang, names=names, addressee=None) if wanted(total - 1) else None
        )
        before.append((total - 1, step.text, label, game.current_player))
    shown = earlier[-log_events:] if log_events else earlier
    return {
        "from": start,
        "total": total,
        "frames": frames,
        "log": [event_json(e, lang, names) for e in shown],
    }


def mistake_labels(
    record: GameRecord, mistakes: list[dict[str, Any]], lang: str, names: tuple[str, str]
) -> list[dict[str, Any]]:
    """The analysis's ``mistakes`` with their played and better actions as sentences in ``lang``
    (``label``, ``best_label``): a replay page never shows notation."""
    from ..record import Replay
    from ..words.actions import describe_action

    best_by_index = {m["index"]: m.get("best_action") for m in mistakes if isinstance(m.get("index"), int)}
    last = max(best_by_index, default=-1)
    labels: dict[int, tuple[str, str | None]] = {}
    steps = Replay(record)
    for step in steps:
        if step.index > last:
            break
        if step.index in best_by_index:
            best = best_by_index[step.index]
            labels[step.index] = (
                describe_action(steps.game, step.text, lang, names=names, addressee=None),
                describe_action(steps.game, best, lang, names=names, addressee=None) if best else None,
            )
    out = []
    for m in mistakes:
        label, best_label = labels.get(m.get("index", -1), (m.get("action"), m.get("best_action")))
        out.append({**m, "label": label, "best_label": best_label})
    return out


__all__ = [
    "AI_LEVELS",
    "KINDS",
    "GameSetupError",
    "GameState",
    "NewGame",
    "Ruleset",
    "card_catalogue",
    "create_session",
    "frame_for",
    "mistake_labels",
    "names_of_seats",
    "replay_frames",
    "replay_page",
    "session_of_row",
    "undo_event",
]
