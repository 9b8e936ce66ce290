"""The words of the terminal front end in English, German, French and Japanese.

Card names stay as printed (the Starter Kit prints one name per card); ability names come from the
card data (:data:`clashofdecks.cards.ABILITY_NAMES`), so the screen uses the same words as the
rulebook of each language.  Everything else the player reads (UI words, event sentences, the rules
summary of ``help``, the command list, table headers, why a game ended) is looked up here by key.
An empty entry would fall back to English rather than crash, but ``tests/test_render.py`` checks that
every row has all four languages, that no row repeats the English except the listed same-word rows,
and that no English UI word appears on a German, French or Japanese screen.  A value ``n`` picks the
singular row ``key_one`` ("1 place left"); French elides ``de`` before a vowel ("royaume d'Ismcts").
Action *notation* (``play BRUTE top``) and the command words are never translated: they are the same
in every language, like chess notation.
"""

from __future__ import annotations

import re
from typing import Final

from ..cards import ABILITY_NAMES

LANGUAGES: Final = ("en", "de", "fr", "ja")

# key -> (en, de, fr, ja)
_UI: Final[dict[str, tuple[str, str, str, str]]] = {
    # ------------------------------------------------------------ people and places
    "you": ("you", "du", "vous", "あなた"),
    "player": ("Player", "Spieler", "Joueur", "プレイヤー"),
    "automaton": ("automaton", "Automat", "automate", "オートマ"),
    "player_n": ("player {n}", "Spieler {n}", "joueur {n}", "プレイヤー{n}"),
    "seat": ("seat {n}", "Platz {n}", "siège {n}", "席{n}"),
    "realm_of": ("{name}'s realm", "Reich von {name}", "royaume de {name}", "{name}の領域"),
    "top": ("top", "oben", "haut", "上"),
    "bottom": ("bottom", "unten", "bas", "下"),
    "lane": ("lane", "Bahn", "voie", "レーン"),
    "bridge": ("bridge", "Brücke", "pont", "橋"),
    "far_to_bridge": ("far → bridge", "fern → Brücke", "loin → pont", "奥 → 橋"),
    "bridge_to_far": ("bridge → far", "Brücke → fern", "pont → loin", "橋 → 奥"),
    "empty": ("(empty)", "(leer)", "(vide)", "(なし)"),
    # ------------------------------------------------------------ status
    "turn": ("turn", "Zug", "tour", "ターン"),
    "phase": ("phase", "Phase", "phase", "フェイズ"),
    "phase_setup": ("setup", "Vorbereitung", "mise en place", "準備"),
    "phase_summon": ("Summoning", "Beschwörung", "Invocation", "召喚"),
    "phase_combat": ("Combat", "Kampf", "Combat", "戦闘"),
    "phase_over": ("game over", "Spielende", "partie terminée", "ゲーム終了"),
    "mana": ("mana", "Mana", "mana", "マナ"),
    "to_play": ("{name} to play", "{name} ist am Zug", "à {name} de jouer", "{name}の手番"),
    "decides": ("{name} decides", "{name} entscheidet", "{name} décide", "{name}が選ぶ"),
    # ------------------------------------------------------------ cards, hand, fortress
    "hand": ("hand", "Hand", "main", "手札"),
    "hand_of": ("{name}'s hand", "Hand von {name}", "main de {name}", "{name}の手札"),
    "cost": ("cost", "Kosten", "coût", "コスト"),
    "attack_health": ("atk/hp", "Angr./LP", "att./PV", "攻/体"),
    "damage_value": ("damage {n}", "Schaden {n}", "dégâts {n}", "ダメージ{n}"),
    "abilities": ("abilities", "Fähigkeiten", "capacités", "能力"),
    "playable": ("playable", "spielbar", "jouable", "使用可"),
    "fortress": ("fortress", "Festung", "forteresse", "城塞"),
    "bastion": ("Bastion", "Bastion", "Bastion", "バスティオン"),
    "fort": ("Fort", "Fort", "Fort", "フォート"),
    "places_left": ("{n} places left", "noch {n} Plätze", "encore {n} places", "残り{n}"),
    "places_left_one": ("{n} place left", "noch {n} Platz", "encore {n} place", "残り{n}"),
    "deck": ("deck", "Stapel", "pioche", "山札"),
    "deck_cards": (
        "deck: {n} cards above its fortress",
        "Stapel: {n} Karten über der Festung",
        "pioche : {n} cartes au-dessus de la forteresse",
        "山札：城塞の上に{n}枚",
    ),
    "deck_cards_one": (
        "deck: {n} card above its fortress",
        "Stapel: {n} Karte über der Festung",
        "pioche : {n} carte au-dessus de la forteresse",
        "山札：城塞の上に{n}枚",
    ),
    "discard": ("discard pile", "Ablagestapel", "défausse", "捨て札"),
    "hidden_cards": (
        "? = hidden card (R9.2)",
        "? = verdeckte Karte (R9.2)",
        "? = carte cachée (R9.2)",
        "? = 非公開のカード (R9.2)",
    ),
    "new_marker": ("new", "neu", "nouveau", "新"),
    "activated_marker": ("done", "fertig", "activé", "済"),
    "protection_used": (
        "Protection used",
        "Schutz verbraucht",
        "Protection utilisée",
        "プロテクション使用済",
    ),
    "granted_marker": (
        "* granted by an Aura",
        "* durch eine Aura verliehen",
        "* accordé par une Aura",
        "* オーラによる付与",
    ),
    "incantation": ("incantation", "Zauber", "incantation", "呪文"),
    "creature": ("creature", "Kreatur", "créature", "クリーチャー"),
    "aura_grants": ("Aura: {names}", "Aura: {names}", "Aura : {names}", "オーラ：{names}"),
    # ------------------------------------------------------------ setup
    "setup_draft": (
        "Draft: {name} picks one of the revealed cards",
        "Draft: {name} wählt eine der offenen Karten",
        "Draft : {name} prend une des cartes révélées",
        "ドラフト：{name}が公開カードから1枚選ぶ",
    ),
    "setup_deck": (
        "{name} chooses a preconstructed deck",
        "{name} wählt ein vorgefertigtes Deck",
        "{name} choisit un deck préconstruit",
        "{name}が構築済みデッキを選ぶ",
    ),
    "setup_build": (
        "{name} builds a 10-card deck: type build and 10 card ids",
        "{name} baut ein Deck aus 10 Karten: build und 10 Karten-IDs eingeben",
        "{name} construit un deck de 10 cartes : tapez build et 10 identifiants",
        "{name}が10枚のデッキを組む：build とカードIDを10個入力",
    ),
    "setup_ban": (
        "{name} removes a card from the opponent's deck",
        "{name} entfernt eine Karte aus dem Deck des Gegners",
        "{name} retire une carte du deck adverse",
        "{name}が相手のデッキから1枚除外する",
    ),
    "revealed": ("revealed", "aufgedeckt", "révélées", "公開"),
    "cards_of": ("{name}'s cards", "Karten von {name}", "cartes de {name}", "{name}のカード"),
    "face_down": ("face down: {n}", "verdeckt: {n}", "face cachée : {n}", "裏向き：{n}"),
    "decks_taken": ("decks taken", "vergebene Decks", "decks pris", "選択済みデッキ"),
    "card_pool": ("the 32 cards", "die 32 Karten", "les 32 cartes", "32枚のカード"),
    # ------------------------------------------------------------ prompt and commands
    "actions": ("Your choices", "Deine Möglichkeiten", "Vos choix", "選択肢"),
    "actions_of": ("Choices of {name}", "Möglichkeiten von {name}", "Choix de {name}", "{name}の選択肢"),
    "prompt": ("{name}> ", "{name}> ", "{name}> ", "{name}> "),
    "input_hint": (
        "number or action · help · hint · undo · save FILE · load FILE · quit",
        "Nummer oder Aktion · help · hint · undo · save DATEI · load DATEI · quit",
        "numéro ou action · help · hint · undo · save FICHIER · load FICHIER · quit",
        "番号か行動 · help · hint · undo · save ファイル · load ファイル · quit",
    ),
    "bad_number": (
        "There is no choice {n}: choose {valid}.",
        "Es gibt keine Möglichkeit {n}: wähle {valid}.",
        "Il n'y a pas de choix {n} : choisissez {valid}.",
        "{n}番はありません：{valid}から選んでください。",
    ),
    "undo_revealed": (
        "Nothing to undo: cards were revealed since your last decision.",
        "Nichts zurückzunehmen: seit deiner letzten Entscheidung wurden Karten aufgedeckt.",
        "Rien à annuler : des cartes ont été révélées depuis votre dernière décision.",
        "取り消せません：最後の選択の後にカードが公開されました。",
    ),
    "illegal": (
        "Not possible: {reason}",
        "Nicht möglich: {reason}",
        "Impossible : {reason}",
        "できません：{reason}",
    ),
    "unknown_input": (
        "I do not understand {text!r}: type a number, an action such as 'end', or 'help'.",
        "Ich verstehe {text!r} nicht: gib eine Nummer, eine Aktion wie 'end' oder 'help' ein.",
        "Je ne comprends pas {text!r} : tapez un numéro, une action comme 'end', ou 'help'.",
        "{text!r} は分かりません：番号、'end' のような行動、または 'help' を入力してください。",
    ),
    "nothing_to_undo": (
        "Nothing to undo: you made no decision yet this turn.",
        "Nichts zurückzunehmen: du hast in diesem Zug noch nichts entschieden.",
        "Rien à annuler : vous n'avez encore rien décidé ce tour-ci.",
        "取り消せるものはありません：このターンはまだ何も選んでいません。",
    ),
    "undone": ("Undone: {action}", "Zurückgenommen: {action}", "Annulé : {action}", "取り消し：{action}"),
    "undo_in_setup": (
        "The setup cannot be undone (new cards were revealed).",
        "Die Vorbereitung kann nicht zurückgenommen werden (neue Karten wurden aufgedeckt).",
        "La mise en place ne peut pas être annulée (de nouvelles cartes ont été révélées).",
        "準備は取り消せません（新しいカードが公開されています）。",
    ),
    "saved": (
        "Game saved to {path} ({n} actions).",
        "Partie gespeichert in {path} ({n} Aktionen).",
        "Partie enregistrée dans {path} ({n} actions).",
        "{path} に保存しました（{n}手）。",
    ),
    "saved_one": (
        "Game saved to {path} ({n} action).",
        "Partie gespeichert in {path} ({n} Aktion).",
        "Partie enregistrée dans {path} ({n} action).",
        "{path} に保存しました（{n}手）。",
    ),
    "loaded": (
        "Game loaded from {path} ({n} actions replayed).",
        "Partie aus {path} geladen ({n} Aktionen).",
        "Partie chargée depuis {path} ({n} actions rejouées).",
        "{path} から読み込みました（{n}手を再現）。",
    ),
    "loaded_one": (
        "Game loaded from {path} ({n} action replayed).",
        "Partie aus {path} geladen ({n} Aktion).",
        "Partie chargée depuis {path} ({n} action rejouée).",
        "{path} から読み込みました（{n}手を再現）。",
    ),
    "need_file": (
        "Name a file: {cmd} FILE",
        "Gib eine Datei an: {cmd} DATEI",
        "Indiquez un fichier : {cmd} FICHIER",
        "ファイル名を指定してください：{cmd} ファイル",
    ),
    "file_error": (
        "Cannot {cmd}: {reason}",
        "{cmd} nicht möglich: {reason}",
        "Impossible de faire {cmd} : {reason}",
        "{cmd} できません：{reason}",
    ),
    "hint_unavailable": (
        "Hints are unavailable (the search agent is not installed).",
        "Tipps sind nicht verfügbar (der Such-Agent fehlt).",
        "Les conseils ne sont pas disponibles (l'agent de recherche est absent).",
        "ヒントは使えません（探索エージェントがありません）。",
    ),
    "hint_thinking": (
        "Thinking for {s:g} s… (Ctrl-C cancels the hint)",
        "Denke {s:g} s nach… (Strg-C bricht den Tipp ab)",
        "Réflexion pendant {s:g} s… (Ctrl-C annule le conseil)",
        "{s:g}秒考えています…（Ctrl-Cでヒントを中止）",
    ),
    "hint_result": (
        "Hint: {action}  ({score})",
        "Tipp: {action}  ({score})",
        "Conseil : {action}  ({score})",
        "ヒント：{action}（{score}）",
    ),
    "hint_none": (
        "No hint now: it is not your decision.",
        "Kein Tipp: du bist nicht am Zug.",
        "Pas de conseil : ce n'est pas à vous de décider.",
        "今はあなたの番ではありません。",
    ),
    "thinking": ("{name} is thinking…", "{name} denkt nach…", "{name} réfléchit…", "{name}が考えています…"),
    "plays": ("{name}: {action}", "{name}: {action}", "{name} : {action}", "{name}：{action}"),
    "bye": ("Bye.", "Tschüss.", "Au revoir.", "さようなら。"),
    "winner_is": ("{name} wins", "{name} gewinnt", "{name} gagne", "{name}の勝ち"),
    "draw": ("Draw", "Unentschieden", "Match nul", "引き分け"),
    "pass_device": (
        "Pass the keyboard to {name}.",
        "Gib die Tastatur an {name} weiter.",
        "Passez le clavier à {name}.",
        "キーボードを{name}に渡してください。",
    ),
    "help_commands": ("Commands", "Befehle", "Commandes", "コマンド"),
    "file_word": ("FILE", "DATEI", "FICHIER", "ファイル"),
    "card_word": ("CARD", "KARTE", "CARTE", "カード"),
    "help_choose": (
        "choose the numbered action",
        "die nummerierte Möglichkeit wählen",
        "choisir l'action numérotée",
        "番号の行動を選ぶ",
    ),
    "help_play": (
        "R3.3 summon a playable creature into a lane",
        "R3.3 eine spielbare Kreatur in eine Bahn beschwören",
        "R3.3 invoquer une créature jouable dans une voie",
        "R3.3 使用可能なクリーチャーをレーンに出す",
    ),
    "help_cast": (
        "R5 cast an incantation at a creature (e.g. cast BOOM 1.top.0)",
        "R5 einen Zauber auf eine Kreatur wirken (z. B. cast BOOM 1.top.0)",
        "R5 lancer une incantation sur une créature (p. ex. cast BOOM 1.top.0)",
        "R5 クリーチャーに呪文を唱える（例：cast BOOM 1.top.0）",
    ),
    "help_next": (
        "R3.5 resolve the next attacking creature",
        "R3.5 die nächste angreifende Kreatur abhandeln",
        "R3.5 résoudre la prochaine créature qui attaque",
        "R3.5 次に攻撃するクリーチャーを解決する",
    ),
    "help_end": (
        "end Summoning; in Combat, resolve the remaining attacks and end the turn",
        "Beschwörung beenden; im Kampf die übrigen Angriffe abhandeln und den Zug beenden",
        "finir l'Invocation ; en Combat, résoudre les attaques restantes et finir le tour",
        "召喚を終える；戦闘では残りの攻撃を解決してターンを終える",
    ),
    "help_order": (
        "R3.9 the return order of creatures destroyed together",
        "R3.9 die Rückkehr-Reihenfolge gleichzeitig zerstörter Kreaturen",
        "R3.9 l'ordre de retour des créatures détruites ensemble",
        "R3.9 同時に破壊されたクリーチャーを戻す順番",
    ),
    "help_setup": (
        "R2.4 draft pick · R2.3 preconstructed deck",
        "R2.4 Draft-Wahl · R2.3 vorgefertigtes Deck",
        "R2.4 choix du draft · R2.3 deck préconstruit",
        "R2.4 ドラフトの選択 · R2.3 構築済みデッキ",
    ),
    "help_build": (
        "R2.5 custom deck and removals",
        "R2.5 eigenes Deck und Entfernen",
        "R2.5 deck personnalisé et retraits",
        "R2.5 自作デッキと除外",
    ),
    "help_hint": (
        "ask the search agent for a move (Ctrl-C cancels it)",
        "den Such-Agenten um einen Zug bitten (Strg-C bricht ab)",
        "demander un coup à l'agent de recherche (Ctrl-C l'annule)",
        "探索エージェントに手を尋ねる（Ctrl-Cで中止）",
    ),
    "help_undo": (
        "take back your last decision of this turn",
        "deine letzte Entscheidung dieses Zuges zurücknehmen",
        "reprendre votre dernière décision de ce tour",
        "このターンの最後の選択を取り消す",
    ),
    "help_save": (
        "write / read a game record (JSON); --force replaces a file",
        "eine Partie-Aufzeichnung (JSON) schreiben / lesen; --force ersetzt eine Datei",
        "écrire / lire un enregistrement de partie (JSON) ; --force remplace un fichier",
        "対局記録（JSON）の保存／読み込み；--force で上書き",
    ),
    "help_board": (
        "draw the screen again",
        "den Bildschirm neu zeichnen",
        "redessiner l'écran",
        "画面を再表示",
    ),
    "help_quit": (
        "leave the game (it stays saved: clash play --resume)",
        "das Spiel verlassen (es bleibt gespeichert: clash play --resume)",
        "quitter la partie (elle reste enregistrée : clash play --resume)",
        "ゲームを終える（保存済み：clash play --resume）",
    ),
    "col_id": ("id", "ID", "id", "ID"),
    "col_card": ("card", "Karte", "carte", "カード"),
    "col_cards": ("cards", "Karten", "cartes", "カード"),
    "automaton_name": ("Automaton", "Automat", "l'Automate", "オートマ"),
    "title": (
        "Clash of Decks · {mode} · {format} · seed {seed}",
        "Clash of Decks · {mode} · {format} · Seed {seed}",
        "Clash of Decks · {mode} · {format} · graine {seed}",
        "Clash of Decks · {mode} · {format} · シード{seed}",
    ),
    "title_threat": ("threat {n}", "Bedrohung {n}", "menace {n}", "脅威{n}"),
    "title_starts": (
        "{name} starts (R2.6)",
        "{name} beginnt (R2.6)",
        "{name} commence (R2.6)",
        "{name}が先手 (R2.6)",
    ),
    "mode_solo": ("solo", "Solo", "solo", "ソロ"),
    "mode_duel": ("duel", "Duell", "duel", "対戦"),
    "format_draft": ("draft", "Draft", "draft", "ドラフト"),
    "format_precon": ("preconstructed decks", "vorgefertigte Decks", "decks préconstruits", "構築済みデッキ"),
    "format_custom": ("custom decks", "eigene Decks", "decks personnalisés", "自作デッキ"),
    "format_random": ("random deal", "Zufallsverteilung", "donne aléatoire", "ランダム配布"),
    "choices_hint": (
        "help · hint · undo · save {file} · quit",
        "help · hint · undo · save {file} · quit",
        "help · hint · undo · save {file} · quit",
        "help · hint · undo · save {file} · quit",
    ),
    "next_gloss": (
        "{card} attacks {target}",
        "{card} greift {target} an",
        "{card} attaque {target}",
        "{card}が{target}を攻撃",
    ),
    "next_gloss_player": (
        "{card} attacks {name} directly",
        "{card} greift {name} direkt an",
        "{card} attaque {name} directement",
        "{card}が{name}を直接攻撃",
    ),
    "end_gloss_summon": ("to Combat", "zum Kampf", "passer au Combat", "戦闘へ"),
    "end_gloss_combat": (
        "resolve all remaining attacks, end the turn",
        "alle übrigen Angriffe abhandeln, Zug beenden",
        "résoudre toutes les attaques restantes, finir le tour",
        "残りの攻撃をすべて解決してターン終了",
    ),
    "end_gloss_last": ("end the turn", "Zug beenden", "finir le tour", "ターン終了"),
    "game_over_options": (
        "The game is over. Type {options}.",
        "Das Spiel ist vorbei. Eingabe: {options}.",
        "La partie est finie. Tapez {options}.",
        "ゲーム終了。入力：{options}。",
    ),
    "or": ("or", "oder", "ou", "または"),
    "handover": (
        "{name}, press Enter when you are at the keyboard (the screen stays hidden until then).",
        "{name}, drücke Enter, wenn du an der Tastatur bist (bis dahin bleibt der Bildschirm verdeckt).",
        "{name}, appuyez sur Entrée quand vous êtes au clavier (l'écran reste caché jusque-là).",
        "{name}さん、キーボードの前に来たらEnterを押してください（それまで画面は隠れています）。",
    ),
    "handover_prompt": ("[Enter] ", "[Enter] ", "[Entrée] ", "[Enter] "),
    "save_exists": (
        "{path} already exists: save {path} --force replaces it.",
        "{path} gibt es schon: save {path} --force ersetzt die Datei.",
        "{path} existe déjà : save {path} --force le remplace.",
        "{path} は既にあります：save {path} --force で上書きします。",
    ),
    "autosaved": (
        "The game is saved in {path}; clash play --resume continues it.",
        "Die Partie ist in {path} gespeichert; clash play --resume setzt sie fort.",
        "La partie est enregistrée dans {path} ; clash play --resume la reprend.",
        "ゲームは {path} に保存済み；clash play --resume で再開できます。",
    ),
    "not_autosaved": (
        "The game was not saved automatically ({reason}); save {file} keeps it.",
        "Die Partie wurde nicht automatisch gespeichert ({reason}); save {file} sichert sie.",
        "La partie n'a pas été enregistrée automatiquement ({reason}) ; save {file} la garde.",
        "自動保存できませんでした（{reason}）；save {file} で保存できます。",
    ),
    "interrupted": (
        "Interrupted (Ctrl-C).",
        "Abgebrochen (Strg-C).",
        "Interrompu (Ctrl-C).",
        "中断しました（Ctrl-C）。",
    ),
    "resumed": (
        "Continuing the game saved in {path} ({n} actions).",
        "Setze die in {path} gespeicherte Partie fort ({n} Aktionen).",
        "Reprise de la partie enregistrée dans {path} ({n} actions).",
        "{path} に保存されたゲームを再開します（{n}手）。",
    ),
    "resumed_one": (
        "Continuing the game saved in {path} ({n} action).",
        "Setze die in {path} gespeicherte Partie fort ({n} Aktion).",
        "Reprise de la partie enregistrée dans {path} ({n} action).",
        "{path} に保存されたゲームを再開します（{n}手）。",
    ),
    "resume_none": (
        "No unfinished game to resume in {path}.",
        "Keine unvollendete Partie zum Fortsetzen in {path}.",
        "Aucune partie inachevée à reprendre dans {path}.",
        "{path} に再開できる未完了のゲームはありません。",
    ),
    "hint_cancelled": ("Hint cancelled.", "Tipp abgebrochen.", "Conseil annulé.", "ヒントを中止しました。"),
    "typeahead_dropped": (
        "Input typed while {name} played was ignored: type it again.",
        "Eingaben während des Zuges von {name} wurden verworfen: bitte neu eingeben.",
        "La saisie faite pendant que {name} jouait a été ignorée : retapez-la.",
        "{name}の手番中の入力は無視しました：もう一度入力してください。",
    ),
    "rollout_score": (
        "rollout score {score:.2f}, not a win chance",
        "Rollout-Wert {score:.2f}, keine Gewinnchance",
        "score des simulations {score:.2f}, pas une chance de victoire",
        "ロールアウト評価値 {score:.2f}（勝率ではありません）",
    ),
    "win_chance": (
        "win chance {score:.0%}",
        "Gewinnchance {score:.0%}",
        "chance de victoire {score:.0%}",
        "勝率 {score:.0%}",
    ),
    "estimated_win_chance": (
        "estimated win chance {score:.0%}, not yet calibrated",
        "geschätzte Gewinnchance {score:.0%}, noch nicht kalibriert",
        "chance de victoire estimée {score:.0%}, pas encore calibrée",
        "推定勝率 {score:.0%}、未較正",
    ),
    "reason_fort_rightmost": (
        "{loser}'s Fort reached the rightmost place (R4.3)",
        "das Fort von {loser} hat den Platz ganz rechts erreicht (R4.3)",
        "le Fort de {loser} a atteint la place la plus à droite (R4.3)",
        "{loser}のフォートが右端に達した (R4.3)",
    ),
    "reason_survived_last_turn": (
        "{winner} survived the automaton's last turn (R7.8)",
        "{winner} hat den letzten Zug des Automaten überstanden (R7.8)",
        "{winner} a survécu au dernier tour de l'automate (R7.8)",
        "{winner}がオートマの最後のターンを耐えた (R7.8)",
    ),
    "reason_turn_cap": (
        "the turn limit was reached",
        "das Zuglimit wurde erreicht",
        "la limite de tours est atteinte",
        "ターン上限に達した",
    ),
    "reason_resigned": ("{loser} resigned", "{loser} hat aufgegeben", "{loser} abandonne", "{loser}が投了"),
    "screen_hidden": (
        "(screen hidden for the handover)",
        "(Bildschirm für die Übergabe verdeckt)",
        "(écran caché pour le passage du clavier)",
        "（交代のため画面を隠しています）",
    ),
    "help_rules": ("Rules", "Regeln", "Règles", "ルール"),
    # ------------------------------------------------------------ replay
    "replay_title": (
        "Replay: {mode}, {format}, seed {seed}, {players}",
        "Wiedergabe: {mode}, {format}, Seed {seed}, {players}",
        "Relecture : {mode}, {format}, graine {seed}, {players}",
        "リプレイ：{mode}、{format}、シード{seed}、{players}",
    ),
    "replay_step": ("action {i} of {n}", "Aktion {i} von {n}", "action {i} sur {n}", "{n}手中{i}手目"),
    "replay_start": ("start of the game", "Spielbeginn", "début de la partie", "開始時"),
    "replay_hint": (
        "Enter/n next · b back · N go to action N · first · last · q quit",
        "Enter/n weiter · b zurück · N zu Aktion N · first · last · q Ende",
        "Entrée/n suivant · b retour · N aller à l'action N · first · last · q quitter",
        "Enter/n 次へ · b 戻る · N でN手目へ · first · last · q 終了",
    ),
    "replay_bad": (
        "Type n, b, a number from 0 to {n}, first, last or q.",
        "Gib n, b, eine Zahl von 0 bis {n}, first, last oder q ein.",
        "Tapez n, b, un nombre de 0 à {n}, first, last ou q.",
        "n、b、0〜{n}の数、first、last、q のどれかを入力してください。",
    ),
    "replay_end": ("end of the record", "Ende der Aufzeichnung", "fin de l'enregistrement", "記録の終わり"),
}

# Event sentences: placeholders {who} (actor), {card}, {lane}, {n} (amount), {tgt} (target player's
# name), {tcard} (target card), {detail}.  Card names are already rendered when substituted.
_EVENTS: Final[dict[str, tuple[str, str, str, str]]] = {
    "turn_started": (
        "Turn {n}: {who} to play, {mana} mana",
        "Zug {n}: {who} ist am Zug, {mana} Mana",
        "Tour {n} : à {who} de jouer, {mana} mana",
        "ターン{n}：{who}の手番、マナ{mana}",
    ),
    "last_turn": (
        "its last turn: the deck is empty above its Fort",
        "sein letzter Zug: der Stapel über dem Fort ist leer",
        "son dernier tour : la pioche est vide au-dessus du Fort",
        "最後のターン：フォートの上の山札が空",
    ),
    "phase_changed": (
        "{who}: Combat phase",
        "{who}: Kampfphase",
        "{who} : phase de combat",
        "{who}：戦闘フェイズ",
    ),
    "played": (
        "{who} plays {card} into the {lane} lane",
        "{who} spielt {card} in die Bahn {lane}",
        "{who} joue {card} dans la voie {lane}",
        "{who}が{card}を{lane}レーンに出す",
    ),
    "cast": (
        "{who} casts {card} on {tcard} ({tgt}, {lane} {pos})",
        "{who} wirkt {card} auf {tcard} ({tgt}, {lane} {pos})",
        "{who} lance {card} sur {tcard} ({tgt}, {lane} {pos})",
        "{who}が{card}を{tcard}に唱える（{tgt}、{lane} {pos}）",
    ),
    "fizzled": (
        "{who}'s {card} has no target: no effect, no cost",
        "{card} von {who} hat kein Ziel: keine Wirkung, keine Kosten",
        "{card} de {who} n'a pas de cible : sans effet, sans coût",
        "{who}の{card}は対象なし：効果もコストもなし",
    ),
    "revealed": (
        "The automaton reveals {card}",
        "Der Automat deckt {card} auf",
        "L'automate révèle {card}",
        "オートマが{card}を公開",
    ),
    "activation_passed": (
        "{who}'s {card} cannot attack yet",
        "{card} von {who} kann noch nicht angreifen",
        "{card} de {who} ne peut pas encore attaquer",
        "{who}の{card}はまだ攻撃できない",
    ),
    "sprinted": (
        "{who}'s {card} sprints to the front past {n} (+{n} attack)",
        "{card} von {who} sprintet nach vorn an {n} vorbei (+{n} Angriff)",
        "{card} de {who} sprinte vers l'avant en dépassant {n} (+{n} attaque)",
        "{who}の{card}が{n}体を追い越して先頭へ（攻撃+{n}）",
    ),
    "attacked_player": (
        "{who}'s {card} hits {tgt} directly for {n}",
        "{card} von {who} trifft {tgt} direkt: {n}",
        "{card} de {who} frappe {tgt} directement : {n}",
        "{who}の{card}が{tgt}を直接攻撃：{n}",
    ),
    "attacked": (
        "{who}'s {card} attacks {tcard} for {n}",
        "{card} von {who} greift {tcard} an: {n}",
        "{card} de {who} attaque {tcard} : {n}",
        "{who}の{card}が{tcard}を攻撃：{n}",
    ),
    "berserk": (
        "{who}'s {card} attacks again (Berserk)",
        "{card} von {who} greift erneut an (Berserk)",
        "{card} de {who} attaque encore (Berserk)",
        "{who}の{card}が再攻撃（狂暴）",
    ),
    "damaged": (
        "{card} takes {n} ({role}), damage {total}/{health}",
        "{card} erleidet {n} ({role}), Schaden {total}/{health}",
        "{card} subit {n} ({role}), dégâts {total}/{health}",
        "{card}に{n}ダメージ（{role}）、計{total}/{health}",
    ),
    "role_target": ("target", "Ziel", "cible", "対象"),
    "absorbed": (
        "{card}'s {detail} absorbs the damage",
        "{detail} von {card} hält den Schaden ab",
        "{detail} de {card} absorbe les dégâts",
        "{card}の{detail}がダメージを防ぐ",
    ),
    "destroyed": (
        "{who}'s {card} is destroyed",
        "{card} von {who} wird zerstört",
        "{card} de {who} est détruit",
        "{who}の{card}が破壊された",
    ),
    "returned": (
        "{card} returns to {who}'s hand, rightmost",
        "{card} kommt ganz rechts auf die Hand von {who}",
        "{card} revient tout à droite de la main de {who}",
        "{card}が{who}の手札の右端に戻る",
    ),
    "discarded": (
        "{card} goes to the automaton's discard pile",
        "{card} kommt auf den Ablagestapel des Automaten",
        "{card} va dans la défausse de l'automate",
        "{card}がオートマの捨て札へ",
    ),
    "fortress_moved": (
        "{who}'s fortress moves {n} places right",
        "Die Festung von {who} rückt {n} Plätze nach rechts",
        "La forteresse de {who} avance de {n} places vers la droite",
        "{who}の城塞が右へ{n}つ移動",
    ),
    "fortress_moved_one": (
        "{who}'s fortress moves {n} place right",
        "Die Festung von {who} rückt {n} Platz nach rechts",
        "La forteresse de {who} avance d'{n} place vers la droite",
        "{who}の城塞が右へ{n}つ移動",
    ),
    "bastion_fell": (
        "{who}'s Bastion falls: the Fort takes its place",
        "Die Bastion von {who} fällt: das Fort tritt an ihre Stelle",
        "Le Bastion de {who} tombe : le Fort prend sa place",
        "{who}のバスティオン陥落：フォートに交代",
    ),
    "deck_rebuilt": (
        "The automaton's discard pile ({n} cards) is shuffled onto its Fort",
        "Der Ablagestapel des Automaten ({n} Karten) wird gemischt auf sein Fort gelegt",
        "La défausse de l'automate ({n} cartes) est mélangée sur son Fort",
        "オートマの捨て札{n}枚をシャッフルしてフォートの上へ",
    ),
    "deck_rebuilt_one": (
        "The automaton's discard pile ({n} card) is shuffled onto its Fort",
        "Der Ablagestapel des Automaten ({n} Karte) wird gemischt auf sein Fort gelegt",
        "La défausse de l'automate ({n} carte) est mélangée sur son Fort",
        "オートマの捨て札{n}枚をシャッフルしてフォートの上へ",
    ),
    "order_chosen": (
        "{who} returns {detail}",
        "{who} nimmt zurück: {detail}",
        "{who} reprend : {detail}",
        "{who}が戻す順：{detail}",
    ),
    "decision_pending": (
        "{who} must choose the return order of {detail}",
        "{who} muss die Reihenfolge wählen: {detail}",
        "{who} doit choisir l'ordre de retour : {detail}",
        "{who}が戻す順番を選ぶ：{detail}",
    ),
    "turn_ended": (
        "End of turn {n}: creatures heal",
        "Ende von Zug {n}: Kreaturen heilen",
        "Fin du tour {n} : les créatures guérissent",
        "ターン{n}終了：クリーチャーが回復",
    ),
    "game_over": (
        "Game over: {detail}",
        "Spielende: {detail}",
        "Fin de partie : {detail}",
        "ゲーム終了：{detail}",
    ),
    "setup": ("{detail}", "{detail}", "{detail}", "{detail}"),
    "setup_revealed": ("Revealed: {cards}", "Aufgedeckt: {cards}", "Révélées : {cards}", "公開：{cards}"),
    "setup_gets": (
        "{who} gets {cards}",
        "{who} erhält {cards}",
        "{who} reçoit {cards}",
        "{who}が{cards}を得る",
    ),
    "setup_picks": (
        "{who} picks {cards}",
        "{who} wählt {cards}",
        "{who} prend {cards}",
        "{who}が{cards}を選ぶ",
    ),
    "setup_deck": (
        "{who} chooses deck {cards}",
        "{who} wählt Deck {cards}",
        "{who} choisit le deck {cards}",
        "{who}がデッキ{cards}を選ぶ",
    ),
    "setup_builds": (
        "{who} builds a 10-card deck",
        "{who} baut ein Deck aus 10 Karten",
        "{who} construit un deck de 10 cartes",
        "{who}が10枚のデッキを組む",
    ),
    "setup_reveals": (
        "{who} reveals {cards}",
        "{who} deckt auf: {cards}",
        "{who} révèle {cards}",
        "{who}が公開：{cards}",
    ),
    "setup_removes": (
        "{who} removes {cards}",
        "{who} entfernt {cards}",
        "{who} retire {cards}",
        "{who}が{cards}を除外",
    ),
    "setup_dealt": (
        "Hands shuffled, Bastion leftmost: the game begins",
        "Hände gemischt, Bastion ganz links: das Spiel beginnt",
        "Mains mélangées, Bastion tout à gauche : la partie commence",
        "手札をシャッフル、バスティオンを左端に：開始",
    ),
}

_ABILITY_TEXT: Final[dict[str, tuple[str, str, str, str]]] = {
    "splash": (
        "R6.1 the attack also hits the creature at the same position in the other lane.",
        "R6.1 der Angriff trifft auch die Kreatur an derselben Position der anderen Bahn.",
        "R6.1 l'attaque touche aussi la créature à la même position dans l'autre voie.",
        "R6.1 もう一方のレーンの同じ位置のクリーチャーにも同じダメージ。",
    ),
    "perforation": (
        "R6.2 the attack also hits the creature directly behind the target.",
        "R6.2 der Angriff trifft auch die Kreatur direkt hinter dem Ziel.",
        "R6.2 l'attaque touche aussi la créature juste derrière la cible.",
        "R6.2 対象のすぐ後ろのクリーチャーにも同じダメージ。",
    ),
    "rage": (
        "R6.3 may attack enemy creatures in the turn it enters play (never the player that turn).",
        "R6.3 darf im Zug des Ausspielens gegnerische Kreaturen angreifen (nie den Spieler).",
        "R6.3 peut attaquer des créatures le tour où elle entre en jeu (jamais le joueur).",
        "R6.3 出たターンでも敵クリーチャーを攻撃できる（プレイヤーは不可）。",
    ),
    "protection": (
        "R6.4 the first source of damage targeting it each turn is reduced to 0.",
        "R6.4 die erste Schadensquelle, die sie pro Zug als Ziel hat, wird auf 0 gesenkt.",
        "R6.4 la première source de dégâts qui la cible chaque tour est réduite à 0.",
        "R6.4 毎ターン、最初に対象となったダメージを0にする。",
    ),
    "indestructible": (
        "R6.5 takes no damage and no effects from incantations (creature attacks hurt it).",
        "R6.5 erleidet keinen Schaden und keine Effekte durch Zauber (Angriffe treffen normal).",
        "R6.5 ne subit ni dégâts ni effets des incantations (les attaques la blessent).",
        "R6.5 呪文のダメージと効果を受けない（攻撃は通常どおり）。",
    ),
    "berserk": (
        "R6.6 each attack that destroys an enemy creature is followed by another attack.",
        "R6.6 zerstört ein Angriff eine gegnerische Kreatur, greift sie sofort erneut an.",
        "R6.6 chaque attaque qui détruit une créature ennemie est suivie d'une autre attaque.",
        "R6.6 敵クリーチャーを破壊した攻撃のたびに、すぐ再攻撃する。",
    ),
    "sprint": (
        "R6.7 moves to the front before attacking; +1 attack per creature passed (this combat).",
        "R6.7 rückt vor dem Angriff nach vorn; +1 Angriff pro überholter Kreatur (dieser Kampf).",
        "R6.7 passe devant avant d'attaquer ; +1 attaque par créature dépassée (ce combat).",
        "R6.7 攻撃前に先頭へ移動；追い越した数だけ攻撃+1（この戦闘中）。",
    ),
    "aura": (
        "R6.8 Aura X: the neighbours in front and behind have X while adjacent (marked *).",
        "R6.8 Aura X: die Nachbarn davor und dahinter haben X, solange sie angrenzen (mit * markiert).",
        "R6.8 Aura X : les voisines devant et derrière ont X tant qu'elles sont adjacentes (marqué *).",
        "R6.8 オーラX：前後に隣接するクリーチャーがXを持つ（*で表示）。",
    ),
}

_RULES: Final[dict[str, tuple[str, ...]]] = {
    "en": (
        "R1.3 Your hand is your life: the fortress card (Bastion, later Fort) sits in it.",
        "R3.1 Mana: each turn you get mana equal to your hand size (first player's first turn: 6).",
        "R3.2 Only the 4 leftmost cards (fortress not counted) are playable.",
        "R3.3 Summoning: play creatures behind your others in a lane, and incantations.",
        "R3.4 Always keep one card besides the fortress.",
        "R3.5 Combat: your creatures attack one by one, top lane first, furthest from the bridge first.",
        "R3.6 A creature cannot attack in the turn it entered play (except Rage).",
        "R3.7 An attack hits the enemy creature nearest the bridge in its lane, else the opponent.",
        "R3.8 A creature whose damage reaches its health is destroyed: back to its owner's hand, rightmost.",
        "R3.10 At the end of the turn creatures heal.",
        "R4.1 Each point of damage to a player moves their fortress one place right.",
        "R4.2 A Bastion reaching the rightmost place falls: it becomes the Fort, leftmost.",
        "R4.3 A Fort reaching the rightmost place loses the game.",
        "R5 Incantations damage a creature, then return to your hand, rightmost.",
        "R7 Solo: the automaton plays its deck's top cards; each damage discards a deck card.",
        "R7.8 When its deck is empty above its Fort it gets one last turn; survive it and you win.",
    ),
    "de": (
        "R1.3 Deine Hand ist dein Leben: die Festungskarte (Bastion, später Fort) liegt darin.",
        "R3.1 Mana: jeden Zug so viel Mana wie Karten auf der Hand (erster Zug des Startspielers: 6).",
        "R3.2 Nur die 4 Karten ganz links (ohne Festung) sind spielbar.",
        "R3.3 Beschwörung: Kreaturen hinten in eine Bahn legen, Zauber wirken.",
        "R3.4 Behalte immer eine Karte neben der Festung.",
        "R3.5 Kampf: deine Kreaturen greifen einzeln an, obere Bahn zuerst, von der Brücke entfernt zuerst.",
        "R3.6 Eine Kreatur greift nicht im Zug ihres Ausspielens an (außer Raserei).",
        "R3.7 Ein Angriff trifft die gegnerische Kreatur nächst der Brücke, sonst den Gegner.",
        "R3.8 Erreicht der Schaden die Lebenspunkte, ist die Kreatur zerstört: ganz rechts auf die Hand.",
        "R3.10 Am Ende des Zuges heilen die Kreaturen.",
        "R4.1 Jeder Schadenspunkt an einem Spieler rückt seine Festung einen Platz nach rechts.",
        "R4.2 Erreicht die Bastion den Platz ganz rechts, fällt sie: sie wird zum Fort, ganz links.",
        "R4.3 Erreicht das Fort den Platz ganz rechts, ist das Spiel verloren.",
        "R5 Zauber schaden einer Kreatur und kommen dann ganz rechts auf die Hand.",
        "R7 Solo: der Automat spielt die obersten Karten seines Stapels; jeder Schaden wirft eine ab.",
        "R7.8 Ist sein Stapel über dem Fort leer, hat er einen letzten Zug; überstehe ihn und du gewinnst.",
    ),
    "fr": (
        "R1.3 Votre main est votre vie : la carte forteresse (Bastion, puis Fort) s'y trouve.",
        "R3.1 Mana : chaque tour, autant de mana que de cartes en main (premier tour du premier joueur : 6).",
        "R3.2 Seules les 4 cartes les plus à gauche (hors forteresse) sont jouables.",
        "R3.3 Invocation : posez des créatures au fond d'une voie, lancez des incantations.",
        "R3.4 Gardez toujours une carte en plus de la forteresse.",
        "R3.5 Combat : vos créatures attaquent une à une, en haut d'abord, la plus loin du pont d'abord.",
        "R3.6 Une créature n'attaque pas le tour où elle entre en jeu (sauf Rage).",
        "R3.7 Une attaque touche la créature ennemie la plus proche du pont, sinon l'adversaire.",
        "R3.8 Une créature dont les dégâts atteignent ses PV est détruite : retour tout à droite de la main.",
        "R3.10 À la fin du tour, les créatures guérissent.",
        "R4.1 Chaque point de dégâts à un joueur décale sa forteresse d'une place vers la droite.",
        "R4.2 Un Bastion qui atteint la place la plus à droite tombe : il devient le Fort, tout à gauche.",
        "R4.3 Un Fort qui atteint la place la plus à droite perd la partie.",
        "R5 Les incantations blessent une créature puis reviennent tout à droite de la main.",
        "R7 Solo : l'automate joue le dessus de sa pioche ; chaque dégât défausse une carte.",
        "R7.8 Quand sa pioche est vide au-dessus du Fort, il joue un dernier tour ; survivez et vous gagnez.",
    ),
    "ja": (
        "R1.3 手札はライフ：城塞カード（バスティオン、のちにフォート）が手札の中にある。",
        "R3.1 マナ：毎ターン手札の枚数分のマナを得る（先手の最初のターンは6）。",
        "R3.2 使えるのは左から4枚（城塞を除く）だけ。",
        "R3.3 召喚：クリーチャーをレーンの一番後ろに出し、呪文を唱える。",
        "R3.4 城塞以外に必ず1枚は手札に残す。",
        "R3.5 戦闘：上のレーンから、橋から遠い順に1体ずつ攻撃する。",
        "R3.6 出たターンは攻撃できない（憤怒を除く）。",
        "R3.7 攻撃は同じレーンの橋に最も近い敵クリーチャーへ、いなければ相手へ。",
        "R3.8 ダメージが体力に達したクリーチャーは破壊され、持ち主の手札の右端へ戻る。",
        "R3.10 ターン終了時にクリーチャーは回復する。",
        "R4.1 プレイヤーへのダメージ1点ごとに城塞が右へ1つ動く。",
        "R4.2 バスティオンが右端に着くと陥落し、フォートとして左端へ。",
        "R4.3 フォートが右端に着くと負け。",
        "R5 呪文はクリーチャーにダメージを与え、手札の右端へ戻る。",
        "R7 ソロ：オートマは山札の上から出す。ダメージ1点ごとに山札を1枚捨てる。",
        "R7.8 フォートの上の山札が尽きると最後のターン。耐え切ればあなたの勝ち。",
    ),
}

_LANG_INDEX: Final = {lang: i for i, lang in enumerate(LANGUAGES)}


def check_language(lang: str) -> str:
    """``lang`` if supported, else :class:`ValueError` naming the choices."""
    if lang not in _LANG_INDEX:
        raise ValueError(f"unknown language {lang!r} (choose {', '.join(LANGUAGES)})")
    return lang


def _pick(row: tuple[str, ...], lang: str) -> str:
    text = row[_LANG_INDEX.get(lang, 0)]
    return text or row[0]


def _singular(lang: str, n: object) -> bool:
    """Whether ``n`` takes the singular in ``lang`` (French: 0 and 1; Japanese has no plural)."""
    if not isinstance(n, int) or isinstance(n, bool):
        return False
    if lang == "fr":
        return n in (0, 1)
    return n == 1


def _table_key(
    table: dict[str, tuple[str, str, str, str]], lang: str, key: str, values: dict[str, object]
) -> str:
    one = key + "_one"
    if one in table and "n" in values and _singular(lang, values["n"]):
        return one
    return key


#: French elision of ``de`` before a name that starts with a vowel (``royaume d'Ismcts``).
_FR_ELISION = re.compile(r"(?<![\w'])([Dd])e (?=[AEIOUYÉÈÊÂÎ])")


def _finish(template: str, lang: str, values: dict[str, object]) -> str:
    text = template.format(**values)
    if lang == "fr":
        text = _FR_ELISION.sub(r"\1'", text)
    if template.startswith(("{name}", "{who}", "{loser}", "{winner}")) and text[:1].islower():
        text = text[0].upper() + text[1:]  # a sentence starts with a capital (l'Automate → L'Automate)
    return text


def t(lang: str, key: str, **values: object) -> str:
    """The UI text ``key`` in ``lang`` with ``values`` filled in (English if the key is untranslated).

    A value ``n`` chooses the singular form ``key_one`` where the language says so ("1 place left")."""
    return _finish(_pick(_UI[_table_key(_UI, lang, key, values)], lang), lang, values)


def event_text(lang: str, key: str, **values: object) -> str:
    """An event sentence template (see :data:`_EVENTS`) filled in (singular forms as in :func:`t`)."""
    return _finish(_pick(_EVENTS[_table_key(_EVENTS, lang, key, values)], lang), lang, values)


def ability_name(lang: str, ability: str) -> str:
    """The printed ability word in ``lang`` (from the card data)."""
    names = ABILITY_NAMES.get(ability, {})
    return names.get(lang) or names.get("en") or ability


def ability_help(lang: str, ability: str) -> str:
    """What ``ability`` does, with its rule number."""
    return _pick(_ABILITY_TEXT[ability], lang)


def ability_keys() -> tuple[str, ...]:
    """The abilities ``help`` explains, in the digest's order."""
    return tuple(_ABILITY_TEXT)


def rules_summary(lang: str) -> tuple[str, ...]:
    """A short summary of the rules, one rule per line, each starting with its number."""
    return _RULES.get(lang, _RULES["en"])


def has_key(key: str) -> bool:
    return key in _UI


def translation_tables() -> dict[str, dict[str, tuple[str, str, str, str]]]:
    """Every table of translated strings by name (for the completeness tests)."""
    return {"ui": dict(_UI), "events": dict(_EVENTS), "abilities": dict(_ABILITY_TEXT)}


__all__ = [
    "LANGUAGES",
    "ability_help",
    "ability_keys",
    "ability_name",
    "check_language",
    "event_text",
    "has_key",
    "rules_summary",
    "t",
    "translation_tables",
]
