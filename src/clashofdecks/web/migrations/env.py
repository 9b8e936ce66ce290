"""Alembic environment: the server passes its open connection in ``config.attributes``."""

from __future__ import annotations

from alembic import context

from clashofdecks.web.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the package always migrates with a connection
    raise RuntimeError("run the migrations through clashofdecks.web.store.migrate()")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
