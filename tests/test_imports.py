"""Imports run assistant -> index -> ingest, never back: checked on the source of every module, in every
subpackage (assistant/cli/, assistant/ui/, assistant/answer/ ...), relative imports included."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from conftest import REPO

ROOMS = ["ingest", "index", "assistant"]  # a room may import only rooms to its left
FORBIDDEN = {room: set(ROOMS[i + 1 :]) for i, room in enumerate(ROOMS)}


def module_package(path: Path, root: Path = REPO) -> list[str]:
    """The package a module belongs to, as parts: assistant/cli/app.py and assistant/cli/__init__.py
    both -> [assistant, cli]."""
    return list(path.relative_to(root).parts[:-1])


def imported_rooms(path: Path, root: Path | None = None) -> set[str]:
    """Top-level packages a module imports; a relative import is resolved against the module's package,
    and one that climbs above the top level is reported as '<outside>'."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level > 0 and root is not None:
            package = module_package(path, root)
            base = package[: len(package) - (node.level - 1)] if node.level - 1 <= len(package) else []
            found.add(base[0] if base else "<outside>")
    return found & (set(ROOMS) | {"<outside>"})


def test_every_module_imports_only_downward() -> None:
    violations = []
    for room in ROOMS:
        files = sorted((REPO / room).rglob("*.py"))
        assert files, f"room {room} has no modules"
        for f in files:
            bad = imported_rooms(f, REPO) & (FORBIDDEN[room] | {"<outside>"})
            if bad:
                violations.append(f"{f.relative_to(REPO)} imports {sorted(bad)}")
    assert not violations, "imports against assistant -> index -> ingest:\n" + "\n".join(violations)


def unresolved_relative_imports(path: Path, root: Path = REPO) -> list[str]:
    """`from .x import y` / `from ..x import y` whose module x is not a file or package where it points."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level > 0 and node.module:
            base = root.joinpath(*module_package(path, root)[: len(module_package(path, root)) - (node.level - 1)])
            target = base.joinpath(*node.module.split("."))
            if not (target.with_suffix(".py").exists() or (target / "__init__.py").exists()):
                missing.append(f"{path.relative_to(root)}:{node.lineno} from {'.' * node.level}{node.module}")
    return missing


def test_every_relative_import_points_at_a_module() -> None:
    """Lazy imports inside functions too: a module moved into a subpackage leaves none dangling."""
    missing = [m for room in ROOMS for f in sorted((REPO / room).rglob("*.py")) for m in unresolved_relative_imports(f)]
    assert not missing, "relative imports of modules that do not exist:\n" + "\n".join(missing)


def test_dangling_relative_import_is_caught(tmp_path: Path) -> None:
    sub = tmp_path / "assistant" / "cli"
    sub.mkdir(parents=True)
    (tmp_path / "assistant" / "api.py").write_text("")
    mod = sub / "app.py"
    mod.write_text("def f():\n    from .llm import x\n    from ..api import y\n")
    assert unresolved_relative_imports(mod, tmp_path) == ["assistant/cli/app.py:2 from .llm"]


def test_checker_catches_a_backward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom assistant.api import Assistant\nimport index.store\n")
    assert imported_rooms(bad) == {"assistant", "index"}


def test_checker_resolves_relative_imports_in_subpackages(tmp_path: Path) -> None:
    """`from ..api import x` inside assistant/cli/ is assistant itself; `from ...x` there leaves the rooms."""
    sub = tmp_path / "assistant" / "cli"
    sub.mkdir(parents=True)
    ok, bad = sub / "ok.py", sub / "bad.py"
    ok.write_text("from ..api import Assistant\nfrom .common import dump\nfrom . import common\n")
    bad.write_text("from ...index import Store\n")
    assert imported_rooms(ok, tmp_path) == {"assistant"}
    assert imported_rooms(bad, tmp_path) == {"<outside>"}
    init = sub / "__init__.py"
    init.write_text("from .app import main\nfrom ..settings import Settings\n")
    assert imported_rooms(init, tmp_path) == {"assistant"}


def test_every_subpackage_is_a_package_the_install_ships() -> None:
    """A folder of modules under a room (assistant/cli/, assistant/ui/, assistant/answer/) has an
    __init__.py and is matched by pyproject's package list, so `pip install` ships it."""
    find = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    include = set(find["include"])
    for room in ROOMS:
        assert room in include and f"{room}.*" in include
        for folder in sorted(p.parent for p in (REPO / room).rglob("*.py")):
            if "__pycache__" in folder.parts:
                continue
            assert (folder / "__init__.py").exists(), f"{folder.relative_to(REPO)} has modules but no __init__.py"


def test_cli_and_ui_are_packages() -> None:
    import assistant.cli
    import assistant.ui.chat

    assert (REPO / "assistant" / "cli" / "__init__.py").exists()
    assert (REPO / "assistant" / "ui" / "__init__.py").exists()
    assert assistant.cli.main.name == "main"
    assert not list((REPO / "assistant").glob("cli_*.py")) and not list((REPO / "assistant").glob("ui_*.py"))
    assert assistant.ui.chat.esc("<b>") == "&lt;b&gt;"


def test_packages_are_typed_and_scripted() -> None:
    from importlib.metadata import entry_points

    for room in ROOMS:
        assert (REPO / room / "py.typed").exists()
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("citewise") == "assistant.cli:main"
