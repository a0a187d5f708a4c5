"""The team's client (`botarena.clients.arena`, behind `botarena submit` and `fetch`).

Against the real app on 127.0.0.1 (`live_arena`): a new version (201) and the same one again (200),
its states followed over the SSE stream as the store changes them, a refusal in one line with its
code, a foreign match's 404. Against a small stand-in that keeps to the routes' contract but can
lose an answer (a gateway's 504 after the upload was stored) or drop a stream after its first
event, which the real app never does on purpose: the client's retries with the same
Idempotency-Key and its resumption with Last-Event-ID."""

from __future__ import annotations

import asyncio
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

from .forms import move_version
from .live import LiveArena

TOKEN = "ba_kid1_" + "s" * 43


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
            await upload.read()  # type: ignore[union-attr]
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


def test_client_a_server_that_is_not_there_is_one_line() -> None:
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(ArenaClientError, match=f"^cannot reach http://127.0.0.1:{port}: ") as down:
        asyncio.run(ArenaClient(f"http://127.0.0.1:{port}", TOKEN).me())
    assert down.value.status is None and TOKEN not in str(down.value)
    with pytest.raises(ArenaClientError, match="must be an http:// or https:// URL"):
        ArenaClient("ftp://example.org", TOKEN)


# --------------------------------------------------------------------------------- the real app


def test_submit_an_upload_is_a_new_version_and_follows_its_states(live_arena: LiveArena) -> None:
    client = ArenaClient(live_arena.url, live_arena.token.text)
    uploaded = asyncio.run(client.upload(b"print('bot')\n", "bot.py", note="first"))
    assert (
        uploaded.created and uploaded.version["state"] == "received" and uploaded.version["note"] == "first"
    )
    again = asyncio.run(client.upload(b"print('bot')\n", "bot.py"))
    assert not again.created and again.version["id"] == uploaded.version["id"]
    move_version(live_arena.store, uploaded.version["id"], "ready")
    seen: list[str] = []
    final = asyncio.run(client.follow(uploaded.version, on_state=lambda v: seen.append(v["state"])))
    assert seen == ["ready"] and final["state"] == "ready"  # ready is settled: the stream ends


def test_submit_a_refusal_is_one_line_with_its_code_and_never_the_token(live_arena: LiveArena) -> None:
    token = live_arena.token
    with pytest.raises(ArenaClientError) as refused:  # (sent as is: the server's own check refuses it)
        asyncio.run(ArenaClient(live_arena.url, token.text).upload(b"\x00\x01 not a bot", "bot.bin"))
    assert refused.value.status == 422 and refused.value.code == "not_archive"
    assert "\n" not in str(refused.value) and "422 not_archive: " in str(refused.value)
    with pytest.raises(ArenaClientError) as unknown:
        asyncio.run(ArenaClient(live_arena.url, f"ba_{token.kid}_{'x' * 43}").me())
    assert unknown.value.status == 401 and "\n" not in str(unknown.value)
    for error in (refused.value, unknown.value):
        assert token.secret not in str(error) and token.kid not in str(error)


def test_fetch_a_foreign_or_unknown_match_is_404(live_arena: LiveArena) -> None:
    client = ArenaClient(live_arena.url, live_arena.token.text)
    with pytest.raises(ArenaClientError, match="match 56: 404 no match 56") as missing:
        asyncio.run(client.replay(56))
    assert missing.value.status == 404
