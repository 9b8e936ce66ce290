"""The browser app (``clash serve``): a Starlette server over the game session layer, its database,
its WebSocket protocol and the static pages (``docs/web.md``).  Needs the ``web`` extra."""
