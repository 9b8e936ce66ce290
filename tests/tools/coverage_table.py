"""Generate ``docs/rules-coverage.md``: rule number -> scenarios that cite it.

The table is built from the ``"rules"`` field of every scenario under ``tests/scenarios`` (the
``disputed/`` folder excluded: those scenarios are not run), plus the few checks that are test
functions rather than scenarios (``EXTRA_CHECKS``).  ``tests/test_scenarios.py`` regenerates the
table and fails if the committed document differs, so the document cannot drift from the suite.

Usage::

    .venv/bin/python tests/tools/coverage_table.py          # print the document
    .venv/bin/python tests/tools/coverage_table.py --write  # rewrite docs/rules-coverage.md
    .venv/bin/python tests/tools/coverage_table.py --check  # exit 1 if the document is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIR = ROOT / "tests" / "scenarios"
REFERENCE_DIR = ROOT / "tests" / "data" / "reference-turns"
DOC = ROOT / "docs" / "rules-coverage.md"
EXCLUDED_DIRS = ("disputed",)

#: Rule numbers of the digest (rules/clash-of-decks.md) this suite covers, with a short reminder.
RULES: dict[str, str] = {
    "R1.2": "lanes: position 0 is next to the bridge",
    "R1.3": "the hand is an ordered row and the player's life",
    "R1.4": "Bastion side first, Fort after it falls",
    "R1.5": "top/bottom name the same shared lanes for both players",
    "R1.5a": "Variant lanes=rotated: activation order of player 1",
    "R2.2": "formats: precon, draft, custom; custom not in solo",
    "R2.3": "preconstructed: the decks differ in duel; solo automaton gets the other three",
    "R2.3a": "the coin toss comes first; its winner is player A and starts",
    "R2.4": "duel draft: A-B-B-A then B-A-A-B, twice; 8 cards each",
    "R2.5": "Custom format: each player owns a Starter Kit (same card on both sides)",
    "R2.6a": "Variant first_player=last_draft_pick: player B starts",
    "R2.6": "the starting player gets 6 mana on the very first turn",
    "R3.1": "mana = cards in hand; unspent mana lost; never spend more",
    "R3.2": "only the 4 leftmost cards besides the fortress are playable",
    "R3.3": "summoning: any number of creatures, placed furthest from the bridge",
    "R3.4": "keep at least one card besides the fortress",
    "R3.4a": "no play after which the player loses at once",
    "R3.4b": "playing the last card right of a Bastion makes it fall",
    "R3.4c": "casting an incantation never makes the fortress fall",
    "R3.5": "combat: top lane back to front, then bottom lane",
    "R3.5a": "next to activate: the furthest not-yet-activated creature; no double activation",
    "R3.5b": "an activation passed while unable to attack is spent",
    "R3.6": "no attack in the entry turn (except Rage)",
    "R3.7": "attack the nearest enemy creature of the lane, else the player",
    "R3.8": "damage adds up; destroyed at health; return rightmost; gap closes; excess lost",
    "R3.9": "the owner orders creatures destroyed together, even in the opponent's turn",
    "R3.10": "end of turn: creatures heal, per-turn effects end",
    "R4.1": "N damage moves the fortress N places right",
    "R4.2": "a Bastion reaching the right end falls to Fort, leftmost; rest of the damage lost",
    "R4.2a": "the Bastion falls whatever the cause",
    "R4.3": "a Fort reaching the right end loses the game",
    "R4.4": "returning cards heal; more creatures in play, less life and mana",
    "R5.1": "incantations in Summoning and Combat, if playable and paid",
    "R5.1a": "Variant incantation_timing=summon_only",
    "R5.2": "an incantation targets any creature in play",
    "R5.2a": "no creature in play: no incantation",
    "R5.3": "incantation damage with Splash/Perforation; never a player",
    "R5.4": "the incantation returns rightmost and can be cast again",
    "R5.4a": "order within a cast: pay, damage, returns, incantation back, fortress check",
    "R5.5": "an incantation takes effect at once",
    "R6.1": "Splash: same position in the other lane; not on the player",
    "R6.2": "Perforation: the creature behind the target only; never the player",
    "R6.3": "Rage: attacks creatures in the entry turn, never the player",
    "R6.4": "Protection: the first damaging source of each turn is reduced to 0",
    "R6.4a": "only damage as the target is absorbed",
    "R6.4b": "Variant protection=any_damage",
    "R6.4c": "damage taken before Protection was granted does not use it up",
    "R6.5": "Indestructible: nothing from incantations; can be targeted",
    "R6.5a": "an incantation on it still Splashes/Perforates",
    "R6.5b": "attacks damage it; an incantation on it does not use its Protection",
    "R6.6": "Berserk: a destroying attack is followed by another",
    "R6.6a": "one extra attack per destroying attack; no player in a Rage entry turn; not for the Bastion",
    "R6.7": "Sprint: move to the front, +1 attack per creature passed, for the Combat phase",
    "R6.8": "Aura: neighbours have the ability while adjacent; not the Aura creature",
    "R6.8a": "what a granted ability did stays done",
    "R6.9": "abilities checked at each attack; hits worked out before removals",
    "R7.1": "solo setup: keep 1 of 4 until 8/24; automaton deck with its fortress at the bottom",
    "R7.1a": "solo: when the automaton starts, the player's first turn has normal mana",
    "R7.2": "solo: automaton mana 6 + 1 per player creature",
    "R7.3": "solo: automaton summons top, then alternating, until its mana is spent",
    "R7.3a": "solo: the lane alternation advances only when a creature is placed",
    "R7.3b": "Variant automaton_lanes=per_card: every revealed card takes a lane slot",
    "R7.4": "solo: an automaton incantation targets the creature nearest the bridge",
    "R7.4a": "solo: the player's creature, top lane on a tie; no target: free, discarded",
    "R7.5": "solo: automaton creatures follow creature rules; its spent cards go to its discard pile",
    "R7.5a": "solo: automaton creatures destroyed together are discarded in hit order",
    "R7.6": "solo: each point of damage to the automaton discards its top deck card",
    "R7.6a": "solo: damage beyond the cards above the automaton's fortress is lost",
    "R7.7": "solo: deck empty above the Bastion: flip to Fort, the discard pile becomes the deck",
    "R7.8": "solo: Fort rightmost loses; the automaton's last turn with its deck empty above its Fort",
    "R7.8a": "solo: the flip happens at once; the last turn is the first that begins empty",
    "R8.1": "solo levels: spend exactly the level's threat points; quick game 0",
    "R8.2": "threat options: extra mana, base mana, first player, resilience, defence, abilities",
    "R8.2a": "several abilities, 1 point each; incantations gain Splash/Perforation",
    "R8.2b": "defence: each attack on the automaton deals 1 less, never below 0",
    "R8.3": "levels 1-5: base mana 7, 8, 9, 10; 10 and the automaton starts",
    "R9.1": "public: boards, fortress places, hand sizes, identities of played/revealed/drafted cards",
    "R9.2": "hidden: the shuffled order of a hand until played, the automaton deck order",
}

#: The rulebook's FAQ questions (German rulebook, "FAQ - Allgemein" and "FAQ - Spezialfähigkeiten").
FAQ: dict[str, str] = {
    "FAQ-G1": "Can Clash of Decks be played with a single Starter Set? (Custom duel: one copy each)",
    "FAQ-G2": "Do creatures behind a destroyed one move up at once or at the end of the turn?",
    "FAQ-G3": "May I summon nothing in my Summoning phase?",
    "FAQ-G4": "May I have every card besides the fortress in play?",
    "FAQ-G5": "Do cards further right become playable as soon as a card was played?",
    "FAQ-G6": "Can a creature be placed between creatures already in a lane?",
    "FAQ-G7": "Does excess damage go on to the next creature or the fortress?",
    "FAQ-G8": "Do destroyed creatures returning right of my fortress heal me?",
    "FAQ-G9": "More creatures in play means less life and less mana?",
    "FAQ-G10": "Does excess damage to the Bastion carry over to the Fort?",
    "FAQ-G11": "When can an incantation be cast? (Summoning and Combat; a target; back rightmost)",
    "FAQ-G12": "Can an incantation be cast several times in one turn? (5 cards or fewer)",
    "FAQ-G13": "Do incantations wait a turn like creatures?",
    "FAQ-G14": "Are special abilities mandatory?",
    "FAQ-G15": "In which order do creatures killed together return to the hand?",
    "FAQ-A1": "Splash/Perforation against a Protection target: do they still trigger?",
    "FAQ-A2": "Perforation with nothing behind the target: does it hit the fortress?",
    "FAQ-A3": "Splash + Perforation: does Perforation hit behind the Splash target too?",
    "FAQ-A4": "Attacking an empty lane: do Splash/Perforation trigger?",
    "FAQ-A5": "Does Rage allow attacking the fortress in the entry turn?",
    "FAQ-A6": "Can an Indestructible creature be the target of an incantation?",
    "FAQ-A7": "Does a Sprint creature attack twice (once sprinting, once at the front)?",
    "FAQ-A8": "When does the Sprint bonus end?",
    "FAQ-A9": "Berserk after emptying the lane: may it attack the fortress? (not in a Rage entry turn)",
    "FAQ-A10": "Berserk after destroying the Bastion: another attack?",
    "FAQ-A11": "How long does a neighbour keep an ability granted by an Aura?",
    "FAQ-A12": "Does the Aura creature itself have the Aura's ability?",
}

#: Checks that are pytest functions, not scenarios (what a position cannot express).
EXTRA_CHECKS: dict[str, list[str]] = {
    "R2.2": ["tests/test_formats.py::test_r2_2_custom_is_not_played_in_solo_and_bad_names_are_refused"],
    "R2.3": [
        "tests/test_formats.py::test_r2_3_precon_duel_decks_differ_and_a_taken_deck_is_refused",
        "tests/test_formats.py::test_r2_3_precon_solo_the_automaton_gets_the_three_other_decks",
    ],
    "R2.3a": ["tests/test_formats.py::test_r2_3a_coin_toss_varies_with_the_seed_and_decides_seat_0"],
    "R2.4": [
        "tests/test_formats.py::test_r2_4_duel_draft_order_a_bb_a_then_b_aa_b_twice",
        "tests/test_formats.py::test_r2_4_last_card_of_each_round_goes_to_the_first_picker",
    ],
    "R2.5": ["tests/test_formats.py::test_r2_5_custom_builds_and_removals_by_the_right_players"],
    "R2.6": [
        "tests/test_scenarios.py::test_r2_6_first_player_gets_six_mana_on_the_first_turn_only",
        "tests/test_formats.py::test_r2_6_first_turn_has_6_mana_and_the_bastion_leftmost",
    ],
    "R2.6a": ["tests/test_formats.py::test_r2_6a_last_draft_pick_variant_b_starts"],
    "R7.1": ["tests/test_formats.py::test_r7_1_solo_draft_keep_one_of_four_until_8_and_24"],
    "R7.1a": ["tests/test_formats.py::test_r7_1a_automaton_starts_player_has_normal_mana"],
    "R7.3": ["tests/test_complete_positions.py::test_automaton_at_zero_mana_still_reveals_its_first_card"],
    "R7.7": [
        "tests/test_complete_positions.py::test_automaton_first_reveal_that_empties_the_deck_above_its_bastion_flips_it"
    ],
    "R7.8": ["tests/test_solo_properties.py::test_random_solo_games_keep_every_card_once_and_end"],
    "R7.8a": [
        "tests/test_solo_properties.py::test_r7_8_no_reveal_when_deck_empty_above_fort",
        "tests/test_complete_positions.py::test_automaton_deck_of_one_card_above_its_fort",
    ],
    "R8.1": [
        "tests/test_threat.py::test_r8_1_the_quick_game_is_the_zero_point_default",
        "tests/test_threat.py::test_r8_1_check_level_accepts_only_the_exact_total",
    ],
    "R8.2": ["tests/test_threat.py::test_r8_2_threat_points_of_each_option"],
    "R8.3": ["tests/test_threat.py::test_r8_3_levels_are_the_plain_allocations"],
    "R9.1": [
        "tests/test_views.py::test_view_is_the_position_but_the_hidden_cards",
        "tests/test_views.py::test_fortress_is_visible_where_damage_moved_it",
        "tests/test_views.py::test_cards_returned_to_the_hand_are_visible_at_their_place",
        "tests/test_complete_positions.py::test_no_card_identity_outside_a_seats_knowledge_reaches_its_view",
    ],
    "R9.2": [
        "tests/test_views.py::test_opponent_hand_is_hidden_but_the_fortress_card",
        "tests/test_views.py::test_solo_automaton_deck_is_hidden_but_its_fortress_card",
        "tests/test_views.py::test_samples_are_consistent_with_the_view",
        "tests/test_views.py::test_sample_is_seeded_deterministic_and_depends_only_on_the_view",
        "tests/test_complete_positions.py::test_no_card_identity_outside_a_seats_knowledge_reaches_its_view",
        "tests/test_complete_positions.py::test_face_down_draft_pile_and_unrevealed_custom_deck_are_never_visible",
    ],
}


def suite_files(scenario_dir: Path = SCENARIO_DIR) -> list[Path]:
    """Every scenario file of the suite, sorted, without the excluded (not run) folders."""
    return sorted(
        p
        for p in scenario_dir.rglob("*.json")
        if not any(part in EXCLUDED_DIRS for part in p.relative_to(scenario_dir).parts)
    )


def load_scenarios(path: Path) -> list[dict[str, object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, list) else [data]


def collect(scenario_dir: Path = SCENARIO_DIR) -> dict[str, list[tuple[str, str]]]:
    """Rule number -> [(file, scenario name)] in suite order."""
    table: dict[str, list[tuple[str, str]]] = {}
    for path in suite_files(scenario_dir):
        rel = path.relative_to(scenario_dir).as_posix()
        for scenario in load_scenarios(path):
            rules = scenario.get("rules", [])
            assert isinstance(rules, list)
            for rule in rules:
                table.setdefault(str(rule), []).append((rel, str(scenario["name"])))
    return table


def _sort_key(rule: str) -> tuple[int, int, int, str]:
    """R3.10 after R3.9; R3.4a after R3.4; FAQ ids keep their own order."""
    if rule.startswith("FAQ-"):
        kind, number = rule[4], rule[5:]
        return (100 + (0 if kind == "G" else 1), int(number), 0, "")
    head, _, tail = rule[1:].partition(".")
    digits = "".join(ch for ch in tail if ch.isdigit())
    letters = tail[len(digits) :]
    return (int(head), int(digits or 0), 0, letters)


def _cell(entries: list[tuple[str, str]], extra: list[str]) -> str:
    items = [f"`{file}`: {name}" for file, name in entries] + [f"test `{t}`" for t in extra]
    return "<br>".join(item.replace("|", "\\|") for item in items) or "**not covered**"


def render(scenario_dir: Path = SCENARIO_DIR) -> str:
    """The whole Markdown document."""
    table = collect(scenario_dir)
    files = suite_files(scenario_dir)
    n_scenarios = sum(len(load_scenarios(p)) for p in files)
    illegal = [s for p in files for s in load_scenarios(p) if "illegal" in s]
    n_refusal = sum("refusal" in s for s in illegal)
    n_reference = len(list(REFERENCE_DIR.glob("*.json"))) if REFERENCE_DIR.is_dir() else 0
    unknown = sorted((r for r in table if r not in RULES and r not in FAQ), key=_sort_key)
    lines = [
        "# Rules coverage",
        "",
        "Generated by `tests/tools/coverage_table.py` from the `rules` field of the scenario files in",
        "`tests/scenarios/` (the `disputed/` folder is not run and not counted); `tests/test_scenarios.py`",
        "fails when this document is out of date. Regenerate with",
        "`.venv/bin/python tests/tools/coverage_table.py --write`.",
        "",
        f"- {n_scenarios} scenarios in {len(files)} files, each run by `clash scenario tests/scenarios`",
        "  and by `tests/test_scenarios.py` (one test case per scenario).",
        f"- {len(illegal)} of them check that an action is refused; {n_refusal} of those also state why",
        "  (`refusal`: the rule number the refusal cites, or its error class).",
        f"- {n_reference} reference turns of an independent implementation in `tests/data/reference-turns/`",
        "  (whole random turns, no rule numbers), run the same way.",
        "- Rule numbers are those of the rules digest (R1-R9); FAQ ids number the questions of the",
        "  rulebook's two FAQs in their order (G: general, A: special abilities).",
        "",
        "## Rules",
        "",
        "| Rule | What it says | Scenarios and tests |",
        "|---|---|---|",
    ]
    for rule in sorted(RULES, key=_sort_key):
        lines.append(f"| {rule} | {RULES[rule]} | {_cell(table.get(rule, []), EXTRA_CHECKS.get(rule, []))} |")
    lines += ["", "## FAQ questions", "", "| FAQ | Question | Scenarios |", "|---|---|---|"]
    for faq in sorted(FAQ, key=_sort_key):
        lines.append(f"| {faq} | {FAQ[faq]} | {_cell(table.get(faq, []), [])} |")
    if unknown:
        lines += ["", "## Other numbers cited", "", "| Number | Scenarios |", "|---|---|"]
        for rule in unknown:
            lines.append(f"| {rule} | {_cell(table[rule], [])} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--write" in argv:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(text, encoding="utf-8")
        return 0
    if "--check" in argv:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC} is out of date: run tests/tools/coverage_table.py --write", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
