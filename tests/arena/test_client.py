"""The team's client (`botarena.clients.arena`, behind `botarena submit` and `fetch`) against the routes
of specs/arena.md, served here by a small stand-in app on 127.0.0.1 that keeps to their contract: a 201
for a new version and a 200 for one the team already has (the same Idempotency-Key), the version's
state changes as an SSE stream with event ids, a 404 for anything foreign, `{"detail", "code"}` refusals.
The stand-in can lose an answer or drop a stream, which is what the client's retries are for."""

from __future__ import annotations

import asyncio
import gzip
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from botarena.clients.arena import ArenaClient, ArenaClientError
from botarena.server.viewer import bind_socket
from waiting import wait_until

TOKEN = "ba_kid1_" + "s" * 43
CANARY_TOKEN_PART = "s" * 43


class StandIn:
    """The routes' contract, in memory; `lose_answers` answers 504 after storing an upload (as a gateway
    that gave up would: the answer is lost), `drop_streams` ends an event stream after its first event."""

    def __init__(self) -> None:
        self.versions: dict[int, dict[str, Any]] = {}
        self.by_key: dict[str, int] = {}
        self.posts = 0
        self.lose_answers = 0
        self.drop_streams = 0
        self.states = ["validating", "ready", "active"]
        self.last_event_ids: list[str | None] = []

    def app(self) -> FastAPI:
        app = FastAPI()

        def team(authorization: str | None) -> None:
            if authorization != f"Bearer {TOKEN}":
                raise HTTPException(401, "unknown token")

        @app.get("/api/me")
        def me(authorization: str | None = Header(None)) -> dict[str, Any]:
            team(authorization)
            return {"role": "team", "competition": {"id": 3}, "team": {"id": 7}}

        @app.post("/api/competitions/3/teams/7/versions")
        async def upload(
            request: Request,
            authorization: str | None = Header(None),
            idempotency_key: str | None = Header(None),
        ) -> Response:
            team(authorization)
            self.posts += 1
            form = await request.form()
            upload = form["file"]
            data = await upload.read()  # type: ignore[union-attr]
            if data.startswith(b"BAD"):
                detail = {"code": "symlink", "detail": "'bot/data' is a symlink (links are refused)"}
                return JSONResponse(detail, status_code=422)
            if idempotency_key in self.by_key:
                return JSONResponse(self.versions[self.by_key[idempotency_key]], status_code=200)
            number = len(self.versions) + 1
            version = {"id": 100 + number, "number": number, "state": "received", "note": form.get("note")}
            self.versions[version["id"]] = version
            self.by_key[str(idempotency_key)] = version["id"]
            if self.lose_answers:
                self.lose_answers -= 1  # stored, but the answer is lost on the way (a gateway gave up)
                return JSONResponse({"detail": "gateway timeout"}, status_code=504)
            return JSONResponse(version, status_code=201)

        @app.get("/api/competitions/3/teams/7/versions/{vid}/events", response_class=EventSourceResponse)
        async def events(
            vid: int, authorization: str | None = Header(None), last_event_id: str | None = Header(None)
        ) -> AsyncIterator[ServerSentEvent]:
            team(authorization)
            if vid not in self.versions:
                raise HTTPException(404, f"no version {vid}")
            self.last_event_ids.append(last_event_id)
            start = int(last_event_id) + 1 if last_event_id else 0
            for index in range(start, len(self.states)):
                yield ServerSentEvent(data={**self.versions[vid], "state": self.states[index]}, id=str(index))
                if self.drop_streams:
                    self.drop_streams -= 1
                    return
                await asyncio.sleep(0)

        @app.get("/api/matches/{match_id}/replay")
        def replay(match_id: int, authorization: str | None = Header(None)) -> Response:
            team(authorization)
            if match_id != 55:
                raise HTTPException(404, f"no match {match_id}")
            body = gzip.compress(b'{"game": "drones"}')
            return Response(body, media_type="application/json", headers={"Content-Encoding": "gzip"})

        return app


@pytest.fixture
def stand_in() -> Iterator[tuple[StandIn, str]]:
    routes = StandIn()
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(routes.app(), log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), "the stand-in server listening")
    try:
        yield routes, f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def test_submit_an_upload_is_a_new_version_and_follows_its_states(stand_in: tuple[StandIn, str]) -> None:
    _, url = stand_in
    client = ArenaClient(url, TOKEN)
    uploaded = asyncio.run(client.upload(b"print('bot')", "bot.py", note="first"))
    assert (
        uploaded.created and uploaded.version["state"] == "received" and uploaded.version["note"] == "first"
    )
    seen: list[str] = []
    final = asyncio.run(client.follow(uploaded.version, on_state=lambda v: seen.append(v["state"])))
    assert seen == ["validating", "ready"] and final["state"] == "ready"  # ready is settled


def test_submit_a_lost_answer_is_sent_again_with_the_same_key_and_makes_one_version(
    stand_in: tuple[StandIn, str],
) -> None:
    routes, url = stand_in
    routes.lose_answers = 1
    uploaded = asyncio.run(ArenaClient(url, TOKEN).upload(b"print('bot')", "bot.py"))
    assert routes.posts == 2 and len(routes.versions) == 1
    assert not uploaded.created and uploaded.version["id"] == 101  # the server's 200: the one it made


def test_submit_a_dropped_stream_resumes_from_its_last_event_id(stand_in: tuple[StandIn, str]) -> None:
    routes, url = stand_in
    client = ArenaClient(url, TOKEN)
    version = asyncio.run(client.upload(b"x", "bot.py")).version
    routes.drop_streams = 1
    routes.states = ["validating", "rejected"]
    assert asyncio.run(client.follow(version))["state"] == "rejected"
    assert routes.last_event_ids == [None, "0"]


def test_submit_a_refusal_is_one_line_with_its_code_and_never_the_token(
    stand_in: tuple[StandIn, str],
) -> None:
    _, url = stand_in
    with pytest.raises(ArenaClientError) as refused:
        asyncio.run(ArenaClient(url, TOKEN).upload(b"BAD archive", "bot.zip"))
    assert refused.value.status == 422 and refused.value.code == "symlink"
    assert str(refused.value).endswith("422 symlink: 'bot/data' is a symlink (links are refused)")
    with pytest.raises(ArenaClientError) as unknown:
        asyncio.run(ArenaClient(url, "ba_kid1_wrong").me())
    assert unknown.value.status == 401 and "\n" not in str(unknown.value)
    for error in (refused.value, unknown.value):
        assert CANARY_TOKEN_PART not in str(error) and "ba_kid1" not in str(error)


def test_fetch_the_replay_comes_as_stored_and_a_foreign_match_is_404(stand_in: tuple[StandIn, str]) -> None:
    _, url = stand_in
    client = ArenaClient(url, TOKEN)
    assert gzip.decompress(asyncio.run(client.replay(55))) == b'{"game": "drones"}'
    with pytest.raises(ArenaClientError, match="match 56: 404 no match 56") as foreign:
        asyncio.run(client.replay(56))
    assert foreign.value.status == 404


def test_client_a_server_that_is_not_there_is_one_line() -> None:
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(ArenaClientError, match=f"^cannot reach http://127.0.0.1:{port}: ") as down:
        asyncio.run(ArenaClient(f"http://127.0.0.1:{port}", TOKEN).me())
    assert down.value.status is None and TOKEN not in str(down.value)
    with pytest.raises(ArenaClientError, match="must be an http:// or https:// URL"):
        ArenaClient("ftp://example.org", TOKEN)
