"""A well-behaved Python protocol bot for `python -m botarena.kit`: the drones starter `adaptive`."""

from botarena.core.registry import get_game


def create_bot():
    return get_game("drones").starter_bots["adaptive"]()
