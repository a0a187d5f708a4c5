"""Sub-commands of `botarena` that belong to one game (`botarena domains ...`): the command layer,
which reads and writes the files a game's own formats come from and go to."""
