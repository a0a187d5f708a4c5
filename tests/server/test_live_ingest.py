"""POST /api/live/ingest: live events from workers elsewhere reach the hub, and nothing else does.

Each refusal is tested by the request that it stops: no token configured (403), a missing or wrong
token (401, before any body is read), bodies over the cap declared or streamed (413), too many
events (413), garbage and events of the wrong shape (400/422: nothing of the request reaches the
hub), a token holder's "end" that claims another result (the store is never touched), and many
large posts at once (at most two are read and parsed at a time).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.server.live import LiveHub
from botarena.store import Store
from botarena.tournament.executor import MatchTask, play_task
from botarena.tournament.live_http import INGEST_PATH, MAX_INGEST_BYTES, MAX_INGEST_EVENTS

from .conftest import LIVE_TOKEN, Server, SseStream, get_json, play_tournament

TOKEN = LIVE_TOKEN


def live_events(key: str = "r01-m001", tournament_id: int = 7, match_id: int | None = None) -> list[Any]:
    """The live events of a real drones match, as a worker's LiveStreamer hands them to its sink."""
    events: list[dict[str, Any]] = []
    task = MatchTask(
        tournament_id=tournament_id,
        key=key,
        game="drones",
        preset="default",
        overrides={"rounds": 2},
        seed=4,
        seats=("zergy", "adaptive"),
        specs=("zergy", "adaptive"),
        match_id=match_id,
    )
    with ThreadPoolExecutor(1) as pool:  # the bots' timers want a worker thread under pytest-timeout
        outcome = pool.submit(play_task, task, events.append).result(timeout=60)
    assert events[0]["type"] == "header" and events[-1]["type"] == "end"
    assert sum(len(e["steps"]) for e in events if e["type"] == "steps") == outcome.steps
    return events


def post(
    server: Server,
    body: bytes | Iterator[bytes],
    *,
    token: str | None = TOKEN,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], Any]:
    """POST to the ingest route: (status, headers in lower case, the JSON body)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if isinstance(body, bytes):
            conn.request("POST", INGEST_PATH, body=body, headers=sent)
        else:  # chunked: no Content-Length for the server to refuse up front
            conn.request("POST", INGEST_PATH, body=body, headers=sent, encode_chunked=True)
        response = conn.getresponse()
        data = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(data)
    finally:
        conn.close()


@pytest.fixture(scope="module")
def events() -> list[Any]:
    return live_events()


def test_without_a_token_the_server_refuses_all_ingest(
    start_server: Callable[..., Server], store: Store, events: list[Any]
) -> None:
    server = start_server(store)
    for token in (TOKEN, None, ""):
        status, _, data = post(server, orjson.dumps(events), token=token)
        assert status == 403, data
        assert data["detail"].startswith("live ingest is disabled: start the server with a live token")
    assert len(server.hub) == 0


def test_a_missing_or_wrong_token_is_401_and_nothing_is_read(ingest: Server, events: list[Any]) -> None:
    body = orjson.dumps(events)
    for token, headers in (
        (None, None),
        (TOKEN[:-1], None),  # a prefix
        (TOKEN + "x", None),
        ("", None),
        (None, {"Authorization": f"Basic {TOKEN}"}),  # the right secret under another scheme
        (None, {"Authorization": TOKEN}),
    ):
        status, headers_out, data = post(ingest, body, token=token, headers=headers)
        assert status == 401, (token, headers, data)
        assert headers_out.get("www-authenticate") == "Bearer"
        assert data["detail"] in (
            "wrong live token",
            "live ingest needs the header 'Authorization: Bearer <live token>'",
        )
    # without the token, even a body declared over the cap is refused for the token, not its size
    status, _, data = post(
        ingest, b"[]", token="wrong-token-wrong-token", headers={"Content-Length": "999999999999"}
    )
    assert status == 401, data
    assert len(ingest.hub) == 0


def test_oversized_bodies_are_413(ingest: Server) -> None:
    big = b"[" + b" " * MAX_INGEST_BYTES + b"]"
    status, _, data = post(ingest, big)  # declared in Content-Length
    assert status == 413 and "cap" in data["detail"], data
    chunks = iter([b"[", *([b" " * (1 << 20)] * (MAX_INGEST_BYTES // (1 << 20) + 1)), b"]"])
    status, _, data = post(ingest, chunks)  # streamed without a length: cut off as it grows
    assert status == 413 and "cap" in data["detail"], data
    too_many = [{"type": "steps", "key": "t1/x", "first": 0, "steps": []}] * (MAX_INGEST_EVENTS + 1)
    status, _, data = post(ingest, orjson.dumps(too_many))
    assert status == 413 and f"over the cap of {MAX_INGEST_EVENTS}" in data["detail"], data
    assert len(ingest.hub) == 0


@pytest.mark.parametrize(
    ("body", "status", "detail"),
    [
        (b"not json", 400, "the body is not JSON"),
        (b"", 400, "the body is not JSON"),
        (b'{"type": "header"}', 422, "must be a JSON list"),
        (b"[1]", 422, "event 0: not an object"),
        (b'[{"type": "header", "key": "t1/a", "replay": []}]', 422, "header: replay must be an object"),
        (b'[{"type": "nope", "key": "t1/a"}]', 422, "type must be header, steps or end"),
        (b'[{"type": "steps", "key": "t1/a", "first": -1, "steps": []}]', 422, "first must be an integer"),
        (b'[{"type": "steps", "key": "t1/a", "first": true, "steps": []}]', 422, "first must be an integer"),
        (b'[{"type": "steps", "key": "t1/a", "first": 0, "steps": [1]}]', 422, "list of step objects"),
        (b'[{"type": "end", "key": "t1/a", "fields": 3}]', 422, "fields must be an object"),
        (b'[{"type": "end", "key": "t1/a", "match_id": "1", "fields": {}}]', 422, "match_id must be"),
        (b'[{"type": "header", "key": "../../etc", "replay": {}}]', 422, "key must be"),
        (b'[{"type": "header", "key": "t1//a", "replay": {}}]', 422, "key must be"),
        (b'[{"type": "header", "key": "t1/<script>", "replay": {}}]', 422, "key must be"),
        (b'[{"type": "header", "key": "' + b"k" * 201 + b'", "replay": {}}]', 422, "key must be"),
        (b'[{"type": "header", "key": "t1/a", "replay": {"players": "ab"}}]', 422, "replay.players"),
        (
            b'[{"type": "header", "key": "t1/a", "replay": {"players": [{"name": "' + b"n" * 201 + b'"}]}}]',
            422,
            "a player's name",
        ),
        (
            b'[{"type": "end", "key": "t1/a", "fields": {"result": {"x": "' + b"r" * 70_000 + b'"}}}]',
            422,
            "fields.result over",
        ),
    ],
)
def test_garbage_is_a_one_line_4xx_and_reaches_nothing(
    ingest: Server, events: list[Any], body: bytes, status: int, detail: str
) -> None:
    got, _, data = post(ingest, body)
    assert got == status and detail in data["detail"], data
    assert "\n" not in data["detail"]
    # a bad event anywhere in a batch: none of its events are published, good ones before it included
    batch = orjson.dumps([events[0], *json.loads(body or b"[1]")]) if body.startswith(b"[") else None
    if batch is not None:
        got, _, data = post(ingest, batch)
        assert got == status, data
    assert len(ingest.hub) == 0 and ingest.hub.dropped_events == 0
    status_ok, health = get_json(f"{ingest.url}/api/health")
    assert status_ok == 200 and health["live"] == 0  # the server is well


def test_a_good_batch_is_listed_and_streamed(ingest: Server, sse: Any, events: list[Any]) -> None:
    header, end = events[0], events[-1]
    steps_sent = [s for e in events if e["type"] == "steps" for s in e["steps"]]
    half = len(steps_sent) // 2
    rest = [  # the steps in two batches, as a worker's streamer sends them while the match runs
        {"type": "steps", "key": header["key"], "first": 0, "steps": steps_sent[:half]},
        {"type": "steps", "key": header["key"], "first": half, "steps": steps_sent[half:]},
        end,
    ]
    status, _, data = post(ingest, orjson.dumps([header, rest[0]]))
    assert status == 200 and data == {"accepted": 2, "refused": 0, "refusals": []}
    key = header["key"]
    status, listed = get_json(f"{ingest.url}/api/live")
    assert status == 200 and [m["key"] for m in listed] == [key] == ["t7/r01-m001"]
    assert listed[0]["finished"] is False and listed[0]["players"] == ["zergy", "adaptive"]
    assert listed[0]["steps"] == half

    stream: SseStream = sse(ingest.url, listed[0]["events_url"])
    assert stream.status == 200
    status, _, data = post(ingest, orjson.dumps(rest[1:]))  # the rest, ending the match
    assert status == 200 and data == {"accepted": 2, "refused": 0, "refusals": []}
    got = [e for e in stream.read_all() if e.event != "comment"]  # stops after "end"
    assert got[0].event == "header" and json.loads(got[0].data)["replay"]["game"] == "drones"
    assert got[-1].event == "end"
    steps = [s for e in got if e.event == "steps" for s in json.loads(e.data)["steps"]]
    assert steps == steps_sent
    assert json.loads(got[-1].data)["fields"]["result"] == rest[-1]["fields"]["result"]
    status, listed = get_json(f"{ingest.url}/api/live")
    assert listed[0]["finished"] is True and listed[0]["result"] == rest[-1]["fields"]["result"]


def test_a_token_holder_changes_the_display_never_the_store(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    """An ingested "end" naming a stored match with a made-up result: the match, its result and its
    replay in the store stay as the tournament recorded them."""
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    try:
        tournament_id = play_tournament(store, "duel", "round-robin", ("zergy", "adaptive"))
        server = start_server(store, live_token=TOKEN)
        (row,) = store.list_matches(tournament_id)
        status, before = get_json(f"{server.url}/api/matches/{row.id}")
        assert status == 200
        forged = live_events(row.key, tournament_id, match_id=row.id)
        forged[-1]["fields"]["result"] = {"ranks": [1, 0], "scores": [999.0, -1.0], "forged": True}
        status, _, data = post(server, orjson.dumps(forged))
        assert status == 200, data
        status, after = get_json(f"{server.url}/api/matches/{row.id}")
        assert status == 200 and after == before
        assert store.get_match(row.id) == row
        # what it shows is marked live, and its link leads to the stored replay, not to its own
        status, listed = get_json(f"{server.url}/api/live")
        assert listed[0]["replay_url"] == f"/api/matches/{row.id}/replay"
    finally:
        store.close()


def test_create_app_refuses_a_weak_token(store: Store) -> None:
    from botarena.server.app import create_app

    for weak in ("short", "has spaces in the middle of it", "é" * 20, "x" * 513):
        with pytest.raises(ValueError, match="a live token must be 16 to 512 printable ASCII"):
            create_app(store, LiveHub(), live_token=weak)


def test_parallel_posts_are_read_and_parsed_two_at_a_time(
    ingest: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token holder posting many large bodies at once: the server holds at most INGESTS_AT_ONCE of
    them (read and parsed) at a time, whatever the number of connections; the others wait, unread.
    Every parse waits (bounded) until all the posts have reached the server, so that without the
    bound all of them would be parsing together."""
    from botarena.server.api_models import INGESTS_AT_ONCE
    from botarena.server.routes import live as app_module

    posts = 8
    arrived: list[int] = []
    running = [0]
    most = [0]
    lock = threading.Lock()
    real_authorize, real_parse = app_module.authorize, app_module.parse_events

    all_arrived = threading.Event()

    def authorize(*args: Any) -> None:  # before the bound: counts the posts that reached the server
        real_authorize(*args)
        with lock:
            arrived.append(1)
            if len(arrived) == posts:
                all_arrived.set()

    def parse(body: bytes) -> list[dict[str, Any]]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            all_arrived.wait(120)  # every post is in, so that all could run now (bounded, never hangs)
            return real_parse(body)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(app_module, "authorize", authorize)
    monkeypatch.setattr(app_module, "parse_events", parse)
    body = orjson.dumps([{"type": "steps", "key": "t1/none", "first": 0, "steps": [{"pad": "x" * 100_000}]}])
    with ThreadPoolExecutor(posts) as posters:
        answers = list(posters.map(lambda _: post(ingest, body), range(posts)))
    assert [status for status, _, _ in answers] == [200] * posts
    assert all(data["refused"] == 1 for _, _, data in answers)  # (steps of a match the hub lacks)
    assert len(arrived) == posts and most[0] == INGESTS_AT_ONCE == 2
