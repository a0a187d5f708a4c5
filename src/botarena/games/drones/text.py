"""GameOfDrones as ASCII (spec 3.6), for `botarena replay FILE --text`, tests and debugging.

`keyframe_text(keyframe)` draws a keyframe as `DronesEngine.keyframe` makes it and the replay stores
it (the `state` of an entry of `replay.keyframes`), for example:

    round 2, turn 3 of 10
      PLAYER 1  (4, 0)  wins 1  losses 0  draws 0
      PLAYER 2  (1, 2)  wins 0  losses 1  draws 0

`render_step(record)` turns a turn record (and the round record riding on it when the turn ended the
round) or a bare round record into a few lines, for example:

    round 1 turn 2
      PLAYER 1  OK                  {P:0 S:1 A}   -> (1, 2)
      PLAYER 2  TIMEOUT deadline    -             -> (2, 0)
    clash ATTACK on turn 2 of 10: PLAYER 1 wins (ATTACK_WON)
      PLAYER 1  (1, 2) attacked
      PLAYER 2  (4, 0)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botarena.games.drones.state import PLAYER_NAMES


def _number(value: Any) -> str:
    if type(value) is float and value.is_integer():
        return str(int(value))
    if type(value) in (int, float):
        return str(value)
    return repr(value)


def render_action(action: Any) -> str:
    """`{P:x S:y A}` for an action payload (the spec's shorthand), `-` for none, JSON-ish otherwise."""
    if action is None:
        return "-"
    if not isinstance(action, Mapping):
        return repr(action)
    known = {"newProducers", "newSoldiers", "launchAttack"}
    parts = []
    if "newProducers" in action:
        parts.append(f"P:{_number(action['newProducers'])}")
    if "newSoldiers" in action:
        parts.append(f"S:{_number(action['newSoldiers'])}")
    attack = action.get("launchAttack", False)
    if attack is True:
        parts.append("A")
    elif "launchAttack" in action and attack is not False:
        parts.append(f"A:{attack!r}")
    parts.extend(f"{key}:{action[key]!r}" for key in action if key not in known)
    return "{" + " ".join(parts) + "}"


def _counts(entry: Mapping[str, Any]) -> str:
    return f"({_number(entry['producers'])}, {_number(entry['soldiers'])})"


def render_round(record: Mapping[str, Any]) -> str:
    """A round record (spec 3.6): the clash, the winner and both sides' final counts."""
    outcome = record["outcome"]
    verdict = "a DRAW" if outcome == "DRAW" else f"{outcome} wins"
    limit = record.get("turnLimit")
    of_limit = f" of {limit}" if limit is not None else ""
    trigger = record.get("trigger", "CLASH")
    decided = f" ({record['decidedBy']})" if "decidedBy" in record else ""
    lines = [f"clash {trigger} on turn {record['turnsPlayed']}{of_limit}: {verdict}{decided}"]
    for key, name in zip(("player1", "player2"), PLAYER_NAMES, strict=True):
        side = record[key]
        attacked = " attacked" if side.get("launchedAttack") else ""
        lines.append(f"  {name}  {_counts(side)}{attacked}")
    return "\n".join(lines)


def render_step(record: Mapping[str, Any]) -> str:
    """A turn record (with its round result, if the turn ended the round) or a round record, as text."""
    if "players" not in record:
        return render_round(record)
    lines = [f"round {record['round']} turn {record['turn']}"]
    for name, entry in zip(PLAYER_NAMES, record["players"], strict=False):
        status = entry["status"] + (f" {entry['reason']}" if entry.get("reason") else "")
        applied, requested = entry.get("applied"), entry.get("requested")
        if applied is not None:
            action = render_action(applied)
        elif requested is not None:
            action = "ignored " + render_action(requested)
        else:
            action = "-"
        line = f"  {name}  {status:<19} {action:<13} -> {_counts(entry)}"
        notes = [
            f"{w['code']}: {w['detail']}" if w.get("detail") else w["code"]
            for w in entry.get("warnings") or []
        ]
        if entry.get("detail"):
            notes.append(str(entry["detail"]))
        if notes:
            line += "  [" + "; ".join(notes) + "]"
        lines.append(line.rstrip())
    if "roundResult" in record:
        lines.append(render_round(record["roundResult"]))
    return "\n".join(lines)


def keyframe_text(keyframe: Mapping[str, Any]) -> str:
    """A keyframe (`DronesEngine.keyframe`, as the replay stores it) as text: where the match stands,
    each side's counts in the current round and its round tallies."""
    if keyframe["finished"]:
        heading = f"match over after round {keyframe['round']}"
    else:
        heading = f"round {keyframe['round']}, turn {keyframe['turn']} of {keyframe['turnLimit']}"
    lines = [heading]
    for name, side in zip(PLAYER_NAMES, keyframe["players"], strict=True):
        tallies = f"wins {side['wins']}  losses {side['losses']}  draws {side['draws']}"
        lines.append(f"  {name}  {_counts(side)}  {tallies}")
    return "\n".join(lines)
