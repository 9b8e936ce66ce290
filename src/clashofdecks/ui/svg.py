"""The board as an SVG picture (standard library only): for notebooks (``Game._repr_svg_``, as
python-chess boards draw themselves), documents and tests.

Drawn from a position or a view (``docs/formats.md``): the opponent's realm on top, the two lanes
with their bridges in the middle (creatures from the bridge outward), player 0's realm below; each
creature a card with its cost, attack/health after damage, and its ability initials (an Aura-granted
ability underlined); each hand in order with the fortress card marked, and the life track.
"""

from __future__ import annotations

from typing import Any, Final
from xml.sax.saxutils import escape

from ..cards import ABILITY_ORDER, CARDS

_BY_ID: Final = {c.id: c for c in CARDS}
_INITIALS: Final = {
    "splash": "Sp",
    "perforation": "Pf",
    "rage": "Rg",
    "protection": "Pr",
    "indestructible": "In",
    "berserk": "Bk",
    "sprint": "Sr",
}
CARD_W: Final = 58
CARD_H: Final = 74
GAP: Final = 6
WIDTH: Final = 640


def _text(x: float, y: float, s: object, size: int = 11, **attrs: object) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{escape(str(v))}"' for k, v in attrs.items())
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}"{extra}>{escape(str(s))}</text>'


def _card(
    x: float, y: float, cid: str, creature: dict[str, Any] | None = None, granted: tuple[str, ...] = ()
) -> str:
    parts: list[str] = []
    if cid == "?":
        parts.append(f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="#3b2f5c"/>')
        parts.append(_text(x + CARD_W / 2, y + CARD_H / 2 + 5, "?", 18, fill="#fff", text_anchor="middle"))
        return "".join(parts)
    if cid in ("BASTION", "FORT"):
        parts.append(
            f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" '
            'fill="#d9c9a3" stroke="#5c4a1e"/>'
        )
        parts.append(
            _text(
                x + CARD_W / 2, y + CARD_H / 2 + 4, cid.title(), 11, text_anchor="middle", font_weight="bold"
            )
        )
        return "".join(parts)
    card = _BY_ID[cid]
    fill = "#fff6df" if card.is_creature else "#e9f0ff"
    parts.append(
        f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="{fill}" stroke="#7a6a4a"/>'
    )
    parts.append(f'<circle cx="{x + 9}" cy="{y + 9}" r="8" fill="#2b6cb0"/>')
    parts.append(_text(x + 9, y + 13, card.cost, 10, fill="#fff", text_anchor="middle", font_weight="bold"))
    parts.append(_text(x + CARD_W / 2, y + 30, card.name[:9], 10, text_anchor="middle", font_weight="bold"))
    own = " ".join(_INITIALS[a] for a in ABILITY_ORDER if a in card.abilities and a in _INITIALS)
    given = " ".join(_INITIALS[a] for a in ABILITY_ORDER if a in granted and a in _INITIALS)
    initials = own
    if card.aura:
        initials += " A:" + "".join(_INITIALS.get(a, a[:2]) for a in card.aura)
    if initials:
        parts.append(_text(x + CARD_W / 2, y + 44, initials, 8, text_anchor="middle"))
    if given:  # Aura-granted abilities: purple and underlined
        parts.append(
            _text(
                x + CARD_W / 2,
                y + 54,
                given,
                8,
                text_anchor="middle",
                fill="#8a2be2",
                text_decoration="underline",
            )
        )
    if card.is_creature:
        damage = int(creature.get("damage", 0)) if creature else 0
        hp_fill = "#9b2d20" if damage else "#222"
        parts.append(
            _text(
                x + CARD_W / 2 - 4,
                y + CARD_H - 8,
                f"{card.attack}/",
                12,
                text_anchor="end",
                font_weight="bold",
            )
        )
        parts.append(
            _text(
                x + CARD_W / 2 - 4, y + CARD_H - 8, card.health - damage, 12, fill=hp_fill, font_weight="bold"
            )
        )
    else:
        parts.append(_text(x + CARD_W / 2, y + CARD_H - 8, f"✦{card.attack}", 12, text_anchor="middle"))
    return "".join(parts)


def _creature(entry: Any) -> dict[str, Any]:
    return {"card": entry} if isinstance(entry, str) else dict(entry)


Granted = dict[tuple[int, str, int], tuple[str, ...]]


def position_svg(
    position: dict[str, Any],
    *,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    granted: Granted | None = None,
) -> str:
    """An SVG picture of a position or a view (hidden cards as ``?``); ``granted`` maps
    ``(player, lane, index)`` to the abilities an Aura (or a solo threat) gives that creature."""
    granted = granted or {}
    players = position["players"]
    lanes_len = [
        max(len(players[0]["lanes"].get(ln, [])), len(players[1]["lanes"].get(ln, [])), 1)
        for ln in ("top", "bottom")
    ]
    side_h = max(lanes_len) * (CARD_H + GAP)
    realm_h = CARD_H + 46
    height = 30 + realm_h + 2 * side_h + 30 + realm_h + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">',
        f'<rect width="{WIDTH}" height="{height}" fill="#f4f1ea"/>',
    ]
    winner = position.get("winner")
    status = f"turn {position.get('turn', 1)} · {position.get('phase')} · mana {position.get('mana')}"
    status += f" · player {position.get('active')} to play" if winner is None else f" · winner: {winner}"
    out.append(_text(10, 20, status, 13, font_weight="bold"))

    def realm(p: int, y: float) -> None:
        pl = players[p]
        out.append(
            f'<rect x="4" y="{y}" width="{WIDTH - 8}" height="{realm_h - 6}" rx="8" '
            'fill="#fffdf8" stroke="#c9c0ae"/>'
        )
        if pl.get("automaton"):
            deck = pl["deck"]
            out.append(
                _text(12, y + 18, f"{names[p]}: deck {len(deck) - 1} cards above its {deck[-1].title()}", 12)
            )
            for i, cid in enumerate(pl.get("discard", [])[:9]):
                out.append(_card(12 + i * (CARD_W + GAP), y + 26, cid))
            return
        hand = pl["hand"]
        fi = next(i for i, c in enumerate(hand) if c in ("BASTION", "FORT"))
        out.append(_text(12, y + 18, f"{names[p]}: hand · {len(hand) - 1 - fi} places left", 12))
        for i in range(len(hand)):
            colour = "#5c4a1e" if i == fi else ("#9bc59d" if i > fi else "#c8bfa9")
            out.append(f'<circle cx="{260 + i * 12}" cy="{y + 14}" r="4" fill="{colour}"/>')
        for i, cid in enumerate(hand[:10]):
            out.append(_card(12 + i * (CARD_W + GAP), y + 26, cid))

    realm(1, 30)
    top = 30 + realm_h
    col_w = (WIDTH - 12) / 2
    for ln, name in enumerate(("top", "bottom")):
        x0 = 4 + ln * (col_w + 4)
        out.append(
            f'<rect x="{x0}" y="{top}" width="{col_w}" height="{2 * side_h + 24}" rx="8" fill="#ece6d8"/>'
        )
        bridge_y = top + side_h
        out.append(
            f'<rect x="{x0 + 4}" y="{bridge_y + 2}" width="{col_w - 8}" height="18" rx="4" fill="#b59b6b"/>'
        )
        out.append(
            _text(
                x0 + col_w / 2, bridge_y + 15, f"bridge · {name} lane", 11, fill="#fff", text_anchor="middle"
            )
        )
        cx = x0 + col_w / 2 - CARD_W / 2
        for i, entry in enumerate(players[1]["lanes"].get(name, [])):
            cr = _creature(entry)
            extra = granted.get((1, name, i), ())
            out.append(_card(cx, bridge_y - (i + 1) * (CARD_H + GAP), cr["card"], cr, extra))
        for i, entry in enumerate(players[0]["lanes"].get(name, [])):
            cr = _creature(entry)
            extra = granted.get((0, name, i), ())
            out.append(_card(cx, bridge_y + 24 + i * (CARD_H + GAP), cr["card"], cr, extra))
    realm(0, top + 2 * side_h + 30)
    out.append("</svg>")
    return "".join(out)


def game_svg(game: Any, *, player: int | None = None) -> str:
    """A game's board (``player`` given: only what that player may see, R9).  The setup stage is
    drawn as text (the position format starts with the play phases)."""
    from ..position import dump_position, view

    if game.phase == "setup":
        from ..formats import setup_summary

        s = setup_summary(game)
        lines = [f"setup ({s['format']}): player {s['player']} to {s['decision']}"]
        if s["revealed"]:
            lines.append("revealed: " + " ".join(str(c) for c in s["revealed"]))  # type: ignore[attr-defined]
        body = "".join(_text(10, 22 + 18 * i, line, 13) for i, line in enumerate(lines))
        h = 30 + 18 * len(lines)
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" font-family="sans-serif">'
        )
        return head + body + "</svg>"
    position = dump_position(game) if player is None else view(game, player)
    names = ("Player 0", "Automaton" if game.is_solo else "Player 1")
    granted: Granted = {}
    for p in (0, 1):
        for name in ("top", "bottom"):
            for i, cr in enumerate(game.lane(p, name)):
                if cr["granted"]:
                    granted[(p, name, i)] = tuple(cr["granted"])
    return position_svg(position, names=names, granted=granted)
