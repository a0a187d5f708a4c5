"""A bad or partial file opened in the viewer says what is wrong with it, in one line, naming the
file (issue 15, item 5): never the browser's bare "Failed to fetch"."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from viewer_page import text

from botarena.core.replay import Replay

pytestmark = pytest.mark.browser


def upload(page: Any, name: str, data: bytes) -> str | None:
    """Open `data` as the file `name` through the page's file input; the error it shows, if any."""
    page.set_input_files(
        "[data-testid=file]", files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}]
    )
    page.wait_for_function("window.__botarena.ready || window.__botarena.error")
    error = page.evaluate("window.__botarena.error")
    if error is not None:
        assert text(page, "error") == error
        assert "\n" not in error and "Failed to fetch" not in error
    return error  # type: ignore[no-any-return]


@pytest.fixture
def empty_viewer(serve: Any, page: Any, zergy_replay: tuple[Replay, Path]) -> Any:
    _, path = zergy_replay
    page.goto(serve(path).url + "/")  # no ?replay=: the viewer waits for a file
    page.wait_for_selector("#welcome-text:has-text('Open a replay file')")
    return page


def test_truncated_gzip_says_the_stream_ends_early(
    empty_viewer: Any, zergy_replay: tuple[Replay, Path]
) -> None:
    _, path = zergy_replay
    raw = path.read_bytes()
    error = upload(empty_viewer, "cut.json.gz", raw[: len(raw) // 2])
    assert (
        error
        == f"cut.json.gz: this replay is truncated: the gzip stream ends early (after {len(raw) // 2} bytes)"
    )


def test_corrupt_gzip_says_corrupt(empty_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    _, path = zergy_replay
    raw = path.read_bytes()
    error = upload(empty_viewer, "bad.json.gz", raw[:12] + b"\xff" * 64 + raw[76:])
    assert error is not None and error.startswith("bad.json.gz: this replay's gzip data is corrupt (")


def test_truncated_json_names_the_byte_where_it_ends(
    empty_viewer: Any, zergy_replay: tuple[Replay, Path]
) -> None:
    _, path = zergy_replay
    raw = gzip.decompress(path.read_bytes())
    cut = raw[: len(raw) * 2 // 3]
    error = upload(empty_viewer, "cut.json", cut)
    assert (
        error == f"cut.json: this replay is truncated: the JSON ends early at byte {len(cut)} of {len(cut)}"
    )


def test_invalid_json_names_the_byte_after_multibyte_text(empty_viewer: Any) -> None:
    raw = '{"format": "botarena.replay", "players": [{"name": "é€😀"}], "x": tru}'.encode()
    error = upload(empty_viewer, "typo.json", raw)
    assert error == f'typo.json: not valid JSON at byte {raw.rindex(b"}")} (near "}}")'


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the file is empty"),
        (
            b'{"format": "botarena.replay", "format_version": 1, "players": []}',
            "not a botarena replay: missing 'game'",
        ),
        (b'{"game": "drones"}', "not a botarena replay: missing 'format'"),
        (b"[1, 2]", "not a botarena replay: the JSON is an array, not an object"),
        (
            b'{"format": "botarena.replay", "format_version": 7, "game": "drones"}',
            "unsupported replay format version 7 (this viewer reads 1)",
        ),
        (b"\x89PNG\r\n\x1a\n\xff\xfe", "not a botarena replay: the file is neither gzip nor UTF-8 JSON text"),
    ],
)
def test_files_that_are_not_replays_say_why(empty_viewer: Any, data: bytes, message: str) -> None:
    assert upload(empty_viewer, "f.json", data) == f"f.json: {message}"


def test_a_good_file_after_a_bad_one_loads(empty_viewer: Any, zergy_replay: tuple[Replay, Path]) -> None:
    _, path = zergy_replay
    assert upload(empty_viewer, "cut.json.gz", path.read_bytes()[:40]) is not None
    assert upload(empty_viewer, "good.json.gz", path.read_bytes()) is None
    assert empty_viewer.evaluate("window.__botarena.ready") is True
    assert empty_viewer.get_by_test_id("error").is_hidden()
