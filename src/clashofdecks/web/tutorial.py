"""The tutorial (``/tutorial``): a guided first game from prepared positions.

The steps are ``data/tutorial.json``: each is a position (docs/formats.md), the one action the
player must take there (text notation), the rules it teaches and its texts in every language.  The
server is stateless for the tutorial: a step's position is loaded into a fresh :class:`Game` for
every request, the action is checked against the step's action and applied there, and the answer
carries the events and the resulting view.  Nothing is stored; a tutorial is no game of the store.

Nothing here does I/O but reading the package's data file once.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from ..cards import card
from ..errors import ClashError
from ..position import load_position, view
from ..rules import Game
from ..words.glossary import term
from ..words.i18n import LANGUAGES, t
from .games import event_json, game_abilities

TUTORIAL_FILE: Final = "data/tutorial.json"
#: The seat the learner plays in every step (the starting player; in solo, the player).
LEARNER: Final = 0
STEP_KEYS: Final = frozenset({"id", "rules", "position", "action", "text"})
TEXT_KEYS: Final = frozenset({"title", "before", "after"})

#: The other seat's name in event sentences (the learner is ``t(lang, "player")``).
_OPPONENT: Final = {"en": "Opponent", "de": "Gegner", "fr": "Adversaire", "ja": "相手"}

#: "Not quite": what the page says when a click asks for another action than the step's.
_NOT_QUITE: Final = {
    "en": "Not quite: {what}. Nothing has changed; try again.",
    "de": "Nicht ganz: {what}. Nichts hat sich geändert; versuch es noch einmal.",
    "fr": "Pas tout à fait : {what}. Rien n'a changé ; réessayez.",
    "ja": "惜しい：{what}。何も変わっていません。もう一度どうぞ。",
}
_WHAT: Final = {
    "play": {
        "en": "this step plays {card} into the {lane} lane",
        "de": "in diesem Schritt kommt {card} in die Bahn {lane}",
        "fr": "cette étape joue {card} dans la voie du {lane}",
        "ja": "この手順では{card}を{lane}レーンに出します",
    },
    "cast": {
        "en": "this step casts {card} at {target}",
        "de": "in diesem Schritt wird {card} auf {target} gewirkt",
        "fr": "cette étape lance {card} sur {target}",
        "ja": "この手順では{card}を{target}に唱えます",
    },
    "pick": {
        "en": "this step takes {card} into your deck",
        "de": "in diesem Schritt nimmst du {card} in dein Deck",
        "fr": "cette étape prend {card} dans votre deck",
        "ja": "この手順では{card}をデッキに取ります",
    },
    "order": {
        "en": "this step brings {card} back first",
        "de": "in diesem Schritt kehrt {card} zuerst zurück",
        "fr": "cette étape fait revenir {card} en premier",
        "ja": "この手順では{card}を先に戻します",
    },
    "next": {
        "en": "this step asks for the next attack (the “{button_next}” button)",
        "de": "in diesem Schritt ist der nächste Angriff dran (die Taste „{button_next}“)",
        "fr": "cette étape demande l'attaque suivante (le bouton « {button_next} »)",
        "ja": "この手順では次の攻撃です（「{button_next}」ボタン）",
    },
    "end": {
        "en": "this step ends the phase (the “{button}” button)",
        "de": "in diesem Schritt endet die Phase (die Taste „{button}“)",
        "fr": "cette étape termine la phase (le bouton « {button} »)",
        "ja": "この手順ではフェイズを終えます（「{button}」ボタン）",
    },
}
#: The glossary's words a tutorial text names through a placeholder: the buttons.  The click
#: ({click}, {Click}) is left to the page, which knows whether it is a tap (``click_words``).
_BUTTONS: Final = ("button_combat", "button_end_turn", "button_next")
_CLICKS: Final = ("click", "Click", "tap", "Tap")
_LANE_WORD: Final = {
    "en": {"top": "top", "bottom": "bottom"},
    "de": {"top": "oben", "bottom": "unten"},
    "fr": {"top": "haut", "bottom": "bas"},
    "ja": {"top": "上", "bottom": "下"},
}


class TutorialError(ClashError):
    """A malformed tutorial data file, or a request naming no step; the message says what."""


@dataclass(frozen=True)
class TutorialStep:
    id: str
    rules: tuple[str, ...]
    position: dict[str, Any]
    #: The step's action in canonical text notation (as ``Game.action_text`` writes it).
    action: str
    #: language -> {"title", "before", "after"}
    text: dict[str, dict[str, str]]

    def game(self) -> Game:
        """A fresh game at this step's position (the position is validated by the loader)."""
        return load_position(self.position)


def parse_steps(data: Any) -> tuple[TutorialStep, ...]:
    """The steps of a tutorial document, each checked: known keys, texts in every language, a
    position the loader accepts with the learner to act, and an action legal there.  Raises
    :class:`TutorialError` naming the step and the problem."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list) or not data["steps"]:
        raise TutorialError("a tutorial is an object with a non-empty list 'steps'")
    steps: list[TutorialStep] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["steps"]):
        where = f"steps[{i}]"
        if not isinstance(raw, dict) or set(raw) != STEP_KEYS:
            raise TutorialError(f"{where}: a step has exactly the keys {sorted(STEP_KEYS)}")
        step_id = raw["id"]
        if not isinstance(step_id, str) or not step_id or step_id in seen:
            raise TutorialError(f"{where}: 'id' must be a new non-empty text")
        seen.add(step_id)
        where = f"step {step_id!r}"
        rules = raw["rules"]
        if not isinstance(rules, list) or not all(isinstance(r, str) and r.startswith("R") for r in rules):
            raise TutorialError(f"{where}: 'rules' lists rule numbers such as 'R3.1'")
        text = raw["text"]
        if not isinstance(text, dict) or set(text) != set(LANGUAGES):
            raise TutorialError(f"{where}: 'text' has one entry per language {list(LANGUAGES)}")
        for lang, words in text.items():
            if (
                not isinstance(words, dict)
                or set(words) != TEXT_KEYS
                or not all(isinstance(v, str) and v.strip() for v in words.values())
            ):
                raise TutorialError(f"{where}: text.{lang} has a non-empty {sorted(TEXT_KEYS)}")
        try:
            game = load_position(raw["position"])
        except ClashError as exc:
            raise TutorialError(f"{where}: position: {exc}") from None
        if game.outcome is not None or game.current_player != LEARNER:
            raise TutorialError(f"{where}: the position must be a game in play with player {LEARNER} to act")
        if not isinstance(raw["action"], str):
            raise TutorialError(f"{where}: 'action' is a text action")
        try:
            code = game.parse_action(raw["action"])
        except ClashError as exc:
            raise TutorialError(f"{where}: action: {exc}") from None
        if not game.is_legal(code):
            raise TutorialError(
                f"{where}: {raw['action']!r} is not legal there: {game.explain_illegal(code)}"
            )
        steps.append(
            TutorialStep(
                step_id,
                tuple(rules),
                raw["position"],
                game.action_text(code),
                {k: dict(v) for k, v in text.items()},
            )
        )
    return tuple(steps)


@functools.cache
def tutorial_steps() -> tuple[TutorialStep, ...]:
    """The shipped tutorial, loaded and checked once."""
    text = resources.files("clashofdecks").joinpath(TUTORIAL_FILE).read_text(encoding="utf-8")
    return parse_steps(json.loads(text))


def _names(game: Game, lang: str) -> tuple[str, str]:
    other = t(lang, "automaton_name") if game.is_solo else _OPPONENT[lang]
    return t(lang, "player"), other


def _setup(seen: dict[str, Any]) -> dict[str, Any] | None:
    """A setup position's stage in the page's terms, as game frames carry it (``setup_view``)."""
    setup = seen.get("setup")
    if setup is None:
        return None
    return {
        "format": setup["format"],
        "revealed": list(setup["revealed"]),
        "cards": [list(c) for c in setup["cards"]],
        "decks_taken": list(setup["decks"]),
        "face_down": len(setup["pool"]),
    }


def _board(game: Game, lang: str) -> dict[str, Any]:
    """What the page draws a board from: the learner's view (R9), as a game frame carries it."""
    over = game.outcome is not None
    learner, other = _names(game, lang)
    seen = view(game, LEARNER)
    return {
        "setup": _setup(seen),
        "mode": "solo" if game.is_solo else "duel",
        "turn": game.turn,
        "phase": "over" if over else game.phase,
        "view": seen,
        "playable": [] if over else game.playable_cards(LEARNER),
        "legal": [] if over or game.current_player != LEARNER else game.legal_action_texts(),
        "abilities": game_abilities(game),
        "players": [
            {"name": learner, "kind": "remote"},
            {"name": other, "kind": "automaton" if game.is_solo else "remote"},
        ],
    }


def with_buttons(text: str, lang: str) -> str:
    """A tutorial text with its button placeholders (``{button_end_turn}``) in the glossary's words,
    the words of the game's own buttons."""
    for name in _BUTTONS:
        text = text.replace("{" + name + "}", term(lang, name))
    return text


def click_words(lang: str) -> dict[str, str]:
    """The glossary's words for ``{click}``/``{Click}`` with a mouse and on a touch screen."""
    return {name: term(lang, name) for name in _CLICKS}


def step_json(index: int, lang: str) -> dict[str, Any]:
    """Step ``index`` before the learner acts: its texts in ``lang``, its board and its action."""
    step = tutorial_steps()[index]
    words = step.text[lang]
    return {
        "index": index,
        "id": step.id,
        "rules": list(step.rules),
        "title": words["title"],
        "before": with_buttons(words["before"], lang),
        "action": step.action,
        **_board(step.game(), lang),
    }


def tutorial_json(lang: str) -> dict[str, Any]:
    """``GET /api/tutorial``: every step in ``lang``."""
    steps = tutorial_steps()
    return {
        "lang": lang,
        "clicks": click_words(lang),
        "steps": [step_json(i, lang) for i in range(len(steps))],
    }


def not_quite(step: TutorialStep, lang: str) -> str:
    """The friendly refusal of another action than the step's, saying which one the step wants."""
    verb, *rest = step.action.split()
    values: dict[str, str] = {}
    if verb == "play":
        values = {"card": card(rest[0]).name, "lane": _LANE_WORD[lang][rest[1]]}
    elif verb == "cast":
        player, lane, pos = rest[1].split(".")
        target = step.game().lane(int(player), lane)[int(pos)]["card"]
        values = {"card": card(rest[0]).name, "target": card(str(target)).name}
    elif verb in ("pick", "order"):
        values = {"card": card(rest[0]).name}
    elif verb == "next":
        values = {"button_next": term(lang, "button_next")}
    elif verb == "end":
        # The phase button's name is the one the game shows in that phase.
        name = "button_end_turn" if step.game().phase == "combat" else "button_combat"
        values = {"button": term(lang, name)}
    what = _WHAT[verb][lang].format(**values)
    return _NOT_QUITE[lang].format(what=what)


def try_step(index: int, action: str, lang: str) -> dict[str, Any]:
    """``POST /api/tutorial/step``: the learner's action at step ``index``.

    Not the step's action: ``{"ok": false, "message"}`` (nothing changes: the step is a position,
    not a state).  The step's action: ``{"ok": true, "after", "events", ...board}``, the events as
    game frames carry them (sentences in ``lang``).  Raises ``ActionSyntaxError`` for text that
    names no action."""
    step = tutorial_steps()[index]
    game = step.game()
    code = game.parse_action(action)
    if game.action_text(code) != step.action:
        return {"ok": False, "index": index, "message": not_quite(step, lang)}
    events = game.apply(code)
    names = _names(game, lang)
    body: dict[str, Any] = {
        "ok": True,
        "index": index,
        "after": with_buttons(step.text[lang]["after"], lang),
        "events": [event_json(e, lang, names) for e in events],
        **_board(game, lang),
    }
    outcome = game.outcome
    body["result"] = None if outcome is None else {"winner": outcome.winner, "reason": outcome.reason}
    return body


__all__ = [
    "TutorialError",
    "TutorialStep",
    "parse_steps",
    "step_json",
    "try_step",
    "tutorial_json",
    "tutorial_steps",
]
