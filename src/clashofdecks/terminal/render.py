"""Pure rendering: a game (or an event) in, a Rich renderable out.

Nothing here reads input, prints, or changes the game, so the same functions serve ``clash play``,
``clash replay`` and the tests (which render into a recording console and read the text back).

What a viewer may see follows R9: the opponent's hand comes from
:func:`clashofdecks.position.view`, so hidden cards are shown as ``?``; a ``viewer`` of ``None``
(replays, spectators) sees everything.

Screen legend (also in docs/play.md): a creature is drawn as a small box titled with its address
(``P.LANE.N``, the target notation of ``cast``), its printed name, ``attack/health`` with damage
taken this turn as ``−N``, its abilities (``*`` = granted by a neighbour's Aura) and its per-turn
markers (new, done, Protection used).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..cards import CARD_INDEX, CARDS
from ..events import Event, EventKind
from ..position import view
from ..rules import Game
from ..words import events as event_words
from ..words.actions import cast_target, describe_action, next_attack
from ..words.cards import card_abilities, card_facts, card_name, card_stats, colon
from ..words.events import event_sentence, outcome_reason
from ..words.i18n import ability_help, ability_keys, ability_name, rules_summary, t

#: Colours of the two sides: the viewer (or seat 0 in a replay) is green, the other side red.
SIDE_STYLES = ("green", "red")


@dataclass(frozen=True, slots=True)
class Context(event_words.Context):
    """How to draw: who reads (:class:`clashofdecks.words.Context`) and the screen's width."""

    #: The screen width: a lane whose boxes would not fit is drawn one creature per line.
    width: int = 100
    #: Show each event's rule number (``[R3.7]``): for readers of the rules, off for players.
    rule_numbers: bool = False

    def side_style(self, seat: int) -> str:
        ref = 0 if self.viewer is None else self.viewer
        return SIDE_STYLES[0 if seat == ref else 1]


# ---------------------------------------------------------------------------- the board


def _creature_parts(creature: dict[str, Any], ctx: Context, *, printed: bool = True) -> list[Text]:
    """The lines of a creature: name, attack/health and damage, abilities, Aura, markers
    (``printed=False`` leaves out its printed abilities and Aura, keeping those granted to it)."""
    cid = str(creature["card"])
    c = CARDS[CARD_INDEX[cid]]
    lang = ctx.lang
    parts = [Text(c.name, style="bold")]
    stats = Text()
    bonus = int(creature.get("sprint_bonus", 0) or 0)
    stats.append(str(c.attack + bonus), style="bold yellow" if bonus else "")
    if bonus:
        stats.append(f"(+{bonus})", style="yellow")
    stats.append(f"/{c.health}")
    damage = int(creature.get("damage", 0) or 0)
    if damage:
        stats.append(f" −{damage}", style="bold red")
    parts.append(stats)
    granted = set(creature.get("granted", ()) or ())
    abilities: Sequence[str] = creature.get("abilities", c.abilities) or ()
    for ab in abilities:
        if ab in granted:
            parts.append(Text(ability_name(lang, ab) + "*", style="italic cyan"))
        elif printed:
            parts.append(Text(ability_name(lang, ab), style="cyan"))
    if c.aura and printed:
        names = ",".join(ability_name(lang, a) for a in c.aura)
        parts.append(Text(t(lang, "aura_grants", names=names), style="magenta"))
    marks = []
    if creature.get("new"):
        marks.append(t(lang, "new_marker"))
    if creature.get("activated"):
        marks.append(t(lang, "activated_marker"))
    if creature.get("protected"):
        marks.append(t(lang, "protection_used"))
    if marks:
        parts.append(Text(" ".join(marks), style="dim"))
    return parts


def render_creature(creature: dict[str, Any], address: str, seat: int, ctx: Context) -> Panel:
    """One creature as a small box (see the module docstring for the legend)."""
    body = Text("\n", justify="left").join(_creature_parts(creature, ctx))
    body.justify = "left"
    return Panel(
        body,
        title=Text(address, justify="left"),
        title_align="left",
        box=box.ROUNDED,
        border_style=ctx.side_style(seat),
        padding=(0, 1),
        expand=False,
    )


def _panel_width(creature: dict[str, Any], address: str, ctx: Context) -> int:
    inner = max(max(p.cell_len for p in _creature_parts(creature, ctx)), len(address) + 3)
    return inner + 4


def render_creature_line(
    creature: dict[str, Any], address: str, seat: int, ctx: Context, *, printed: bool = True
) -> Text:
    """One creature on one line (the compact board, for crowded lanes or narrow terminals);
    ``printed=False``: without its printed abilities (the smallest screens)."""
    parts = _creature_parts(creature, ctx, printed=printed)
    line = Text(address + " ", style=f"dim {ctx.side_style(seat)}")
    line.append_text(parts[0])
    line.append(" ")
    line.append_text(parts[1])
    for part in parts[2:]:
        line.append(" · ")
        line.append_text(part)
    return line


def _lane_row(
    game: Game, seat: int, lane: str, ctx: Context, *, towards_bridge: bool, compact: bool
) -> RenderableType:
    creatures = game.lane(seat, lane)
    if not creatures:
        return Text(t(ctx.lang, "empty"), style="dim")
    if compact:
        # One line each, the creature next to the bridge first.
        return Group(
            *(render_creature_line(cr, f"{seat}.{lane}.{i}", seat, ctx) for i, cr in enumerate(creatures))
        )
    panels = [render_creature(cr, f"{seat}.{lane}.{i}", seat, ctx) for i, cr in enumerate(creatures)]
    if towards_bridge:
        panels.reverse()  # far → bridge, so the front creature touches the bridge
    grid = Table.grid(padding=(0, 0))
    for _ in panels:
        grid.add_column(justify="right" if towards_bridge else "left")
    grid.add_row(*panels)
    return grid


def _needs_compact(game: Game, lane: str, ctx: Context) -> bool:
    need = 30  # lane names, bridge, padding
    for seat in (0, 1):
        for i, cr in enumerate(game.lane(seat, lane)):
            need += _panel_width(cr, f"{seat}.{lane}.{i}", ctx)
    return need > ctx.width


def render_board(game: Game, ctx: Context) -> Table:
    """Both realms and the two lanes, the bridges in the middle (R1.1, R1.2).

    The viewer's realm is on the left, drawn from its far end to the bridge; the other realm on the
    right, from the bridge outwards: the creatures that fight each other face each other.
    """
    left = 0 if ctx.viewer is None else ctx.viewer
    right = 1 - left
    lang = ctx.lang
    table = Table(box=box.SIMPLE_HEAD, expand=False, show_edge=False, pad_edge=False)
    table.add_column(t(lang, "lane"), style="bold", no_wrap=True)
    table.add_column(
        f"{t(lang, 'realm_of', name=ctx.name(left))} ({t(lang, 'far_to_bridge')})",
        justify="right",
        header_style=ctx.side_style(left),
    )
    table.add_column(t(lang, "bridge"), justify="center", style="bold white", no_wrap=True)
    table.add_column(
        f"{t(lang, 'realm_of', name=ctx.name(right))} ({t(lang, 'bridge_to_far')})",
        justify="left",
        header_style=ctx.side_style(right),
    )
    for lane in ("top", "bottom"):
        compact = _needs_compact(game, lane, ctx)
        table.add_row(
            t(lang, lane),
            _lane_row(game, left, lane, ctx, towards_bridge=True, compact=compact),
            "║\n╬\n║" if game.lane(0, lane) or game.lane(1, lane) else "╬",
            _lane_row(game, right, lane, ctx, towards_bridge=False, compact=compact),
        )
    return table


# ---------------------------------------------------------------------------- hands and fortresses


def render_fortress(game: Game, seat: int, ctx: Context) -> Text:
    """``Bastion · 8 places left`` (R1.4, R4): the life of a player, or of the automaton (R7.6)."""
    side, left, _size = game.fortress(seat)
    text = Text()
    text.append(t(ctx.lang, "bastion" if side == "BASTION" else "fort"), style="bold yellow")
    text.append(" · ")
    style = "bold red" if left <= 2 else "bold"
    text.append(t(ctx.lang, "places_left", n=left), style=style)
    return text


def _visible_hand(game: Game, seat: int, ctx: Context) -> list[str]:
    if ctx.viewer is None or ctx.viewer == seat or game.phase == "setup":
        return game.hand(seat)
    hand: list[str] = view(game, ctx.viewer)["players"][seat]["hand"]
    return hand


def render_hand(game: Game, seat: int, ctx: Context) -> RenderableType:
    """A hand, left to right (R1.3): the 4 playable cards (R3.2) marked ▶, the fortress card marked.

    Cards the viewer may not see (R9.2) are ``?``; a fully hidden hand is one compact line.
    """
    lang = ctx.lang
    cards = _visible_hand(game, seat, ctx)
    title = Text(t(lang, "hand_of", name=ctx.name(seat)), style=f"bold {ctx.side_style(seat)}")
    title.append(f"  ({len(cards)})  ")
    title.append_text(render_fortress(game, seat, ctx))
    if not (ctx.viewer is None or ctx.viewer == seat):
        line = Text()
        for i, c in enumerate(cards):
            if i:
                line.append(" ")
            if c in ("BASTION", "FORT"):
                line.append(f"[{card_name(c, lang)}]", style="bold yellow")
            elif c == "?":
                line.append("?", style="dim")
            else:
                line.append(card_name(c, lang))
        parts: list[RenderableType] = [title, line]
        if "?" in cards:
            parts.append(Text(t(lang, "hidden_cards"), style="dim"))
        return Group(*parts)
    playable = set(game.playable_cards(seat))
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, show_header=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("mark", no_wrap=True)
    table.add_column("card", no_wrap=True)
    table.add_column("stats", no_wrap=True)
    table.add_column("abilities")
    for i, c in enumerate(cards, start=1):
        if c in ("BASTION", "FORT"):
            _side, left, _ = game.fortress(seat)
            table.add_row(
                str(i),
                Text("■", style="bold yellow"),
                Text(card_name(c, lang), style="bold yellow"),
                Text(t(lang, "places_left", n=left), style="yellow"),
                Text(t(lang, "fortress"), style="dim"),
            )
            continue
        is_playable = c in playable
        name = Text(card_name(c, lang), style="bold" if is_playable else "dim")
        if card_name(c, lang).upper() != c:
            name.append(f" ({c})", style="dim")
        table.add_row(
            str(i),
            Text("▶", style="bold green") if is_playable else Text(" "),
            name,
            Text(card_stats(c, lang), style="" if is_playable else "dim"),
            Text(card_abilities(c, lang), style="cyan" if is_playable else "dim cyan"),
        )
    rule = " (R3.2)" if ctx.rule_numbers else ""
    legend = Text("▶ " + t(lang, "playable") + rule + "   ■ " + t(lang, "fortress"), style="dim")
    return Group(title, table, legend)


def _automaton_parts(game: Game, ctx: Context, sep: str) -> tuple[Text, Text]:
    """The automaton's name, fortress and deck; and its public discard pile (R7)."""
    lang = ctx.lang
    name = ctx.name(1)
    line = Text(name[:1].upper() + name[1:], style=f"bold {ctx.side_style(1)}")
    line.append(sep)
    line.append_text(render_fortress(game, 1, ctx))
    line.append(sep)
    line.append(t(lang, "deck_cards", n=game.automaton_deck_size))
    discard = game.automaton_discard
    pile = Text(f"{t(lang, 'discard')}{colon(lang)}{len(discard)}")
    if discard:
        pile.append("  (" + ", ".join(card_name(c, lang) for c in discard) + ")", style="dim")
    return line, pile


def render_automaton(game: Game, ctx: Context) -> RenderableType:
    """The automaton's side (R7): fortress life, deck above the fortress, the public discard pile."""
    line, pile = _automaton_parts(game, ctx, "  ·  ")
    return Group(line, pile)


def render_status(game: Game, ctx: Context) -> Text:
    """Turn, whose decision, phase and mana, in one line."""
    lang = ctx.lang
    text = Text()
    if game.is_over():
        outcome = game.outcome
        text.append(t(lang, "phase_over").upper(), style="bold magenta")
        if outcome is not None:
            text.append(" · ")
            if outcome.winner is None:
                text.append(t(lang, "draw"), style="bold")
            else:
                text.append(t(lang, "winner_is", name=ctx.name(outcome.winner)), style="bold")
            text.append(f" ({outcome_reason(game, ctx)})", style="dim")
        return text
    if game.phase == "setup":
        text.append(t(lang, "phase_setup").upper(), style="bold magenta")
        text.append(" · ")
        text.append(t(lang, "decides", name=ctx.name(game.current_player)), style="bold")
        return text
    text.append(f"{t(lang, 'turn').capitalize()} {game.turn}", style="bold magenta")
    text.append(" · ")
    text.append(t(lang, "to_play", name=ctx.name(game.active)), style=f"bold {ctx.side_style(game.active)}")
    text.append(" · ")
    text.append(t(lang, "phase_summon" if game.phase == "summon" else "phase_combat"), style="bold")
    text.append(" · ")
    text.append(f"{t(lang, 'mana')} {game.mana}", style="bold blue")
    pending = game.pending
    if pending is not None:
        text.append(" · ")
        text.append(t(lang, "decides", name=ctx.name(pending[0])), style="bold yellow")
        text.append(" (R3.9)", style="dim")
    return text


def render_setup(game: Game, ctx: Context, *, compact: bool = False) -> RenderableType:
    """The setup stage (R2, R7.1): the revealed draft cards, the cards each side has so far."""
    from ..formats import setup_summary

    lang = ctx.lang
    summary = setup_summary(game)
    decision = str(summary["decision"])
    who = ctx.name(int(summary["player"]))  # type: ignore[call-overload]
    key = {"pick": "setup_draft", "deck": "setup_deck", "build": "setup_build", "ban": "setup_ban"}[decision]
    parts: list[RenderableType] = [Text(t(lang, key, name=who), style="bold magenta")]
    revealed: list[str] = list(summary["revealed"])  # type: ignore[call-overload]
    if revealed:
        table = Table(
            title=t(lang, "revealed"),
            box=box.SIMPLE_HEAD if compact else box.ROUNDED,
            title_justify="left",
            show_edge=not compact,
            pad_edge=not compact,
        )
        table.add_column("#", justify="right", style="bold")
        table.add_column(t(lang, "col_id"), style="bold")
        table.add_column(t(lang, "col_card"))
        table.add_column(f"{t(lang, 'cost')} · {t(lang, 'attack_health')}")
        table.add_column(t(lang, "abilities"), style="cyan")
        number = {text.split()[1]: n for n, text in numbered_choices(game, game.legal_action_texts())}
        for c in revealed:
            mine = decision == "pick" and int(summary["player"]) == ctx.viewer  # type: ignore[call-overload]
            table.add_row(
                str(number.get(c, "")) if mine else "",
                c,
                card_name(c, lang),
                card_stats(c, lang),
                card_abilities(c, lang),
            )
        parts.append(table)
    cards: list[list[str]] = summary["cards"]  # type: ignore[assignment]
    for seat, cs in enumerate(cards):
        if game.is_solo and seat == 1 and decision == "deck":
            continue
        line = Text(
            f"{t(lang, 'cards_of', name=ctx.name(seat))} ({len(cs)}){colon(lang)}", style=ctx.side_style(seat)
        )
        line.append(", ".join(card_name(c, lang) for c in cs) or "—")
        parts.append(line)
    if summary.get("face_down"):
        parts.append(Text(t(lang, "face_down", n=summary["face_down"]), style="dim"))
    if decision == "deck":
        taken = list(summary.get("decks_taken", []))  # type: ignore[call-overload]
        parts.append(render_precon_decks(lang, taken, compact=compact))
    if decision in ("build", "ban"):
        parts.append(render_card_pool(lang, compact=compact))
    return Group(*parts)


def render_precon_decks(lang: str, taken: Iterable[int] = (), *, compact: bool = False) -> Table:
    """The four preconstructed decks (R2.3), taken ones dimmed; the deck number is the choice number."""
    from ..cards import CARD_IDS, PRECONSTRUCTED_DECKS

    gone = set(taken)
    table = Table(
        box=box.SIMPLE_HEAD if compact else box.ROUNDED,
        show_header=True,
        show_edge=not compact,
        pad_edge=False,
    )
    table.add_column(t(lang, "deck"), justify="right")
    table.add_column(t(lang, "col_cards"))
    for n, deck in sorted(PRECONSTRUCTED_DECKS.items()):
        style = "dim strike" if n in gone else ""
        table.add_row(str(n), Text(", ".join(card_name(CARD_IDS[c], lang) for c in deck), style=style))
    return table


def render_card_pool(lang: str, *, compact: bool = False) -> RenderableType:
    """Every card with its facts, for building a custom deck (R2.5); compact: ids and stats in columns."""
    if compact:
        items = [Text.assemble((c.id, "bold"), " ", (card_stats(c.id, lang), "dim")) for c in CARDS]
        return Group(Text(t(lang, "card_pool"), style="bold"), Columns(items, padding=(0, 2)))
    table = Table(title=t(lang, "card_pool"), box=box.SIMPLE, title_justify="left")
    table.add_column(t(lang, "col_id"), style="bold")
    table.add_column(t(lang, "cost"))
    table.add_column(t(lang, "abilities"), style="cyan")
    for c in CARDS:
        table.add_row(c.id, card_stats(c.id, lang), card_abilities(c.id, lang))
    return table


def render_game(game: Game, ctx: Context) -> RenderableType:
    """The whole screen: status, the other side's hand, the board, the viewer's own hand."""
    if game.phase == "setup":
        return Group(render_status(game, ctx), render_setup(game, ctx))
    me = 0 if ctx.viewer is None else ctx.viewer
    other = 1 - me
    parts: list[RenderableType] = [Text(""), render_status(game, ctx)]
    if game.is_solo and other == 1:
        parts.append(render_automaton(game, ctx))
    else:
        parts.append(render_hand(game, other, ctx))
    parts.append(render_board(game, ctx))
    if game.is_solo and me == 1:
        parts.append(render_automaton(game, ctx))
    else:
        parts.append(render_hand(game, me, ctx))
    if any(cr["granted"] for seat in (0, 1) for ln in ("top", "bottom") for cr in game.lane(seat, ln)):
        parts.append(Text(t(ctx.lang, "granted_marker"), style="dim"))
    return Group(*parts)


# ---------------------------------------------------------------------------- actions


def numbered_choices(game: Game, texts: Sequence[str]) -> list[tuple[int, str]]:
    """The numbers the player types for ``texts`` (the legal actions).

    Usually 1, 2, … in the engine's order; a preconstructed deck is chosen by its own number (the
    number in the deck table, R2.3), and draft picks follow the order of the revealed-cards table."""
    if texts and all(text.startswith("deck ") for text in texts):
        return sorted((int(text.split()[1]), text) for text in texts)
    if texts and game.phase == "setup" and all(text.startswith("pick ") for text in texts):
        from ..formats import setup_summary

        revealed: list[str] = list(setup_summary(game)["revealed"])  # type: ignore[call-overload]
        order = {cid: i for i, cid in enumerate(revealed)}
        ordered = sorted(texts, key=lambda text: order.get(text.split()[1], len(order)))
        return list(enumerate(ordered, start=1))
    return list(enumerate(texts, start=1))


def _short_gloss(game: Game, text: str, ctx: Context) -> str:
    """The compact screen's gloss: only what the notation does not say (``next``'s attack, a target)."""
    verb = text.split()[0] if text else ""
    if verb == "next":
        attack = next_attack(game)
        if attack is None:
            return ""
        card = card_name(attack.card, ctx.lang)
        if attack.target_card is None:
            return t(ctx.lang, "next_gloss_player", card=card, name=ctx.name(attack.target_player))
        return t(ctx.lang, "next_gloss", card=card, target=card_name(attack.target_card, ctx.lang))
    target = cast_target(game, text)
    return "" if target is None else card_name(target, ctx.lang)


def render_actions(
    game: Game, texts: Sequence[str], ctx: Context, *, compact: int = 0, commands: str = ""
) -> RenderableType:
    """The legal actions with the numbers to type (see :func:`numbered_choices`) and their notation.

    ``compact`` 1 keeps only the glosses the notation cannot say, 2 drops all but ``next``'s;
    ``commands`` (the other commands) goes on the header line.  The full layout says each choice as
    a sentence (:func:`clashofdecks.words.describe_action`, as the web page does), with the card's
    facts for a play or a draft pick; the notation stays in front of it, as it is what the player types."""
    items: list[Text] = []
    for n, text in numbered_choices(game, texts):
        item = Text(f"{n:>2}. ", style="bold")
        item.append(text, style="bold green" if text in ("end", "next") else "bold")
        if not compact:
            gloss = describe_action(game, text, ctx.lang, names=ctx.names)
            words = text.split()
            if words[0] in ("play", "pick", "ban") and len(words) > 1 and words[1].upper() in CARD_INDEX:
                gloss += " · " + card_facts(words[1].upper(), ctx.lang)
        elif compact == 1 or text == "next":
            gloss = _short_gloss(game, text, ctx)
        else:
            gloss = ""
        if gloss:
            item.append(f"  {gloss}" if not compact else f" ({gloss})", style="dim")
        items.append(item)
    who = game.current_player
    header = Text(
        t(ctx.lang, "actions_of", name=ctx.name(who)) if who != ctx.viewer else t(ctx.lang, "actions"),
        style="bold underline",
    )
    if commands:
        header.append(f"   {commands}", style="dim")
    return Group(header, Columns(items, column_first=True, padding=(0, 3 if not compact else 2)))


# ---------------------------------------------------------------------------- the compact screen


def _compact_card(
    game: Game, seat: int, card: str, number: int, playable: bool, ctx: Context, *, abilities: bool
) -> Text:
    lang = ctx.lang
    item = Text(f"{number} ", style="dim")
    if card in ("BASTION", "FORT"):
        item.append("■ ", style="bold yellow")
        item.append(card_name(card, lang), style="bold yellow")
        return item
    item.append("▶ " if playable else "  ", style="bold green")
    item.append(card_name(card, lang), style="bold" if playable else "dim")
    item.append(f" {card_stats(card, lang)}", style="" if playable else "dim")
    if abilities:
        ab = card_abilities(card, lang)
        if ab:
            item.append(f" {ab}", style="cyan" if playable else "dim cyan")
    return item


def render_hand_compact(game: Game, seat: int, ctx: Context, *, abilities: bool = True) -> RenderableType:
    """A hand in a few lines: the title with the fortress (life, R4) and the cards in columns."""
    lang = ctx.lang
    cards = _visible_hand(game, seat, ctx)
    title = Text(t(lang, "hand_of", name=ctx.name(seat)), style=f"bold {ctx.side_style(seat)}")
    title.append(f" ({len(cards)}) · ")
    title.append_text(render_fortress(game, seat, ctx))
    if not (ctx.viewer is None or ctx.viewer == seat):
        title.append(colon(lang))
        for i, c in enumerate(cards):
            if i:
                title.append(" ")
            if c in ("BASTION", "FORT"):
                title.append(f"[{card_name(c, lang)}]", style="bold yellow")
            elif c == "?":
                title.append("?", style="dim")
            else:
                title.append(card_name(c, lang))
        return title
    title.append(f" · ▶ {t(lang, 'playable')}", style="dim")
    playable = set(game.playable_cards(seat))
    items = [
        _compact_card(game, seat, c, i, c in playable, ctx, abilities=abilities)
        for i, c in enumerate(cards, start=1)
    ]
    return Group(title, Columns(items, column_first=True, padding=(0, 2)))


def render_automaton_compact(game: Game, ctx: Context) -> Text:
    """The automaton's side in one line: name, fortress, deck, discard pile (R7)."""
    line, pile = _automaton_parts(game, ctx, " · ")
    line.append(" · ")
    line.append_text(pile)
    return line


def render_board_compact(game: Game, ctx: Context, *, printed: bool = True) -> Table:
    """The board with one creature per line: row N of a lane shows each side's creature N (N = 0
    next to the bridge), so the creatures that fight each other are on the same line."""
    left = 0 if ctx.viewer is None else ctx.viewer
    right = 1 - left
    lang = ctx.lang
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, justify="right")
    grid.add_column(no_wrap=True, justify="center")
    grid.add_column(ratio=1, justify="left")
    grid.add_row(
        Text(t(lang, "lane"), style="dim"),
        Text(
            f"{t(lang, 'realm_of', name=ctx.name(left))} ({t(lang, 'far_to_bridge')})",
            style=ctx.side_style(left),
        ),
        Text("║", style="bold"),
        Text(
            f"{t(lang, 'realm_of', name=ctx.name(right))} ({t(lang, 'bridge_to_far')})",
            style=ctx.side_style(right),
        ),
    )
    for lane in ("top", "bottom"):
        mine = game.lane(left, lane)
        theirs = game.lane(right, lane)
        rows = max(len(mine), len(theirs), 1)
        for i in range(rows):
            cells: list[Text] = []
            for seat, creatures in ((left, mine), (right, theirs)):
                if i < len(creatures):
                    address = f"{seat}.{lane}.{i}"
                    cells.append(render_creature_line(creatures[i], address, seat, ctx, printed=printed))
                else:
                    cells.append(Text(t(lang, "empty") if i == 0 else "", style="dim"))
            grid.add_row(
                Text(t(lang, lane) if i == 0 else "", style="bold"),
                cells[0],
                Text("╬" if i == 0 else "║"),
                cells[1],
            )
    return grid


def render_game_compact(
    game: Game, ctx: Context, *, abilities: bool = True, board_abilities: bool = True
) -> RenderableType:
    """The whole screen in few lines (an 80×24 terminal): status, other side, board, own hand
    (``abilities``: in the hand; ``board_abilities``: the printed abilities of creatures in play)."""
    if game.phase == "setup":
        return Group(render_status(game, ctx), render_setup(game, ctx, compact=True))
    me = 0 if ctx.viewer is None else ctx.viewer
    other = 1 - me
    parts: list[RenderableType] = [render_status(game, ctx)]
    if game.is_solo and other == 1:
        parts.append(render_automaton_compact(game, ctx))
    else:
        parts.append(render_hand_compact(game, other, ctx, abilities=abilities))
    parts.append(render_board_compact(game, ctx, printed=board_abilities))
    if game.is_solo and me == 1:
        parts.append(render_automaton_compact(game, ctx))
    else:
        parts.append(render_hand_compact(game, me, ctx, abilities=abilities))
    return Group(*parts)


def measure_lines(renderable: RenderableType, width: int) -> int:
    """How many terminal lines ``renderable`` takes at ``width`` columns."""
    console = Console(width=width, file=io.StringIO(), no_color=True, emoji=False, highlight=False)
    return len(console.render_lines(renderable, console.options.update(width=width), pad=False))


def render_screen(
    game: Game,
    texts: Sequence[str],
    ctx: Context,
    *,
    height: int | None = None,
    layout: str = "auto",
    commands: str = "",
    footer: str = "",
) -> RenderableType:
    """The screen of a decision: the game, the choices ``texts`` and the command line hint.

    ``layout`` ``full`` draws boxes and glosses; ``compact`` fits an 80×24 terminal; ``auto`` uses the
    full screen when it fits in ``height`` lines (one is kept for the prompt; ``None`` = no limit),
    else the largest compact screen that fits."""
    full_parts: list[RenderableType] = [render_game(game, ctx)]
    if texts:
        full_parts.append(render_actions(game, texts, ctx))
    if footer:
        full_parts.append(Text(footer, style="dim"))
    full = Group(*full_parts)
    if layout == "full" or (layout == "auto" and height is None):
        return full
    room = max((height or 24) - 1, 1)
    if layout == "auto" and measure_lines(full, ctx.width) <= room:
        return full
    candidates: list[RenderableType] = []
    for level, abilities, board_abilities in ((1, True, True), (2, False, True), (2, False, False)):
        game_part = render_game_compact(game, ctx, abilities=abilities, board_abilities=board_abilities)
        parts: list[RenderableType] = [game_part]
        if texts:
            parts.append(render_actions(game, texts, ctx, compact=level, commands=commands))
        elif commands:
            parts.append(Text(commands, style="dim"))
        candidates.append(Group(*parts))
    for candidate in candidates:
        if measure_lines(candidate, ctx.width) <= room:
            return candidate
    return candidates[-1]


# ---------------------------------------------------------------------------- events

_EVENT_STYLE: dict[EventKind, str] = {
    EventKind.TURN_STARTED: "bold magenta",
    EventKind.PHASE_CHANGED: "magenta",
    EventKind.PLAYED: "",
    EventKind.CAST: "bold blue",
    EventKind.FIZZLED: "dim",
    EventKind.REVEALED: "",
    EventKind.ACTIVATION_PASSED: "dim",
    EventKind.SPRINTED: "yellow",
    EventKind.ATTACKED: "bold",
    EventKind.DAMAGED: "yellow",
    EventKind.ABSORBED: "cyan",
    EventKind.DESTROYED: "bold red",
    EventKind.RETURNED: "red",
    EventKind.DISCARDED: "dim red",
    EventKind.FORTRESS_MOVED: "bold red",
    EventKind.BASTION_FELL: "bold reverse red",
    EventKind.DECK_REBUILT: "yellow",
    EventKind.ORDER_CHOSEN: "",
    EventKind.DECISION_PENDING: "bold yellow",
    EventKind.TURN_ENDED: "dim",
    EventKind.GAME_OVER: "bold reverse magenta",
    EventKind.SETUP: "",
}

_ICONS: dict[EventKind, str] = {
    EventKind.TURN_STARTED: "══",
    EventKind.ATTACKED: "⚔ ",
    EventKind.DAMAGED: "  ✶",
    EventKind.DESTROYED: "  ✖",
    EventKind.RETURNED: "  ↩",
    EventKind.FORTRESS_MOVED: "  ▶",
    EventKind.BASTION_FELL: "  ‼",
    EventKind.ABSORBED: "  ◆",
    EventKind.CAST: "✦ ",
    EventKind.GAME_OVER: "★ ",
}


def render_event(event: Event, ctx: Context, *, show_rule: bool | None = None) -> Text:
    """One line for one event: an icon, the sentence, coloured by kind, and its rule number when
    ``show_rule`` (default: ``ctx.rule_numbers``)."""
    text = Text()
    icon = _ICONS.get(event.kind, "  ·" if event.kind is not EventKind.SETUP else "•")
    style = _EVENT_STYLE.get(event.kind, "")
    if event.player in (0, 1) and event.kind in (EventKind.PLAYED, EventKind.ATTACKED, EventKind.CAST):
        style = f"{style} {ctx.side_style(event.player)}".strip()
    text.append(f"{icon} ", style=style)
    text.append(event_sentence(event, ctx), style=style)
    if ctx.rule_numbers if show_rule is None else show_rule:
        text.append(f"  [{event.rule}]", style="dim")
    return text


def render_events(events: Iterable[Event], ctx: Context, *, show_rule: bool | None = None) -> list[Text]:
    """Every event as a line (see :func:`render_event`)."""
    return [render_event(e, ctx, show_rule=show_rule) for e in events]


# ---------------------------------------------------------------------------- help


def render_help(lang: str) -> RenderableType:
    """``help``: the commands, a rules summary with rule numbers, and what each ability does."""
    commands = Table(box=box.SIMPLE, show_header=False, pad_edge=False)
    commands.add_column(style="bold")
    commands.add_column()
    file_word = t(lang, "file_word")
    card = t(lang, "card_word")
    rows = [
        ("1, 2, …", t(lang, "help_choose")),
        (f"play {card} top|bottom", t(lang, "help_play")),
        (f"cast {card} P.LANE.N", t(lang, "help_cast")),
        ("next", t(lang, "help_next")),
        ("end", t(lang, "help_end")),
        (f"order {card} {card}…", t(lang, "help_order")),
        (f"pick {card} · deck N", t(lang, "help_setup")),
        (f"build {card}×10 · ban {card}", t(lang, "help_build")),
        ("hint", t(lang, "help_hint")),
        ("undo", t(lang, "help_undo")),
        (f"save {file_word} [--force] · load {file_word}", t(lang, "help_save")),
        ("board", t(lang, "help_board")),
        ("quit", t(lang, "help_quit")),
    ]
    for a, b in rows:
        commands.add_row(a, b)
    rules = Text("\n".join(rules_summary(lang)))
    abilities = Table(box=box.SIMPLE, show_header=False, pad_edge=False)
    abilities.add_column(style="bold cyan", no_wrap=True)
    abilities.add_column()
    for key in ability_keys():
        abilities.add_row(ability_name(lang, key), ability_help(lang, key))
    return Group(
        Text(t(lang, "help_commands"), style="bold underline"),
        commands,
        Text(t(lang, "help_rules"), style="bold underline"),
        rules,
        Text(""),
        Text(t(lang, "abilities").capitalize(), style="bold underline"),
        abilities,
    )


__all__ = [
    "Context",
    "measure_lines",
    "numbered_choices",
    "outcome_reason",
    "render_actions",
    "render_automaton",
    "render_board",
    "render_creature",
    "render_creature_line",
    "render_event",
    "render_events",
    "render_fortress",
    "render_game",
    "render_hand",
    "render_help",
    "render_screen",
    "render_setup",
    "render_status",
]
