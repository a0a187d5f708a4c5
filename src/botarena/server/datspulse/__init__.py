"""The DatsPulse real-time server (spec §7.1 to §7.4): the organiser's side of the original event.

Public client bots play against it unchanged but for their base URL and token: `/api/register`,
`/api/arena`, `/api/move`, `/api/logs` and `/api/rounds`, wire-compatible with the original server, on
rounds that run on the clock (lobby, running, break), with the per-token rate limit, replays verified
by the lockstep engine, results in the store and live viewing in the web viewer.

Modules: `wire` (serialisation, the error table), `ratelimit`, `settings` (the TOML config file),
`series` (the round lifecycle and the teams' views), `driver` (a round through the lockstep engine,
with its replay), `recorder` (store and live events), `api` (the routes), `server` (the assembly),
`cli` (`botarena datspulse serve`). FastAPI and uvicorn are imported only by `api` and `server`.
"""
