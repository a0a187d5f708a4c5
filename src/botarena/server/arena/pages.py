"""The arena's pages (specs/arena.md, Pages): `/team`, `/competition/{cid}` and `/admin`.

Each is a static HTML file of the web app (`web/team.html`, `competition.html`, `admin.html`) whose
module script reads the JSON API; the routes only give the files paths of their own and a strict
Content-Security-Policy: scripts and styles from this origin only (no inline script, no inline
event handler, no `eval`), requests to this origin only, no framing, no plugin. A hostile team name
that reached the page as markup would still run nothing; the pages insert every value as text.

They are not part of the API (`include_in_schema=False`): they hold no data and admit everyone; who
may read what is decided by the API routes the pages call, with the caller's session cookie.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from botarena.standalone import web_root

router = APIRouter(include_in_schema=False)

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
MAX_ID = 2**63 - 1


def page_response(name: str) -> Response:
    """The web app's page `name` with the pages' security headers."""
    body = (web_root() / name).read_bytes()
    return Response(body, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


@router.get("/team")
def team_page() -> Response:
    """A team's page: sign in with the token, upload, versions, matches."""
    return page_response("team.html")


@router.get("/competition/{cid}")
def competition_page(cid: Annotated[int, Path(ge=1, le=MAX_ID)]) -> Response:
    """A competition's public page: leaderboard, recent matches, rules and limits."""
    return page_response("competition.html")


@router.get("/admin")
def admin_page() -> Response:
    """The organizer's page: phase, teams, tokens, versions, matches, stats, audit log."""
    return page_response("admin.html")


__all__ = ["CONTENT_SECURITY_POLICY", "router"]
