"""The patcher's moves without its sabotage: the reference the patcher's tournament must equal."""


def act(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": obs["turn"] % 3 == 0}
