"""Generators of real test files for the ingest tests and bench: PDFs written with fpdf2 (and pypdf
for encryption), DOCX with python-docx, HTML as text. A document is a list of pages; a page is a list
of `(kind, text)` blocks where kind is "h1", "h2" or "p". Nothing here is faked: the files are read
back by the same libraries users' files are.
"""

from __future__ import annotations

import random
from pathlib import Path

Block = tuple[str, str]
Pages = list[list[Block]]

SAMPLE: Pages = [
    [
        ("h1", "Ada Quillfeather"),
        ("p", "Research engineer working on distributed storage and careful measurement."),
        ("h2", "Education"),
        ("p", "University of Somewhere, Ph.D. in Computer Science, 2019. Thesis on consistent hashing."),
        ("h2", "Experience"),
        ("p", "Storage Systems Inc., Staff Engineer, 2020 - present. Built an erasure-coded object store."),
    ],
    [
        ("h2", "Publications"),
        ("p", "Ada Quillfeather, Bo Tran. Fast Repair of Erasure Codes. USENIX FAST, 2021."),
        ("p", "The reconfiguration protocol keeps every replica readable while the "
              "cluster grows from three to thirty nodes."),
    ],
]

_WORDS = ["storage", "system", "replica", "cluster", "latency", "throughput", "protocol", "graph", "network", "model", "training", "inference", "sampling", "kernel", "memory", "cache", "scheduler", "compiler", "query", "index", "vector", "embedding", "retrieval", "benchmark", "measurement", "partition", "consensus", "failure", "recovery", "encoding", "compression", "sparse", "dense", "matrix"]


def random_pages(rng: random.Random, n_pages: int, paras_per_page: int = 4) -> Pages:
    """A deterministic pseudo-document: a title, then sections of plain sentences."""
    pages: Pages = []
    for p in range(n_pages):
        blocks: list[Block] = []
        if p == 0:
            blocks.append(("h1", f"Report {rng.randrange(10**6)} on {rng.choice(_WORDS)} {rng.choice(_WORDS)}"))
        blocks.append(("h2", f"Part {p + 1}: {_WORDS[(7 * p + rng.randrange(3)) % len(_WORDS)].title()}"))
        for _ in range(paras_per_page):
            sentences = []
            for _ in range(rng.randint(3, 6)):
                words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 16))]
                sentences.append(" ".join(words).capitalize() + ".")
            blocks.append(("p", " ".join(sentences)))
        pages.append(blocks)
    return pages


def write_pdf(path: Path, pages: Pages, *, footer: str | None = "Ada Quillfeather - CV") -> Path:
    """A text PDF with real fonts: headings larger and bold, a running footer with the page number."""
    from fpdf import FPDF

    class _PDF(FPDF):
        def footer(self) -> None:
            if footer:
                self.set_y(-15)
                self.set_font("Helvetica", "", 8)
                self.cell(0, 10, f"{footer} {self.page_no()}", align="C")

    pdf = _PDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=20)
    sizes = {"h1": 20, "h2": 14, "p": 10}
    for blocks in pages:
        pdf.add_page()
        for kind, text in blocks:
            pdf.set_font("Helvetica", "B" if kind != "p" else "", sizes[kind])
            pdf.multi_cell(0, sizes[kind] * 0.6, text, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    pdf.output(str(path))
    return path


def write_encrypted_pdf(path: Path, pages: Pages, password: str = "secret") -> Path:
    from pypdf import PdfReader, PdfWriter

    plain = write_pdf(path.with_suffix(".plain.pdf"), pages)
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    with open(path, "wb") as f:
        writer.write(f)
    plain.unlink()
    return path


def write_docx(path: Path, pages: Pages) -> Path:
    """A DOCX with Heading 1/2 styles and a page break between the pages."""
    import docx
    from docx.enum.text import WD_BREAK

    d = docx.Document()
    for i, blocks in enumerate(pages):
        if i:
            d.paragraphs[-1].add_run().add_break(WD_BREAK.PAGE)
        for kind, text in blocks:
            if kind == "p":
                d.add_paragraph(text)
            else:
                d.add_heading(text, level=1 if kind == "h1" else 2)
    d.save(str(path))
    return path


def write_html(path: Path, pages: Pages, *, title: str | None = None) -> Path:
    import html

    body = []
    for blocks in pages:
        for kind, text in blocks:
            tag = {"h1": "h1", "h2": "h2", "p": "p"}[kind]
            body.append(f"<{tag}>{html.escape(text)}</{tag}>")
    head = f"<title>{html.escape(title)}</title>" if title else ""
    path.write_text(
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>" + head
        + "<style>p{color:red}</style><script>var tracking = 'do not index me';</script></head>"
        + "<body><nav><a href='/'>Home</a> | <a href='/about'>About</a></nav><main>"
        + "\n".join(body) + "</main><footer>Copyright footer text</footer></body></html>",
        encoding="utf-8",
    )
    return path


def write_zip_bomb_docx(path: Path, expanded_bytes: int = 300 * 2**20) -> Path:
    """A .docx whose document.xml expands to `expanded_bytes` of spaces (compresses ~1000:1)."""
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<?xml version='1.0'?><Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            chunk = b" " * (1 << 20)
            for _ in range(expanded_bytes // len(chunk)):
                f.write(chunk)
    return path
