"""Imports run assistant -> index -> ingest, never back: checked on the source of every module."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

ROOMS = ["ingest", "index", "assistant"]  # a room may import only rooms to its left
FORBIDDEN = {room: set(ROOMS[i + 1 :]) for i, room in enumerate(ROOMS)}


def imported_rooms(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(ROOMS)


def test_every_module_imports_only_downward() -> None:
    violations = []
    for room in ROOMS:
        files = sorted((REPO / room).rglob("*.py"))
        assert files, f"room {room} has no modules"
        for f in files:
            bad = imported_rooms(f) & FORBIDDEN[room]
            if bad:
                violations.append(f"{f.relative_to(REPO)} imports {sorted(bad)}")
    assert not violations, "imports against assistant -> index -> ingest:\n" + "\n".join(violations)


def test_checker_catches_a_backward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom assistant.api import Assistant\nimport index.store\n")
    assert imported_rooms(bad) == {"assistant", "index"}


def test_packages_are_typed_and_scripted() -> None:
    from importlib.metadata import entry_points

    for room in ROOMS:
        assert (REPO / room / "py.typed").exists()
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("citewise") == "assistant.cli:main"
