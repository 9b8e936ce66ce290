"""Starting a game at the terminal (``clash play``): a new session from the options, or a saved one
(``--load FILE``, ``--resume``), then :class:`~.game.TerminalGame` plays it to its end.

Seats and participants: in a duel the coin toss (R2.3a) decides who sits in seat 0 (the starter);
the command line's "you" and "the opponent" (or Player 1 and Player 2 in hot-seat) are
participants 0 and 1, and their names follow them to their seats, also after ``load``/``--resume``.
Every action is saved by the session to a :class:`~clashofdecks.session.FileStore` (the data folder,
see :func:`~clashofdecks.session.default_data_dir`), so nothing is lost when the terminal closes or
Ctrl-C is pressed: ``clash play --resume`` continues the latest unfinished game.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from ..errors import ClashError
from ..options import Ruleset, Threat, ThreatError
from ..record import GameRecord
from ..session import GameSession, Seat
from ..threat_text import parse_threat
from ..words.i18n import has_key, t
from .game import EXIT_LOAD_FAILED, SafeStore, TerminalGame, screen_height, seat_names, session_from_record
from .line_reader import stdin_reader


def _threat_from_options(
    level: int | None,
    base_mana: int | None,
    extra_mana: int | None,
    automaton_starts: bool,
    resilience: str | None,
    defence: str | None,
    abilities: tuple[str, ...],
    threat_text: str | None = None,
) -> Threat:
    """The solo threat: ``--threat`` (the syntax of every command, :func:`parse_threat`), or its
    aliases, the separate flags; ``--level`` alone, or as a check that they cost exactly that."""
    individual = (
        any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
    if threat_text is not None:
        if individual:
            raise ThreatError("give --threat or the separate threat flags (its aliases), not both")
        threat = parse_threat(threat_text)
        if level is not None:
            threat.check_level(level)
        return threat
    if not individual:
        return Threat.level(level or 0)
    threat = Threat(
        extra_mana_per_creature=extra_mana if extra_mana is not None else 1,
        base_mana=base_mana if base_mana is not None else 6,
        starts="automaton" if automaton_starts else "player",
        resilience=resilience or "bastion",
        defence=defence or "full",
        abilities=abilities,
    )
    if level is not None:
        threat.check_level(level)
    return threat


def _title(session: GameSession, names: tuple[str, str], lang: str) -> str:
    game = session.game
    mode, fmt = game.origin.mode, game.origin.format
    format_word = t(lang, f"format_{fmt}") if has_key(f"format_{fmt}") else fmt
    text = t(lang, "title", mode=t(lang, f"mode_{mode}"), format=format_word, seed=session.seed)
    threat = game.threat if game.is_solo else None
    if threat is not None:
        text += " · " + t(lang, "title_threat", n=threat.threat_points())
    if mode == "duel":
        text += " · " + t(lang, "title_starts", name=names[0])
    return text


def _run_terminal(terminal: TerminalGame, session: GameSession, store: SafeStore, *, resumed: bool) -> int:
    """Play the game at this terminal to its end or until the player quits; the exit status."""
    if resumed:
        terminal.hand_over_first()
    else:
        terminal.show_events(session.initial_events, paced=False)
    if store.error is not None:
        terminal.autosave_note()  # say at once that this game is not kept
    return terminal.run()


class PlayOptionsError(ClashError):
    """The options make no game (a threat that does not add up, an agent that cannot be made)."""


#: The solo threat's options as ``clash play`` takes them (see :func:`_threat_from_options`).
ThreatOptions = tuple[
    int | None, int | None, int | None, bool, str | None, str | None, tuple[str, ...], str | None
]


@dataclass(frozen=True)
class PlayOptions:
    """What ``clash play`` was asked for (checked for consistency by the command)."""

    mode: str
    fmt: str = "draft"
    deck: int | None = None
    threat_options: ThreatOptions = (None, None, None, False, None, None, (), None)
    vs: str | None = None
    seed: int | None = None
    lang: str = "en"
    no_color: bool = False
    layout: str = "auto"
    rule_numbers: bool = False
    pace: float | None = None
    hint_seconds: float = 2.0
    max_turns: int | None = None
    load_path: str | None = None
    resume: bool = False


def play_in_terminal(options: PlayOptions) -> int:
    """Play a game at this terminal (new, ``--load``-ed or ``--resume``-d) to its end or until the
    player quits; the exit status.  Options that make no game (a bad threat, an unknown agent) raise
    :class:`~clashofdecks.errors.ClashError` before anything is drawn."""
    lang = options.lang
    console = Console(
        no_color=options.no_color or bool(os.environ.get("NO_COLOR")), highlight=False, emoji=False
    )
    reader = stdin_reader(console)
    interactive = reader.interactive and console.is_terminal
    pace = options.pace if options.pace is not None else (0.3 if interactive else 0.0)
    store = SafeStore()

    def say(key: str, style: str = "", **values: object) -> None:
        console.print(t(lang, key, **values), style=style, highlight=False, soft_wrap=True)

    resumed = options.resume or options.load_path is not None
    if resumed:
        loaded = _saved_session(store, options.load_path, say)
        if loaded is None:
            return EXIT_LOAD_FAILED
        session, shown_path = loaded
    else:
        try:
            session = _new_session(options, store)
        except ClashError as exc:
            raise PlayOptionsError(str(exc)) from None
    names = seat_names(session, lang)
    console.print(_title(session, names, lang), style="bold", highlight=False)
    if resumed:
        say(
            "resumed" if options.resume else "loaded",
            style="bold green",
            path=shown_path,
            n=len(session.steps),
        )
    terminal = TerminalGame(
        session=session,
        console=console,
        read_line=reader,
        lang=lang,
        names=names,
        pace=pace,
        hint_seconds=options.hint_seconds,
        layout=options.layout,
        rule_numbers=options.rule_numbers,
        height=screen_height(console),
        follow_terminal=True,
        store=store,
        preset_deck=options.deck,
        preset_seat=None if resumed else session.participant_seat(0),
        clear_screen=interactive,
    )
    return _run_terminal(terminal, session, store, resumed=resumed)


def _saved_session(
    store: SafeStore, load_path: str | None, say: Callable[..., None]
) -> tuple[GameSession, str] | None:
    """The game of ``--load FILE`` (saved to the autosave folder at once), else the latest unfinished
    one (``--resume``), and the path to name; ``None`` (said why) for a game that cannot be loaded."""
    try:
        if load_path is None:
            latest = store.latest()
            if latest is None:
                say("resume_none", style="bold red", path=store.folder)
                return None
            return session_from_record(store.load(latest), store=store, session_id=latest), str(
                store.path(latest)
            )
        session = session_from_record(GameRecord.load(Path(load_path).expanduser()), store=store)
        store.save(session)
        return session, load_path
    except ClashError as exc:
        say("file_error", style="bold red", cmd="load", reason=str(exc))
        return None


def _new_session(options: PlayOptions, store: SafeStore) -> GameSession:
    """A new game: the player against the automaton (solo), the ``vs`` agent, or another person at
    this keyboard (``--vs human``); saved at once."""
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(1_000_000)
    opponent = options.vs or "greedy"
    if options.mode == "solo":
        participants = [Seat.human()]
    elif opponent == "human":
        participants = [Seat.human(), Seat.human()]
    else:
        participants = [Seat.human(), Seat.agent_seat(opponent)]
    threat = _threat_from_options(*options.threat_options) if options.mode == "solo" else None
    session = GameSession.new(
        mode=options.mode,
        format=options.fmt,
        seed=seed,
        participants=participants,
        ruleset=Ruleset(max_turns=options.max_turns),
        threat=threat,
        store=store,
        allow_undo_between_people=opponent == "human",
    )
    store.save(session)
    return session


__all__ = ["PlayOptions", "PlayOptionsError", "ThreatOptions", "play_in_terminal"]
