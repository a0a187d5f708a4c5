"""One encoding per game (`botarena.rl.encoding.Encoding`): each module's docstring is its page."""
