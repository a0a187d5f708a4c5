"""How a bot is reached: in-process Python (preemptible), subprocess JSON lines, HTTP."""
