"""Bad input: each broken file gets one clear reason naming it, the rest of the batch is indexed, and
memory stays bounded. Every file is built for real in tmp_path (PDFs with fpdf2/pypdf, DOCX with
python-docx, a sparse 200 MB text file)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from conftest import REPO
from ingest_files import SAMPLE, write_docx, write_encrypted_pdf, write_pdf, write_zip_bomb_docx

from ingest import ParseError, Skipped, discover, load_document


def _reason(path: Path) -> str:
    with pytest.raises(ParseError) as info:
        load_document(path)
    msg = str(info.value)
    assert str(path.resolve()) in msg and "\n" not in msg
    return info.value.reason


def test_corrupt_pdf(tmp_path: Path) -> None:
    good = write_pdf(tmp_path / "good.pdf", SAMPLE).read_bytes()
    bad = tmp_path / "corrupt.pdf"
    bad.write_bytes(good[:200] + b"\x00garbage" * 50)
    assert "not a readable PDF" in _reason(bad)


def test_encrypted_pdf(tmp_path: Path) -> None:
    assert "encrypted" in _reason(write_encrypted_pdf(tmp_path / "locked.pdf", SAMPLE))


def test_empty_files(tmp_path: Path) -> None:
    for name in ("empty.txt", "empty.pdf", "empty.docx"):
        (tmp_path / name).write_bytes(b"")
        assert "empty" in _reason(tmp_path / name)
    (tmp_path / "blank.md").write_text("  \n\n\t \n")
    assert "no text" in _reason(tmp_path / "blank.md")


def test_binary_file_named_txt(tmp_path: Path) -> None:
    f = tmp_path / "image.txt"
    f.write_bytes(bytes(range(256)) * 64)
    assert "binary" in _reason(f)
    g = tmp_path / "noise.txt"
    g.write_bytes(os.urandom(1) * 0 + bytes((i * 37 + 11) % 31 + 1 for i in range(20000)))  # control bytes, no NUL
    assert "binary" in _reason(g)


def test_latin1_and_utf16_text(tmp_path: Path) -> None:
    text = "Résumé of José Núñez\n\nEducation\n\nUniversität Zürich, Ph.D., façade studies, 2019.\n" * 3
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(text.encode("latin-1"))
    assert "Universität Zürich" in load_document(latin).text
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes(text.encode("utf-16"))  # with BOM
    assert "Universität Zürich" in load_document(utf16).text


def test_zip_bomb_docx_is_refused_before_expanding(tmp_path: Path) -> None:
    bomb = write_zip_bomb_docx(tmp_path / "bomb.docx")
    assert bomb.stat().st_size < 2 * 2**20
    reason = _reason(bomb)
    assert "zip bomb" in reason or "expands" in reason


def test_zip_that_is_not_a_docx(tmp_path: Path) -> None:
    import zipfile

    f = tmp_path / "archive.docx"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("hello.txt", "hi")
    assert "not a DOCX" in _reason(f)


def test_pdf_named_docx_is_read_as_pdf(tmp_path: Path) -> None:
    f = write_pdf(tmp_path / "x.pdf", SAMPLE).rename(tmp_path / "misnamed.docx")
    assert load_document(f).format == "pdf"


def test_huge_text_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A 200 MB text file (sparse: no disk cost) is refused from its size; a child process measures
    its own peak memory while trying, so reading it whole would show."""
    big = tmp_path / "huge.txt"
    with open(big, "wb") as f:
        f.write(b"Education\n\n")
        f.truncate(200 * 2**20)
    code = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(REPO)!r})
        from ingest import ParseError, load_document
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            load_document({str(big)!r})
        except ParseError as exc:
            print(exc.reason)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print((after - before) // 1024)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert "200 MB" in out[0] and "limit" in out[0]
    assert int(out[1]) < 20, f"peak RSS grew by {out[1]} MB while refusing a 200 MB file"


def test_symlink_loop_is_reported_not_fatal(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "note.txt").write_text("A note about replicas.\n")
    os.symlink(root, root / "sub" / "loop")
    (root / "self.txt").symlink_to(root / "self.txt")  # a link to itself
    items = list(discover([root]))
    files = [i for i in items if isinstance(i, Path)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [f.name for f in files] == ["note.txt"]
    assert any("self.txt" in s.path for s in skipped)
    assert any("loop" in s.reason or "loop" in s.path for s in skipped)


def _unreadable_reason(path: Path) -> str:
    """load_document's error for `path` with mode 000. Root reads anything, so as root a forked
    child (no exec: the interpreter under /root stays out of reach) drops to user nobody first."""
    path.chmod(0)
    if os.geteuid() != 0:
        with pytest.raises(ParseError) as info:
            load_document(path)
        return str(info.value)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            try:
                load_document(path)
                msg = "loaded"
            except ParseError as exc:
                msg = str(exc)
            os.write(w, msg.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r) as f:
        msg = f.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return msg


def test_unreadable_file() -> None:
    # A world-traversable folder so an unprivileged child can reach the file.
    folder = Path(tempfile.mkdtemp(prefix="citewise-perm-"))
    try:
        folder.chmod(0o755)
        f = folder / "secret.txt"
        f.write_text("Nobody may read this.\n")
        reason = _unreadable_reason(f)
        assert str(f) in reason and "Permission denied" in reason
    finally:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


@pytest.mark.slow
def test_bad_files_never_stop_a_batch(tmp_path: Path, embedder) -> None:
    """index_paths with every kind of bad file beside good ones: the good ones are indexed (real
    model, FAISS, SQLite), each bad one is skipped with its reason."""
    from index import Store, index_paths

    docs = tmp_path / "docs"
    docs.mkdir()
    write_pdf(docs / "good.pdf", SAMPLE)
    write_docx(docs / "good.docx", SAMPLE)
    (docs / "good.txt").write_bytes("Zürich notes: replicas repair fast.\n".encode("latin-1"))
    good_pdf = (docs / "good.pdf").read_bytes()
    (docs / "corrupt.pdf").write_bytes(good_pdf[:300] + b"junk" * 100)
    write_encrypted_pdf(docs / "locked.pdf", SAMPLE)
    (docs / "empty.txt").write_bytes(b"")
    (docs / "binary.txt").write_bytes(bytes(range(256)) * 16)
    write_zip_bomb_docx(docs / "bomb.docx")
    with open(docs / "huge.txt", "wb") as f:
        f.truncate(200 * 2**20)
    os.symlink(docs, docs / "loop")

    store = Store.create(tmp_path / "index", embedder.name, embedder.dim)
    try:
        report = index_paths([docs], store, embedder)
        indexed = sorted(Path(d.doc).name for d in store.documents())
        assert indexed == ["good.docx", "good.pdf", "good.txt"]
        reasons = {Path(s.path).name: s.reason for s in report.skipped}
        assert "encrypted" in reasons["locked.pdf"]
        assert "not a readable PDF" in reasons["corrupt.pdf"]
        assert "empty" in reasons["empty.txt"]
        assert "binary" in reasons["binary.txt"]
        assert "zip bomb" in reasons["bomb.docx"] or "expands" in reasons["bomb.docx"]
        assert "limit" in reasons["huge.txt"]
        assert any("loop" in s.path or "loop" in s.reason for s in report.skipped)
        for s in report.skipped:
            assert s.reason and "\n" not in s.reason
    finally:
        store.close()
