"""``clash bot``: an agent takes a seat on a Clash of Decks server and plays (:mod:`clashofdecks.web.bot`)."""

from __future__ import annotations

import signal
import sys
from typing import Any

import click

from ..errors import ClashError

TOKEN_ENV = "CLASH_BOT_TOKEN"


@click.command(
    epilog="Exit status: 0 after the games (or after stopping as asked, with --server), 1 when the bot "
    "cannot play (a bad link, agent or token, a refusal), 2 for bad options, 130 after Ctrl-C with links."
)
@click.argument("invites", nargs=-1)
@click.option(
    "--agent",
    "spec",
    default="strongest",
    show_default=True,
    help="a registered agent spec (clash arena's names, e.g. ismcts:400) or module:attribute naming "
    "your own Agent (or a callable returning one).",
)
@click.option(
    "--server",
    "server_url",
    default=None,
    help="play rated games from this server's queue (https://host) as a bot account, until stopped.",
)
@click.option(
    "--token",
    default=None,
    envvar=TOKEN_ENV,
    show_envvar=True,
    help="the bot account's session (from POST /api/bots), for --server; never printed.  Prefer the "
    "environment variable: a command line is visible to other users of the machine.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["draft", "precon"]),
    default="precon",
    show_default=True,
    help="the rated queue to join (--server).",
)
@click.option("--games", type=click.IntRange(1), default=None, help="stop after this many games (--server).")
@click.option("--name", default="Bot", show_default=True, help="the bot's display name (a new guest).")
@click.option(
    "--session", default=None, help="play as this identity (a bearer session) instead of a new guest."
)
@click.option("--seed", type=click.IntRange(0, 2**62), default=0, show_default=True)
def bot(
    invites: tuple[str, ...],
    spec: str,
    server_url: str | None,
    token: str | None,
    fmt: str,
    games: int | None,
    name: str,
    session: str | None,
    seed: int,
) -> None:
    """Play with an agent: take the seat of each INVITE link (https://host/g/<game>#t=<token>) in turn,
    or with --server join the server's rated queue as a bot account and play game after game.

    \b
    clash bot --agent strongest 'http://127.0.0.1:8000/g/3f2a...#t=...'
    clash bot --agent mypolicy:MyAgent 'http://...'
    CLASH_BOT_TOKEN=... clash bot --server https://clash.example --agent ismcts:400

    \b
    With --server, Ctrl-C or SIGTERM once: the bot leaves the queue, or finishes the game in play,
    and stops (exit 0); twice: it leaves the game in play at once.  A dropped connection is
    opened again.  An account becomes a bot before its first game: docs/web.md, "Bots".
    """
    from ..web.bot import BotError, load_agent

    if bool(invites) == bool(server_url):
        raise click.UsageError("give either INVITE links or --server URL (one of the two)")
    try:
        agent = load_agent(spec, seed)
    except (BotError, ClashError) as exc:
        raise click.UsageError(str(exc)) from None
    if server_url:
        _play_queue(agent, server_url, token, fmt, games, seed)
    else:
        _play_invites(agent, invites, name, session, seed)


def _play_invites(agent: Any, invites: tuple[str, ...], name: str, session: str | None, seed: int) -> None:
    from ..web.bot import Bot, BotError, new_guest, parse_invite

    try:
        links = [parse_invite(link) for link in invites]
    except BotError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        player = Bot(agent, session or new_guest(links[0].base, name), name=name, seed=seed, say=click.echo)
        for link in links:
            result = player.play(link)
            click.echo(f"game {link.game}: {result.get('reason') or result}")
    except BotError as exc:
        click.echo(f"clash bot: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


def _play_queue(agent: Any, url: str, token: str | None, fmt: str, games: int | None, seed: int) -> None:
    from ..web.bot import Bot, BotError, Stop, bot_identity, server_base

    if not token:
        raise click.UsageError(f"--server needs the bot account's token: --token or {TOKEN_ENV}")
    try:
        base = server_base(url)
    except BotError as exc:
        raise click.UsageError(str(exc)) from None
    stop = Stop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda _signum, _frame: stop.ask())
    try:
        me = bot_identity(base, token)
        click.echo(f"{me['identity']} waits in the {fmt} queue of {base} (Ctrl-C to stop)")
        played = Bot(agent, token, seed=seed, say=click.echo).play_queue(base, fmt, stop, games)
    except BotError as exc:
        click.echo(f"clash bot: {exc}", err=True)
        sys.exit(1)
    click.echo(f"{played} game{'' if played == 1 else 's'} played")
