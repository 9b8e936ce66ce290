"""``clash bot``: an agent takes a seat on a Clash of Decks server and plays (:mod:`clashofdecks.web.bot`)."""

from __future__ import annotations

import sys

import click

from ..errors import ClashError


@click.command(
    epilog="Exit status: 0 after the games, 1 when the bot cannot play (a bad link or agent, a refusal), "
    "2 for bad options, 130 after Ctrl-C."
)
@click.argument("invites", nargs=-1, required=True)
@click.option(
    "--agent",
    "spec",
    default="strongest",
    show_default=True,
    help="a registered agent spec (clash arena's names, e.g. ismcts:400) or module:attribute naming "
    "your own Agent (or a callable returning one).",
)
@click.option("--name", default="Bot", show_default=True, help="the bot's display name (a new guest).")
@click.option(
    "--session", default=None, help="play as this identity (a bearer session) instead of a new guest."
)
@click.option("--seed", type=click.IntRange(0, 2**62), default=0, show_default=True)
def bot(invites: tuple[str, ...], spec: str, name: str, session: str | None, seed: int) -> None:
    """Take the seat of each INVITE link (https://host/g/<game>#t=<token>) in turn and play it to its end.

    \b
    clash bot --agent strongest 'http://127.0.0.1:8000/g/3f2a...#t=...'
    clash bot --agent mypolicy:MyAgent 'http://...'
    """
    from ..web.bot import Bot, BotError, load_agent, new_guest, parse_invite

    try:
        links = [parse_invite(link) for link in invites]
        agent = load_agent(spec, seed)
    except (BotError, ClashError) as exc:
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
