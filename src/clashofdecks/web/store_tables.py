"""The web app's tables (SQLAlchemy Core), the schema the Alembic migrations build
(``clashofdecks/web/migrations``; ``tests/web/test_web_store.py`` compares the two)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # solo / ai / friend / hotseat / imported
    sa.Column("mode", sa.String(8), nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=True),
    sa.Column("setup", sa.Text, nullable=False),  # JSON: ruleset, threat, position (the record's head)
    sa.Column("status", sa.String(8), nullable=False),  # "active" or "over"
    sa.Column("result", sa.Text, nullable=True),  # JSON of the record's result
    sa.Column("n_actions", sa.Integer, nullable=False, default=0),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
    #: Bumped by every write that changes the game (compare-and-set: :meth:`Store.bump_revision`):
    #: a server process whose copy is older is told so (:class:`StaleGameError`).  Migration 0006_sync.
    # No Python-side default: an INSERT leaves the column out, so a game is stored the same on a database
    # not yet migrated to 0006 (the upgrade tests write with this code before migrating).
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),  # human / agent / automaton
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("agent", sa.String(64), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("owner", sa.String(64), nullable=True),  # the player cookie that holds this seat
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.String(200), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

#: One row per analysed game (``clash analyze``, run by the server at most once per game): "done"
#: with the analysis as JSON, or "failed" with the reason (a record that does not replay is not tried
#: again either).  Migration 0003_analyses.
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("status", sa.String(8), nullable=False),  # "done" or "failed"
    sa.Column("body", sa.Text, nullable=False),  # JSON: the analysis, or {"error": ...}
    sa.Column("iterations", sa.Integer, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),  # CPU seconds the analysis took in its worker
    sa.Column("created_at", sa.Float, nullable=False),
)

#: Who plays: a guest (handle and display name only) or an account (a username and an Argon2id
#: password hash besides).  ``seats.owner`` holds an identity's ``id``.
identities = sa.Table(
    "identities",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("handle", sa.String(40), nullable=False, unique=True),
    sa.Column("display_name", sa.String(64), nullable=False),
    sa.Column("username", sa.String(40), nullable=True, unique=True),
    sa.Column("password_hash", sa.String(200), nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    #: A bot account (web/bots.py; migration 0014_bot_accounts): marked by its owner before its
    #: first game, rated on the bots' list, met in the queue only by people who opt in.
    sa.Column("is_bot", sa.Boolean, nullable=False, server_default="0"),
    #: The account that owns the bot (no foreign key: a bot stays a bot when its owner is deleted).
    sa.Column("bot_owner", sa.String(32), nullable=True),
)

#: Signed-in browsers and bots: only the SHA-256 of a session id is stored.  ``legacy`` marks the
#: sessions the upgrade made from the former ``clash_player`` cookies (exchanged once, then gone).
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("legacy", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    #: When the session was last used (at most a day off; null: never since it was made): a session
    #: unused for ``session_days`` signs nobody in (web/logins.py; migration 0009_login_throttle).
    sa.Column("used_at", sa.Float, nullable=True),
    #: The browser the session was made in (its ``clash_browser`` cookie, kept across sign-ins and
    #: sign-outs): web/lineage.py, migration 0011_identity_review.
    sa.Column("lineage", sa.String(32), nullable=True),
)

#: Every identity a browser lineage has had a session of: play-now never pairs two identities that
#: share one (web/lineage.py; migration 0011_identity_review).
browser_identities = sa.Table(
    "browser_identities",
    metadata,
    sa.Column("lineage", sa.String(32), primary_key=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("seen_at", sa.Float, nullable=False),
)

#: An account's unused recovery codes (SHA-256 of each; shown once at sign-up): web/recovery.py.
recovery_codes = sa.Table(
    "recovery_codes",
    metadata,
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("code_hash", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
)

#: The review record of each seat of a rated game, for the operator only (web/reviews.py): the
#: addresses (keyed hashes) and browser lineages it played from, how often it opened the game, and
#: the hints it was refused.  Kept ``review_days``.
reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("identity_id", sa.String(32), nullable=True),
    sa.Column("addresses", sa.Text, nullable=False),  # JSON list of hashed addresses
    sa.Column("lineages", sa.Text, nullable=False),  # JSON list
    sa.Column("joins", sa.Integer, nullable=False),
    sa.Column("refused_hints", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

#: Identities some of whose sessions just ended (a sign-out, a new password, an operator's
#: command): every server process reads the new rows each watch tick and closes the sockets whose
#: session is gone (web/signouts.py).  Rows older than a day are pruned.
signouts = sa.Table(
    "signouts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("identity_id", sa.String(32), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

#: Secrets the server processes share (the key of the address hashes of the review records).
server_secrets = sa.Table(
    "server_secrets",
    metadata,
    sa.Column("name", sa.String(40), primary_key=True),
    sa.Column("value", sa.String(200), nullable=False),
)

#: Rated duels (from the queue, a rematch of one, or a friend duel both players chose rated): the
#: game's format, whether both players agreed (a friend duel offered as rated is not rated until
#: the invitee accepts), and when its result went into the ratings (null until then: a rating is
#: applied once, in the transaction that finishes the game).  Migration 0004_ratings.
rated_games = sa.Table(
    "rated_games",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("agreed", sa.Boolean, nullable=False),
    sa.Column("applied_at", sa.Float, nullable=True),
)

#: One OpenSkill rating per identity and format (web/ratings.py).
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("format", sa.String(16), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("losses", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: Every rating change, for the player page's plot.
rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("game_id", sa.String(32), nullable=False),
    sa.Column("rating", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

#: The clock of a clocked game (docs/web.md, "Clocks"): each seat's time left when its clock last
#: stopped, the seat whose clock runs and when its time runs out (the server's clock, seconds since
#: the epoch).  Kept here, not only in memory, so a restarted server, or several server processes
#: sharing one database, know every deadline (:meth:`Store.expired_clocks`).  Migration 0005_clocks.
clocks = sa.Table(
    "clocks",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("control", sa.String(16), nullable=False),  # "3+2", "10+5", "1d", "3d"
    sa.Column("remaining0", sa.Float, nullable=False),
    sa.Column("remaining1", sa.Float, nullable=False),
    sa.Column("running", sa.Integer, nullable=True),  # None: not started yet, or the game is over
    sa.Column("deadline", sa.Float, nullable=True),
)

#: The solo campaign: each identity's best result at each of the rulebook's levels (0-5; games with
#: a custom threat do not count), with the games played and won there.  Migration 0005_clocks.
campaign = sa.Table(
    "campaign",
    metadata,
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("level", sa.Integer, primary_key=True),
    sa.Column("best", sa.String(8), nullable=False),  # "won" or "lost"
    sa.Column("played", sa.Integer, nullable=False),
    sa.Column("won", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: Games whose agent is to make decision number ``idx``: written in the transaction of the action
#: that made it the agent's turn (:class:`ActionWrite` ``agent_next``), so a server process finds the
#: agent moves to take over without loading any game (web/leases.py).  Migration 0007_leases.
agent_turns = sa.Table(
    "agent_turns",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("idx", sa.Integer, nullable=False),
)

#: Failed logins by key (``account:<username>``, ``address:<address>``) and when the next attempt
#: may come: shared by every server process (web/logins.py; migration 0009_login_throttle).
login_throttle = sa.Table(
    "login_throttle",
    metadata,
    sa.Column("key", sa.String(120), primary_key=True),
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("next_at", sa.Float, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)


#: Tournaments (docs/tournaments.md, "On the server"; migration 0013_tournaments): an arena (a time
#: window of ``minutes``) or a Swiss (``rounds`` rounds), rated and clocked.  ``status``: "created",
#: "started", "finished".  ``round``: the last pairing pass (Swiss: the round; arena: a counter),
#: bumped by compare-and-set in the pairing's transaction, so two processes never pair one pass.
#: ``schedule_key``: set for the server's own schedule (one tournament per slot, whoever writes it).
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),  # "arena" or "swiss"
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("format", sa.String(16), nullable=False),
    sa.Column("time_control", sa.String(16), nullable=False),
    sa.Column("starts_at", sa.Float, nullable=False),
    sa.Column("minutes", sa.Integer, nullable=True),
    sa.Column("rounds", sa.Integer, nullable=True),
    sa.Column("bots_allowed", sa.Boolean, nullable=False),
    sa.Column("created_by", sa.String(32), nullable=True),  # an identity id; None: the schedule
    sa.Column("status", sa.String(10), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("schedule_key", sa.String(64), nullable=True, unique=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=True),
)

#: The players of a tournament: their score (arena points; Swiss points) as the director last
#: recorded it, and whether they withdrew (or were withdrawn for missing a pairing).
tournament_entries = sa.Table(
    "tournament_entries",
    metadata,
    sa.Column(
        "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("withdrawn", sa.Boolean, nullable=False),
    sa.Column("joined_at", sa.Float, nullable=False),
)

#: One row per player and pairing pass: the opponent (None: a bye), the game (None until the
#: director created it: a process killed between the pairing and the game leaves it to the next
#: holder) and the player's result ("win", "draw", "loss", "aborted", "bye"; None while it runs).
tournament_pairings = sa.Table(
    "tournament_pairings",
    metadata,
    sa.Column(
        "tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("opponent", sa.String(32), nullable=True),
    sa.Column("game_id", sa.String(32), nullable=True),
    sa.Column("result", sa.String(8), nullable=True),
    sa.Column("paired_at", sa.Float, nullable=False),
)


#: The puzzle ratings, attempts and reports (web/puzzle_store.py; migration 0015_puzzles).
#: One OpenSkill rating per player (key: the identity id) and per puzzle (key: the puzzle id).
puzzle_ratings = sa.Table(
    "puzzle_ratings",
    metadata,
    sa.Column("kind", sa.String(8), primary_key=True),  # "player" or "puzzle"
    sa.Column("key", sa.String(32), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

#: Every finished attempt (solved or failed); ``rated``: the first of its identity and puzzle.
puzzle_attempts = sa.Table(
    "puzzle_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("puzzle_id", sa.String(32), nullable=False),
    sa.Column("solved", sa.Boolean, nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("rating_before", sa.Integer, nullable=True),
    sa.Column("rating_after", sa.Integer, nullable=True),
    sa.Column("at", sa.Float, nullable=False),
)

#: "Report this puzzle": one per identity and puzzle (a second changes nothing), for the operator.
puzzle_reports = sa.Table(
    "puzzle_reports",
    metadata,
    sa.Column("puzzle_id", sa.String(32), primary_key=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

sa.Index("ix_clocks_deadline", clocks.c.deadline)
sa.Index("ix_games_status_updated", games.c.status, games.c.updated_at)
sa.Index("ix_seats_owner", seats.c.owner)
sa.Index("ix_sessions_identity", sessions.c.identity_id)
sa.Index("ix_browser_identities_identity", browser_identities.c.identity_id)
sa.Index("ix_reviews_created", reviews.c.created_at)
sa.Index("ix_ratings_format", ratings.c.format, ratings.c.mu)
sa.Index("ix_rating_history_identity", rating_history.c.identity_id, rating_history.c.format)
sa.Index("ix_tournaments_status", tournaments.c.status, tournaments.c.starts_at)
sa.Index("ix_tournament_pairings_game", tournament_pairings.c.game_id)
sa.Index("ix_puzzle_attempts_identity", puzzle_attempts.c.identity_id, puzzle_attempts.c.puzzle_id)
