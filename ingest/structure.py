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
    numbered = {} if markdown else numbered_headings(text)
    # numbered headings nest under the level the parser gave the top numbered ones it found itself
    found = [levels[k] for off, depth in numbered.items() if depth == 0
             and (k := heading_key(_LINE.match(text, off).group(0))) in levels]  # type: ignore[union-attr]
    base = min(found, default=top)
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
        elif m.start() in numbered:
            heads.append((m.start(), base + numbered[m.start()], line))
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


# "2 Method", "2.1 Neural WSD", "3. RESULTS", "IV. EVALUATION", "B. Related Work": a section number, then a
# title that starts with a capital and does not end like a sentence, a list item or a table of contents' entry
_NUMBERED = re.compile(r"^(?:(?P<arabic>\d{1,2}(?:\.\d{1,2}){0,2})\.?|(?P<roman>[IVX]{1,5})\.|(?P<letter>[A-H])\.)"
                       r"[ \t]+(?P<title>[A-Z][^\n]{1,79})$")
_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11,
          "XII": 12, "XIII": 13, "XIV": 14, "XV": 15}
MIN_NUMBERED = 3  # numbered headings count only when the document numbers at least this many top sections
MAX_STARTS = 20  # the candidates numbered 1 that a chain of numbered headings is read from (the first ones)


def numbered_headings(text: str) -> dict[int, int]:
    """{offset of a line: its depth (0 for "2", 1 for "2.1" or, under "IV.", "B.")} of the numbered section
    headings of `text`, as papers and reports number them when no font or style marks them.

    A line is a candidate when it is a section number and a short title starting with a capital, not ending
    like a sentence or a list item (`.`, `,`, `;`, `:`) nor with a page number, with no year in it. Candidates
    count only in order: the top sections numbered 1, 2, 3, ... (or I, II, III, ...) as a subsequence of the
    document, at least `MIN_NUMBERED` of them, each subsection under the top section before it with its own
    numbers in order. Two candidates of one depth on consecutive lines are a numbered list or a table of
    contents, not headings; a CV's numbered publications are sentences and end with a period."""
    cands: list[tuple[int, tuple[int, ...], bool]] = []  # (offset, numbers, roman-style)
    lines = [(m.start(), m.group(0).strip()) for m in _LINE.finditer(text) if m.group(0).strip()]
    for start, line in lines:
        m = _NUMBERED.match(line)
        if not m:
            continue
        title = m.group("title").rstrip()
        if title[-1] in ".,;:" or re.search(r"(?:^|\s)\d+$|\b(?:1[5-9]|20)\d\d\b", title) or len(title.split()) > 12:
            continue
        if m.group("arabic"):
            cands.append((start, tuple(int(n) for n in m.group("arabic").split(".")), False))
        elif m.group("roman"):
            if m.group("roman") in _ROMAN:
                cands.append((start, (_ROMAN[m.group("roman")],), True))
        else:
            cands.append((start, (0, ord(m.group("letter")) - ord("A") + 1), True))  # under the roman before it
    # a numbered list: candidates of one depth on consecutive non-empty lines
    index = {start: i for i, (start, _) in enumerate(lines)}
    listed: set[int] = set()
    for a, b in zip(cands, cands[1:], strict=False):
        if index[b[0]] == index[a[0]] + 1 and len(a[1]) == len(b[1]) and a[2] == b[2]:
            listed.update((a[0], b[0]))
    cands = [c for c in cands if c[0] not in listed]
    best: dict[int, int] = {}
    for roman in (False, True):
        firsts = [i for i, c in enumerate(cands) if c[2] == roman and c[1] == (1,)]
        for first in firsts[:MAX_STARTS]:  # each start reads the rest: bounded, whatever a file repeats
            chosen = _numbered_chain(cands[first:], roman)
            if sum(1 for d in chosen.values() if d == 0) >= MIN_NUMBERED and len(chosen) > len(best):
                best = chosen
    return best


def _numbered_chain(cands: list[tuple[int, tuple[int, ...], bool]], roman: bool) -> dict[int, int]:
    """The headings `numbered_headings` keeps, read in order from a candidate numbered 1."""
    out: dict[int, int] = {}
    top = 0  # the last top section's number
    sub: tuple[int, ...] = ()  # and the last subsection's numbers under it
    for start, nums, is_roman in cands:
        if is_roman != roman:
            continue
        if len(nums) == 1 and nums[0] == top + 1:
            out[start], top, sub = 0, nums[0], ()
        elif roman and len(nums) == 2 and nums[0] == 0 and top and nums[1] == (sub[0] + 1 if sub else 1):
            out[start], sub = 1, (nums[1],)
        elif not roman and len(nums) >= 2 and top and nums[0] == top and _next_sub(sub, nums[1:]):
            out[start], sub = len(nums) - 1, nums[1:]
    return out


def _next_sub(last: tuple[int, ...], nums: tuple[int, ...]) -> bool:
    """Do a subsection's numbers (after its top section's) follow `last` in order: 1 first, then the next at
    its depth, a deeper one opening at 1 ("2.1" -> "2.1.1"), or a shallower one going on ("2.1.2" -> "2.2")?"""
    if not last:
        return nums == (1,) or nums == (1, 1)
    for depth in range(len(nums)):
        if nums[:depth] != last[:depth]:
            return False
    d = len(nums)
    if d > len(last):
        return nums[len(last):] == (1,) * (d - len(last)) and nums[:len(last)] == last
    return nums[d - 1] == last[d - 1] + 1


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
