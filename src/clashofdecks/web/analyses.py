"""The analyses of finished games: queued in a bounded number of slots, run in the
worker pool once per game, kept in the store (docs/web.md, "Analyses")."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from sqlalchemy.engine import Connection as DbConnection

from ..errors import ClashError
from . import leases, workers
from .config import ServerConfig
from .games import record_of_row
from .services import Database, LeaseKeeper
from .store import AnalysisRow, Store

log = logging.getLogger("clashofdecks.web")


#: Game ids are 24 hex digits (``secrets.token_hex(12)``); anything else is no game, unasked.
_GAME_ID = re.compile(r"[0-9a-f]{1,32}")


#: Seconds the replay page waits before asking again for an analysis under way, or refused as busy.
ANALYSIS_PENDING_RETRY = 2


ANALYSIS_BUSY_RETRY = 10


def _keep_analysis(store: Store, conn: DbConnection, row: AnalysisRow) -> None:
    store.save_analysis(row, conn=conn)  # False when one is kept already: the first one stays


def _analysis_body(kept: AnalysisRow) -> dict[str, Any]:
    if kept.status != "done":
        return {"status": "failed", "error": kept.body.get("error", "the analysis failed")}
    return {
        "status": "done",
        "analysis": kept.body,
        "iterations": kept.iterations,
        "seconds": round(kept.seconds, 3),
        "created_at": kept.created_at,
    }


class Analyses:
    """Analyses of finished games, at most once each."""

    def __init__(
        self, config: ServerConfig, db: Database, leases: LeaseKeeper, pool: workers.WorkerPool
    ) -> None:
        self.config = config
        self.db = db
        self.leases = leases
        self.pool = pool
        #: Analyses queued or running, by game (a second request for the same game shares its job).
        self.running: dict[str, asyncio.Task[None]] = {}
        self.slots = asyncio.Semaphore(max(1, config.analysis_running))
        #: Analyses this process has started in the worker pool (what the tests count).
        self.jobs = 0

    def stop(self) -> None:
        for task in list(self.running.values()):
            task.cancel()

    async def answer(self, game_id: str) -> tuple[int, dict[str, Any]]:
        """The answer of ``GET /api/games/{id}/analysis`` (HTTP status, body): the kept analysis, or
        "pending" (queued or running: ask again after ``retry_after`` seconds) or "busy" (every slot
        taken: nothing queued, ask again later).  The first request for a finished game that has
        none starts its analysis; each game is analysed at most once (docs/web.md, "Analyses")."""
        if not _GAME_ID.fullmatch(game_id):
            return 404, {"error": "no such game"}
        kept = await self.db.run(lambda s: s.load_analysis(game_id))
        if kept is not None:
            return 200, _analysis_body(kept)
        if game_id in self.running:
            return self._pending()
        row = await self.db.run(lambda s: s.load_game(game_id))
        if row is None:
            return 404, {"error": "no such game"}
        if row.status != "over":
            # The analysis replays the record, hidden cards and all: finished games only.
            body = {"error": "analyses are made of finished games only"}
            if row.rated or row.rated_offer:  # no engine help while a rated game runs
                body["code"] = "hint_unavailable"
            return 403, body
        return self.request(game_id)

    def request(self, game_id: str) -> tuple[int, dict[str, Any]]:
        """Queue the analysis of a finished game unless it is queued already or every place is
        taken (then "busy", and nothing is queued)."""
        if game_id not in self.running:
            if len(self.running) >= self.config.analysis_running + self.config.analysis_waiting:
                return 503, {
                    "status": "busy",
                    "error": "the server is analysing other games; ask again later",
                    "retry_after": ANALYSIS_BUSY_RETRY,
                }
            task = asyncio.create_task(self._analyse(game_id))
            self.running[game_id] = task
            task.add_done_callback(lambda _t: self.running.pop(game_id, None))
        return self._pending()

    def _pending(self) -> tuple[int, dict[str, Any]]:
        return 202, {"status": "pending", "retry_after": ANALYSIS_PENDING_RETRY}

    async def _analyse(self, game_id: str) -> None:
        iterations = self.config.analysis_iterations
        try:
            async with self.slots, self.leases.held(leases.analysis_lease(game_id)) as held:
                if not held:
                    return  # another process analyses it (if it dies, a later request takes it over)
                if await self.db.run(lambda s: s.load_analysis(game_id)) is not None:
                    return  # kept meanwhile (a server sharing this database)
                row = await self.db.run(lambda s: s.load_game(game_id))
                if row is None or row.status != "over":
                    return
                if len(row.actions) > self.config.analysis_max_actions:
                    error = (
                        f"this game has {len(row.actions)} actions; the server analyses games of at most "
                        f"{self.config.analysis_max_actions} (clash analyze RECORD analyses any)"
                    )
                    too_long = AnalysisRow(game_id, "failed", {"error": error}, iterations, 0.0)
                    await self.db.write(lambda s, c: _keep_analysis(s, c, too_long))
                    return
                record = record_of_row(row).to_dict()
                self.jobs += 1
                log.info("analysing game %s (%d actions)", game_id, len(row.actions))
                try:
                    body, seconds = await self.pool.run_optional(workers.analysis, record, iterations)
                    kept = AnalysisRow(game_id, "done", body, iterations, seconds)
                except ClashError as exc:  # the record does not replay: kept too, never tried again
                    kept = AnalysisRow(game_id, "failed", {"error": str(exc)}, iterations, 0.0)
                await self.db.write(lambda s, c: _keep_analysis(s, c, kept))
        except asyncio.CancelledError:
            raise
        except Exception:  # not kept: the next request for this game tries again
            log.exception("analysis of game %s failed", game_id)
