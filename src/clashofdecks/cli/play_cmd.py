"""``clash play``: a game in the terminal, solo against the automaton or a duel.

The options are checked here; the game is :func:`clashofdecks.terminal.play_in_terminal` (the
terminal front end, :mod:`clashofdecks.terminal`).
"""

from __future__ import annotations

import sys

import click

from ..agents.registry import make_agent
from ..errors import ClashError
from ..options import THREAT_ABILITIES
from ..terminal.start import PlayOptions, PlayOptionsError, ThreatOptions, play_in_terminal
from ..words.i18n import LANGUAGES


def _opponent_spec(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--vs``: ``human`` or any agent spec (a registered name or, e.g.,
    ``ismcts:1000,setup=learned``), checked here so that a bad one is a usage error."""
    if value is None or value == "human":
        return value
    try:
        make_agent(value)
    except ClashError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


# ---------------------------------------------------------------------------- the command


@click.command(
    epilog="Exit status: 0 after quit or at the end of input, 1 when a saved game cannot be loaded or "
    "resumed, 2 for bad options, 130 after Ctrl-C (the game stays saved: clash play --resume)."
)
@click.option(
    "--mode",
    type=click.Choice(["solo", "duel"]),
    default=None,
    help="solo (against the automaton, R7) or duel; default solo, or duel when --vs is given.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["draft", "precon", "custom"]),
    default="draft",
    show_default=True,
    help="R2.2: how the decks are made (custom is duel only).",
)
@click.option(
    "--deck",
    type=click.IntRange(1, 4),
    default=None,
    help="precon: play preconstructed deck N (R2.3) without being asked.",
)
@click.option(
    "--level",
    type=click.IntRange(0, 5),
    default=None,
    help="solo threat level (R8.3); with individual options, checks they cost exactly this.",
)
@click.option(
    "--threat",
    "threat_text",
    default=None,
    help="solo R8.2: any threat allocation, as in clash arena and clash simulate: JSON or key=value "
    "pairs, e.g. 'base_mana=8,starts=automaton,abilities=rage+splash'.",
)
@click.option("--base-mana", type=click.IntRange(6, 10), default=None, help="alias of --threat base_mana=N.")
@click.option(
    "--extra-mana",
    type=click.IntRange(1, 2),
    default=None,
    help="alias of --threat extra_mana_per_creature=N.",
)
@click.option("--automaton-starts", is_flag=True, help="alias of --threat starts=automaton.")
@click.option(
    "--resilience",
    type=click.Choice(["bastion", "fort"]),
    default=None,
    help="alias of --threat resilience=bastion|fort.",
)
@click.option(
    "--defence",
    type=click.Choice(["full", "minus_one"]),
    default=None,
    help="alias of --threat defence=full|minus_one.",
)
@click.option(
    "--ability",
    "abilities",
    type=click.Choice(list(THREAT_ABILITIES)),
    multiple=True,
    help="alias of --threat abilities=A+B (repeatable).",
)
@click.option(
    "--vs",
    default=None,
    callback=_opponent_spec,
    help="duel opponent: human (hot-seat), random, greedy, mcts, ismcts, a named strength: beginner, "
    "casual, strong, strongest, or an agent spec such as ismcts:1000,setup=learned (docs/agents.md). "
    "[default: greedy]",
)
@click.option("--seed", type=int, default=None, help="seed of the shuffles and coin toss (default: random).")
@click.option(
    "--lang",
    type=click.Choice(list(LANGUAGES)),
    default="en",
    show_default=True,
    help="language of the screen (card names stay as printed).",
)
@click.option("--no-color", is_flag=True, help="no colours (also when NO_COLOR is set).")
@click.option(
    "--layout",
    type=click.Choice(["auto", "full", "compact"]),
    default="auto",
    show_default=True,
    help="full: boxes and explanations; compact: fits 80×24; auto: full when it fits the terminal.",
)
@click.option(
    "--rule-numbers",
    is_flag=True,
    help="show the rule number of each event, e.g. [R3.7] (the rules digest: clash play, help).",
)
@click.option(
    "--pace",
    type=click.FloatRange(0, 5),
    default=None,
    help="seconds to pause on each attack of the other side (default 0.3 at a terminal, else 0).",
)
@click.option(
    "--hint-seconds",
    type=click.FloatRange(0.1, 120),
    default=2.0,
    show_default=True,
    help="thinking time of the 'hint' command (Ctrl-C cancels a hint).",
)
@click.option(
    "--max-turns",
    type=click.IntRange(1, 10_000),
    default=None,
    help="end the game as a draw after this turn (for demonstrations).",
)
@click.option(
    "--load",
    "load_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="continue a saved game record (save FILE) instead of starting a new game.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="continue the latest unfinished game (every game is saved after each action in "
    "$CLASH_DATA_DIR/games, default ~/.local/share/clashofdecks/games).",
)
def play(
    mode: str | None,
    fmt: str,
    deck: int | None,
    level: int | None,
    threat_text: str | None,
    base_mana: int | None,
    extra_mana: int | None,
    automaton_starts: bool,
    resilience: str | None,
    defence: str | None,
    abilities: tuple[str, ...],
    vs: str | None,
    seed: int | None,
    lang: str,
    no_color: bool,
    layout: str,
    rule_numbers: bool,
    pace: float | None,
    hint_seconds: float,
    max_turns: int | None,
    load_path: str | None,
    resume: bool,
) -> None:
    """Play Clash of Decks in the terminal (default: a solo quick game, draft, against the automaton).

    Type the number of an action or its notation (e.g. `play BRUTE top`, `cast BOOM 1.top.0`,
    `end`); `help` explains the rules and abilities; `hint`, `undo`, `save FILE [--force]`,
    `load FILE`, `quit`.  Every game is saved after each action; `clash play --resume` continues it.
    """
    threat_options = (
        level,
        base_mana,
        extra_mana,
        automaton_starts,
        resilience,
        defence,
        abilities,
        threat_text,
    )
    mode = _checked_mode(mode, vs, threat_options, deck, fmt, resume, load_path)
    options = PlayOptions(
        mode=mode,
        fmt=fmt,
        deck=deck,
        threat_options=threat_options,
        vs=vs,
        seed=seed,
        lang=lang,
        no_color=no_color,
        layout=layout,
        rule_numbers=rule_numbers,
        pace=pace,
        hint_seconds=hint_seconds,
        max_turns=max_turns,
        load_path=load_path,
        resume=resume,
    )
    try:
        status = play_in_terminal(options)
    except PlayOptionsError as exc:
        raise click.UsageError(str(exc)) from None
    sys.exit(status)


def _checked_mode(
    mode: str | None,
    vs: str | None,
    threat_options: ThreatOptions,
    deck: int | None,
    fmt: str,
    resume: bool,
    load_path: str | None,
) -> str:
    """The game's mode (a duel when an opponent is named); options that do not go together are a
    usage error."""
    level, base_mana, extra_mana, automaton_starts, resilience, defence, abilities, threat_text = (
        threat_options
    )
    solo_options = (
        level is not None
        or threat_text is not None
        or any(v is not None for v in (base_mana, extra_mana, resilience, defence))
        or automaton_starts
        or bool(abilities)
    )
    if mode is None:
        mode = "duel" if vs is not None else "solo"
    if mode == "solo" and vs is not None:
        raise click.UsageError("--vs chooses the duel opponent; solo is always against the automaton")
    if mode == "duel" and solo_options:
        raise click.UsageError("--level and the threat options (R8.2) are for solo games")
    if deck is not None and fmt != "precon":
        raise click.UsageError("--deck N chooses a preconstructed deck: use it with --format precon")
    if resume and load_path is not None:
        raise click.UsageError(
            "--resume continues the latest saved game; --load FILE a given one: choose one"
        )
    return mode


__all__ = ["play"]
