"""Request bodies for the arena's upload route: a multipart form, as a browser or aiohttp sends it."""

from __future__ import annotations

import io
import uuid
import zipfile
from typing import Any

from botarena.store.models import Version


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
