"""`botarena.testing` imports the runner, so product code never imports it (docs/architecture.md)."""

from __future__ import annotations

import re
from pathlib import Path

import botarena

SRC = Path(botarena.__file__).parent
IMPORTS_TESTING = re.compile(r"^\s*(from|import)\s+botarena\.testing\b", re.MULTILINE)


def test_no_product_module_imports_botarena_testing() -> None:
    importers = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.parent.name != "testing" and IMPORTS_TESTING.search(path.read_text(encoding="utf-8"))
    ]
    assert importers == []
    assert (SRC / "testing" / "__init__.py").exists()
