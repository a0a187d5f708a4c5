"""GameOfDrones' native wire formats: the original MatchResult JSON of the 2018 engine (spec 7.5).

`original_result_json(source)` writes a finished match exactly as the original engine's stage script
printed it: `JSON.stringify(result, null, 2)` plus one newline. Python's `json.dumps` cannot do this,
because it writes floats with `repr` (`1e-05`, `1.5e-07`, `2.0`) where JavaScript writes `0.00001`,
`1.5e-7` and `2`; so this module has its own small JSON writer with a JavaScript Number-to-String
formatter (`js_number`). The shape is defined for `bravolt2018` matches; a `seed` match is written
the same way (the parity suite uses that to show that the rule sets differ).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

ANONYMOUS: dict[str, Any] = {"name": "Anonymous Player"}
_SAFE_INT = 2**53
_SURROGATE_PAIR = re.compile("([\ud800-\udbff])([\udc00-\udfff])")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_number(value: int | float) -> str:
    """ECMAScript Number::toString of a number, as `JSON.stringify` writes it (spec 7.5, *Numbers*).

    Non-finite values are written `null`, as `JSON.stringify` does. A Python int is first read as a
    double, as JavaScript's `JSON.parse` would have read it.
    """
    if type(value) is bool:
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        if -_SAFE_INT <= value <= _SAFE_INT:
            return str(int(value))
        try:
            value = float(value)
        except OverflowError:
            return "null"
    value = float(value)
    if not math.isfinite(value):
        return "null"
    if value == 0:
        return "0"  # -0 included
    sign = "-" if value < 0 else ""
    text = repr(abs(value))  # the shortest digits that read back exactly, as ECMAScript requires
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    stripped = raw.lstrip("0")
    digits = stripped.rstrip("0")
    k = len(digits)
    # value = 0.<digits> x 10^n
    n = len(whole) + (int(exponent) if exponent else 0) - (len(raw) - len(stripped))
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        power = n - 1
        body = (
            digits[0]
            + ("." + digits[1:] if k > 1 else "")
            + "e"
            + ("+" if power >= 0 else "-")
            + str(abs(power))
        )
    return sign + body


def _js_string(text: str) -> str:
    """A JSON string as `JSON.stringify` writes it: only `"`, `\\`, controls and lone surrogates escaped."""
    if _LONE_SURROGATE.search(text):
        # A well-formed pair is one character in JavaScript; a lone half is written as \\udxxx.
        text = _SURROGATE_PAIR.sub(
            lambda m: (m.group(1) + m.group(2)).encode("utf-16", "surrogatepass").decode("utf-16"), text
        )
        escaped = json.dumps(text, ensure_ascii=False)
        return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", escaped)
    return json.dumps(text, ensure_ascii=False)


def _write(value: Any, indent: str, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int | float):
        out.append(js_number(value))
    elif isinstance(value, str):
        out.append(_js_string(value))
    elif isinstance(value, Mapping):
        if not value:
            out.append("{}")
            return
        inner = indent + "  "
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            out.append(("\n" if index == 0 else ",\n") + inner + _js_string(str(key)) + ": ")
            _write(item, inner, out)
        out.append("\n" + indent + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = indent + "  "
        out.append("[")
        for index, item in enumerate(value):
            out.append(("\n" if index == 0 else ",\n") + inner)
            _write(item, inner, out)
        out.append("\n" + indent + "]")
    else:
        raise TypeError(f"not a JSON value: {type(value).__name__}")


def js_stringify(value: Any) -> str:
    """`JSON.stringify(value, null, 2)` for JSON-able Python values (dict key order is kept)."""
    out: list[str] = []
    _write(value, "", out)
    return "".join(out)


def _round_entry(record: Mapping[str, Any]) -> dict[str, Any]:
    """A round record (spec 3.6) in the original's shape (7.5): four keys, in the original's order."""
    return {
        "outcome": record["outcome"],
        "turnsPlayed": record["turnsPlayed"],
        "player1": dict(record["player1"]),
        "player2": dict(record["player2"]),
    }


def _exact_metas(metas: Sequence[Any], texts: Any) -> list[Any]:
    """The metas as the bots' JavaScript held them: where the adapter sent JSON.stringify's text
    (`metaJson`, for a meta with a lone surrogate, spec 7.3), that text read back. Python's `json`
    keeps a lone surrogate (orjson refuses it), and `js_stringify` writes it as `\\udxxx` again."""
    exact = list(metas)
    if isinstance(texts, Sequence) and not isinstance(texts, str):
        for seat, text in enumerate(texts[: len(exact)]):
            if isinstance(text, str):
                try:
                    exact[seat] = json.loads(text)
                except ValueError:
                    continue  # not JSON (not from the adapter): the meta as received
    return exact


def _from_source(source: Any) -> tuple[Sequence[Mapping[str, Any]], Sequence[Any]]:
    """(round records, metas) from an engine, a MatchRun, a Replay or a mapping."""
    state = getattr(source, "state", None)
    if state is not None and hasattr(state, "round_results"):  # a DronesEngine
        return state.round_results, _exact_metas(
            [side.meta for side in state.sides], [side.meta_json for side in state.sides]
        )
    replay = getattr(source, "replay", None)
    if replay is not None and hasattr(replay, "steps"):  # a MatchRun
        source = replay
    if hasattr(source, "steps") and hasattr(source, "result"):  # a Replay
        source = {"steps": source.steps, "result": source.result}
    if isinstance(source, Mapping):
        if "roundResults" in source:  # result details that carry their rounds
            metas = source.get("meta") or [ANONYMOUS, ANONYMOUS]
            return source["roundResults"], _exact_metas(metas, source.get("metaJson"))
        if "steps" in source:  # a replay's JSON
            rounds = [
                step["record"]["roundResult"]
                for step in source["steps"]
                if isinstance(step.get("record"), Mapping) and "roundResult" in step["record"]
            ]
            details = (source.get("result") or {}).get("details") or {}
            metas = details.get("meta") or [ANONYMOUS, ANONYMOUS]
            return rounds, _exact_metas(metas, details.get("metaJson"))
    raise TypeError(
        "original_result_json needs a DronesEngine, a MatchRun, a Replay, a replay's JSON, "
        f"or result details with 'roundResults'; got {type(source).__name__}"
    )


def original_result(source: Any) -> dict[str, Any]:
    """The original engine's MatchResult object for a finished match (spec 7.5), as a dict."""
    records, metas = _from_source(source)
    rounds = [_round_entry(record) for record in records]
    one = sum(1 for r in rounds if r["outcome"] == "PLAYER 1")
    two = sum(1 for r in rounds if r["outcome"] == "PLAYER 2")
    draws = len(rounds) - one - two
    outcome = "PLAYER 1" if one > two else "PLAYER 2" if two > one else "DRAW"  # GD-25
    return {
        "roundResults": rounds,
        "outcomeDecidedByRandomChance": False,
        "roundTotals": {"player1Wins": one, "player2Wins": two, "draws": draws, "error": 0, "ambiguous": 0},
        "outcome": outcome,
        "player1": metas[0],
        "player2": metas[1],
    }


def original_result_json(source: Any) -> str:
    """The original MatchResult JSON text of a finished match, byte for byte (spec 7.5).

    `source` is a finished `DronesEngine`, a `MatchRun`, a `Replay` (or its JSON), or result details
    holding `roundResults` and `meta`. The text ends with one newline, as the original printed it.
    """
    return js_stringify(original_result(source)) + "\n"
