"""The documents half of the web UI: safe uploads, per-file results, the list of indexed documents.

Uploads are copied into `<index dir>/uploads/` under a sanitised name (no folders, no leading dots,
only letters, digits, `-`, `_` and `.`), after a size cap and a type check (a supported suffix, and
content that looks like it: `%PDF-` for PDF, a zip for DOCX, no NUL bytes in text). Removing an
uploaded document deletes that copy too; a document indexed from elsewhere is only dropped from the
index, its file is left alone.

Left out: uploading folders from the browser (point at a folder on the server instead) and
archives (zip/tar) of documents.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from index import DocRecord, IndexReport
from ingest.discover import SUPPORTED_SUFFIXES

from .chat import esc

UPLOADS = "uploads"
DEFAULT_MAX_UPLOAD_MB = 50
TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".html", ".htm"})


@dataclass(frozen=True)
class FileResult:
    name: str  # what the user sees: the uploaded file's name, or the path
    status: str  # "added", "updated", "unchanged", "moved", "skipped", "rejected"
    reason: str = ""


def safe_name(name: str) -> str:
    """A file name that cannot leave the uploads folder: `../../etc/x.md` -> `x.md`.

    Folders, leading dots and anything but letters, digits, `_`, `-` and `.` are dropped; the suffix
    is lower-cased so the type check and the parser agree.
    """
    base = PurePosixPath(name.replace("\\", "/")).name
    base = unicodedata.normalize("NFKC", base)
    stem, suffix = os.path.splitext(base)
    stem = re.sub(r"[^\w.-]+", "_", stem).strip("._-")[:120] or "document"  # \w: letters of any script
    suffix = re.sub(r"[^A-Za-z0-9.]+", "", suffix.lower())[:12]
    return stem + suffix


def check_upload(path: Path, max_bytes: int) -> str | None:
    """Why the file at `path` is refused, or None when it may be indexed."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kinds = ", ".join(sorted(s.lstrip(".") for s in SUPPORTED_SUFFIXES))
        return f"unsupported file type {suffix or '(no extension)'!r}: citewise reads {kinds}"
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(65536)
    except OSError as exc:
        return f"cannot read the upload: {exc.strerror or exc}"
    if size > max_bytes:
        return f"{size / 1e6:.1f} MB is over the {max_bytes / 1e6:.0f} MB upload limit"
    if size == 0:
        return "the file is empty"
    if suffix == ".pdf" and not head.startswith(b"%PDF-"):
        return "named .pdf but is not a PDF"
    if suffix == ".docx" and not head.startswith(b"PK\x03\x04"):
        return "named .docx but is not a Word document"
    if suffix in TEXT_SUFFIXES and b"\x00" in head:
        return f"named {suffix} but holds binary data"
    return None


def save_upload(src: Path, uploads: Path, name: str) -> Path:
    """Copy `src` to `uploads/<safe name>` atomically (an existing upload of that name is replaced)."""
    uploads.mkdir(parents=True, exist_ok=True)
    dest = uploads / safe_name(name)
    if dest.parent.resolve() != uploads.resolve() or dest.name in ("", ".", ".."):  # pragma: no cover
        raise ValueError(f"upload name {name!r} leaves the uploads folder")
    fd, tmp = tempfile.mkstemp(dir=uploads, prefix=".upload-")
    try:
        with os.fdopen(fd, "wb") as out, open(src, "rb") as f:
            shutil.copyfileobj(f, out)
        os.replace(tmp, dest)  # replaces a symlink itself, never writes through it
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest


def report_results(report: IndexReport, names: dict[str, str] | None = None) -> list[FileResult]:
    """Per-file lines from an `IndexReport`; `names` maps stored paths to what the user uploaded."""
    names = names or {}

    def show(p: str) -> str:
        return names.get(p, p)

    out = [FileResult(show(p), "added") for p in report.added]
    again = set(report.reread)
    out += [FileResult(show(p), "updated", "same content, read again: indexed by an older citewise or with other "
                       "chunk settings" if p in again else "") for p in report.updated]
    out += [FileResult(show(p), "unchanged", "already indexed with the same content") for p in report.unchanged]
    out += [FileResult(show(new), "moved", f"was {old}") for old, new in report.moved]
    out += [FileResult(show(s.path), "skipped", s.reason) for s in report.skipped]
    return out


_STATUS_LABEL = {
    "added": "indexed", "updated": "re-indexed", "unchanged": "unchanged", "moved": "moved",
    "skipped": "skipped", "rejected": "rejected", "removed": "removed",
}


def results_html(results: Sequence[FileResult], summary: str = "") -> str:
    if not results and not summary:
        return ""
    rows = "".join(
        f'<tr class="cw-res-{esc(r.status)}"><td class="cw-res-name">{esc(r.name)}</td>'
        f'<td><span class="cw-pill cw-pill-{esc(r.status)}">{esc(_STATUS_LABEL.get(r.status, r.status))}</span></td>'
        f'<td class="cw-muted">{esc(r.reason)}</td></tr>'
        for r in results
    )
    table = f'<table class="cw-table cw-results"><tbody>{rows}</tbody></table>' if rows else ""
    head = f'<div class="cw-results-summary">{esc(summary)}</div>' if summary else ""
    return f'<div class="cw-results-box">{head}{table}</div>'


def doc_key(doc: str) -> str:
    """A short stable key for a document path, used by the remove buttons (never a path)."""
    return hashlib.sha256(doc.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def find_doc(records: Iterable[DocRecord], key: str) -> DocRecord | None:
    return next((d for d in records if doc_key(d.doc) == key), None)


def documents_html(records: Sequence[DocRecord], uploads: Path) -> str:
    if not records:
        return ('<div class="cw-empty"><div class="cw-panel-icon">📄</div><h3>No documents yet</h3>'
                "<p>Drop files above, or index a folder, and ask away.</p></div>")
    up = str(uploads.resolve())
    rows = []
    for d in records:
        uploaded = Path(d.doc).parent == Path(up)
        origin = "uploaded" if uploaded else str(Path(d.doc).parent)
        title = d.title if d.title and d.title != Path(d.doc).stem else ""
        rows.append(
            f'<tr><td><div class="cw-doc-name" title="{esc(d.doc)}">{esc(os.path.basename(d.doc))}</div>'
            f'<div class="cw-muted cw-small">{esc(title)}</div></td>'
            f'<td>{esc(d.owner or "—")}</td><td class="cw-num">{esc(d.pages or "—")}</td>'
            f'<td class="cw-num">{d.chunks}</td><td class="cw-muted cw-small" title="{esc(origin)}">{esc(origin)}</td>'
            f'<td><button type="button" class="cw-remove" data-key="{doc_key(d.doc)}" '
            f'aria-label="Remove {esc(os.path.basename(d.doc))}">Remove</button></td></tr>'
        )
    total = sum(d.chunks for d in records)
    return (
        f'<div class="cw-docs-count">{len(records)} document{"s" if len(records) != 1 else ""} · {total} passages</div>'
        '<table class="cw-table cw-doclist"><thead><tr><th>Document</th><th>Person</th><th>Pages</th>'
        f'<th>Passages</th><th>Source</th><th></th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def stats_html(records: Sequence[DocRecord]) -> str:
    n = len(records)
    return (f'<div class="cw-stats"><span>{n} document{"s" if n != 1 else ""}</span>'
            f'<span>{sum(d.chunks for d in records)} passages</span><span>local · private</span></div>')
