"""The organizer's API routes, one APIRouter per resource (`create_app` includes them):

- `site`: `/` (to the arena page), `GET /api/health`, `GET /api/games`;
- `tournaments`: `GET /api/tournaments[/{id}[/matches]]`;
- `matches`: `GET /api/matches/{id}[/replay]` (an arena match answers through `server.arena`);
- `live`: `GET /api/live`, `GET /api/live/{key}/events`, `POST /api/live/ingest`.

What they share (the store, the live hub behind its spectator gate, the organizer key, the caches)
is one `ServerContext` on the app, which each route takes as a dependency (`context.ContextDep`).
The hosted arena's routes are `botarena.server.arena`'s.
"""

ROUTERS = ("site", "tournaments", "matches", "live")
"""The modules whose `router` `create_app` includes, in order."""
