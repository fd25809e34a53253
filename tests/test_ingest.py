"""Ingest on real files: every format round-trips text, pages and headings; the seeds clean without
junk; owners, titles, sections, publications and entry-aware chunks come out right."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import CRANFIELD, PROFILES, require_shared
from ingest_files import SAMPLE, write_docx, write_html, write_pdf

from ingest import chunk_document, load_document, name_variants, names_match, parse_publications
from ingest.chunk import chunk_spans
from ingest.clean import clean_text

SEEDS = {p.name[:3]: p for p in sorted(PROFILES.glob("*.txt"))}


@pytest.fixture(scope="module")
def seeds():
    return {k: load_document(p) for k, p in SEEDS.items()}


# -- formats ----------------------------------------------------------------------------------------
def _check_sample(doc, *, paged: bool) -> None:
    assert "erasure-coded object store" in doc.text
    assert "cluster grows from three to thirty nodes" in doc.text
    assert doc.title == "Ada Quillfeather"
    paths = {s.path for s in doc.sections}
    assert ("Education",) in paths and ("Publications",) in paths, paths
    pub = doc.text.index("Fast Repair of Erasure Codes")
    assert doc.section_at(pub).path == ("Publications",)
    if paged:
        assert doc.page_at(doc.text.index("Staff Engineer")) == 1
        assert doc.page_at(pub) == 2
    chunks = chunk_document(doc)
    assert all(c.text == doc.text[c.start : c.end] for c in chunks)
    pub_chunk = next(c for c in chunks if "Fast Repair" in c.text)
    assert pub_chunk.section == "Publications"
    assert "Publications" in pub_chunk.context and "Ada Quillfeather" in pub_chunk.context
    if paged:
        assert pub_chunk.page == 2


def test_pdf_round_trip_text_pages_headings(tmp_path: Path) -> None:
    doc = load_document(write_pdf(tmp_path / "cv.pdf", SAMPLE))
    assert doc.format == "pdf"
    assert [p.number for p in doc.pages] == [1, 2]
    _check_sample(doc, paged=True)
    # The running footer "Ada Quillfeather - CV <n>" is page furniture, not text.
    assert "CV 1" not in doc.text and "CV 2" not in doc.text


def test_docx_round_trip_text_pages_headings(tmp_path: Path) -> None:
    doc = load_document(write_docx(tmp_path / "cv.docx", SAMPLE))
    assert doc.format == "docx"
    _check_sample(doc, paged=True)


def test_html_round_trip_drops_scripts_and_chrome(tmp_path: Path) -> None:
    doc = load_document(write_html(tmp_path / "cv.html", SAMPLE))
    assert doc.format == "html"
    _check_sample(doc, paged=False)
    for junk in ("do not index me", "color:red", "Copyright footer", "Home"):
        assert junk not in doc.text


def test_markdown_headings_nest(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    f.write_text("# Notes\n\nIntro text.\n\n## Storage\n\nReplicas are **three**.\n\n### Repair\n\nFast repair.\n")
    doc = load_document(f)
    assert doc.section_at(doc.text.index("Fast repair")).path == ("Notes", "Storage", "Repair")


def test_format_is_sniffed_from_content_not_only_extension(tmp_path: Path) -> None:
    pdf_as_txt = write_pdf(tmp_path / "a.pdf", SAMPLE).rename(tmp_path / "really-a-pdf.txt")
    assert load_document(pdf_as_txt).format == "pdf"
    docx_no_ext = write_docx(tmp_path / "b.docx", SAMPLE).rename(tmp_path / "word-file")
    assert load_document(docx_no_ext).format == "docx"
    html_as_txt = tmp_path / "page.txt"
    html_as_txt.write_text("<!DOCTYPE html><html><body><h1>Title</h1><p>Body text here.</p></body></html>")
    doc = load_document(html_as_txt)
    assert doc.format == "html" and "<p>" not in doc.text and "Body text here." in doc.text


def test_pdf_heading_levels_and_paragraph_breaks(tmp_path: Path) -> None:
    pages = [[("h1", "Annual Storage Report"), ("h2", "Scope"), ("p", "First paragraph about scope. " * 8),
              ("p", "Second paragraph about limits. " * 8), ("h2", "Findings"), ("p", "Replicas fail rarely.")]]
    doc = load_document(write_pdf(tmp_path / "r.pdf", pages, footer=None))
    # The lone top heading is the title, not a section; the two sections sit under no parent.
    assert doc.title == "Annual Storage Report"
    assert [s.path for s in doc.sections] == [("Scope",), ("Findings",)]
    first, second = doc.text.index("First paragraph"), doc.text.index("Second paragraph")
    assert "\n\n" in doc.text[first:second]  # the vertical gap became a paragraph break
    assert doc.owner is None  # a report, not a person's document


def _text(x: float, y: float, size: float, s: str, font: str = "F1") -> str:
    return f"BT /{font} {size} Tf {x} {y} Td ({s}) Tj ET"


def _raw_pdf(path: Path, ops: list[str]) -> Path:
    """A one-page PDF written by hand (F1 Helvetica, F2 Helvetica-Bold), its page drawn by the content-stream
    operators `ops`."""
    stream = "\n".join(ops).encode("latin-1")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 6 0 R >> >> "
               b"/Contents 5 0 R >>", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def _pdf_with_a_figure(path: Path) -> Path:
    """Two 16 pt headings with 10 pt text under each, and between them a chart whose labels are set at 18
    and 14 pt inside a figure scaled to 40 % (printed at 7 and 6 pt), as plotting libraries embed figures."""
    ops = [_text(72, 760, 16, "Methods")]
    ops += [_text(72, 740 - 14 * i, 10, f"We measured the replicas of shard {i} every hour for a week.") for i in range(8)]
    ops.append("q 0.4 0 0 0.4 72 380 cm " + " ".join(
        [_text(0, 500, 18, "Density"), *(_text(0, 460 - 40 * i, 14, f"0.{i}00") for i in range(6)),
         _text(0, 200, 18, "Hours between failures")]) + " Q")
    ops.append(_text(72, 330, 16, "Results"))
    ops += [_text(72, 310 - 14 * i, 10, f"Replica {i} failed once in the week we measured it.") for i in range(8)]
    return _raw_pdf(path, ops)


def test_a_figures_labels_are_no_headings(tmp_path: Path) -> None:
    # A chart's labels are set in a large font but printed small (the figure is scaled down): by their
    # font size alone they were headings, and "Density" became the section of the results under it.
    doc = load_document(_pdf_with_a_figure(tmp_path / "report.pdf"))
    assert "Density" in doc.text and "0.300" in doc.text  # the figure's text stays, as text
    assert [s.path for s in doc.sections] == [("Methods",), ("Results",)]
    results = next(s for s in doc.sections if s.path == ("Results",))
    assert "Replica 3 failed once" in doc.text[results.start:results.end]


def test_a_heading_wrapped_onto_two_lines_is_one_heading(tmp_path: Path) -> None:
    # A paper's title set over two lines was two headings: the second ("Robotic Systems through Behavior
    # Trees", or a lone "campus") became the section of everything under it.
    ops = [_text(72, 740, 20, "Scenario analysis for an outbreak"), _text(72, 716, 20, "on a university campus")]
    ops += [_text(72, 680 - 14 * i, 10, f"We model the spread of the virus among {100 + i} students in a term.")
            for i in range(8)]
    ops.append(_text(72, 540, 14, "Methods"))
    ops += [_text(72, 520 - 14 * i, 10, f"Each of {i + 2} scenarios was run a thousand times.") for i in range(8)]
    doc = load_document(_raw_pdf(tmp_path / "campus.pdf", ops))
    assert "Scenario analysis for an outbreak on a university campus" in doc.text  # one line now
    assert doc.title == "Scenario analysis for an outbreak on a university campus"
    assert [s.path for s in doc.sections] == [("Methods",)]  # the title is no section, nor half of it


def test_a_margin_label_is_a_line_of_its_own(tmp_path: Path) -> None:
    # A CV layout with its section labels in a left column, each on the baseline of the first line of the
    # text it labels: PDFium reads "Education Sorbonne University" as one line, so the label was never a
    # heading and the degrees went under the section before ("Interests"). A date column beside its entries
    # and a label with its colon stay as they were.
    ops = [_text(50, 740, 10, "Research"), _text(140, 740, 10, "I study how networks of neurons compute behaviour.")]
    ops += [_text(140, 726 - 14 * i, 10, f"Light-sheet imaging of larval zebrafish, part {i}.") for i in range(3)]
    ops += [_text(50, 670, 10, "Education"), _text(140, 670, 10, "Northfield University"),
            _text(140, 656, 10, "PhD student in neuroscience, 2020 - 2024")]
    ops += [_text(50, 620, 10, "Employment"), _text(140, 620, 10, "National Centre for Research"),
            _text(140, 606, 10, "Postdoctoral researcher, 2025 - present")]
    ops += [_text(50, 570, 10, "2019 - 2021"), _text(140, 570, 10, "Research assistant, Eastfield Lab")]
    ops += [_text(50, 540, 10, "Location:"), _text(140, 540, 10, "Saclay, France")]
    doc = load_document(_raw_pdf(tmp_path / "cv.pdf", ops))
    assert "Education\nNorthfield University" in doc.text and "Employment\nNational Centre" in doc.text
    paths = [s.path for s in doc.sections]
    assert ("Education",) in paths and ("Employment",) in paths
    education = next(s for s in doc.sections if s.path == ("Education",))
    assert "PhD student in neuroscience" in doc.text[education.start:education.end]
    assert "Postdoctoral" not in doc.text[education.start:education.end]
    assert "2019 - 2021 Research assistant, Eastfield Lab" in doc.text  # a date column is no label
    assert "Location: Saclay, France" in doc.text  # a label with a colon says where it ends


def test_bold_headings_a_small_step_larger_are_headings(tmp_path: Path) -> None:
    # A CV set in 11 pt with its section headings in 12 pt bold (1.09 times the body, under the 1.15 a plain
    # heading needs): "Degrees" and "Academic Appointments" were no headings, and the degrees went under the
    # name. Its entries' first lines in the same bold style carry dates, so in a CV that sets them so (the
    # second one) that style is no heading style.
    def cv(headings: list[tuple[str, list[str]]]) -> list[str]:
        ops, y = [_text(72, 760, 16, "Jordan Smith", "F2")], 730
        for heading, lines in headings:
            ops.append(_text(72, y, 12, heading, "F2"))
            y -= 18
            for line in lines:
                ops.append(_text(72, y, 11, line))
                y -= 14
            y -= 10
        return ops

    sections = [("Degrees", ["PhD (Statistics) 1989, Eastfield State University", "MS (Statistics) 1985, Eastfield"]),
                ("Academic Appointments", ["Northfield University. Professor of Statistics, 1998-2024.",
                                           "Northfield University. Assistant Professor, 1990-1998."]),
                ("Honors and Awards", ["Teaching award, Northfield University, 1999.", "Best paper award, 2002."])]
    doc = load_document(_raw_pdf(tmp_path / "cv.pdf", cv(sections)))
    assert [s.path for s in doc.sections] == [("Degrees",), ("Academic Appointments",), ("Honors and Awards",)]
    degrees = doc.sections[0]
    assert "PhD (Statistics) 1989" in doc.text[degrees.start:degrees.end]
    entries = [("Experience", []), ("Professor of Statistics (2020 - )", ["Taught statistics and led a lab."]),
               ("Lecturer (2012 - 2020)", ["Taught probability."]), ("Education", []),
               ("PhD in Statistics (2012)", ["Thesis on the bootstrap."])]
    doc = load_document(_raw_pdf(tmp_path / "entries.pdf", cv(entries)))
    titles = [s.path[-1] for s in doc.sections]
    assert titles[-2:] == ["Experience", "Education"] and not any("(" in t for t in titles), titles  # no entry


def test_a_docx_laid_out_in_a_table_is_read_cell_by_cell(tmp_path: Path) -> None:
    # Many Word CV templates set each section's label in one table cell and its entries, paragraph by
    # paragraph, in the next: read as one line per row ("Education | Northfield University PhD in ...
    # 2015 - 2020 Acme ..."), the entries ran together and the section was no heading. A table of data
    # (one short value per cell) keeps a line per row.
    import docx

    d = docx.Document()
    d.add_heading("Jane Roe", level=0)
    layout = d.add_table(rows=2, cols=2)
    for row, (label, entries) in zip(layout.rows, [
            ("Education", ["Northfield University", "PhD in Physics, 2015 - 2020", "Advisor: Prof. Ann Lee"]),
            ("Experience", ["Acme Labs", "Research Scientist, 2021 - present"])], strict=True):
        row.cells[0].paragraphs[0].text = label
        row.cells[0].paragraphs[0].style = d.styles["Heading 1"]
        row.cells[1].paragraphs[0].text = entries[0]
        for entry in entries[1:]:
            row.cells[1].add_paragraph(entry)
    languages = d.add_table(rows=2, cols=2)
    for row, values in zip(languages.rows, [("French", "fluent"), ("German", "basic")], strict=True):
        row.cells[0].text, row.cells[1].text = values
    path = tmp_path / "roe.docx"
    d.save(str(path))
    doc = load_document(path)
    assert "Northfield University\n\nPhD in Physics, 2015 - 2020" in doc.text  # a line per paragraph
    education = next(s for s in doc.sections if s.path[-1] == "Education")
    assert "PhD in Physics" in doc.text[education.start:education.end]
    assert "Research Scientist" not in doc.text[education.start:education.end]
    assert any(s.path[-1] == "Experience" for s in doc.sections)
    assert "French | fluent" in doc.text and "German | basic" in doc.text
    assert doc.owner == "Jane Roe"


def test_a_docx_content_control_is_read(tmp_path: Path) -> None:
    # Templates wrap sections in content controls (w:sdt); their paragraphs were skipped, text and all.
    import docx
    from docx.oxml.ns import qn
    from docx.oxml.parser import OxmlElement

    d = docx.Document()
    d.add_paragraph("Jane Roe, research scientist.")
    wrapped = d.add_paragraph("She built the telescope's cooling system in 2019.")
    sdt, content = OxmlElement("w:sdt"), OxmlElement("w:sdtContent")
    wrapped._p.addprevious(sdt)
    sdt.append(content)
    content.append(wrapped._p)
    assert d.element.body.find(qn("w:sdt")) is not None
    path = tmp_path / "roe.docx"
    d.save(str(path))
    assert "cooling system in 2019" in load_document(path).text


def _paper(numbers: list[str]) -> str:
    body = "We describe the method in enough words to make a paragraph of body text here.\n" * 3
    return "\n".join(f"{n} {title}\n{body}" for n, title in zip(numbers, [
        "Introduction", "Method", "Data sources", "Model", "Results", "Discussion"], strict=False))


def test_numbered_section_headings_of_a_paper_are_sections() -> None:
    # Papers number their sections in the body font ("2 Method", "2.1 Data sources", "IV. EVALUATION"): no
    # font marks them, so a paper read as one section ("REFERENCES" its only heading) gave citations no section.
    from ingest.structure import detect_sections

    text = _paper(["1", "2", "2.1", "2.2", "3", "4"])
    paths = [s.path for s in detect_sections(text)]
    assert paths == [("1 Introduction",), ("2 Method",), ("2 Method", "2.1 Data sources"), ("2 Method", "2.2 Model"),
                     ("3 Results",), ("4 Discussion",)]
    roman = _paper(["I.", "II.", "A.", "B.", "III.", "IV."])
    assert [s.path[-1] for s in detect_sections(roman)] == ["I. Introduction", "II. Method", "A. Data sources",
                                                            "B. Model", "III. Results", "IV. Discussion"]
    # a numbered list, a table of contents, a CV's numbered publications and two numbers are no headings
    listed = "Inclusion criteria\n1. Adults aged over eighteen\n2. Signed consent\n3. Normal kidney function\n"
    contents = "Contents\n1 Introduction 3\n2 Method 5\n3 Results 9\n"
    papers = "".join(f"{n}. Roe, J. and Poe, E. A study of things number {n}.\nMore text follows here.\n"
                     for n in (1, 2, 3))
    two = _paper(["1", "2"])
    for text in (listed, contents, papers, two):
        assert detect_sections(text) == (), text
    # a file repeating "1 Apple" between other lines: a bounded number of starts, each read once
    repeated = "1 Apple\nsome text of the section\n" * 20000 + _paper(["1", "2", "3"])
    assert [s.path for s in detect_sections(repeated)][-3:] == [("1 Apple",), ("2 Method",), ("3 Data sources",)]


def test_a_docx_header_and_text_boxes_are_read(tmp_path: Path) -> None:
    # Word CV templates put the name and contact lines in the page header or in text boxes, which were not
    # read: the CV had no owner and no address. A box Word wrote twice (for new and old readers) is read once.
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "Jane Roe"
    d.sections[0].header.add_paragraph("jane.roe@example.org")
    d.add_heading("Education", level=1)
    anchor = d.add_paragraph("PhD in Physics, Northfield University, 2015 - 2020")
    box = ('<w:p><w:r><w:t>Languages: French, German</w:t></w:r></w:p>')
    anchor._p.append(parse_xml(
        '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent>'
        f'<mc:Choice Requires="wps"><w:drawing><w:txbxContent>{box}</w:txbxContent></w:drawing></mc:Choice>'
        f'<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent>{box}</w:txbxContent></v:textbox></v:shape>'
        '</w:pict></mc:Fallback></mc:AlternateContent></w:r>'))
    d.add_paragraph("Research scientist at Acme Labs since 2021.")
    path = tmp_path / "cv.docx"
    d.save(str(path))
    doc = load_document(path)
    assert doc.text.startswith("Jane Roe")
    assert "jane.roe@example.org" in doc.text
    assert doc.text.count("Languages: French, German") == 1
    assert doc.text.index("Northfield") < doc.text.index("Languages") < doc.text.index("Acme Labs")
    assert doc.owner == "Jane Roe"


# -- cleaning ---------------------------------------------------------------------------------------
JUNK = {
    "icon glyphs": r"[□■™®\ue000-\uf8ff]",
    "letters from a normalised ™": r"\| TM ",
    "heading rules": r"(?m)[ \t]_+[ \t]*$",
    "LaTeX commands": r"\\[A-Za-z]+",
    "math delimiters": r"\$",
    "HTML tags": r"</?(?:i|b|em|strong)>",
    "page furniture": r"Résumé \d",
    "double bullets": r"(?m)^- [·•]",
    "markdown bold": r"\*\*",
    "quote markers": r"(?m)^> ",
}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeds_clean_without_junk(seeds, seed: str) -> None:
    text = seeds[seed].text
    found = {name: re.findall(p, text)[:3] for name, p in JUNK.items() if re.search(p, text)}
    assert not found, found


def test_cleaning_examples_and_char_map() -> None:
    src = "Educa-\ntion _\nPh.D., $GPA \\ 4.0/4.0$ <i>Austin</i> \\circ done\n□ (+1) 555 | ™ me@x.org ﬁne\n"
    c = clean_text(src)
    assert c.text.splitlines()[0] == "Education"
    assert "GPA 4.0/4.0" in c.text and "<i>" not in c.text and "\\circ" not in c.text
    assert "□" not in c.text and "™" not in c.text and "TM" not in c.text and "fine" in c.text
    assert len(c.char_map) == len(c.text)
    # Characters a rule keeps point at themselves in the source.
    i = c.text.index("Austin")
    assert src[c.char_map[i] : c.char_map[i + 5] + 1] == "Austin"
    # a word hyphenated across a line: PDF text layers leave U+FFFE (or a soft hyphen) where the hyphen was
    split = "large Lan\ufffeguage Models; Ser\ufffevices; soft\u00adware"
    c = clean_text(split)
    assert c.text == "large Language Models; Services; software" and len(c.char_map) == len(c.text)
    assert split[c.char_map[c.text.index("guage")]:][:5] == "guage"


def test_prices_are_no_math_but_math_is() -> None:
    """A report writes two prices on a line; the cleaner read "$892.7 million. The request is $" as TeX math and
    dropped both dollar signs ("is 892.7 million ... is527.8 million"). Math opens on a character and closes after
    one, with no digit after it, as Pandoc reads it; math keeps losing its delimiters."""
    for src in ("The request is $892.7 million. The request is $527.8 million less (-37%).",
                "| FY2023 | 716 | $1 billion | $5.4 billion (540%) |", "It cost $5-$10 then."):
        assert clean_text(src).text == src
    for src, text in (("sped up 5.13$\\times$ on average", "sped up 5.13× on average"),
                      ("only $O(n)$ integer variables", "only O(n) integer variables"),
                      ("- $\\bullet \\ \\ \\text{Proposed subgradient optimization}$", "- Proposed subgradient optimization")):
        assert clean_text(src).text == text, src


def test_emphasis_written_with_underscores_is_markup_but_a_words_own_underscores_are_not() -> None:
    """A CV wrote "__AWS Certified Solutions Architect__ _Professional_": underscores are word characters, so
    "__AWS" was a word of its own, and "Which AWS certification does he hold?" was refused for a passage that "does
    not mention AWS". Strong emphasis written with underscores is markup, as "**" is; snake_case, a C macro in double
    underscores, a URL's and single underscores stay as written."""
    for src, text in (("__AWS Certified Solutions Architect__ _Professional_", "AWS Certified Solutions Architect _Professional_"),
                      ("(__see below__).", "(see below)."), ("was __in addition to__ the normal", "was in addition to the normal")):
        assert clean_text(src).text == text, src
    for src in ("call __init__ with ASN1_MAX_NAME_SIZE or my_file_name", "defined(__CYGWIN__) || defined(WIN32)",
                "using __NOGLOBS__ as the pattern", "https://example.org/__a b__/", "_B.A. Computer Science_ 2004"):
        assert clean_text(src).text == src
    cleaned = clean_text("__AWS Certified__ x")
    assert [cleaned.char_map[i] for i in (0, len("AWS Certified "))] == [2, len("__AWS Certified__ ")]


def test_quotes_map_back_to_the_source(seeds) -> None:
    doc = seeds["000"]
    for phrase in ("Amazon Web Services", "suffix arrays", "Concrete Autoencoders"):
        i = doc.text.index(phrase)
        a, b = doc.source_span(i, i + len(phrase))
        assert doc.source[a:b] == phrase


# -- structure, titles, owners ----------------------------------------------------------------------
def test_selected_publications_is_a_section(seeds) -> None:
    doc = seeds["002"]
    i = doc.text.index("Clover: Toward Sustainable AI")
    assert doc.section_at(i).path == ("Selected Publications",)


def test_titles(seeds) -> None:
    assert seeds["000"].title == "Muhammed Fatih Balin"
    assert seeds["001"].title == "Burak Bartan"
    # 002 opens with "Education": its title comes from its owner, not the file name.
    assert seeds["002"].title == "Baolin Li"


def test_seed_owners(seeds) -> None:
    assert {k: d.owner for k, d in seeds.items()} == {
        "000": "Muhammed Fatih Balin", "001": "Burak Bartan", "002": "Baolin Li"
    }
    assert all(c.owner == "Baolin Li" for c in chunk_document(seeds["002"]))


def test_no_owner_for_documents_not_about_one_person(tmp_path: Path) -> None:
    article = tmp_path / "article.txt"
    article.write_text(
        "Fast Repair of Erasure Codes\n\nAda Quillfeather, Bo Tran, Carla Diaz\n\nAbstract\n\n"
        "Erasure codes save storage but repair is slow. We show a repair scheme that reads less data.\n\n"
        "Introduction\n\nStorage Systems grow. Data Centers replace disks every day.\n"
    )
    assert load_document(article).owner is None
    annual = tmp_path / "report.txt"
    annual.write_text("Annual Report\n\nThe year saw growth in every region. Revenue rose by a tenth.\n")
    assert load_document(annual).owner is None


def test_no_owner_for_cranfield_abstracts(tmp_path: Path) -> None:
    corpus = require_shared(CRANFIELD / "corpus.jsonl")
    with open(corpus) as f:
        docs = [json.loads(next(f)) for _ in range(20)]
    for d in docs:
        p = tmp_path / f"{d['_id']}.txt"
        p.write_text(d["title"] + "\n\n" + d["text"])
        assert load_document(p).owner is None, d["_id"]


def test_owner_of_a_pdf_cv(tmp_path: Path) -> None:
    doc = load_document(write_pdf(tmp_path / "cv.pdf", SAMPLE))
    assert doc.owner == "Ada Quillfeather"


# -- names and publications -------------------------------------------------------------------------
def test_names_match() -> None:
    full = "Muhammed Fatih Balin"
    for v in ("M. F. Balin", "Fatih Balin", "Balin", "MF Balin", "Balin, M. F.", "M. Fatih Balin", "muhammed fatih balin"):
        assert names_match(v, full), v
    for v in ("A. Balin", "Fatih Baldwin", "Muhammed Fatih", "Baolin Li"):
        assert not names_match(v, full), v
    assert names_match("José Núñez", "Jose Nunez")
    variants = name_variants(full)
    assert variants[0] == full and {"M. F. Balin", "Fatih Balin", "Balin"} <= set(variants)
    assert all(names_match(v, full) for v in variants)


def test_publications_of_the_seeds(seeds) -> None:
    p0 = parse_publications(seeds["000"].text)
    assert len(p0) == 9
    ca = next(p for p in p0 if p.title.startswith("Concrete Autoencoders"))
    assert ca.year == 2019 and "M. F. Balin" in ca.authors and "ICML" in (ca.venue or "")
    assert seeds["000"].text[ca.start : ca.end].count("Concrete Autoencoders") == 1

    p1 = parse_publications(seeds["001"].text)
    assert len(p1) == 14
    polar = next(p for p in p1 if p.title.startswith("Randomized Polar Codes"))
    assert polar.authors == ("Burak Bartan", "Mert Pilanci") and polar.year == 2023

    p2 = parse_publications(seeds["002"].text)
    assert len(p2) >= 12
    ribbon = next(p for p in p2 if p.title.startswith("Ribbon"))
    assert ribbon.year == 2021 and ribbon.authors[0] == "Baolin Li"
    assert (ribbon.venue or "").startswith("Proceedings of the 2021 ACM/IEEE")
    for p in p0 + p1 + p2:
        assert p.title in seeds_text(seeds) and all(a in seeds_text(seeds) for a in p.authors)


def seeds_text(seeds) -> str:
    return "\n".join(d.text for d in seeds.values())


def test_publications_other_shapes() -> None:
    apa = "Smith, J., & Doe, A. B. (2020). A study of things. Journal of Stuff, 3(2)."
    (p,) = parse_publications(apa)
    assert p.authors == ("J. Smith", "A. B. Doe") and p.year == 2020 and p.title == "A study of things."
    assert parse_publications("The weather was fine, and we walked home.\nNothing else happened.") == []


# -- chunking ---------------------------------------------------------------------------------------
def test_a_chunk_does_not_end_with_the_heading_of_the_next_list(tmp_path: Path) -> None:
    # "PhD Students Directed" (a heading no font marked, between blank lines) ended one chunk and its list
    # began the next: the list's chunk never said what it lists, and the heading's chunk answered nothing.
    courses = "\n\n".join(f"Taught course {c}: Algebra, Geometry and Calculus for Business." for c in "ABCDEFG")
    students = "\n\n".join(f"{n} Roe. Summer 2005. Dissertation title: Models of things number {i}."
                           for i, n in enumerate(("Ann", "Bob", "Cid", "Dee", "Eve")))
    path = tmp_path / "cv.txt"
    path.write_text(f"Teaching\n\n{courses}\n\nPhD Students Directed\n\n{students}\n", encoding="utf-8")
    doc = load_document(path)
    chunks = chunk_document(doc)
    assert len(chunks) > 1
    assert not any(c.text.rstrip().endswith("PhD Students Directed") for c in chunks)
    assert any(c.text.startswith("PhD Students Directed\n\nAnn Roe") for c in chunks)
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)


def test_a_table_stays_one_chunk_with_the_header_that_names_its_columns(tmp_path: Path) -> None:
    """A report's Markdown table: a header row of long column names (longer than a line a paragraph wraps at),
    then a row per year. Its rows went to a chunk of their own, numbers without the names of their columns,
    which no question about them found. A table up to twice the chunk size is now one chunk; a longer one is
    split as any long block is."""
    from ingest.chunk import DEFAULT_CHUNK_SIZE, TABLE_CHUNK

    header = ("| Fiscal Year | Number of Applications Selected for Funding | Number and Percentage of Applications "
              "Obligated | Amount Available in the Notice of Funding Opportunity | Amount Requested |")
    rows = "\n".join(f"| FY{2020 + i} | {380 + 90 * i} | {353 - 40 * i} ({93.9 - 20 * i:.1f}%) | ${i + 1} billion | "
                     f"${3 + i}.1 billion ({620 - 90 * i}%) |" for i in range(8))
    prose = "The program funded mitigation projects across the states in each of these years. " * 6
    path = tmp_path / "report.md"
    path.write_text(f"# Grants\n\n{prose}\n\nTable 1. Obligations by year\n\n{header}\n{rows}\n\n{prose}\n")
    doc = load_document(path)
    chunks = chunk_document(doc)
    table = [c for c in chunks if "FY20" in c.text]
    assert len(table) == 1 and header in table[0].text and "| FY2027 |" in table[0].text, [c.text[:80] for c in table]
    assert DEFAULT_CHUNK_SIZE < len(header) + len(rows) <= DEFAULT_CHUNK_SIZE * TABLE_CHUNK
    assert table[0].text.startswith("Table 1. Obligations by year") and "$3 billion" in table[0].text
    # a table longer than that is split as a long block is
    path.write_text(f"# Grants\n\n{header}\n" + "\n".join([rows] * 4) + "\n")
    assert len([c for c in chunk_document(load_document(path)) if "FY20" in c.text]) > 1


def test_chunks_are_exact_slices_inside_one_section(seeds) -> None:
    for doc in seeds.values():
        chunks = chunk_document(doc)
        assert chunks
        for c in chunks:
            assert c.text == doc.text[c.start : c.end]
            inner = [s for s in doc.sections if len(s.path) == 1 and c.start < s.start < c.end]
            assert not inner, (c.section, inner)


def test_cv_entries_stay_whole(seeds) -> None:
    # Seed 000 puts every line in its own paragraph: the entry must still be one chunk.
    doc = seeds["000"]
    for head, tail in [("Georgia Institute of Technology", "Aug. 2019 - PRESENT"),
                       ("Baykar Technologies Istanbul", "Implemented a library using suffix arrays")]:
        c = next(c for c in chunk_document(doc) if head in c.text and tail in doc.text[c.start : c.end + 400])
        assert tail in c.text, c.text


def test_paper_head_goes_with_its_abstract(seeds) -> None:
    chunks = chunk_document(seeds["001"])
    c = next(c for c in chunks if "Randomized Polar Codes for Anytime" in c.text)
    assert "Burak Bartan, Mert Pilanci" in c.text and "We present a novel distributed computing" in c.text


def test_a_heading_alone_goes_with_what_follows_and_a_rule_is_no_chunk(tmp_path: Path) -> None:
    # An HTML CV (one heading per line: employer, job title, dates) and a Markdown one (a section heading right
    # above its first entry's, rules between sections): no chunk is a heading or a rule alone, and a chunk is
    # in the section its text goes on in.
    f = tmp_path / "cv.html"
    f.write_text("<html><body><h1>Jane Roe</h1><h2>Experience</h2><h3>Acme Robotics</h3><h4>Senior Engineer</h4>"
                 "<h5>2011-</h5><p>Built the robot arm controller and its test rig.</p>"
                 "<h3>Initech</h3><h4>Software Engineer</h4><h5>2005-2011</h5><p>Wrote billing software.</p>"
                 "</body></html>")
    chunks = chunk_document(load_document(f))
    job = next(c for c in chunks if "Built the robot arm" in c.text)
    assert "Senior Engineer" in job.text and "2011-" in job.text and "Acme Robotics" in job.text, job.text
    assert job.section.endswith("Senior Engineer > 2011-"), job.section
    assert not [c for c in chunks if c.section and c.text.strip() == c.section.split(" > ")[-1]], chunks
    md = tmp_path / "cv.md"
    thesis = "A long paragraph about the thesis and its proofs. " * 12
    md.write_text("# Jane Roe\n\n## Education\n\n### PhD in Physics, 2015\nUniversity of Somewhere\n\n"
                  f"{thesis}\n\n---\n\n## Awards\n\n- Best Paper Award, 2014\n")
    doc = load_document(md)
    chunks = chunk_document(doc)
    phd = next(c for c in chunks if "PhD in Physics" in c.text)
    assert "## Education" in phd.text and phd.section == "Jane Roe > Education > PhD in Physics, 2015", phd.section
    assert not [c for c in chunks if not any(ch.isalnum() for ch in c.text)]
    assert all(c.text == doc.text[c.start:c.end] for c in chunks)


def test_publications_are_not_split(seeds) -> None:
    doc = seeds["002"]
    spans = chunk_spans(doc)
    for p in parse_publications(doc.text):
        assert any(a <= p.start and p.end <= b for a, b in spans), p.title


def test_long_sections_split_on_sentences_with_overlap(tmp_path: Path) -> None:
    sentences = [f"Sentence number {i} talks about replica {i % 7} and repair." for i in range(80)]
    f = tmp_path / "long.txt"
    f.write_text("Results\n\n" + " ".join(sentences) + "\n")
    doc = load_document(f)
    chunks = chunk_document(doc, size=400, overlap=80)
    assert len(chunks) > 5
    for c in chunks:
        assert len(c.text) <= 400 * 1.5
        assert c.text.endswith(".") or c.text.endswith("Results")
    assert any(a.end > b.start for a, b in zip(chunks, chunks[1:], strict=False))  # overlap


def test_spans_unique_and_advancing_on_tokenised_lowercase_text(tmp_path: Path) -> None:
    # Cranfield-style text: lowercase, " . " between sentences, a short first sentence.
    body = "author generalizes lees's (amr 10(1957), rev. 2601) theory . " + " ".join(
        f"the pressure on body {i} rises with the angle of attack ." for i in range(60)
    )
    f = tmp_path / "c.txt"
    f.write_text("generalised-newtonian theory .\n\n" + body + "\n")
    doc = load_document(f)
    for size in (300, 400, 800):
        spans = chunk_spans(doc, size, size // 6)
        assert len(spans) == len(set(spans))
        assert all(b[1] > a[1] and b[0] > a[0] for a, b in zip(spans, spans[1:], strict=False))
        assert all(e - s <= size * 1.5 for s, e in spans)


def test_owner_from_recurring_author_and_not_from_a_tie(tmp_path: Path) -> None:
    entries = "\n".join(
        f"- {a}, \"Paper number {i} on storage\", Conference {i}, 20{10 + i}."
        for i, a in enumerate(["Ada Quillfeather, Bo Tran", "A. Quillfeather, Carla Diaz", "Dan Eck, Ada Quillfeather",
                               "A. Quillfeather", "Ada Quillfeather, Bo Tran, Fay Gil"])
    )
    cv = tmp_path / "pubs.txt"
    cv.write_text(f"Publications\n\n{entries}\n\nEducation\n\nUniversity of Somewhere, 2019.\n")
    assert load_document(cv).owner == "Ada Quillfeather"
    # Seed 002 without its bold marks: Baolin Li and his advisor co-author equally often -> no guess.
    plain = tmp_path / "002-plain.txt"
    plain.write_text(SEEDS["002"].read_text().replace("**", ""))
    assert load_document(plain).owner is None


def test_deeply_nested_html_and_tables(tmp_path: Path) -> None:
    f = tmp_path / "deep.html"
    f.write_text("<html><body>" + "<div>" * 5000 + "<p>Deep text.</p>" + "</div>" * 5000
                 + "<table><tr><th>Year</th><th>Award</th></tr><tr><td>2019</td><td>Best Paper</td></tr></table>"
                 + "</body></html>")
    doc = load_document(f)
    assert "Deep text." in doc.text and "2019 | Best Paper" in doc.text


def test_html_headings_lose_their_permalinks(tmp_path: Path) -> None:
    f = tmp_path / "policy.html"  # as Sphinx and MkDocs write every heading
    f.write_text('<html><body><h2>2.2. Unversioned commands<a class="headerlink" href="#unversioned" '
                 'title="Permalink to this heading">¶</a></h2><p>Install python-is-python3.</p>'
                 '<p>See <a href="#x">the table</a>.</p></body></html>', encoding="utf-8")
    doc = load_document(f)
    assert "¶" not in doc.text and "2.2. Unversioned commands\n" in doc.text and "See the table." in doc.text
    assert any(s.title == "2.2. Unversioned commands" for s in doc.sections), doc.sections


def test_later_pieces_of_a_long_entry_carry_its_head(seeds) -> None:
    chunks = chunk_document(seeds["001"])
    pieces = [c for c in chunks if "KForge: LLM-Driven" in c.embed_text()]
    assert len(pieces) >= 2
    assert pieces[0].entry == "" and "KForge: LLM-Driven" in pieces[0].text
    assert all(p.entry.startswith("KForge: LLM-Driven") for p in pieces[1:])
    assert all(p.entry in p.context for p in pieces[1:])


def test_paragraphs_on_consecutive_lines_are_separate_blocks(seeds) -> None:
    # Seed 002 lists its jobs one long line each, with no blank lines: a chunk starts at a job, or
    # continues one job (its head in `entry`) without running into the next.
    job = re.compile(r"(Summer \d{4}|\d{4}–\d{4}) ")
    chunks = [c for c in chunk_document(seeds["002"]) if c.section == "Work Experience"]
    assert len(chunks) >= 3
    for c in chunks:
        first = c.text.split("\n")[1 if c.text.startswith("Work Experience") else 0]
        if c.entry:
            assert job.match(c.entry) and not job.search(c.text), (c.entry, c.text[:80])
        else:
            assert job.match(first), first


def test_raw_html_in_markdown_is_markup_not_text(tmp_path: Path) -> None:
    """A Markdown CV's raw HTML: the tags, their attributes and comments are not indexed (a spam-proofed
    `href`, an entry the writer commented out), the text between the tags is, and so is HTML shown as
    code. Offsets are kept: the parsed text is as long as the file's."""
    from ingest.markdown_render import strip_html

    source = ('# Jane Roe\n\n<a href="mailto:jx.rxoe@exxample.org"\n    onmouseover="this.href=this.href.replace(/x/g,\'\');">'
              "j.roe@example.org</a><br/>\n\n## Experience\n\n**Data Scientist, Acme** (2017-2018)\n\n"
              "<!---\n**Test Prep Instructor, Kaplan** (2011-2012)\n-->\n\n<table><tr><td>Room 6126</td></tr></table>\n\n"
              "Write `<div>` for a block:\n\n```html\n<p>kept as code</p>\n```\n\n"
              "References: <Ada Roe, Some Book, 1991>\n")
    stripped = strip_html(source)
    assert len(stripped) == len(source) and stripped.count("\n") >= source.count("\n")
    path = tmp_path / "roe_cv.md"
    path.write_text(source, encoding="utf-8")
    text = load_document(path).text
    assert "j.roe@example.org" in text and "Room 6126" in text and "Data Scientist, Acme" in text
    for hidden in ("jx.rxoe", "onmouseover", "Kaplan", "<td>", "<table>", "<br/>"):
        assert hidden not in text, hidden
    assert "`<div>`" in text and "<p>kept as code</p>" in text  # code is what the writer means
    assert "<Ada Roe, Some Book, 1991>" in text  # angle brackets around a citation are no tag


def test_template_tags_of_a_markdown_page_are_not_text(tmp_path: Path) -> None:
    """A Jekyll CV page holds Liquid tags that the site generator replaces when it renders the page ("CV: {%
    include archive-single-cv.html %}", quoted as the answer to a question about supervisors at 93 %), and a
    Hugo page shortcodes; neither is indexed, code keeps them, offsets are kept."""
    from ingest.markdown_render import strip_templates

    source = ("# Jane Roe\n\nCV: {% include archive-single-cv.html %}\n\nMail: {{ site.author.email }}\n\n"
              "{{< figure src=\"me.png\" >}}\n\n{%- if page.x -%}\nPhD, Some University, 2019\n{%- endif -%}\n\n"
              "Use `{{ name }}` in a template:\n\n```\n{% for x in y %}\n```\n")
    stripped = strip_templates(source)
    assert len(stripped) == len(source) and stripped.count("\n") == source.count("\n")
    path = tmp_path / "roe_cv.md"
    path.write_text(source, encoding="utf-8")
    text = load_document(path).text
    for hidden in ("include archive", "site.author", "figure src", "page.x", "endif"):
        assert hidden not in text, hidden
    assert "PhD, Some University, 2019" in text and "`{{ name }}`" in text and "{% for x in y %}" in text


def test_a_definition_lists_term_and_definition_are_one_line(tmp_path: Path) -> None:
    """A Pandoc-style Markdown CV writes each entry as a definition list ("2014-" / ": Associate Professor,
    ..."), which a renderer sets side by side; read apart, the date says nothing and the entry has no date,
    so a question about the present got "2014-" for its answer. The two are one line now; a second
    definition and code stay as they are."""
    from ingest.markdown_render import join_definitions

    text = "2014-\n: Associate Professor, Some University\n: Chair\n\n```\nx\n: y\n```\n"
    joined = join_definitions(text)
    assert joined == "2014- : Associate Professor, Some University\n: Chair\n\n```\nx\n: y\n```\n" and len(joined) == len(text)
    path = tmp_path / "roe_cv.md"
    path.write_text("# Jane Roe\n\n## Employment\n\n2014-\n: Associate Professor of Sociology, Some University\n\n"
                    "2007-2014\n: Assistant Professor of Sociology, Other University\n", encoding="utf-8")
    assert "2014- : Associate Professor of Sociology, Some University" in load_document(path).text


def test_front_matter_addresses_are_text_the_rest_is_not(tmp_path: Path) -> None:
    """A site's template shows the e-mail and web address of a CV's front matter in the page's header, so those
    lines are indexed where they stand; the rest of the front matter (layout, template, bibliography files) is
    not, and neither is the title's key: the title is the front matter's title."""
    path = tmp_path / "roe_cv.md"
    path.write_text('---\ntitle: "Curriculum Vitae"\nauthor: "Jane Roe"\nemail: jroe@example.org\nlayout: cv\n'
                    'bibliography: main.bib\nwebsite: "https://jroe.example.org"\n---\n\n# Experience\n\n'
                    "Associate Professor, Some University, 2015-present\n", encoding="utf-8")
    doc = load_document(path)
    assert "email: jroe@example.org" in doc.text and 'website: "https://jroe.example.org"' in doc.text
    assert "layout" not in doc.text and "main.bib" not in doc.text and "title:" not in doc.text
    assert doc.title == "Curriculum Vitae — Jane Roe" and doc.owner == "Jane Roe"


def test_a_papers_byline_from_front_matter_is_text(tmp_path: Path) -> None:
    """A JOSS or Quarto paper keeps its authors and their affiliations in front matter, which its rendered first
    page prints under the title: a line per author, with the affiliations their indices (or ids) point to, is
    indexed where the front matter stood, so "Which institutions is the first author affiliated with?" has a
    passage to answer from. A paper stays nobody's document, and a CV's single `author:` stays a property."""
    path = tmp_path / "paper.md"
    path.write_text('---\ntitle: "toolbox: a package"\nauthors:\n  - name: Jane Roe\n    orcid: 0000-0002-1219-0310\n'
                    '    affiliation: "1, 2"\n  - name: Jo Bloggs\n    affiliation: 2\n  - name:\n      given: Ann\n'
                    '      family: Lee\n    affiliations:\n      - ref: ox\naffiliations:\n'
                    '  - name: University of Somewhere, Some City\n    index: 1\n  - name: Other Institute\n    index: 2\n'
                    '  - id: ox\n    name: Third College\ndate: 18 August 2020\nbibliography: paper.bib\n---\n\n# Summary\n\n'
                    "The package reads files. It was written in Python by the team.\n", encoding="utf-8")
    doc = load_document(path)
    assert "Jane Roe (affiliation: University of Somewhere, Some City; Other Institute)\n" in doc.text
    assert "Jo Bloggs (affiliation: Other Institute)\n" in doc.text and "Ann Lee (affiliation: Third College)" in doc.text
    assert "orcid" not in doc.text and "paper.bib" not in doc.text and "index:" not in doc.text
    assert doc.text.index("Jane Roe") < doc.text.index("# Summary")  # where the front matter stood
    assert doc.owner is None and doc.title == "toolbox: a package"
    cv = tmp_path / "roe_cv.md"
    cv.write_text('---\ntitle: CV\nauthor: "Jane Roe"\naffiliations:\n  - name: Some University\n---\n\n# Jane Roe\n\n'
                  "Associate Professor, Some University, 2015-present\n", encoding="utf-8")
    assert "affiliation" not in load_document(cv).text


def test_a_bylines_affiliations_from_an_address_list_past_the_corresponding_mark(tmp_path: Path) -> None:
    """ReScience and pandoc-scholar papers list their affiliations under `address` (or `institute`), each with a
    `code`, and mark the corresponding author beside the index ("1,*"): the byline names the places, not "1,*"."""
    text = _text_of(tmp_path / "replication.md",
                    '---\nTitle: "A replication"\nAuthor:\n  - name: Jane Roe\n    affiliation: "1,*"\n'
                    "  - name: Jo Bloggs\n    affiliation: 2\nAddress:\n  - code: 1\n    address: Dept. of Biology, "
                    "University of Somewhere, UK\n  - code: 2\n    address: Other Institute, Paris\n---\n\n"
                    "# Introduction\n\nWe re-ran the model.\n")
    assert "Jane Roe (affiliation: Dept. of Biology, University of Somewhere, UK)\n" in text
    assert "Jo Bloggs (affiliation: Other Institute, Paris)" in text and "1,*" not in text


def test_an_html_papers_byline_kept_as_metadata_is_text(tmp_path: Path) -> None:
    """A page that draws its byline with a script from metadata (Distill's JSON front matter, JSON-LD, the
    Highwire `citation_author` tags of journals and preprint servers) gets it as text under its first heading, as
    a paper's front matter does: "Which company was the author affiliated with?" has a passage. A page whose text
    already names its authors, or whose metadata lists plain names, gets no second byline."""
    distill = _text_of(tmp_path / "article.html",
                       '<html><body><d-front-matter><script type="text/json">{"title": "Memory in RNNs", "authors": '
                       '[{"author": "Jane Roe", "authorURL": "https://x.org", "affiliation": "Acme Ltd"}]}</script>'
                       "</d-front-matter><d-title><h1>Memory in RNNs</h1></d-title><d-byline></d-byline>"
                       "<d-article><p>Recurrent units remember.</p></d-article></body></html>")
    assert distill.startswith("Memory in RNNs\n\nJane Roe (affiliation: Acme Ltd)\n\nRecurrent")
    jsonld = _text_of(tmp_path / "post.html",
                      '<html><head><script type="application/ld+json">{"@context": "https://schema.org", "@graph": '
                      '[{"@type": "ScholarlyArticle", "author": [{"@type": "Person", "name": "Jo Bloggs", "affiliation": '
                      '{"@type": "Organization", "name": "University of Somewhere"}}]}]}</script></head><body>'
                      "<article><h1>A study</h1><p>We measured it.</p></article></body></html>")
    assert "Jo Bloggs (affiliation: University of Somewhere)" in jsonld
    journal = _text_of(tmp_path / "journal.html",
                       '<html><head><meta name="citation_author" content="Roe, Jane">'
                       '<meta name="citation_author_institution" content="Some University">'
                       '<meta name="citation_author" content="Bloggs, Jo"></head><body><main><h1>Results</h1>'
                       "<p>Text.</p></main></body></html>")
    assert "Roe, Jane (affiliation: Some University)\nBloggs, Jo\n" in journal
    shown = _text_of(tmp_path / "shown.html",
                     '<html><head><meta name="citation_author" content="Jane Roe"><meta name="citation_author_institution"'
                     ' content="Some University"><script type="application/ld+json">{"author": ["Jane Roe"]}</script>'
                     "</head><body><main><h1>Results</h1><p>By Jane Roe.</p></main></body></html>")
    assert "affiliation" not in shown


def _text_of(path: Path, content: str) -> str:
    """The text citewise reads from a file of `content` written to `path`."""
    path.write_text(content, encoding="utf-8")
    return load_document(path).text


def test_pandoc_citations_cross_references_and_image_markup_are_not_text(tmp_path: Path) -> None:
    """A JOSS or R Markdown paper cites "[@key]" and refers to figures with "\\ref{figure}"; a renderer prints a
    reference number and a figure number, and of an image its caption alone. Quoted as text they were noise
    ("... smoothed line profile).\\label{figure}](figure_.pdf){width=100%}"). An e-mail in brackets, a handle's
    link "[@jroe](url)" and code stay; every offset is kept."""
    from ingest.markdown_render import strip_pandoc

    text = ("The corona radiata [@menzel2020-NeuroImage] was studied [see @a; @b, p. 3] (Figure \\ref{figure}(b)).\n\n"
            "![(a) Schematic drawing [x]. Peaks with a prominence of 8%.\\label{figure}](figure_.pdf){width=100%}\n\n"
            "Mail [jroe@example.org](mailto:jroe@example.org), follow [@jroe](https://github.com/jroe), run `x [@y]`.\n")
    out = strip_pandoc(text)
    assert len(out) == len(text)
    assert "[@" not in out.replace("[@jroe]", "").replace("[@y]", "") and "\\ref" not in out and "\\label" not in out
    assert "(a) Schematic drawing [x]. Peaks with a prominence of 8%." in out and "figure_.pdf" not in out
    assert "[jroe@example.org](mailto:jroe@example.org)" in out and "[@jroe](https://github.com/jroe)" in out
    assert "`x [@y]`" in out
    path = tmp_path / "paper.md"
    path.write_text(text, encoding="utf-8")
    doc = load_document(path)
    assert "menzel2020" not in doc.text and "The corona radiata" in doc.text and "width=100%" not in doc.text


def test_pandoc_attributes_and_latex_layout_are_not_text(tmp_path: Path) -> None:
    """A CV written for Pandoc lays out its dates with LaTeX and a span's class ("PhD Linguistics \\hfill
    [2004-2009]{.cvfloat}\\"): a renderer prints "PhD Linguistics  2004-2009" on one line. Quoted as text the
    markup came with it. The span's text, a link's label and code stay; every offset is kept."""
    from ingest.markdown_render import strip_pandoc

    text = ("# Education {#edu .unnumbered}\n\nPhD Linguistics & Cognitive Science \\hfill [2004-2009]{.cvfloat}\\\n"
            "*University of Arizona* \\vspace{2mm}\n\nSee [the thesis](https://example.org/t.pdf) and `a \\hfill [b]{.c}`.\n")
    out = strip_pandoc(text)
    assert len(out) == len(text)
    assert "\\hfill" not in out.split("`")[0] and "{.cvfloat}" not in out and "{#edu" not in out and "\\vspace" not in out
    assert "PhD Linguistics & Cognitive Science" in out and "2004-2009" in out and "[2004" not in out
    assert out.splitlines()[2].rstrip().endswith("2004-2009")  # the hard line break's backslash is gone too
    assert "[the thesis](https://example.org/t.pdf)" in out and "`a \\hfill [b]{.c}`" in out
    path = tmp_path / "cv.md"
    path.write_text(text, encoding="utf-8")
    doc = load_document(path)
    assert "cvfloat" not in doc.text and "2004-2009" in doc.text and any(s.title == "Education" for s in doc.sections)


def test_a_macro_of_the_documents_own_latex_template_is_not_text() -> None:
    """A CV written for Pandoc's LaTeX output opens each entry with a macro its template defines ("\\ind 2013. PhD,
    Sociology, McMaster University."): raw TeX, which no other output prints. A control word inside a line, or with
    an argument, is left to the other rules; a backslash in prose or code stays."""
    from ingest.markdown_render import strip_pandoc

    text = ("# Education\n\n\\ind 2013. PhD, Sociology, McMaster University.\n\\toprule\n"
            "A path C:\\Users\\jroe and `\\ind x` stay.\n")
    out = strip_pandoc(text)
    assert len(out) == len(text)
    assert out.splitlines()[2].strip() == "2013. PhD, Sociology, McMaster University." and out.splitlines()[3].strip() == ""
    assert "C:\\Users\\jroe" in out and "`\\ind x`" in out


def test_the_content_front_matter_holds_is_text_as_its_template_prints_it(tmp_path: Path) -> None:
    """A Hugo Academic author page keeps a CV in its front matter (role, interests, degrees), and a Jekyll CV an
    HTML template over a list of jobs in its own: those values are the page's text, as its template prints them
    ("Role: ..." at the top, one line per degree or job in a section after the body), and its settings (a
    boolean, an identifier, a path, an icon's name, a comment) are not."""
    page = tmp_path / "index.md"
    page.write_text("---\n# Display name\nname: Jane Roe\nauthors:\n- admin\nsuperuser: true\nrole: Assistant Professor\n"
                    "organizations:\n- name: Some University\n  url: https://some.example.edu\ninterests:\n- Graph Learning\n"
                    "- Statistics\neducation:\n  courses:\n  - course: PhD in Statistics\n    institution: Some University\n"
                    "    year: 2021\n  - course: MSc in Data Science\n    institution: Other College\n    year: 2017\n"
                    "social:\n- icon: envelope\n  icon_pack: fas\n  link: 'mailto:jroe@example.org'  # a direct link\n"
                    "# - icon: cv\n#   link: files/cv.pdf\nweight: 10\n---\n\nI study learning on graphs.\n", encoding="utf-8")
    doc = load_document(page)
    assert doc.text.startswith("Role: Assistant Professor\n")
    assert "- PhD in Statistics, Some University, 2021\n- MSc in Data Science, Other College, 2017" in doc.text
    assert "# Interests\n- Graph Learning\n- Statistics" in doc.text
    assert doc.text.index("I study learning on graphs.") < doc.text.index("# Organizations")  # after the body
    assert "link: 'mailto:jroe@example.org'" in doc.text and "a direct link" not in doc.text
    for setting in ("admin", "superuser", "True", "envelope", "fas", "files/cv.pdf", "Weight", "Display name"):
        assert setting not in doc.text, setting
    sections = {c.section for c in chunk_document(doc)}
    assert "Education > Courses" in sections and "Interests" in sections

    template = tmp_path / "roe_cv.html"
    template.write_text("---\nname: Jane Roe\nlocation: Some City\nemail: jroe@example.org\nexperience:\n  - start: Jan 2020\n    end: Present\n"
                        "    title: Data Engineer\n    location: Acme Corp\n    items:\n      - Led a team of five\n"
                        "education:\n  - degree: PhD in Physics\n    school: Some University\n---\n<html><head><title>{{ name }}</title></head><body><h1>{{ name }}</h1><h2>Experience</h2>\n"
                        "{% for job in page.experience %}<div><li>{{ job.title }}</li></div>{% endfor %}</body></html>\n",
                        encoding="utf-8")
    doc = load_document(template)
    assert "{{" not in doc.text and "{%" not in doc.text and "\n-\n" not in doc.text
    assert doc.text.startswith("Location: Some City")
    assert "\nJan 2020 – Present, Data Engineer, Acme Corp\n- Led a team of five\n" in doc.text  # a job, its items
    assert "email: jroe@example.org" in doc.text and "- PhD in Physics, Some University" in doc.text
    assert doc.owner == "Jane Roe" and doc.title == "Jane Roe"
    assert any(c.section == "Experience" and "Data Engineer" in c.text for c in chunk_document(doc))

    # a CV kept whole as data in sections of dated items, each with a list of lines (public CV set 10): four levels
    # of nesting down to a job's lines, and a year alone heading them
    deep = tmp_path / "erz_cv.md"
    deep.write_text("---\nname: Jane Roe\noccupation: Postdoc\nsections:\n  - title: Education\n    items:\n"
                    "      - label: 2025\n        text:\n          - \"**PhD in Sociology, Some University**\"\n"
                    "          - \"Supervisors: Ann Lee\"\n  - title: Employment\n    items:\n      - label: Since 2020\n"
                    "        text:\n          - \"**Researcher in Sociology**\"\n          - \"Some University\"\n"
                    "      - label: 2019-20\n        text:\n          - Research Assistant\n          - Other College\n"
                    "---\n\nNothing else.\n", encoding="utf-8")
    text = load_document(deep).text
    assert "2025\n- PhD in Sociology, Some University\n- Supervisors: Ann Lee" in text, text
    assert "Since 2020\n- Researcher in Sociology\n- Some University\n2019-20\n- Research Assistant" in text, text
