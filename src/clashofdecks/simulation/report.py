"""The balance report: one self-contained HTML file of plots over a store of games (``clash report``).

Every figure is a matplotlib figure embedded as an SVG ``data:`` image (no script, no font or
stylesheet from anywhere else), titled with its sample size, and every win rate carries its 95 %
Wilson interval (:func:`.stats.wilson_interval`).  Draws (turn cap) count as no win: a win rate is
wins / games.  The sections, each left out with a sentence saying why when the store has no games
for it:

* ``card-win-rates`` — per card in duels (draft when there are draft duels): the owner's win rate
  when the card was in its deck ("drafted") and when it was played at least once;
* ``deck-matrix`` — the preconstructed decks against each other (duel, precon): the row deck's
  win rate, both seats counted;
* ``pick-order`` — per card in draft duels: its mean pick number (1 = a seat's first pick) against
  its drafted win rate: do players pick the strong cards first?
* ``first-player`` — the first player's win rate per kind of duel;
* ``game-length`` — the distribution of turns per mode and format;
* ``solo-levels`` — solo win rate by threat points (the level) for each agent, and
  ``solo-options`` — by each threat option that varies in the store;
* ``findings`` — the most lopsided results, in words (only those whose interval excludes even odds).

Reading goes through DuckDB (:func:`.store.connect`); the report depends on nothing but the store.
"""

from __future__ import annotations

import base64
import html
import importlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from .game import SimulationError
from .stats import wilson_interval
from .store import connect

#: Every section of a full report, in order (a test checks each is present).
SECTIONS: Final = (
    "card-win-rates",
    "deck-matrix",
    "pick-order",
    "first-player",
    "game-length",
    "solo-levels",
    "solo-options",
)

#: Threat options and their column in the games table.
THREAT_OPTIONS: Final = (
    ("base_mana", "threat_base_mana"),
    ("extra_mana_per_creature", "threat_extra_mana"),
    ("starts", "threat_starts"),
    ("resilience", "threat_resilience"),
    ("defence", "threat_defence"),
    ("abilities", "threat_abilities"),
)


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise SimulationError("the report needs matplotlib: pip install 'clashofdecks[analysis]'") from exc


@dataclass
class Rate:
    """Wins of games with the 95 % Wilson interval."""

    wins: int
    games: int

    @property
    def value(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    def excludes_even(self) -> bool:
        low, high = self.interval
        return high < 0.5 or low > 0.5

    def text(self) -> str:
        low, high = self.interval
        return f"{100 * self.value:.1f}% (95% CI {100 * low:.1f}–{100 * high:.1f}%, n = {self.games:,})"


@dataclass
class Section:
    id: str
    title: str
    sample: str
    image: str | None = None
    note: str = ""
    table: list[list[str]] = field(default_factory=list)


class _Plotter:
    """Makes matplotlib figures into SVG data URIs (no pyplot state: safe in any process)."""

    def __init__(self) -> None:
        self._mpl = _module("matplotlib")
        self._figure = _module("matplotlib.figure")

    def new(self, width: float, height: float) -> Any:
        return self._figure.Figure(figsize=(width, height), layout="constrained")

    def svg(self, fig: Any) -> str:
        buf = io.BytesIO()
        rc = {"svg.fonttype": "none", "svg.hashsalt": "clashofdecks", "font.size": 9}
        with self._mpl.rc_context(rc):
            fig.savefig(buf, format="svg", metadata={"Date": None})
        return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _rows(con: Any, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in con.execute(sql).fetchall()]


def _errorbars(rates: Sequence[Rate]) -> tuple[list[float], list[float]]:
    lows = [r.value - r.interval[0] for r in rates]
    highs = [r.interval[1] - r.value for r in rates]
    return lows, highs


# ---------------------------------------------------------------------------- sections


def _card_win_rates(con: Any, plot: _Plotter, findings: list[str]) -> Section:
    # Mirror matches (one agent in both seats) measure the cards, not the agents; draft duels
    # measure drafted cards.  Take the narrowest of these the store has games for.
    choices = (
        ("g.format = 'draft' AND g.agent0 = g.agent1", "draft duels between equal agents"),
        ("g.agent0 = g.agent1", "duels between equal agents"),
        ("g.format = 'draft'", "draft duels"),
        ("TRUE", "duels"),
    )
    counts = [
        (where, kind, _rows(con, f"SELECT count(*) FROM games g WHERE g.mode = 'duel' AND {where}")[0][0])
        for where, kind in choices
    ]
    where, kind, games = next((c for c in counts if c[2]), counts[-1])
    section = Section("card-win-rates", f"Win rate per card ({kind})", "")
    if not games:
        section.sample = "No duels in this store."
        return section
    data = _rows(
        con,
        f"""SELECT c.card, sum(c.won::int), count(c.won), sum(CASE WHEN c.played > 0 THEN c.won::int END),
                   count(CASE WHEN c.played > 0 THEN c.won END)
            FROM cards c JOIN games g ON c.run = g.run AND c.game = g.game
            WHERE g.mode = 'duel' AND {where} GROUP BY c.card ORDER BY c.card""",
    )
    owned = {c: Rate(int(w or 0), int(n)) for c, w, n, _, _ in data}
    played = {c: Rate(int(w or 0), int(n)) for c, _, _, w, n in data}
    cards = sorted(owned, key=lambda c: owned[c].value)
    fig = plot.new(7.5, max(3.0, 0.24 * len(cards) + 1.2))
    ax = fig.add_subplot()
    ys = list(range(len(cards)))
    for offset, label, rates, colour in (
        (-0.18, "in the deck (drafted)", [owned[c] for c in cards], "#1f77b4"),
        (0.18, "played at least once", [played[c] for c in cards], "#d62728"),
    ):
        ax.errorbar(
            [r.value for r in rates],
            [y + offset for y in ys],
            xerr=_errorbars(rates),
            fmt="o",
            ms=3,
            capsize=2,
            color=colour,
            label=label,
        )
    ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_yticks(ys, cards)
    ax.set_xlabel("owner's win rate (95% Wilson interval)")
    ax.legend(loc="lower right")
    n_rows = sum(r.games for r in owned.values())
    sample = f"{games:,} {kind}; {n_rows:,} card-seat rows (draws left out)"
    ax.set_title(f"Win rate per card, {kind}\nn = {games:,} games, {n_rows:,} card-seat rows")
    section.image = plot.svg(fig)
    section.sample = sample
    section.table = [["card", "drafted: win rate", "played: win rate"]] + [
        [c, owned[c].text(), played[c].text()] for c in reversed(cards)
    ]
    strong = [c for c in reversed(cards) if owned[c].excludes_even() and owned[c].value > 0.5]
    weak = [c for c in cards if owned[c].excludes_even() and owned[c].value < 0.5]
    if strong:
        findings.append(
            f"Strongest card to own in {kind}: {strong[0]}, whose owner wins {owned[strong[0]].text()}."
        )
    if weak:
        findings.append(
            f"Weakest card to own in {kind}: {weak[0]}, whose owner wins {owned[weak[0]].text()}."
        )
    gaps = sorted(cards, key=lambda c: played[c].value - owned[c].value)
    if gaps and played[gaps[-1]].games:
        c = gaps[-1]
        findings.append(
            f"Playing {c} matters most: its owner wins {played[c].text()} when it is played, "
            f"against {owned[c].text()} when it is merely in the deck."
        )
    return section


def _deck_matrix(con: Any, plot: _Plotter, findings: list[str]) -> Section:
    data = _rows(
        con,
        """SELECT deck, opponent, sum(win), count(*) FROM (
               SELECT deck0 AS deck, deck1 AS opponent, (winner = 0)::int AS win FROM games
               WHERE mode = 'duel' AND format = 'precon' AND winner IS NOT NULL
               UNION ALL
               SELECT deck1, deck0, (winner = 1)::int FROM games
               WHERE mode = 'duel' AND format = 'precon' AND winner IS NOT NULL)
           WHERE deck IS NOT NULL AND opponent IS NOT NULL GROUP BY deck, opponent""",
    )
    section = Section("deck-matrix", "Preconstructed deck against deck (duel)", "")
    if not data:
        section.sample = "No preconstructed duels in this store."
        return section
    rates = {(int(d), int(o)): Rate(int(w), int(n)) for d, o, w, n in data}
    decks = sorted({d for d, _ in rates} | {o for _, o in rates})
    games = sum(r.games for r in rates.values()) // 2
    fig = plot.new(5.5, 4.6)
    ax = fig.add_subplot()
    grid = [[rates[(d, o)].value if (d, o) in rates else float("nan") for o in decks] for d in decks]
    image = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
    for i, d in enumerate(decks):
        for j, o in enumerate(decks):
            r = rates.get((d, o))
            if r is not None:
                low, high = r.interval
                ax.text(
                    j,
                    i,
                    f"{100 * r.value:.0f}%\n{100 * low:.0f}–{100 * high:.0f}\nn={r.games:,}",
                    ha="center",
                    va="center",
                    fontsize=7,
                )
    ax.set_xticks(range(len(decks)), [f"deck {o}" for o in decks])
    ax.set_yticks(range(len(decks)), [f"deck {d}" for d in decks])
    ax.set_xlabel("opponent's deck")
    ax.set_ylabel("deck")
    fig.colorbar(image, ax=ax, label="row deck's win rate")
    ax.set_title(f"Deck against deck\nn = {games:,} precon duels (draws left out)")
    section.image = plot.svg(fig)
    section.sample = f"{games:,} preconstructed duels (each counted from both decks' side)"
    section.table = [["deck", "opponent", "deck's win rate"]] + [
        [f"deck {d}", f"deck {o}", rates[(d, o)].text()] for d in decks for o in decks if (d, o) in rates
    ]
    # Each matchup appears from both sides; name it from the winning deck's.
    pairs = [(k, r) for k, r in rates.items() if r.excludes_even() and r.value > 0.5]
    if pairs:
        (d, o), r = max(pairs, key=lambda kr: abs(kr[1].value - 0.5))
        findings.append(f"Most lopsided deck matchup: deck {d} beats deck {o} {r.text()}.")
    return section


def _pick_order(con: Any, plot: _Plotter, findings: list[str]) -> Section:
    data = _rows(
        con,
        """SELECT card, avg(pick), count(pick), sum(won::int), count(won) FROM cards
           WHERE mode = 'duel' AND format = 'draft' GROUP BY card HAVING count(pick) > 0 ORDER BY card""",
    )
    section = Section("pick-order", "Draft pick order against strength", "")
    if not data:
        section.sample = "No draft duels in this store."
        return section
    picks = sum(int(n) for _, _, n, _, _ in data)
    fig = plot.new(7.0, 5.0)
    ax = fig.add_subplot()
    xs = [float(p) for _, p, _, _, _ in data]
    rates = [Rate(int(w or 0), int(n)) for _, _, _, w, n in data]
    ax.errorbar(
        xs, [r.value for r in rates], yerr=_errorbars(rates), fmt="o", ms=3, capsize=2, color="#2ca02c"
    )
    for (card, *_), x, r in zip(data, xs, rates, strict=True):
        ax.annotate(card, (x, r.value), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("mean pick number when chosen (1 = the seat's first pick)")
    ax.set_ylabel("owner's win rate when drafted (95% interval)")
    ax.set_title(f"Pick order against strength — n = {picks:,} picks")
    section.image = plot.svg(fig)
    section.sample = f"{picks:,} draft picks by choice; win rates over every game the card was drafted in"
    order = _spearman(xs, [r.value for r in rates])
    section.note = (
        f"Spearman rank correlation of mean pick number and win rate: {order:+.2f} "
        "(negative: cards picked earlier win more, the picks follow strength)."
    )
    findings.append(f"Draft picks against strength: {section.note}")
    return section


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    def ranks(v: Sequence[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        out = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else 0.0


def _first_player(con: Any, plot: _Plotter, findings: list[str]) -> Section:
    data = _rows(
        con,
        """SELECT format, least(agent0, agent1) || ' vs ' || greatest(agent0, agent1) AS pairing,
                  sum((winner = first_seat)::int), count(*)
           FROM games WHERE mode = 'duel' GROUP BY ALL ORDER BY ALL""",
    )
    section = Section("first-player", "First-player advantage (duel)", "")
    if not data:
        section.sample = "No duels in this store."
        return section
    labels = [f"{fmt}\n{pairing}" for fmt, pairing, _, _ in data]
    rates = [Rate(int(w or 0), int(n)) for _, _, w, n in data]
    games = sum(r.games for r in rates)
    fig = plot.new(max(6.0, 1.3 * len(labels) + 1.5), 3.6)
    ax = fig.add_subplot()
    xs = list(range(len(labels)))
    ax.bar(xs, [r.value for r in rates], color="#9467bd", yerr=_errorbars(rates), capsize=4)
    for x, r in zip(xs, rates, strict=True):
        ax.text(x, 0.04, f"n={r.games:,}", ha="center", fontsize=7, color="white")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xticks(xs, labels)
    ax.set_ylim(0, 1)
    ax.set_ylabel("first player's win rate (95% interval)")
    ax.set_title(f"First-player advantage — n = {games:,} duels\n(draws count as no win)")
    section.image = plot.svg(fig)
    section.sample = f"{games:,} duels"
    for (fmt, pairing, _, _), r in zip(data, rates, strict=True):
        verdict = "an advantage" if r.value > 0.5 else "a disadvantage"
        if r.excludes_even():
            findings.append(
                f"Moving first is {verdict} in {fmt} duels ({pairing}): the first player wins {r.text()}."
            )
    return section


def _game_length(con: Any, plot: _Plotter) -> Section:
    data = _rows(
        con, "SELECT mode || ' ' || format AS kind, turns, count(*) FROM games GROUP BY ALL ORDER BY ALL"
    )
    section = Section("game-length", "Game length", "")
    kinds: dict[str, dict[int, int]] = {}
    for kind, turns, n in data:
        kinds.setdefault(str(kind), {})[int(turns)] = int(n)
    games = sum(sum(c.values()) for c in kinds.values())
    # The axis ends at the 99.5th percentile of all games: turn-cap draws would squash the rest.
    lengths = sorted((t, n) for counts in kinds.values() for t, n in counts.items())
    seen, cut = 0, lengths[-1][0] if lengths else 1
    for t, n in lengths:
        seen += n
        if seen >= 0.995 * games:
            cut = t
            break
    hidden = sum(n for t, n in lengths if t > cut)
    fig = plot.new(7.0, 3.8)
    ax = fig.add_subplot()
    for kind, counts in kinds.items():
        total = sum(counts.values())
        xs = sorted(counts)
        mean = sum(t * n for t, n in counts.items()) / total
        ax.step(
            xs, [counts[t] / total for t in xs], where="mid", label=f"{kind}: n={total:,}, mean {mean:.1f}"
        )
    ax.set_xlim(0, cut + 1)
    ax.set_xlabel("turns (each player's turn counts)")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=7)
    ax.set_title(f"Game length — n = {games:,} games")
    section.image = plot.svg(fig)
    section.sample = f"{games:,} games"
    if hidden:
        section.note = (
            f"The axis stops at {cut} turns (99.5% of games); {hidden:,} longer games are not drawn."
        )
    section.table = [["mode and format", "games", "mean turns", "turn-cap draws"]]
    for kind, draws, n, mean in _rows(
        con,
        "SELECT mode || ' ' || format, sum((winner IS NULL)::int), count(*), avg(turns) FROM games "
        "GROUP BY ALL ORDER BY ALL",
    ):
        section.table.append([str(kind), f"{n:,}", f"{mean:.2f}", f"{draws:,}"])
    return section


def _solo_levels(con: Any, plot: _Plotter, findings: list[str]) -> Section:
    data = _rows(
        con,
        """SELECT agent0, threat_points, sum((winner = 0)::int), count(*) FROM games
           WHERE mode = 'solo' AND threat_points IS NOT NULL GROUP BY ALL ORDER BY ALL""",
    )
    section = Section("solo-levels", "Solo: win rate by level (threat points)", "")
    if not data:
        section.sample = "No solo games in this store."
        return section
    by_agent: dict[str, list[tuple[int, Rate]]] = {}
    for agent, points, wins, n in data:
        by_agent.setdefault(str(agent), []).append((int(points), Rate(int(wins or 0), int(n))))
    games = sum(r.games for rows in by_agent.values() for _, r in rows)
    fig = plot.new(6.5, 3.8)
    ax = fig.add_subplot()
    for agent, rows in by_agent.items():
        xs = [p for p, _ in rows]
        rates = [r for _, r in rows]
        n = sum(r.games for r in rates)
        ax.errorbar(
            xs,
            [r.value for r in rates],
            yerr=_errorbars(rates),
            marker="o",
            capsize=3,
            label=f"{agent} (n={n:,})",
        )
    ax.set_xlabel("threat points (the level for --level)")
    ax.set_ylabel("player's win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title(f"Solo win rate by level — n = {games:,} solo games")
    section.image = plot.svg(fig)
    section.sample = f"{games:,} solo games"
    section.table = [["agent", "threat points", "win rate"]] + [
        [agent, str(p), r.text()] for agent, rows in by_agent.items() for p, r in rows
    ]
    for agent, rows in by_agent.items():
        easiest = max(rows, key=lambda pr: pr[1].value)
        hardest = min(rows, key=lambda pr: pr[1].value)
        if easiest[0] == hardest[0]:
            findings.append(f"Solo, {agent}: wins {easiest[1].text()} at {easiest[0]} threat points.")
            continue
        findings.append(
            f"Solo, {agent}: wins {easiest[1].text()} at {easiest[0]} threat points and "
            f"{hardest[1].text()} at {hardest[0]}."
        )
    return section


def _solo_options(con: Any, plot: _Plotter) -> Section:
    section = Section("solo-options", "Solo: win rate by threat option", "")
    rows: list[tuple[str, str, str, Rate]] = []
    for option, column in THREAT_OPTIONS:
        values = _rows(con, f"SELECT count(DISTINCT {column}) FROM games WHERE mode = 'solo'")[0][0]
        if int(values or 0) < 2:
            continue
        for agent, value, wins, n in _rows(
            con,
            f"""SELECT agent0, {column}, sum((winner = 0)::int), count(*) FROM games
                WHERE mode = 'solo' GROUP BY ALL ORDER BY ALL""",
        ):
            shown = str(value) if str(value) else "none"
            rows.append((str(agent), option, shown, Rate(int(wins or 0), int(n))))
    if not rows:
        section.sample = "No threat option varies among the solo games of this store."
        return section
    agents = sorted({a for a, _, _, _ in rows})
    groups = sorted({(o, v) for _, o, v, _ in rows}, key=lambda ov: (ov[0], ov[1].zfill(3)))
    games = _rows(con, "SELECT count(*) FROM games WHERE mode = 'solo'")[0][0]
    fig = plot.new(max(5.0, 0.7 * len(groups) * len(agents) + 2), 4.0)
    ax = fig.add_subplot()
    width = 0.8 / len(agents)
    for k, agent in enumerate(agents):
        mine = {(o, v): r for a, o, v, r in rows if a == agent}
        xs = [i + (k - (len(agents) - 1) / 2) * width for i, g in enumerate(groups) if g in mine]
        rates = [mine[g] for g in groups if g in mine]
        ax.bar(xs, [r.value for r in rates], width, yerr=_errorbars(rates), capsize=2, label=agent)
    ax.set_xticks(range(len(groups)), [f"{o}\n{v}" for o, v in groups], fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("player's win rate (95% interval)")
    ax.legend()
    ax.set_title(f"Solo win rate by threat option — n = {games:,} solo games")
    section.image = plot.svg(fig)
    section.sample = f"{games:,} solo games; each bar: the games with that option value"
    section.note = (
        "Options vary together in level runs (a level fixes base_mana and starts), so a bar mixes the "
        "effect of its option with the others'; run --threat batches to separate them."
    )
    section.table = [["agent", "option", "value", "win rate"]] + [[a, o, v, r.text()] for a, o, v, r in rows]
    return section


# ---------------------------------------------------------------------------- the page


def _runs(root: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted(root.rglob("run.json")):
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return out


_CSS: Final = """
body { font-family: system-ui, sans-serif; max-width: 980px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.n { color: #555; font-size: 0.9em; } img { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.8em; margin: 0.6em 0; }
td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
details { margin: 0.5em 0; } code { background: #f4f4f4; padding: 0 3px; }
"""


def _table(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass
class Report:
    html: str
    sections: list[Section]
    findings: list[str]
    games: int


def build_report(
    root: str | Path, *, title: str = "Clash of Decks balance report", command: str | None = None
) -> Report:
    """The report of the store at ``root`` (see the module)."""
    plot = _Plotter()
    folder = Path(root)
    con = connect(folder)
    findings: list[str] = []
    try:
        (games,) = _rows(con, "SELECT count(*) FROM games")[0]
        sections = [
            _card_win_rates(con, plot, findings),
            _deck_matrix(con, plot, findings),
            _pick_order(con, plot, findings),
            _first_player(con, plot, findings),
            _game_length(con, plot),
            _solo_levels(con, plot, findings),
            _solo_options(con, plot),
        ]
    finally:
        con.close()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="n">{int(games):,} games in the store. Win rates are wins / games with 95% Wilson '
        "intervals; draws (turn cap) count as no win.</p>",
    ]
    if command:
        parts.append(f"<p>Made with: <code>{html.escape(command)}</code></p>")
    parts.append('<section id="findings"><h2>Most lopsided findings</h2><ul>')
    if findings:
        parts += [f"<li>{html.escape(f)}</li>" for f in findings]
    else:
        parts.append("<li>Nothing in this store departs from even odds beyond its 95% interval.</li>")
    parts.append("</ul></section>")
    for s in sections:
        parts.append(f'<section id="{s.id}"><h2>{html.escape(s.title)}</h2>')
        parts.append(f'<p class="n">Sample: {html.escape(s.sample)}</p>')
        if s.image is not None:
            parts.append(f'<img alt="{html.escape(s.title)}" src="{s.image}">')
        if s.note:
            parts.append(f"<p>{html.escape(s.note)}</p>")
        if s.table:
            parts.append(f"<details><summary>Figures as a table</summary>{_table(s.table)}</details>")
        parts.append("</section>")
    runs = _runs(folder)
    if runs:
        rows = [["run", "games written", "complete", "settings"]]
        rows += [
            [
                str(r.get("run")),
                f"{r.get('games_written', 0):,}",
                str(r.get("complete")),
                json.dumps(r.get("settings")),
            ]
            for r in runs
        ]
        parts.append(f'<section id="runs"><h2>Runs in the store</h2>{_table(rows)}</section>')
    parts.append("</body></html>")
    return Report("\n".join(parts) + "\n", sections, findings, int(games))


def write_report(root: str | Path, out: str | Path, *, command: str | None = None) -> Report:
    """Build the report of ``root`` and write it to ``out`` (an HTML file)."""
    report = build_report(root, command=command)
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.html, encoding="utf-8")
    except OSError as exc:
        raise SimulationError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return report


__all__ = ["SECTIONS", "Rate", "Report", "Section", "build_report", "write_report"]
