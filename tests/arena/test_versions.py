"""A team's versions (specs/arena.md: Routes, Uploads, Version states, Bad input): every answer of
`POST .../versions` (201, 200, 409, 413, 415, 422, 429), quotas on a fake clock, idempotency,
supersede, URL entries with a write-only secure key, the SSE stream with Last-Event-ID, the source
round trip, activate and retire, and the organizer's disable, enable and void (audited)."""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import pytest
from sqlalchemy import event, func, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from botarena.arena.competitions import policy_of
from botarena.arena.uploads import Sent, convert, register_upload
from botarena.bots.urls import read_url_config
from botarena.store.arena_versions import ArenaVersions, QuotaExceeded, seat_name
from botarena.store.models import Artifact, BotVersion, Version

from .conftest import ArenaApp
from .forms import bot_source, bot_zip, move_version, multipart


def _team(app: ArenaApp, **policy: Any) -> tuple[Any, Any, Any, Any]:
    competition, organizer = app.open_competition("cup", **policy)
    team, token = app.team(competition.id, "alpha")
    return competition, organizer, team, token


def _versions_url(competition: Any, team: Any, tail: str = "") -> str:
    return f"/api/competitions/{competition.id}/teams/{team.id}/versions{tail}"


# ----------------------------------------------------------------------------------- the upload


def test_routes_upload_201_new_200_same_digest_and_same_key(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    first = app.upload(competition.id, team.id, token, bot_source("one"), key="k-1", note="first try")
    assert first.status == 201, first.text
    shown = first.json()
    assert (shown["number"], shown["state"], shown["kind"], shown["note"]) == (
        1,
        "received",
        "upload",
        "first try",
    )
    assert len(shown["digest"]) == 64 and "idempotency_key" not in shown
    # the same key again (a retry whose answer was lost): the same version, 200
    again = app.upload(competition.id, team.id, token, bot_source("one"), key="k-1")
    assert again.status == 200 and again.json()["id"] == shown["id"]
    # the same files in a zip, under another key: the same canonical digest, the same version
    zipped = app.upload(
        competition.id, team.id, token, bot_zip({"bot.py": bot_source("one").decode()}), "b.zip", key="k-2"
    )
    assert zipped.status == 200 and zipped.json()["id"] == shown["id"]
    assert [v.number for v in ArenaVersions(app.arena).versions(team.id)] == [1]


def test_routes_upload_a_key_reused_with_other_bytes_is_422(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    assert arena_app.upload(competition.id, team.id, token, bot_source("one"), key="same").status == 201
    reused = arena_app.upload(competition.id, team.id, token, bot_source("two"), key="same")
    assert reused.status == 422 and reused.json()["code"] == "idempotency_key_reused"
    assert "\n" not in reused.json()["detail"]


def test_routes_upload_a_newer_version_supersedes_the_queued_one(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    one = app.upload(competition.id, team.id, token, bot_source("one")).json()
    two = app.upload(competition.id, team.id, token, bot_source("two")).json()
    assert two["number"] == 2 and two["state"] == "received"
    superseded = app.call("GET", _versions_url(competition, team, f"/{one['id']}"), token).json()
    assert (superseded["state"], superseded["reason_code"]) == ("superseded", "superseded")
    assert "version 2" in superseded["reason"]
    listed = app.call("GET", _versions_url(competition, team), token).json()
    assert [v["number"] for v in listed] == [2, 1]


def test_routes_upload_409_when_not_open_or_the_team_is_disabled(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")  # draft
    team, token = arena_app.team(competition.id, "alpha")
    draft = arena_app.upload(competition.id, team.id, token, bot_source("x"))
    assert (
        draft.status == 409 and draft.json()["code"] == "uploads_closed" and "draft" in draft.json()["detail"]
    )
    url = f"/api/competitions/{competition.id}"
    for phase in ("open", "frozen"):
        assert arena_app.call("PATCH", url, organizer, json={"phase": phase}).status == 200
    assert arena_app.upload(competition.id, team.id, token, bot_source("x")).status == 409
    other, _other_org = arena_app.open_competition("cup-2")
    beta, beta_token = arena_app.team(other.id, "beta")
    with arena_app.store.write_session("test: disable a team") as session:
        from botarena.store.models import Team

        found = session.get(Team, beta.id)
        assert found is not None
        found.disabled = True
    disabled = arena_app.upload(other.id, beta.id, beta_token, bot_source("x"))
    assert disabled.status == 409 and "disabled" in disabled.json()["detail"]


def test_routes_upload_413_before_reading_a_body_announced_at_100_mib(arena_app: ArenaApp) -> None:
    """A client that announces 100 MiB and sends nothing: 413 at once, its body never asked for."""
    competition, _, team, token = _team(arena_app)
    asked: list[str] = []

    async def receive() -> dict[str, Any]:
        asked.append("receive")
        await asyncio.Event().wait()  # nothing ever comes
        raise AssertionError("unreachable")

    answer = _raw_post(
        arena_app, _versions_url(competition, team), token.text, receive, {"content-length": str(100 << 20)}
    )
    assert answer[0] == 413 and asked == []
    assert "10 MiB" in json.loads(answer[1])["detail"]


def test_routes_upload_413_while_streaming_a_body_with_no_length(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app, max_upload_mb=1)
    chunk = b"x" * (256 * 1024)
    sent = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        sent += 1
        return {"type": "http.request", "body": chunk, "more_body": sent < 400}  # 100 MiB if all read

    status, _body = _raw_post(arena_app, _versions_url(competition, team), token.text, receive, {})
    assert status == 413 and sent < 10  # stopped just past the cap (1 MiB + the form's slack)


def _raw_post(app: ArenaApp, path: str, token: str, receive: Any, extra: dict[str, str]) -> tuple[int, bytes]:
    """POST through the ASGI callable with our own `receive` (a multipart content type)."""
    headers = {"authorization": f"Bearer {token}", "content-type": "multipart/form-data; boundary=b", **extra}
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    out: dict[str, Any] = {"body": b""}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    async def call() -> None:
        await asyncio.wait_for(app.app(scope, receive, send), timeout=60)

    app.client.loop.run_until_complete(call())
    return out["status"], out["body"]


def test_routes_upload_415_for_what_is_no_file_zip_tar_gz_or_url(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    url = _versions_url(competition, team)
    plain = arena_app.call("POST", url, token, body=b"print(1)", headers={"content-type": "text/plain"})
    assert plain.status == 415
    body, headers = multipart(None, note="no file here")
    no_file = arena_app.call("POST", url, token, body=body, headers=headers)
    assert no_file.status == 415 and "'file'" in no_file.json()["detail"]


def test_routes_upload_422_with_the_archive_code(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    slip = bot_zip({"../evil.py": "print(1)", "bot.py": "print(2)"})
    answer = arena_app.upload(competition.id, team.id, token, slip, "bot.zip")
    assert answer.status == 422 and answer.json()["code"] == "dotdot"
    assert (
        arena_app.upload(competition.id, team.id, token, b"\x00\x01binary", "x.bin").json()["code"]
        == "not_archive"
    )
    assert ArenaVersions(arena_app.arena).versions(team.id) == []  # no version is created


def test_routes_upload_429_six_uploads_in_the_last_hour_on_a_fake_clock(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    for number in range(6):
        assert app.upload(competition.id, team.id, token, bot_source(f"v{number}")).status == 201
        app.wall.advance(60)
    refused = app.upload(competition.id, team.id, token, bot_source("v6"))
    assert refused.status == 429
    assert refused.json()["detail"] == "6 uploads in the last hour (limit 6)"
    assert int(refused.headers["retry-after"]) == 3600 - 6 * 60  # when the first leaves the window
    app.wall.advance(3600 - 6 * 60 + 1)
    assert app.upload(competition.id, team.id, token, bot_source("v6")).status == 201


def test_routes_upload_429_per_day_kept_versions_and_team_bytes(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app, uploads_per_hour=100, uploads_per_day=3, kept_versions=100)
    for number in range(3):
        assert arena_app.upload(competition.id, team.id, token, bot_source(f"d{number}")).status == 201
    day = arena_app.upload(competition.id, team.id, token, bot_source("d3"))
    assert day.status == 429 and day.json()["detail"] == "3 uploads in the last day (limit 3)"
    kept, _ = arena_app.open_competition("kept", kept_versions=1)
    beta, beta_token = arena_app.team(kept.id, "beta")
    assert arena_app.upload(kept.id, beta.id, beta_token, bot_source("k0")).status == 201
    over = arena_app.upload(kept.id, beta.id, beta_token, bot_source("k1"))
    assert (
        over.status == 429
        and over.json()["detail"] == "1 versions kept (limit 1)"
        and "retry-after" in over.headers
    )
    small, _ = arena_app.open_competition("small", team_bytes_mb=0.0001)
    gamma, gamma_token = arena_app.team(small.id, "gamma")
    big = arena_app.upload(small.id, gamma.id, gamma_token, bot_source("g" * 400))
    assert big.status == 429 and "limit 0 MiB" in big.json()["detail"]


def test_routes_upload_429_while_max_conversions_run(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app, max_conversions=1)
    conversions = arena_app.app.state.arena_conversions
    assert conversions.enter(1)  # one conversion running, server-wide
    try:
        busy = arena_app.upload(competition.id, team.id, token, bot_source("x"))
        assert busy.status == 429 and busy.headers["retry-after"] == "1"
    finally:
        conversions.leave()
    assert arena_app.upload(competition.id, team.id, token, bot_source("x")).status == 201


# ------------------------------------------------------------------ one transaction per upload


def _stored_rows(app: ArenaApp) -> tuple[int, int, int]:
    """How many artifacts, bot versions and arena versions the store holds."""
    with app.store.read_session("count") as session:
        return tuple(  # type: ignore[return-value]
            int(session.scalar(select(func.count()).select_from(table)) or 0)
            for table in (Artifact, BotVersion, Version)
        )


@contextmanager
def _disk_fails_at_the_version_insert() -> Iterator[None]:
    """Every flush that would insert an arena version fails as a full disk would: after the upload's
    artifact and bot version are written in the same transaction, before it commits."""

    def fail(session: Session, *_: object) -> None:
        if any(isinstance(row, Version) for row in session.new):
            raise OperationalError("INSERT INTO versions", {}, Exception("database or disk is full"))

    event.listen(Session, "before_flush", fail)
    try:
        yield
    finally:
        event.remove(Session, "before_flush", fail)


def test_g11_an_upload_whose_last_write_fails_leaves_no_artifact_and_no_bot_version(
    arena_db_app: ArenaApp,
) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    before = _stored_rows(app)
    with _disk_fails_at_the_version_insert():
        failed = app.upload(competition.id, team.id, token, bot_source("lost"), key="k-lost")
    assert failed.status == 503 and "store unavailable" in failed.json()["detail"], failed.text
    assert _stored_rows(app) == before  # not the artifact, not the bot version: one rollback
    again = app.upload(competition.id, team.id, token, bot_source("lost"), key="k-lost")
    assert again.status == 201, again.text  # the retry with the same key is a new upload
    artifacts, bot_versions, versions = before
    assert _stored_rows(app) == (artifacts + 1, bot_versions + 1, versions + 1)


def test_g11_an_upload_refused_by_a_quota_in_its_transaction_writes_nothing(arena_db_app: ArenaApp) -> None:
    """Two uploads of one team can both pass the route's early quota look; the transaction judges the
    second again, and what it refuses leaves no bytes behind (an over-quota team cannot fill the store)."""
    app = arena_db_app
    competition, _, team, token = _team(app, kept_versions=1)
    assert app.upload(competition.id, team.id, token, bot_source("kept")).status == 201
    before = _stored_rows(app)
    policy = policy_of(competition)
    packed = convert(bot_source("over the quota"), "bot.py", policy)
    with pytest.raises(QuotaExceeded, match="1 versions kept"):
        register_upload(ArenaVersions(app.arena), team, packed, policy, Sent(), at=app.wall())
    assert _stored_rows(app) == before


def test_routes_upload_activate_false_is_refused_in_one_line(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    answer = arena_app.upload(competition.id, team.id, token, bot_source("x"), activate="false")
    assert answer.status == 422 and answer.json()["code"] == "not_supported"


# ----------------------------------------------------------------------------------- URL entries


def test_routes_url_entry_needs_allow_url_and_a_public_address(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    url = _versions_url(competition, team)
    closed = arena_app.call("POST", url, token, json={"url": "http://93.184.216.34/bot"})
    assert closed.status == 422 and closed.json()["code"] == "url_not_allowed"
    course, _ = arena_app.open_competition("course", allow_url=True)
    beta, beta_token = arena_app.team(course.id, "beta")
    url = _versions_url(course, beta)
    loopback = arena_app.call("POST", url, beta_token, json={"url": "http://127.0.0.1:8000/bot"})
    assert loopback.status == 422 and loopback.json()["code"] == "forbidden_address"
    bad = arena_app.call("POST", url, beta_token, json={"secure_key": "k"})
    assert bad.status == 422 and bad.json()["detail"].startswith("body: url")


def test_routes_url_entry_keeps_its_secure_key_write_only(arena_app: ArenaApp) -> None:
    course, _ = arena_app.open_competition("course", allow_url=True)
    beta, token = arena_app.team(course.id, "beta")
    key = "secure-key-CANARY-91d2"
    url = _versions_url(course, beta)
    made = arena_app.call(
        "POST", url, token, json={"url": "http://93.184.216.34/bot", "secure_key": key, "note": "svc"}
    )
    assert made.status == 201 and made.json()["kind"] == "url"
    for shown in (
        made,
        arena_app.call("GET", url, token),
        arena_app.call("GET", f"{url}/{made.json()['id']}", token),
    ):
        assert key not in shown.text
    assert arena_app.call("GET", f"{url}/{made.json()['id']}/source", token).status == 404
    versions = ArenaVersions(arena_app.arena)
    row = versions.get_version(made.json()["id"])
    assert row is not None and row.bot_version_id is not None
    with arena_app.store.read_session("test") as session:
        from botarena.store.models import BotVersion

        bot = session.get(BotVersion, row.bot_version_id)
        assert bot is not None and bot.artifact is not None
        artifact = bot.artifact
    config = read_url_config(arena_app.store.get_artifact(artifact))
    assert config == {"kind": "arena-url", "url": "http://93.184.216.34/bot", "secure_key": key}


# ----------------------------------------------------------------------------------- the reads


def test_routes_versions_source_round_trip(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    files = {"bot.py": "import helper\n", "helper.py": "X = 1\n", "data/table.txt": "1 2 3\n"}
    made = app.upload(competition.id, team.id, token, bot_zip(files), "bot.zip").json()
    source = app.call("GET", _versions_url(competition, team, f"/{made['id']}/source"), token)
    assert source.status == 200 and source.headers["content-type"] == "application/gzip"
    import hashlib

    assert hashlib.sha256(source.body).hexdigest() == made["digest"]
    with tarfile.open(fileobj=io.BytesIO(source.body), mode="r:gz") as tar:
        found = {m.name: tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]
    assert found == files


def test_routes_versions_show_their_validation_matches(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    made = arena_app.upload(competition.id, team.id, token, bot_source("x")).json()
    from types import SimpleNamespace

    spec = SimpleNamespace(key="val-1", round=0, seats=[seat_name(made["id"]), "tactician"], seed=3)
    arena_app.store.add_matches(competition.tournament_id, [spec])
    with arena_app.store.write_session("test") as session:
        from botarena.store.arena_reads import link_match_versions
        from botarena.store.models import Match

        match = session.query(Match).filter_by(key="val-1").one()
        match.kind = "validation"
        match_id = match.id
        link_match_versions(session, match_id, spec.seats)  # as the coordinator adds a match
    shown = arena_app.call("GET", _versions_url(competition, team, f"/{made['id']}"), token).json()
    assert shown["validation_matches"] == [match_id]


def _events(text: str) -> list[tuple[str | None, dict[str, Any]]]:
    found = []
    for block in text.split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "data" in lines:
            found.append((lines.get("id"), orjson.loads(lines["data"])))
    return found


def test_routes_events_stream_states_and_resume_with_last_event_id(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, _, team, token = _team(app)
    made = app.upload(competition.id, team.id, token, bot_source("x")).json()
    url = _versions_url(competition, team, f"/{made['id']}/events")
    versions: ArenaVersions = app.app.state.arena_versions
    original = versions.get_version
    # the "coordinator" moves the version one step each time the stream polls its row, so every
    # state is seen whatever the machine's speed: received (the first event), validating, rejected
    steps = [("validating", {}), ("rejected", {"reason_code": "crashed", "reason": "CRASHED at step 3"})]
    polls = 0

    def polled(version_id: int) -> Any:
        nonlocal polls
        polls += 1
        if polls > 1 and steps:  # (the first read is the route's own check of the path)
            state, columns = steps.pop(0)
            move_version(app.store, version_id, state, **columns)
        return original(version_id)

    versions.get_version = polled  # type: ignore[method-assign]
    try:
        answer = app.call("GET", url, token)
    finally:
        del versions.get_version
    events = _events(answer.text)
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/event-stream")
    assert [e[1]["state"] for e in events] == ["received", "validating", "rejected"]
    assert events[-1][1]["reason_code"] == "crashed" and all(e[0] for e in events)
    assert len({e[0] for e in events}) == 3
    # back with the last id: the version has not changed since, so nothing is sent again and the
    # stream ends (it is settled); with an older id, the current state comes at once
    assert _events(app.call("GET", url, token, headers={"last-event-id": str(events[-1][0])}).text) == []
    resumed = _events(app.call("GET", url, token, headers={"last-event-id": str(events[0][0])}).text)
    assert [e[1]["state"] for e in resumed] == ["rejected"]


def test_routes_events_stream_ends_when_the_server_shuts_down(arena_app: ArenaApp) -> None:
    competition, _, team, token = _team(arena_app)
    made = arena_app.upload(competition.id, team.id, token, bot_source("x")).json()
    from botarena.server.arena import close_arena_streams

    close_arena_streams(arena_app.app)  # a version still `received`: only the shutdown ends it
    answer = arena_app.call("GET", _versions_url(competition, team, f"/{made['id']}/events"), token)
    assert [e[1]["state"] for e in _events(answer.text)] == ["received"]


# ----------------------------------------------------------------------------------- the choices


def test_routes_activate_and_retire_with_their_409s(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, organizer, team, token = _team(app)
    one = app.upload(competition.id, team.id, token, bot_source("one")).json()
    activate = _versions_url(competition, team, f"/{one['id']}/activate")
    not_ready = app.call("POST", activate, token)
    assert not_ready.status == 409 and "not ready" in not_ready.json()["detail"]
    move_version(app.store, one["id"], "ready")
    assert app.call("POST", activate, token).json()["state"] == "active"
    two = app.upload(competition.id, team.id, token, bot_source("two")).json()
    move_version(app.store, two["id"], "ready")
    assert (
        app.call("POST", _versions_url(competition, team, f"/{two['id']}/activate"), token).json()["state"]
        == "active"
    )
    assert (
        app.call("GET", _versions_url(competition, team, f"/{one['id']}"), token).json()["state"] == "retired"
    )
    retire = _versions_url(competition, team, f"/{one['id']}/retire")
    again = app.call("POST", retire, token)
    assert again.status == 409 and "retired" in again.json()["detail"]
    # the organizer's token is not the team's: its choices are its own
    assert app.call("POST", _versions_url(competition, team, f"/{two['id']}/retire"), organizer).status == 404
    assert (
        app.call("PATCH", f"/api/competitions/{competition.id}", organizer, json={"phase": "frozen"}).status
        == 200
    )
    frozen = app.call("POST", _versions_url(competition, team, f"/{two['id']}/retire"), token)
    assert frozen.status == 409 and frozen.json()["code"] == "frozen"


def test_routes_organizer_disable_enable_and_void_are_audited(arena_db_app: ArenaApp) -> None:
    app = arena_db_app
    competition, organizer, team, token = _team(app)
    made = app.upload(competition.id, team.id, token, bot_source("x")).json()
    move_version(app.store, made["id"], "ready")
    app.call("POST", _versions_url(competition, team, f"/{made['id']}/activate"), token)
    base = f"/api/competitions/{competition.id}/versions/{made['id']}"
    disabled = app.call("POST", f"{base}/disable", organizer, json={"reason": "cheating suspected"})
    assert disabled.status == 200 and disabled.json()["state"] == "disabled"
    assert app.call("POST", f"{base}/disable", organizer, json={"reason": "again"}).status == 409
    assert app.call("POST", f"{base}/disable", token, json={"reason": "x"}).status == 404
    assert (
        app.call("POST", f"{base}/enable", organizer, json={"reason": "cleared"}).json()["state"] == "active"
    )
    assert app.call("POST", f"{base}/enable", organizer, json={}).status == 422
    from types import SimpleNamespace

    app.store.add_matches(
        competition.tournament_id, [SimpleNamespace(key="m", round=1, seats=["a", "b"], seed=1)]
    )
    match = app.store.find_match(competition.tournament_id, "m")
    assert match is not None
    void = app.call("POST", f"/api/matches/{match.id}/void", organizer, json={"reason": "server fault"})
    assert void.status == 200 and void.json()["changed"] is True
    assert (
        app.call("POST", f"/api/matches/{match.id}/void", organizer, json={"reason": "x"}).json()["changed"]
        is False
    )
    assert ArenaVersions(app.arena).voided_matches(competition.id) == {match.id}
    entries = [(e.action, e.target, e.reason) for e in app.arena.audit(competition.id)]
    assert entries[:3] == [
        ("void_match", f"match:{match.id}", "server fault"),
        ("enable_version", f"version:{made['id']}", "cleared"),
        ("disable_version", f"version:{made['id']}", "cheating suspected"),
    ]


def test_routes_void_of_a_tournament_match_is_404(arena_app: ArenaApp) -> None:
    _competition, organizer = arena_app.competition("cup")
    bot = arena_app.store.register_bot("drones", "x", "tactician")
    tournament = arena_app.store.create_tournament(
        name="t",
        game="drones",
        format="round-robin",
        preset="default",
        config={},
        seed=1,
        options={},
        entrants=[("x", bot.id), ("y", bot.id)],
    )
    from types import SimpleNamespace

    arena_app.store.add_matches(tournament.id, [SimpleNamespace(key="m", round=1, seats=["x", "y"], seed=1)])
    match = arena_app.store.find_match(tournament.id, "m")
    assert match is not None
    assert (
        arena_app.call("POST", f"/api/matches/{match.id}/void", organizer, json={"reason": "x"}).status == 404
    )


@pytest.mark.parametrize("bad", ["0", "x", str(2**63)])
def test_routes_bad_version_ids_are_422_in_one_line(arena_app: ArenaApp, bad: str) -> None:
    competition, _, team, token = _team(arena_app)
    answer = arena_app.call("GET", _versions_url(competition, team, f"/{bad}"), token)
    assert answer.status == 422 and "path vid" in answer.json()["detail"]
