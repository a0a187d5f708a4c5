"""HTTP clients of games' native APIs.

A client plays one of a game's own bots against a server that speaks the original event's API, the way
a team's program did. It sits above the game packages (it drives their pure bots) and owns the network,
the clocks and the retries they must never hold.

- `botarena.clients.datspulse`: a DatsPulse team client of the REST API (`/api/register`, `/api/arena`,
  `/api/move`; spec datspulse.md §7.1-§7.4), behind `botarena datspulse client`.
"""
