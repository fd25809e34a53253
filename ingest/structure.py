"""Section detection: markdown headings, headings marked by rules in the source, and the usual
section names of CVs, profiles and papers. Only one level is detected in plain text; markdown keeps
its `#` levels. Layout cues (font size, bold) are the PDF/DOCX parsers' job; they pass what they
found as `known_headings`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .document import Section

SECTION_NAMES = frozenset(
    s.strip().lower()
    for s in """
    Abstract|About|About Me|Summary|Profile|Contact|Introduction|Background|Conclusion|Conclusions|
    Discussion|Results|Methods|Related Work|References|Bibliography|Acknowledgements|Acknowledgments|
    Appendix|Education|Experience|Work Experience|Professional Experience|Employment|Research Experience|
    Teaching Experience|Teaching|Research|Research Interests|Areas of Interest|Interests|Publications|
    Selected Publications|Papers|Journal Articles|Conference Papers|Preprints|Patents|Awards|
    Honors|Honors & Awards|Honors and Awards|Awards and Honors|Grants|Funding|Fellowships|Skills|
    Technical Skills|Languages|Talks|Invited Talks|Presentations|Service|Services|Professional Service|
    Media|Media Features|Press|Projects|Selected Projects|Open-Source Contributions|Open Source|
    Software|Certifications|Certificates|Activities|Leadership|Volunteering|Mentoring|Students|
    Supervision|References|Memberships|Affiliations|Positions|Academic Positions|Employment History
    """.replace("\n", "").split("|")
    if s.strip()  # (strip: names at the start of a line above used to keep their indentation)
)

_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_LINE = re.compile(r"[^\n]*")


def heading_key(line: str) -> str:
    return re.sub(r"[\s.:_]+$", "", line.strip()).lower()


def detect_sections(
    text: str,
    *,
    markdown: bool = False,
    known_headings: Iterable[str] = (),
    outline: Sequence[tuple[int, str]] = (),
) -> tuple[Section, ...]:
    """Sections of `text` as heading paths with the spans they cover.

    `outline` holds (level, heading) pairs a parser found from styles, tags or font sizes; they are
    matched to lines in order. A lone outermost heading opening the outline is the document's title,
    not a section. Lines that are usual section names ("Education", "Selected Publications") are
    headings at the outermost section level.
    """
    levels = _outline_levels(outline)
    top = min(levels.values(), default=1)
    known = {heading_key(h) for h in known_headings}
    heads: list[tuple[int, int, str]] = []  # (offset, level, title)
    for m in _LINE.finditer(text):
        line = m.group(0).strip()
        if not line or len(line) > 200:
            continue
        key = heading_key(line)
        md = _MD_HEADING.match(line) if markdown else None
        if md:
            heads.append((m.start(), len(md.group(1)), md.group(2).strip()))
        elif key in levels:
            heads.append((m.start(), levels[key], re.sub(r"[\s.:_]+$", "", line)))
        elif len(line) <= 80 and (key in known or key in SECTION_NAMES):
            heads.append((m.start(), top, re.sub(r"[\s.:_]+$", "", line)))
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    for i, (start, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        # A section runs to the next heading of the same or a higher level.
        end = len(text)
        for start2, level2, _ in heads[i + 1 :]:
            if level2 <= level:
                end = start2
                break
        sections.append(Section(path=tuple(t for _, t in stack), start=start, end=end))
    return tuple(sections)


def _outline_levels(outline: Sequence[tuple[int, str]]) -> dict[str, int]:
    """heading key -> level, renumbered from 1, without a lone title heading at the top."""
    items = [(lvl, h) for lvl, h in outline if h.strip()]
    if items:
        lowest = min(lvl for lvl, _ in items)
        tops = [i for i, (lvl, _) in enumerate(items) if lvl == lowest]
        if len(items) > 1 and tops == [0]:
            items = items[1:]
    if not items:
        return {}
    ranks = {lvl: r + 1 for r, lvl in enumerate(sorted({lvl for lvl, _ in items}))}
    out: dict[str, int] = {}
    for lvl, h in items:
        out.setdefault(heading_key(h), ranks[lvl])
    return out


def rule_headings(source: str) -> list[str]:
    """Headings the PDF export marked with a trailing rule: `Education _`, `Honors & Awards _____`."""
    return [m.group(1) for m in re.finditer(r"(?m)^[ \t]*([^\n_]{2,60}?)[ \t]+_+[ \t]*$", source)]
