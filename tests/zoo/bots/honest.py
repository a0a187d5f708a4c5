"""An honest protocol bot: answers at once, builds one producer a turn, never attacks.

It is the opponent of every hostile bot (a rival entrant, in its own folder) and the quiet bot of
the baseline matches.
"""

from _wire import honest, serve

serve(honest)
