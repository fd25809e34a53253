"""Walk the paths a user gives: files and folders (recursive), skipping what cannot be indexed
with a reason. Symlink loops and unreadable folders are reported, never fatal."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SUPPORTED_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst", ".pdf", ".docx", ".html", ".htm", ".xhtml"})


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def discover(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path | Skipped]:
    """Yield the files to index under `paths` (sorted, each once) and `Skipped` for the rest."""
    seen: set[str] = set()  # resolved paths as strings: hashing a Path costs more than the walk
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            yield Skipped(str(p), "no such file or directory")
        elif p.is_file():
            rp = p.resolve()
            if str(rp) not in seen:
                seen.add(str(rp))
                yield rp
        else:
            yield from _walk(p, seen)


def _walk(root: Path, seen: set[str]) -> Iterator[Path | Skipped]:
    visited_dirs: set[tuple[int, int]] = set()

    def on_error(exc: OSError) -> None:
        errors.append(Skipped(str(exc.filename), exc.strerror or str(exc)))

    errors: list[Skipped] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True, onerror=on_error):
        st = os.stat(dirpath)
        key = (st.st_dev, st.st_ino)
        if key in visited_dirs:  # a symlink loop brought us back
            dirnames[:] = []
            errors.append(Skipped(dirpath, "symlink loop: folder already visited"))
            continue
        visited_dirs.add(key)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        # The folder is resolved once; only a symlinked file needs a resolve of its own. Resolving
        # every file (an lstat per path component) was most of a no-op re-index of 1,000 files.
        real_dir = Path(os.path.realpath(dirpath))
        for name in sorted(filenames):
            if name.startswith(".") or os.path.splitext(name)[1].lower() not in SUPPORTED_SUFFIXES:
                continue
            fp = os.path.join(dirpath, name)
            try:
                rp = Path(fp).resolve(strict=True) if os.path.islink(fp) else real_dir / name
            except (OSError, RuntimeError) as exc:
                yield Skipped(fp, f"cannot resolve path: {exc}")
                continue
            if (resolved := str(rp)) not in seen:
                seen.add(resolved)
                yield rp
        yield from errors
        errors.clear()
    yield from errors
