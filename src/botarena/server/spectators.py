"""Who sees a running match on the public live stream: the spectator policy (DESIGN principle 7).

The public live stream of a match of a HIDDEN-information game (`GameInfo.information`: drones,
devops, datspulse, craftingquest) is its hidden state itself: every unit, bomb and attribute of
every seat, step by step. Anyone reaching the server (an entrant's author, a team's coach) would
watch the opponent's hidden state while the match is played. A `SpectatorPolicy` says what the
public sees of such a match, in the words of the hosted arena (specs/arena.md, "Live"):

- `after` (the default): nothing of its state until it ends, then all of it. It is listed as
  running, with its players and its progress (steps played), and its stream says it is held;
- `delayed`: step t once step t + `delay` has been played; its header (the first keyframe, the map)
  once `delay` steps have, with no keyframe newer than what it shows;
- `organizer`: no public live view at all: listed as running like an `after` match, its stream
  never opens, not even after the end (its last notice says it is over, with its replay's URL:
  the replay is public once it is over, as every finished match's is);
- `open`: everything as it is played (a friendly event, the demo, a participant's own match).

FULL-information games (domains, rps) are always open: nothing of their state is hidden from the
seats. A game this server does not know (a worker of another version) is treated as hidden.

`SpectatorGate` applies the policy in front of a public `LiveHub`: it is the sink tournaments,
`POST /api/live/ingest` and the DatsPulse server's recorder publish to (`gate.publish`, or
`gate.sink(policy)` for a source with a policy of its own). It hands every event at once to the
organizer's hub (when there is one), open matches' events straight to the public hub, and keeps the
rest back, serialized and bounded like the hub's own, until the policy lets them through; so the
public hub never holds anything the public may not see, and a late subscriber cannot get more than
an early one. A held match is not in the public hub at all: the gate lists it (`live_matches`) and
serves its stream (`subscribe`): one "held" event

    {"key", "tournament_id", "match", "game", "players", "policy", "delay", "played"}

again whenever its progress changes, and, once the policy lets it through, the match's own stream
from the public hub (its header, steps and end) in the same connection. Every header the gate lets
through says how it is shown: `"spectators": {"policy", "delay"}` (the viewer says "N steps behind").

Bounds: the held steps of a match are at most the hub's `max_steps` and `max_bytes`; a header over
`max_header_bytes` is not held; all held matches, headers included, take at most the hub's
`max_total_bytes` (the oldest held steps go first, and the stream then shows the gap, as the hub's
own bound does; then the held match idle longest); at most the hub's `max_matches` held matches,
and one with no event for the hub's `idle_timeout_s` (its tournament was killed) is dropped. A
dropped match's later events are dropped too: they never reach the public hub.

`publish` never raises (bad input must not stop a tournament: DESIGN principle 3); what it cannot
use it hands to the public hub, which refuses and counts it, or counts in `dropped_events`.

**Governed matches** (the hosted arena's, specs/arena.md "Live"). `govern(rule)` gives the gate a
function that says, from a header's tournament id, whether the match belongs to an owner (an arena
competition) that sets its policy itself: `Governed(owner, policy)`. Such a match follows its
owner's policy whatever its game's information (a full-information arena match is held too: the
policy is the event's rule, not the game's); its events go as they come to the gate's `owned` hub
(every match as played, secrets included), read only by a caller the route has found to be that
owner's organizer (`live_matches(owner=...)`, `subscribe(owner=...)`); and what reaches the public
never carries a bot's log (the header's and the end's `logs` are emptied, each seat's entry marked
`hidden`). Under `after` and `organizer` a running governed match is not listed, and its stream is
404, for anyone but its owner: nothing of it, not even that it runs, until `after` lets it through at
its end (`organizer`: never). Under `delayed` it is listed held, then shown D steps behind, as any
held match.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson

from botarena.server.live import END, HEADER, PING, STEPS, LiveEvent, LiveHub, Waiter, dumps

log = logging.getLogger(__name__)

HELD = "held"
"""The SSE event of a match whose stream the policy still holds back."""
DEFAULT_DELAY_STEPS = 30
MAX_DELAY_STEPS = 100_000


class LivePolicy(StrEnum):
    """What the public sees of a running match of a hidden-information game (specs/arena.md)."""

    AFTER = "after"  # nothing until it ends, then all of it (the default)
    DELAYED = "delayed"  # step t once step t + delay has been played
    ORGANIZER = "organizer"  # the organizer only: no public live stream at all
    OPEN = "open"  # everything as it is played


class PolicyError(ValueError):
    """A spectator policy that cannot be (one line)."""


@dataclass(frozen=True)
class SpectatorPolicy:
    """A live policy, and for `delayed` how many steps behind the public stream runs."""

    mode: LivePolicy = LivePolicy.AFTER
    delay: int = DEFAULT_DELAY_STEPS

    def __post_init__(self) -> None:
        if not isinstance(self.delay, int) or not 1 <= self.delay <= MAX_DELAY_STEPS:
            raise PolicyError(f"the live delay must be 1 to {MAX_DELAY_STEPS} steps, got {self.delay!r}")

    @classmethod
    def parse(cls, mode: str, delay: int | None = None) -> SpectatorPolicy:
        """The policy named `mode` (after, delayed, organizer, open); PolicyError otherwise."""
        try:
            chosen = LivePolicy(mode)
        except ValueError:
            words = ", ".join(policy.value for policy in LivePolicy)
            raise PolicyError(f"unknown live policy {mode[:40]!r} (expected one of {words})") from None
        return cls(chosen, DEFAULT_DELAY_STEPS if delay is None else delay)

    @classmethod
    def open(cls) -> SpectatorPolicy:
        return cls(LivePolicy.OPEN)

    def visible(self, played: int, over: bool) -> int | None:
        """How many of a match's first steps the public may see once `played` steps have been
        played (`over`: the match has ended); None: nothing of it, not even its header."""
        if self.mode is LivePolicy.OPEN:
            return played
        if self.mode is LivePolicy.ORGANIZER:
            return None
        if over:
            return played
        if self.mode is LivePolicy.DELAYED and played >= self.delay:
            return played - self.delay
        return None

    def to_json(self) -> dict[str, Any]:
        """How a stream is shown, as its header and the live list say it."""
        return {"policy": self.mode.value, "delay": self.delay if self.mode is LivePolicy.DELAYED else None}

    def describe(self) -> str:
        """One line for a server's start-up message."""
        if self.mode is LivePolicy.OPEN:
            return "open (every match live as it is played)"
        held = {
            LivePolicy.AFTER: "shown once they end",
            LivePolicy.DELAYED: f"shown {self.delay} steps behind",
            LivePolicy.ORGANIZER: "shown to the organizer only",
        }[self.mode]
        return f"{self.mode.value} (matches of hidden-information games {held}; the others live)"


OPEN_VIEW = SpectatorPolicy.open().to_json()


def hides_state(game: str) -> bool:
    """True when the rules of `game` hide part of the state from the seats (`Information.HIDDEN`),
    and for a game this server does not know: its stream is held as a hidden one's."""
    from botarena.core.game import Information
    from botarena.core.registry import UnknownGameError, get_game

    try:
        return get_game(game).information is not Information.FULL
    except UnknownGameError:
        return True


def _as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _player_names(replay: dict[str, Any]) -> list[str]:
    """The players' names as the live list shows them (`LiveHub` does the same)."""
    return [
        str(p.get("name") or f"seat {p.get('seat', i)}") if isinstance(p, dict) else str(p)
        for i, p in enumerate(replay.get("players") or [])
    ]


def _until(entries: Any, field_name: str, upto: int) -> list[Any]:
    """The entries of a replay list (keyframes by `step`, late replies and resumes by
    `after_step`) that belong to the first `upto` steps; one without a step number goes too."""
    if not isinstance(entries, list):
        return []
    kept = []
    for entry in entries:
        step = _as_int(entry.get(field_name)) if isinstance(entry, dict) else None
        if step is not None and step <= upto:
            kept.append(entry)
    return kept


@dataclass
class _Chunk:
    first: int  # the index of its first step in the match
    count: int
    steps_json: bytes  # the JSON array of its steps


@dataclass
class _Gated:
    """A match of a hidden-information game (or a governed one) whose events the gate keeps back."""

    key: str
    tournament_id: int | None
    match: str
    game: str
    players: list[str]
    policy: SpectatorPolicy
    header: bytes  # its header event, serialized (memory; keyframes are filtered on release)
    started_at: float  # wall clock
    updated_at: float
    touched: float  # monotonic: its last event
    played: int = 0  # steps played (received) so far
    shown: int = 0  # the first `shown` steps went to the public hub
    released: bool = False  # its header went to the public hub
    chunks: deque[_Chunk] = field(default_factory=deque)  # steps received and not yet shown
    held_bytes: int = 0  # of its chunks (its header is counted in the gate's total only)
    held_steps: int = 0
    dropped_steps: int = 0  # held steps let go to stay within the bounds
    waiters: set[Waiter] = field(default_factory=set)
    final: bytes | None = None  # the last notice of a match that ended with nothing public (organizer)
    progress: dict[str, Any] | None = None  # its clock, if its source sends one (`_progress`)
    listed: bool = True  # False: a governed match the public may not even know runs while held

    def notice(self, **over: Any) -> bytes:
        """The "held" event: who plays and how far, nothing of the state (`over`: it has ended,
        `match_id` and `replay_url`)."""
        return dumps(
            {
                "key": self.key,
                "tournament_id": self.tournament_id,
                "match": self.match,
                "game": self.game,
                "players": self.players,
                **self.policy.to_json(),
                "played": self.played,
                **({"progress": self.progress} if self.progress is not None else {}),
                **over,
            }
        )

    def listing(self) -> dict[str, Any]:
        """Its entry in the live list (`GET /api/live`) while it is held."""
        return {
            "key": self.key,
            "tournament_id": self.tournament_id,
            "match": self.match,
            "game": self.game,
            "players": list(self.players),
            "steps": self.shown,
            "finished": False,
            "match_id": None,
            "result": None,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
            **self.policy.to_json(),
            "played": self.played,
            "held": not self.released,
            "progress": self.progress,
        }


PROGRESS_KEYS = ("turn", "turns", "next_turn_at", "ends_at")


def _progress(value: Any) -> dict[str, Any] | None:
    """A live event's `progress`, the clock of a match played in real time (a DatsPulse round): its
    turn, its turns, when the next turn and the match are due (wall-clock seconds; null once over).
    Only these keys, as numbers: a source cannot slip anything else into the public list through it."""
    if not isinstance(value, dict):
        return None
    kept: dict[str, Any] = {}
    for name in PROGRESS_KEYS:
        number = value.get(name)
        ok = isinstance(number, int | float) and not isinstance(number, bool) and math.isfinite(number)
        kept[name] = number if ok else None
    return kept


LiveSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Governed:
    """A match whose owner (an arena competition's id) sets its live policy (see `govern`)."""

    owner: int
    policy: SpectatorPolicy

    @property
    def unlisted(self) -> bool:
        """Whether the public may not even see that the match runs while it is held."""
        return self.policy.mode in (LivePolicy.AFTER, LivePolicy.ORGANIZER)


GovernRule = Callable[[int], "Governed | None"]
"""Tournament id -> the owner and policy of its matches, or None (a match like any other)."""
_TOURNAMENT_KEY = re.compile(r"^t([1-9][0-9]{0,18})/")


def tournament_of(event: dict[str, Any]) -> int | None:
    """The tournament of a live event: its `tournament_id`, else the `t<id>/` of its key."""
    found = _as_int(event.get("tournament_id"))
    if found is not None:
        return found
    key = event.get("key")
    matched = _TOURNAMENT_KEY.match(key) if isinstance(key, str) else None
    return int(matched.group(1)) if matched else None


def _hidden_logs(logs: Any) -> list[Any]:
    """Every seat's log entry emptied and marked hidden (as `arena.visibility` shows a public replay)."""
    if not isinstance(logs, list):
        return []
    return [
        {
            "seat": entry.get("seat", i) if isinstance(entry, dict) else i,
            "text": "",
            "dropped_bytes": 0,
            "hidden": True,
        }
        for i, entry in enumerate(logs)
    ]


def without_logs(event: dict[str, Any]) -> dict[str, Any]:
    """`event` with no bot log in it: its header's replay `logs`, its end's `fields.logs`."""
    replay = event.get("replay")
    if isinstance(replay, dict) and "logs" in replay:
        event = {**event, "replay": {**replay, "logs": _hidden_logs(replay["logs"])}}
    fields = event.get("fields")
    if isinstance(fields, dict) and "logs" in fields:
        event = {**event, "fields": {**fields, "logs": _hidden_logs(fields["logs"])}}
    return event


class SpectatorGate:
    """The public live hub's door: see the module docstring.

    `public` is the hub the public reads (`LiveHub(public=True)`); `organizer`, if given, the hub
    that gets every event at once (`LiveHub(public=False)`, read with the organizer key). `policy`
    is the policy of every source that does not bring its own (`sink`)."""

    def __init__(
        self,
        public: LiveHub,
        policy: SpectatorPolicy | None = None,
        *,
        organizer: LiveHub | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_header_bytes: int | None = None,
    ) -> None:
        self.public = public
        # a header the public hub would refuse is not held either (default: the hub's own cap)
        self.max_header_bytes = public.max_header_bytes if max_header_bytes is None else max_header_bytes
        self.organizer = organizer
        self.policy = policy if policy is not None else SpectatorPolicy()
        self._clock = clock
        self._lock = threading.Lock()
        self._gated: dict[str, _Gated] = {}
        # the keys whose header went through unheld (open): only their later events follow it, so
        # that the steps of a held match dropped by the bounds never reach the public hub
        self._passed: OrderedDict[str, None] = OrderedDict()
        self._held_bytes = 0
        self._closed = False
        self.dropped_events = 0  # events the gate could not use (steps of a dropped match, ...)
        self._refusal: str | None = None  # why the event being published was not taken (`offer`)
        self._govern: GovernRule | None = None
        # every governed match as played, read by its owner only (made by `govern`)
        self.owned: LiveHub | None = None
        self._owners: OrderedDict[str, Governed] = OrderedDict()  # a governed match's key -> its rule

    def govern(self, rule: GovernRule, owned: LiveHub | None = None) -> None:
        """Let `rule` say which matches are governed (see the module docstring); `owned` is the hub
        their owners read (default: a new private one with the public hub's bounds)."""
        hub = self.public
        self.owned = owned or LiveHub(
            public=False,
            max_steps=hub.max_steps,
            max_bytes=hub.max_bytes,
            max_header_bytes=hub.max_header_bytes,
            max_total_bytes=hub.max_total_bytes,
            keep_finished_s=hub.keep_finished_s,
            max_finished=hub.max_finished,
            idle_timeout_s=hub.idle_timeout_s,
            max_matches=hub.max_matches,
            replay_url=hub.replay_url,
        )
        self._govern = rule

    def owner_of(self, key: str) -> int | None:
        """The owner of the governed match `key` (None: not governed, or long gone)."""
        with self._lock:
            found = self._owners.get(key)
        return found.owner if found is not None else None

    def _governed(self, event: Any) -> Governed | None:
        """The rule's word on a header (outside the lock: it may read a store). A rule that fails
        holds the match under `after` for an owner nobody is: closed, never open, on an error."""
        if self._govern is None or not isinstance(event, dict) or event.get("type") != HEADER:
            return None
        tournament = tournament_of(event)
        if tournament is None:
            return None
        try:
            return self._govern(tournament)
        except Exception:
            log.exception("the live rule failed on tournament %s: its match is held", tournament)
            return Governed(-1, SpectatorPolicy())

    def _own(self, event: Any, governed: Governed | None) -> bool:
        """Lock held: whether `event` is of a governed match (a header records its owner), and hand
        it, as it is, to the owned hub."""
        if not isinstance(event, dict) or not isinstance(event.get("key"), str):
            return False
        key: str = event["key"]
        if event.get("type") == HEADER:
            self._owners.pop(key, None)
            if governed is not None:
                self._owners[key] = governed
                while len(self._owners) > 4 * self.public.max_matches:
                    self._owners.popitem(last=False)
        if key not in self._owners or self.owned is None:
            return False
        self.owned.publish(event)  # (the hub never raises)
        return True

    @property
    def held_bytes(self) -> int:
        """The bytes the gate holds back: the held matches' headers and steps."""
        with self._lock:
            return self._held_bytes

    # ------------------------------------------------------------------------------ publishing

    def sink(self, policy: SpectatorPolicy) -> LiveSink:
        """A sink for a source whose matches follow `policy` (e.g. `serve --demo`'s, open)."""
        return lambda event: self.publish(event, policy)

    def publish(self, event: dict[str, Any], policy: SpectatorPolicy | None = None) -> None:
        """Take one live event (header, steps or end) of a match that follows `policy` (default:
        the gate's). Thread-safe; never raises."""
        self.offer(event, policy)

    def offer(self, event: dict[str, Any], policy: SpectatorPolicy | None = None) -> str | None:
        """`publish`, saying why an event was not taken (what live ingest answers its sender): None
        when the gate held it or the public hub took it, else the reason in one line."""
        if self.organizer is not None:
            self.organizer.publish(event)  # everything, as it is played (the hub never raises)
        try:
            governed = self._governed(event)
            with self._lock:
                self._refusal = None
                if self._own(event, governed):
                    rule = self._owners[event["key"]]  # (a later event: its header's rule)
                    woken = self._publish(without_logs(event), rule.policy, rule)
                else:
                    woken = self._publish(event, policy or self.policy)
                refusal = self._refusal
        except Exception:  # a bug or a malformed event must not stop the tournament
            log.exception("live event dropped by the spectator gate")
            with self._lock:
                self.dropped_events += 1
            return "the spectator gate failed on this event"
        for waiter in woken:
            waiter.wake()
        return refusal

    def _to_public(self, event: dict[str, Any]) -> None:
        """Lock held: hand `event` to the public hub, keeping its refusal (if any) for `offer`."""
        self._refusal = self.public.offer(event) or self._refusal

    def _refuse(self, reason: str) -> None:
        """Lock held: the gate itself drops the event, for `reason`."""
        self.dropped_events += 1
        self._refusal = reason

    def _publish(self, event: Any, policy: SpectatorPolicy, governed: Governed | None = None) -> list[Waiter]:
        """Lock held: the public hub gets a match's events in the order they came."""
        if not isinstance(event, dict) or not isinstance(event.get("key"), str) or not event["key"]:
            self._to_public(event)  # (it refuses and counts it)
            return []
        key: str = event["key"]
        kind = event.get("type")
        if kind == HEADER:
            return self._header(key, event, policy, governed)
        gated = self._gated.get(key)
        if gated is None:
            if key in self._passed:
                if kind == END:
                    self._passed.pop(key, None)
                self._to_public(event)
            else:  # a match the gate never let through (or dropped while held)
                self._refuse(
                    f"{key[:80]!r} is not a live match here (its header was refused or it was dropped)"
                )
            return []
        if kind == STEPS:
            return self._steps(gated, event)
        if kind == END:
            return self._end(gated, event)
        self.dropped_events += 1
        return []

    def _header(
        self, key: str, event: dict[str, Any], policy: SpectatorPolicy, governed: Governed | None = None
    ) -> list[Waiter]:
        replay = event.get("replay")
        game = str(replay.get("game", "")) if isinstance(replay, dict) else ""
        woken = self._forget(key)  # a retried match starts again from its header
        now = self._clock()
        if not isinstance(replay, dict):  # (nothing to show: its later events are dropped too)
            self._passed.pop(key, None)
            self.dropped_events += 1
            return woken
        if policy.mode is LivePolicy.OPEN or (governed is None and not hides_state(game)):
            self._pass(key)
            self._to_public({**event, "spectators": OPEN_VIEW})
            return woken + self._prune(now)
        name = event.get("match")
        wall = time.time()
        header = dumps(event)
        if len(header) > self.max_header_bytes:  # (not held: its later events are dropped too)
            self._passed.pop(key, None)
            self._refuse(
                f"the header of {key[:80]!r} is {len(header)} bytes, over the live hub's cap of"
                f" {self.max_header_bytes}"
            )
            return woken
        gated = _Gated(
            key=key,
            tournament_id=_as_int(event.get("tournament_id")),
            match=name if isinstance(name, str) else key,
            game=game,
            players=_player_names(replay),
            policy=policy,
            header=header,
            started_at=wall,
            updated_at=wall,
            touched=now,
            progress=_progress(event.get("progress")),
            listed=governed is None or not governed.unlisted,
        )
        self._gated[key] = gated
        self._held_bytes += len(header)
        self._passed.pop(key, None)
        woken += self._prune(now) + self._bound(gated)
        return woken + self._release(gated, over=False)

    def _pass(self, key: str) -> None:
        """Remember that `key`'s events go through; the keys the public hub no longer holds go."""
        self._passed[key] = None
        self._passed.move_to_end(key)
        if len(self._passed) > 2 * self.public.max_matches:
            for old in list(self._passed):
                if old not in self.public:
                    del self._passed[old]
            while len(self._passed) > 2 * self.public.max_matches:
                self._passed.popitem(last=False)

    def _steps(self, gated: _Gated, event: dict[str, Any]) -> list[Waiter]:
        steps = event.get("steps")
        first = _as_int(event.get("first"))
        if not isinstance(steps, list) or first is None or first < 0:
            self.dropped_events += 1
            return []
        gated.progress = _progress(event.get("progress")) or gated.progress
        if first < gated.played:  # an overlap (a resent batch): keep only what is new
            steps = steps[gated.played - first :]
            first = gated.played
        gated.touched = self._clock()
        gated.updated_at = time.time()
        if not steps:
            return []
        chunk = _Chunk(first, len(steps), dumps(steps))
        gated.chunks.append(chunk)
        self._count(gated, chunk, +1)
        gated.played = first + len(steps)
        woken = self._bound(gated)
        return woken + list(gated.waiters) + self._release(gated, over=False)

    def _end(self, gated: _Gated, event: dict[str, Any]) -> list[Waiter]:
        if gated.policy.visible(gated.played, over=True) is not None:
            self._release(gated, over=True)
            self._to_public(event)
        else:  # organizer: never public; its held streams are told it is over, and where its replay is
            match_id = _as_int(event.get("match_id"))
            url = self.public.replay_url(match_id) if match_id is not None else None
            gated.final = gated.notice(over=True, match_id=match_id, replay_url=url)
        return self._forget(gated.key)  # (its held streams now follow the public hub's)

    def _release(self, gated: _Gated, *, over: bool) -> list[Waiter]:
        """Hand the public hub what the policy now lets through: the header (once), then the
        held steps up to the visible one. Returns the held streams to wake (they follow the hub
        once the header is out)."""
        upto = gated.policy.visible(gated.played, over)
        if upto is None or (gated.released and upto <= gated.shown):
            return []
        woken: list[Waiter] = []
        if not gated.released:
            self._to_public(self._shown_header(gated, upto))
            gated.released = True
            woken = list(gated.waiters)
        while gated.chunks and gated.chunks[0].first < upto:
            chunk = gated.chunks.popleft()
            self._count(gated, chunk, -1)
            steps = orjson.loads(chunk.steps_json)
            if chunk.first + chunk.count > upto:  # the rest of it is still too new
                cut = upto - chunk.first
                rest = _Chunk(upto, chunk.count - cut, dumps(steps[cut:]))
                gated.chunks.appendleft(rest)
                self._count(gated, rest, +1)
                steps = steps[:cut]
            self._to_public({"type": STEPS, "key": gated.key, "first": chunk.first, "steps": steps})
        gated.shown = upto
        return woken

    def _shown_header(self, gated: _Gated, upto: int) -> dict[str, Any]:
        """The header as the public may see it with `upto` steps shown: no keyframe (the whole
        state), late reply or resume of a later step."""
        event = orjson.loads(gated.header)
        replay = dict(event["replay"])
        replay["keyframes"] = _until(replay.get("keyframes"), "step", upto)
        for name in ("late", "resumes"):
            if name in replay:
                replay[name] = _until(replay[name], "after_step", upto)
        return {**event, "replay": replay, "spectators": gated.policy.to_json()}

    # ------------------------------------------------------------------------------ bounds

    def _count(self, gated: _Gated, chunk: _Chunk, sign: int) -> None:
        size = sign * len(chunk.steps_json)
        gated.held_bytes += size
        gated.held_steps += sign * chunk.count
        self._held_bytes += size

    def _drop_oldest(self, gated: _Gated) -> None:
        chunk = gated.chunks.popleft()
        self._count(gated, chunk, -1)
        gated.dropped_steps += chunk.count

    def _bound(self, gated: _Gated) -> list[Waiter]:
        """Keep what is held within the public hub's bounds: `gated`'s steps, then all matches'
        (the largest's oldest steps first, then the held match idle longest other than `gated`).
        Returns the held streams of the matches dropped."""
        hub = self.public
        while gated.chunks and (gated.held_steps > hub.max_steps or gated.held_bytes > hub.max_bytes):
            self._drop_oldest(gated)
        woken: list[Waiter] = []
        while self._held_bytes > hub.max_total_bytes:
            largest = max(self._gated.values(), key=lambda g: g.held_bytes)
            if largest.chunks:
                self._drop_oldest(largest)
                continue
            others = [g for g in self._gated.values() if g is not gated]
            if not others:
                break
            woken += self._forget(min(others, key=lambda g: g.touched).key)
        return woken

    def _forget(self, key: str) -> list[Waiter]:
        """Stop holding `key` (ended, replaced, dropped); returns its held streams to wake."""
        gated = self._gated.pop(key, None)
        if gated is None:
            return []
        self._held_bytes -= gated.held_bytes + len(gated.header)
        return list(gated.waiters)

    def _prune(self, now: float) -> list[Waiter]:
        """Drop held matches idle too long (their tournament was killed), then the idle-longest
        beyond the hub's `max_matches`."""
        hub = self.public
        woken: list[Waiter] = []
        for key, gated in list(self._gated.items()):
            if now - gated.touched >= hub.idle_timeout_s:
                woken += self._forget(key)
        while len(self._gated) > hub.max_matches:
            victim = min(self._gated.values(), key=lambda g: g.touched)
            woken += self._forget(victim.key)
        return woken

    def close(self) -> None:
        """End every held stream and the organizer's hub (the server is shutting down)."""
        with self._lock:
            self._closed = True
            woken = [waiter for gated in self._gated.values() for waiter in gated.waiters]
        for waiter in woken:
            waiter.wake()
        if self.organizer is not None:
            self.organizer.close()
        if self.owned is not None:
            self.owned.close()

    # ------------------------------------------------------------------------------ reading

    def prune(self) -> None:
        """Apply the time bounds now (publishing and reading also do it as they go)."""
        with self._lock:
            woken = self._prune(self._clock())
        for waiter in woken:
            waiter.wake()

    def __contains__(self, key: object) -> bool:
        """Whether the public can follow `key` live (held or not; an unlisted governed match, not)."""
        self.prune()
        with self._lock:
            gated = self._gated.get(key) if isinstance(key, str) else None
            if gated is not None:
                return gated.listed or gated.released
        return key in self.public

    def key_of(self, tournament_id: int, match: str) -> str | None:
        """The live key the public follows the match `match` of tournament `tournament_id` by, held
        or not; None when it is not live here. (A source may key its matches its own way: the
        DatsPulse server's rounds are `datspulse/<round>`.)"""
        with self._lock:
            for gated in self._gated.values():
                if gated.tournament_id == tournament_id and gated.match == match:
                    return gated.key if gated.listed or gated.released else None
        for live in self.public.live_matches():
            if live.tournament_id == tournament_id and live.match == match:
                return live.key
        return None

    def live_matches(self, *, organizer: bool = False, owner: int | None = None) -> list[dict[str, Any]]:
        """The live list (`GET /api/live`): running matches first (newest first), then finished
        ones, each with `policy`, `delay`, `played` (steps played) and `held` (nothing of it shown
        yet); `steps` is what its stream holds. `organizer`: every match as it is played; `owner`:
        that owner's governed matches as they are played, the others as the public sees them."""
        entries: dict[str, dict[str, Any]] = {}
        self.prune()
        with self._lock:
            gated = {key: g.listing() for key, g in self._gated.items()}
            unlisted = {key for key, g in self._gated.items() if not g.listed}
            owned = {
                key: rule for key, rule in self._owners.items() if owner is not None and rule.owner == owner
            }
        if owned and self.owned is not None:
            for match in self.owned.live_matches():
                rule = owned.get(match.key)
                if rule is not None:
                    view = {**rule.policy.to_json(), "played": match.steps, "held": False}
                    entries[match.key] = {**match.to_json(), **view}
        if organizer and self.organizer is not None:
            for match in self.organizer.live_matches():
                held = gated.get(match.key)  # (how the public sees it)
                view = {name: held[name] for name in ("policy", "delay")} if held else OPEN_VIEW
                entries[match.key] = {**match.to_json(), **view, "played": match.steps, "held": False}
        for match in self.public.live_matches():
            if match.key in entries:
                continue
            entry = gated.get(match.key) if not organizer else None
            if entry is not None and entry["held"]:
                continue  # (an earlier attempt's stream: the held retry stands for it)
            view = {**OPEN_VIEW, "played": match.steps, "held": False}
            if entry is not None:
                view = {name: entry[name] for name in ("policy", "delay", "played", "held")}
            entries[match.key] = {**match.to_json(), **view}
        if not organizer:
            for key, entry in gated.items():
                if entry["held"] and key not in unlisted and key not in entries:
                    entries[key] = entry
        return sorted(entries.values(), key=lambda m: (m["finished"], -m["started_at"], m["key"]))

    def subscribe(
        self, key: str, *, organizer: bool = False, owner: int | None = None, heartbeat_s: float | None = 15.0
    ) -> AsyncGenerator[LiveEvent, None] | None:
        """The live events of `key` for the public (`organizer`: for the organizer, every event as
        it is played; `owner`: the same for that owner's governed matches), or None when there is no
        such live match. A held match's stream gives its "held" notices, then (once the policy lets
        it through) the public hub's stream of it; an unlisted governed one's is None while held."""
        if organizer and self.organizer is not None and key in self.organizer:
            return self.organizer.subscribe(key, heartbeat_s=heartbeat_s)
        if owner is not None and self.owned is not None and self.owner_of(key) == owner:
            return self.owned.subscribe(key, heartbeat_s=heartbeat_s)
        self.prune()
        with self._lock:
            gated = self._gated.get(key)
            held = gated is not None and not gated.released and not self._closed
            if held and gated is not None and not gated.listed:
                return None  # (the public may not know it runs: as if there were no such match)
        if not held:
            return self.public.subscribe(key, heartbeat_s=heartbeat_s)
        return self._follow_held(key, heartbeat_s)

    async def _follow_held(self, key: str, heartbeat_s: float | None) -> AsyncGenerator[LiveEvent, None]:
        waiter = Waiter()
        following: _Gated | None = None
        sent = -1  # the progress the last notice told
        final: bytes | None = None
        try:
            while True:
                with self._lock:
                    current = self._gated.get(key)
                    if self._closed or current is None or current.released:
                        if current is None and following is not None:
                            final = following.final
                        break
                    if current is not following:  # (a retry: the new attempt's notice)
                        if following is not None:
                            following.waiters.discard(waiter)
                        current.waiters.add(waiter)
                        following, sent = current, -1
                    notice = current.notice() if current.played != sent else None
                    if notice is not None:
                        sent = current.played
                    else:
                        waiter.event.clear()  # under the lock: a publish after this sets it again
                if notice is not None:
                    yield LiveEvent(HELD, (notice,))
                    continue
                try:
                    await asyncio.wait_for(waiter.event.wait(), heartbeat_s)
                except TimeoutError:
                    yield LiveEvent(PING)
        finally:
            with self._lock:
                if following is not None:
                    following.waiters.discard(waiter)
        if self._closed:
            return
        if final is not None:  # over, and nothing of it public (organizer)
            yield LiveEvent(HELD, (final,))
            return
        # let through (its header is in the public hub now), ended, or dropped (then nothing)
        events = self.public.subscribe(key, heartbeat_s=heartbeat_s)
        if events is None:
            return
        async with contextlib.aclosing(events):
            async for event in events:
                yield event
