"""The hosted arena (`../shared/specs/arena.md`, part 1): competitions, teams and their tokens,
uploaded versions and their checks, validation, the continuous scheduler and incremental ratings.

The modules of this package are the arena's domain logic and hold no web or CLI code:

- `vocabulary`: the phases, version states, match kinds and reasons, and every rejection code;
- `policy`: a competition's policy (limits, quotas, validation, scheduling, live and rating rules);
- `archive`, `urls`: the checks an upload or a URL entry passes before anything is stored (and the
  unpacking and canonical packing of an upload; the pinned address a URL entry is called at);
- `submission`: the team's side of `botarena submit PATH` (a folder zipped in memory, checked first);
- `scheduler`, `rating`: which match to play next, and the ratings it moves.

The routes are in `botarena.server.arena`, the tables in `botarena.store`, the commands in
`botarena.commands.arena`.
"""
