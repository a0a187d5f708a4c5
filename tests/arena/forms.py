"""Request bodies for the arena's upload route: a multipart form, as a browser or aiohttp sends it."""

from __future__ import annotations

import gzip
import io
import json
import uuid
import zipfile
from types import SimpleNamespace
from typing import Any

from botarena.store.arena_reads import link_match_versions, record_pair_results, seat_version
from botarena.store.models import Competition, Match, RatingCurrent, Version


def multipart(file: bytes | None, filename: str = "bot.py", **fields: str) -> tuple[bytes, dict[str, str]]:
    """(body, headers) of a multipart form with the field `file` (when given) and the text `fields`."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        )
    if file is not None:
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        )
        parts.append(head.encode() + file + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, {"content-type": f"multipart/form-data; boundary={boundary}"}


def bot_zip(files: dict[str, str]) -> bytes:
    """A zip of these text files (name -> content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in sorted(files.items()):
            archive.writestr(name, text)
    return buffer.getvalue()


def bot_source(marker: str) -> bytes:
    """A small valid Python bot file whose bytes hold `marker` (each marker its own version)."""
    return f"# {marker}\nimport sys\nfor line in sys.stdin:\n    pass\n".encode()


def move_version(store: Any, version_id: int, state: str, **columns: Any) -> None:
    """Put a version in `state` (and set `columns`) as the coordinator would, straight in the store."""
    with store.write_session("test: move a version") as session:
        version = session.get(Version, version_id)
        assert version is not None
        version.state = state
        for name, value in columns.items():
            setattr(version, name, value)


def play_match(
    store: Any,
    tournament_id: int,
    key: str,
    seats: list[str],
    ranks: list[int] | None,
    *,
    kind: str = "rated",
    logs: list[str] | None = None,
    statuses: list[dict[str, int]] | None = None,
) -> int:
    """An arena match of `seats` (seat names), recorded with `ranks` and a replay holding `logs` per
    seat, as the coordinator records one (`ranks` None: left scheduled). Its id."""
    store.add_matches(tournament_id, [SimpleNamespace(key=key, round=1, seats=seats, seed=7)])
    with store.write_session("test: an arena match's kind") as session:
        match = session.query(Match).filter_by(tournament_id=tournament_id, key=key).one()
        match.kind = kind
        match_id = int(match.id)
        link_match_versions(session, match_id, seats)  # the coordinator links the seats with the match
    if ranks is None:
        return match_id
    replay = {
        "game": "drones",
        "seed": 7,
        "players": seats,
        "logs": [
            {"seat": i, "text": text, "dropped_bytes": 0} for i, text in enumerate(logs or [""] * len(seats))
        ],
    }
    store.record_result(
        tournament_id,
        key,
        ranks=ranks,
        scores=[float(-r) for r in ranks],
        statuses=statuses or [{"OK": 10} for _ in seats],
        time_used_ms=[1.0 for _ in seats],
        steps=10,
        duration_s=0.5,
        replay_gz=gzip.compress(json.dumps(replay).encode()),
    )
    if kind == "rated":  # the coordinator counts W/D/L where it records a rated result
        with store.write_session("test: count the result") as session:
            record_pair_results(session, [seat_version(name) for name in seats], ranks)
    return match_id


def bump_epoch(store: Any, competition_id: int) -> None:
    """What every rating write does (the coordinator's): bump the competition's rating epoch."""
    with store.write_session("test: a rating write") as session:
        competition = session.get(Competition, competition_id)
        assert competition is not None
        competition.rating_epoch += 1


def rate(store: Any, version_id: int, mu: float, sigma: float, games: int) -> None:
    """A version's current rating, as the coordinator writes it."""
    with store.write_session("test: a rating") as session:
        found = session.get(RatingCurrent, version_id)
        if found is None:
            session.add(RatingCurrent(version_id=version_id, mu=mu, sigma=sigma, games=games))
        else:
            found.mu, found.sigma, found.games = mu, sigma, games
