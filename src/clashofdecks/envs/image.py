"""An image of the board for ``render_mode="rgb_array"``, drawn with Pillow (no image files).

Layout, top to bottom: a status line; the opponent's hand (or the automaton's deck and discard
pile); the two lanes, each a row with the opponent's creatures left of the bridge and the viewer's
right of it, front creatures next to the bridge; the viewer's own hand.  Only what the viewer's view
(R9) shows is drawn: hidden hand places are blank backs marked ``?``.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from ..cards import ATTACK, CARD_INDEX, HEALTH, N_CARDS
from ..position import HIDDEN, view
from ..rules import Game

WIDTH: Final = 960
HEIGHT: Final = 540
CARD_W: Final = 58
CARD_H: Final = 70
GAP: Final = 6
_BACKGROUND: Final = (24, 64, 40)
_BRIDGE: Final = (120, 90, 60)
_MINE: Final = (60, 140, 220)
_THEIRS: Final = (210, 80, 70)
_HIDDEN: Final = (70, 70, 90)
_FORTRESS: Final = (200, 170, 60)
_TEXT: Final = (255, 255, 255)
_DARK_TEXT: Final = (20, 20, 20)


def _font() -> Any:
    return ImageFont.load_default()


def _card(
    draw: ImageDraw.ImageDraw, x: int, y: int, card: str, colour: tuple[int, int, int], font: Any
) -> None:
    if card == HIDDEN:
        draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=_HIDDEN, outline=_TEXT)
        draw.text((x + CARD_W // 2 - 3, y + CARD_H // 2 - 6), "?", fill=_TEXT, font=font)
        return
    fill = _FORTRESS if card in ("BASTION", "FORT") else colour
    draw.rectangle((x, y, x + CARD_W, y + CARD_H), fill=fill, outline=_TEXT)
    draw.text((x + 3, y + 3), card[:9], fill=_DARK_TEXT, font=font)
    index = CARD_INDEX.get(card, N_CARDS)
    if index < N_CARDS:
        stats = f"{ATTACK[index]}/{HEALTH[index]}" if HEALTH[index] else f"dmg {ATTACK[index]}"
        draw.text((x + 3, y + CARD_H - 14), stats, fill=_DARK_TEXT, font=font)


def _creature(
    draw: ImageDraw.ImageDraw, x: int, y: int, creature: Any, colour: tuple[int, int, int], font: Any
) -> None:
    if isinstance(creature, str):
        creature = {"card": creature}
    card = str(creature["card"])
    _card(draw, x, y, card, colour, font)
    damage = int(creature.get("damage", 0))
    if damage:
        draw.text((x + CARD_W - 22, y + CARD_H - 14), f"-{damage}", fill=(120, 0, 0), font=font)
    marks = "".join(
        m for key, m in (("new", "n"), ("protected", "p"), ("activated", "a")) if creature.get(key)
    )
    if marks:
        draw.text((x + 3, y + 16), marks, fill=_DARK_TEXT, font=font)


def board_image(game: Game, viewer: int | None) -> npt.NDArray[np.uint8]:
    """The board as ``viewer`` sees it (``None``: a spectator, drawn from seat 0's side): an
    ``HEIGHT x WIDTH x 3`` uint8 array."""
    pos = view(game, viewer)
    me = 0 if viewer is None else viewer
    other = 1 - me
    image = Image.new("RGB", (WIDTH, HEIGHT), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _font()
    status = f"turn {pos['turn']}  phase {game.phase}  mana {pos['mana']}  to move: "
    mover = game.current_player
    status += "nobody" if mover not in (0, 1) else ("you" if mover == viewer else f"seat {mover}")
    if game.is_over() and game.outcome is not None:
        winner = game.outcome.winner
        status += "  result: " + ("draw" if winner is None else f"seat {winner} wins")
    draw.text((10, 8), status, fill=_TEXT, font=font)
    players = pos["players"]
    # The opponent's side, top.
    theirs = players[other]
    if theirs.get("automaton"):
        deck = theirs.get("deck", [])
        draw.text(
            (10, 30), f"automaton deck: {len(deck)} cards (bottom {deck[-1] if deck else '-'})", fill=_TEXT
        )
        discard = theirs.get("discard", [])
        draw.text((10, 46), "discard: " + " ".join(discard[-12:]), fill=_TEXT, font=font)
    else:
        for i, card in enumerate(theirs.get("hand", [])):
            _card(draw, 10 + i * (CARD_W + GAP), 28, card, _THEIRS, font)
    # The lanes: opponent's creatures left of the bridge (front next to it), the viewer's right of it.
    bridge_x = WIDTH // 2 - 10
    for row, lane in enumerate(("top", "bottom")):
        y = 130 + row * (CARD_H + 40)
        draw.rectangle((bridge_x, y - 8, bridge_x + 20, y + CARD_H + 8), fill=_BRIDGE)
        draw.text((10, y + CARD_H // 2 - 6), lane, fill=_TEXT, font=font)
        for i, creature in enumerate(theirs["lanes"][lane]):
            x = bridge_x - (i + 1) * (CARD_W + GAP)
            if x >= 50:
                _creature(draw, x, y, creature, _THEIRS, font)
        for i, creature in enumerate(players[me]["lanes"][lane]):
            x = bridge_x + 20 + GAP + i * (CARD_W + GAP)
            if x + CARD_W <= WIDTH:
                _creature(draw, x, y, creature, _MINE, font)
    # The viewer's own hand, bottom.
    mine = players[me]
    for i, card in enumerate(mine.get("hand", [])):
        _card(draw, 10 + i * (CARD_W + GAP), HEIGHT - CARD_H - 20, card, _MINE, font)
    if game.phase == "setup" and game.setup_state is not None:
        st = game.setup_state
        draw.text((10, HEIGHT // 2 - 20), f"setup: {st.decision} ({st.kind})", fill=_TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()
