"""Reading the viewer page in browser tests: element texts, the step slider, canvas pixels."""

from __future__ import annotations

from typing import Any


def text(page: Any, testid: str) -> str:
    return str(page.get_by_test_id(testid).inner_text()).strip()


def texts(page: Any) -> dict[str, str]:
    """Every data-testid element's text, in one round trip."""
    return dict(
        page.evaluate(
            """() => Object.fromEntries([...document.querySelectorAll('[data-testid]')]
                .map((e) => [e.dataset.testid, e.innerText.trim()]))"""
        )
    )


def scrub(page: Any, index: int) -> None:
    """Move the slider as a user would: set its value, then fire input and change."""
    page.evaluate(
        """(i) => {
            const s = document.querySelector('[data-testid="scrub"]');
            s.value = String(i);
            s.dispatchEvent(new Event('input', {bubbles: true}));
            s.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        index,
    )
    assert page.evaluate("window.__botarena.currentStep") == index


def pixel(page: Any, point: dict[str, float]) -> tuple[int, int, int]:
    """The canvas colour at a probe point (logical pixels, scaled by the canvas's dpr)."""
    rgba = page.evaluate(
        """(p) => {
            const c = document.querySelector('[data-testid="canvas"]');
            const dpr = Number(c.dataset.dpr || 1);
            return Array.from(c.getContext('2d').getImageData(
                Math.round(p.x * dpr), Math.round(p.y * dpr), 1, 1).data);
        }""",
        point,
    )
    return rgba[0], rgba[1], rgba[2]
