"""Arena API tokens: `ba_<kid>_<secret>` (specs/arena.md, Auth).

The key id (`kid`) is a short random id that names the token in the store, in the audit log and in
`DELETE .../tokens/{kid}`; it is no secret. The secret is 32 random bytes in urlsafe base64 without
padding; the store keeps only its sha256, and a presented secret is compared with
`hmac.compare_digest`. A token is shown once, when it is made. No message of this module (or of any
caller) contains a token: a parse error says what is wrong with the shape, never what was sent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass, field

PREFIX = "ba_"
KID_LENGTH = 12
SECRET_BYTES = 32
SECRET_LENGTH = 43  # 32 bytes in base64 without its padding
_KID_ALPHABET = string.ascii_letters + string.digits  # no "_": it separates the parts
_SHAPE = re.compile(rf"ba_([A-Za-z0-9]{{{KID_LENGTH}}})_([A-Za-z0-9_-]{{{SECRET_LENGTH}}})")
MAX_TOKEN_CHARS = 256


class TokenError(ValueError):
    """A string that is no arena token, in one line that never repeats it."""


@dataclass(frozen=True, slots=True)
class ParsedToken:
    """A token split into its key id and secret."""

    kid: str
    secret: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A new token: `text` is shown once to its holder, `sha256` is what the store keeps."""

    kid: str
    secret: str = field(repr=False)

    @property
    def text(self) -> str:
        return f"{PREFIX}{self.kid}_{self.secret}"

    @property
    def sha256(self) -> str:
        return secret_digest(self.secret)


def issue() -> IssuedToken:
    """A fresh random token."""
    kid = "".join(secrets.choice(_KID_ALPHABET) for _ in range(KID_LENGTH))
    secret = base64.urlsafe_b64encode(secrets.token_bytes(SECRET_BYTES)).rstrip(b"=").decode()
    return IssuedToken(kid, secret)


def parse(text: str) -> ParsedToken:
    """The token in `text`, or TokenError: only the exact shape `ba_<12 letters or digits>_<43
    urlsafe base64 characters>` is taken (no spaces, no padding, nothing around it)."""
    if not isinstance(text, str) or len(text) > MAX_TOKEN_CHARS:
        raise TokenError("not an arena token (expected ba_<kid>_<secret>)")
    found = _SHAPE.fullmatch(text)
    if found is None:
        raise TokenError("not an arena token (expected ba_<kid>_<secret>)")
    return ParsedToken(found.group(1), found.group(2))


def secret_digest(secret: str) -> str:
    """The sha256 (hex) of a token's secret: what the store keeps."""
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def secret_matches(secret: str, stored_sha256: str) -> bool:
    """Whether `secret` is the one whose digest the store keeps (constant-time comparison)."""
    return hmac.compare_digest(secret_digest(secret).encode(), stored_sha256.encode())
