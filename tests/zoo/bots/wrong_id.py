"""Hostile: answers every turn with the wrong ids, the previous request's and a guess at the next
one's (a reply written early to be taken for a later request). Both are discarded: TIMEOUT deadline.
The start and the end are answered properly."""

from _wire import honest, reply, serve


def answer(envelope):
    if envelope["type"] != "turn":
        return honest(envelope)
    request_id = envelope["id"]
    reply(request_id - 1, {"newSoldiers": 50, "launchAttack": True})
    for guess in (request_id + 1, request_id + 2):
        reply(guess, {"newSoldiers": 50, "launchAttack": True})
    return None


serve(answer)
