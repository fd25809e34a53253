"""The default answer writer: extractive, offline, no LLM.

Every retrieved chunk is cut into units (lines, sentences of long lines) and each unit is scored by
how well it supports the question's key terms (`evidence`); a question no unit supports enough is
abstained on (`abstain`). Otherwise:
- a short factual question leads with the fact itself, a slice of the best unit (`facts`):
  "Georgia Institute of Technology [1]";
- a "what did X do / what is ..." question quotes the best unit, and, when it is an entry's header
  (employer, role, dates), the bullets under it;
- a "who / which people" question lists every person (document owner) with a supporting unit,
  each with their own citations, plus a coverage note ("3 profiles searched, 2 match").
Every sentence or bullet of the answer is a verbatim slice of a cited quote (or a person's name from
the document's owner); `answer.verify_citations` checks the quotes again before anything is shown.
Left out: paraphrase, merging facts from several passages into one sentence, and counting beyond
"most frequent name".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from index import Embedder, Hit
from ingest.names import names_match
from ingest.publications import parse_publications

from .abstain import abstention, answerable
from .answer import Answer, Citation, PersonAnswer, citation_from_hit
from .evidence import Scored, Scorer
from .facts import extract
from .people import Person, group_people
from .question import Question, analyze

MAX_QUOTE = 600


def flat(text: str) -> str:
    return " ".join(text.split())


def people_of_hits(hits: Sequence[Hit]) -> list[Person]:
    seen: dict[str, tuple[str, str | None, str]] = {}
    for h in hits:
        seen.setdefault(h.doc, (h.doc, h.owner, h.title))
    return group_people(list(seen.values()))


class _Draft:
    """Citations and answer lines being built; each citation is a slice of a hit."""

    def __init__(self, hits: Sequence[Hit]) -> None:
        self.hits = hits
        self.citations: list[Citation] = []
        self.lines: list[str] = []

    def prune(self) -> None:
        """Drop citations no line refers to any more (verify_citations renumbers the rest)."""
        used = {int(n) for ln in self.lines for n in re.findall(r"\[(\d+)\]", ln)}
        self.citations = [c for c in self.citations if c.n in used]

    def cite(self, hit: int, start: int, end: int, score: float) -> int:
        for c in self.citations:  # the same slice cited twice keeps one number
            if c.chunk_id == self.hits[hit].chunk_id and c.quote_start <= start and start - c.quote_start + (end - start) <= len(c.quote):
                return c.n
        n = len(self.citations) + 1
        self.citations.append(citation_from_hit(n, self.hits[hit], start, end, score=score))
        return n


def _following_bullets(text: str, start: int, after: int, limit: int = 3) -> int:
    """End offset of up to `limit` bullet or body lines right after offset `after`."""
    end = after
    taken = 0
    for m in re.finditer(r"[^\n]+", text[after:]):
        line = m.group(0).strip()
        if not line:
            continue
        is_item = bool(re.match(r"^[-•·*○◦▪–]", line)) or len(line) > 90
        if not is_item and not taken and len(line) <= 30 and re.search(r"\d", line):
            continue  # a date line between an entry's header and its bullets
        if not is_item or taken == limit or (after + m.end()) - start > MAX_QUOTE:
            break
        end = after + m.end()
        taken += 1
    return end


def _sentence_end(text: str, limit: int, line_end: int) -> int:
    """The end of the last sentence that ends before `limit` (at least one sentence), within the line."""
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", text[: line_end])]
    before = [e for e in ends if e <= limit]
    return before[-1] if before else line_end


def _lines_of(text: str, a: int, b: int) -> list[str]:
    return [flat(m.group(0)) for m in re.finditer(r"[^\n]+", text[a:b]) if m.group(0).strip()]


class ExtractiveWriter:
    """Answers with exact slices of the retrieved chunks, or abstains."""

    def __init__(self, embedder: Embedder | None = None, max_points: int = 3, per_person: int = 2) -> None:
        self.embedder = embedder  # kept for the seam; scoring is lexical + retrieval order (see module doc)
        self.max_points = max_points
        self.per_person = per_person

    def write(self, question: str, hits: Sequence[Hit]) -> Answer:
        people = people_of_hits(hits)
        q = analyze(question, [p.name for p in people if p.owner_known])
        if not hits:
            return abstention(q, [], hits)
        scorer = Scorer(q, hits)
        if q.kind == "people":
            return self._people(q, hits, scorer, people)
        return self._fact(q, hits, scorer)

    # -- facts ---------------------------------------------------------------------------------
    def _fact(self, q: Question, hits: Sequence[Hit], scorer: Scorer) -> Answer:
        ranked = scorer.rank()
        scope = " and ".join(f"{n}'s documents" for n in q.persons) if q.persons else ""
        if not ranked:
            return abstention(q, ranked, hits, scope)
        if not q.groups and q.persons:
            # "Tell me about Baolin Li": nothing specific asked; the framing words rank.
            return self._passages(q, hits, ranked[:1])
        if not answerable(ranked[0], q):
            return abstention(q, ranked, hits, scope)
        top = [s for s in ranked if s.support >= ranked[0].support - 0.15 and answerable(s, q)][:300]
        if q.slot == "person":
            answer = self._most_named(q, hits, top)
            if answer:
                return answer
        if q.slot not in ("text",):
            best = None
            for s in top:
                h = hits[s.unit.hit]
                span = extract(q.slot, h.text, (s.unit.start, s.unit.end), (s.unit.window_start, s.unit.window_end), q, h.owner)
                if span and span[1] > span[0]:
                    cand = (round(s.support, 2), s.soft, -top.index(s))
                    if best is None or cand > best[0]:
                        best = (cand, s, span)
            if best is not None:
                _, s, span = best
                return self._lead_with_fact(q, hits, s, span)
        return self._passages(q, hits, [s for s in top if s.support >= ranked[0].support - 0.1])

    def _quote_span(self, hits: Sequence[Hit], s: Scored, fact: tuple[int, int] | None = None) -> tuple[int, int]:
        u = s.unit
        a = u.header_start if u.is_header else u.start
        if u.end - a > MAX_QUOTE:
            a = u.start
        lo, hi = a, u.end
        if fact:
            lo, hi = min(lo, fact[0]), max(hi, fact[1])
        return lo, hi

    def _lead_with_fact(self, q: Question, hits: Sequence[Hit], s: Scored, span: tuple[int, int]) -> Answer:
        d = _Draft(hits)
        text = hits[s.unit.hit].text
        lo, hi = self._quote_span(hits, s, span)
        marks = [d.cite(s.unit.hit, lo, hi, s.support)]
        fact = text[span[0] : span[1]]
        if fact.isupper() and len(fact) > 12:
            # A title set in capitals (a CV's talk list): show how the documents write it elsewhere.
            for i, h in enumerate(hits):
                j = h.text.lower().find(fact.lower())
                if j >= 0 and not h.text[j : j + len(fact)].isupper():
                    fact = h.text[j : j + len(fact)]
                    line_a = h.text.rfind("\n", 0, j) + 1
                    line_b = h.text.find("\n", j + len(fact))
                    marks.append(d.cite(i, line_a, len(h.text) if line_b < 0 else line_b, s.support))
                    break
        refs = "".join(f"[{n}]" for n in marks)
        return Answer(q.text, f"{flat(fact)} {refs}", False, tuple(d.citations), fact=fact)

    def _most_named(self, q: Question, hits: Sequence[Hit], top: Sequence[Scored]) -> Answer | None:
        """"Who co-authored / advised ...": the person named most often across the supporting units."""
        names: list[tuple[str, Scored, tuple[int, int]]] = []
        seen_entries: set[tuple[int, int]] = set()
        for s in top:
            h = hits[s.unit.hit]
            # Author lists: the publication entry the unit belongs to (its title is the unit or above it).
            for pub in parse_publications(h.text):
                if not (pub.start <= s.unit.start < pub.end or s.unit.window_start <= pub.start < s.unit.window_end):
                    continue
                if (s.unit.hit, pub.start) in seen_entries:
                    continue
                seen_entries.add((s.unit.hit, pub.start))
                for author in pub.authors:
                    if h.owner and names_match(author, h.owner):
                        continue
                    j = h.text.find(author, pub.start, pub.end + 1)
                    if j >= 0:
                        names.append((author, s, (j, j + len(author))))
        if not names:
            for s in top:
                h = hits[s.unit.hit]
                span = extract("person", h.text, (s.unit.start, s.unit.end), (s.unit.window_start, s.unit.window_end), q, h.owner)
                if span:
                    names.append((h.text[span[0] : span[1]], s, span))
        if not names:
            return None
        counts: Counter[str] = Counter()
        canon: dict[str, str] = {}
        for name, _, _ in names:
            key = next((c for c in canon if names_match(c, name)), name)
            canon.setdefault(key, name)
            counts[key] += 1
        top_name, _ = counts.most_common(1)[0]
        d = _Draft(hits)
        marks: list[int] = []
        for name, s, span in names:
            if names_match(top_name, name) and len(marks) < 3:
                lo, hi = self._quote_span(hits, s, span)
                n = d.cite(s.unit.hit, lo, hi, s.support)
                if n not in marks:
                    marks.append(n)
        first = next(span for name, _, span in names if names_match(top_name, name))
        hit = next(s.unit.hit for name, s, _ in names if names_match(top_name, name))
        fact = hits[hit].text[first[0] : first[1]]
        refs = "".join(f"[{n}]" for n in marks)
        return Answer(q.text, f"{flat(fact)} {refs}", False, tuple(d.citations), fact=fact)

    def _passages(self, q: Question, hits: Sequence[Hit], top: Sequence[Scored]) -> Answer:
        d = _Draft(hits)
        used: set[tuple[int, int]] = set()
        seen_text: set[str] = set()
        for s in top:
            u = s.unit
            if (u.hit, u.window_start) in used or any(c.chunk_id == hits[u.hit].chunk_id and c.quote_start <= u.start < c.quote_start + len(c.quote) for c in d.citations):
                continue
            used.add((u.hit, u.window_start))
            text = hits[u.hit].text
            if u.is_header:
                head_end = u.window_end
                end = _following_bullets(text, u.header_start, head_end)
                core = flat(text[u.header_start : max(end, head_end)])
                if any(t.startswith(core) for t in seen_text):
                    continue
                seen_text.add(core)
                n = d.cite(u.hit, u.header_start, max(end, head_end), s.support)
                d.lines.append(" · ".join(_lines_of(text, u.header_start, head_end)) + f" [{n}]")
                body = text[head_end:end]
                d.lines.extend(f"- {flat(m.group(0)).lstrip('-•·*○◦▪– ')} [{n}]" for m in re.finditer(r"[^\n]+", body) if m.group(0).strip())
            else:
                end = u.end
                para_end = text.find("\n", u.end)
                para_end = len(text) if para_end < 0 else para_end
                if u.end - u.start < 100 and u.end < para_end:
                    # A short first sentence ("Summer 2022 Research Intern, Bosch Research.") opens an
                    # entry: the sentences after it say what was done.
                    end = max(u.end, _sentence_end(text, u.start + MAX_QUOTE // 2, para_end))
                core = flat(text[u.start:end])
                if any(t.startswith(core) for t in seen_text):
                    continue
                stale = [t for t in seen_text if core.startswith(t)]
                if stale:  # a longer version of a passage already shown: show it instead
                    i = next(i for i, ln in enumerate(d.lines) if flat(ln).lstrip("- ").startswith(stale[0][:40]))
                    del d.lines[i]
                seen_text.add(core)
                n = d.cite(u.hit, u.start, end, s.support)
                d.lines.append(f"{flat(text[u.start:end]).lstrip('-•·*○◦▪– ')} [{n}]")
            if len(d.citations) >= self.max_points:
                break
        d.prune()
        if len(d.lines) > 1 and not d.lines[0].startswith("- "):
            d.lines = [ln if ln.startswith("- ") else f"- {ln}" for ln in d.lines]
        return Answer(q.text, "\n".join(d.lines), False, tuple(d.citations))

    # -- people --------------------------------------------------------------------------------
    def _people(self, q: Question, hits: Sequence[Hit], scorer: Scorer, people: Sequence[Person]) -> Answer:
        d = _Draft(hits)
        matches: list[tuple[Scored, Person, list[int]]] = []
        all_scored: list[Scored] = []
        for person in people:
            ids = [i for i, h in enumerate(hits) if h.doc in person.docs]
            ranked = scorer.rank(ids)
            all_scored.extend(ranked[:3])
            if not ranked or not answerable(ranked[0], q):
                continue
            matches.append((ranked[0], person, []))
            seen: set[int] = set()
            for s in ranked:
                if not answerable(s, q) or s.unit.hit in seen or len(seen) == self.per_person:
                    continue
                seen.add(s.unit.hit)
                matches[-1][2].append(ranked.index(s))
        searched = len(people)
        kind = "profile" if all(p.owner_known for p in people) else "document group"
        if not matches:
            all_scored.sort(key=lambda s: (-s.support, -s.soft))
            ans = abstention(q, all_scored, hits)
            return Answer(ans.question, f"{ans.answer} ({searched} {kind}{'s' if searched != 1 else ''} searched)",
                          True, (), ans.related, (f"{searched} {kind}s searched, 0 match",), kind="abstain",
                          searched=searched)
        matches.sort(key=lambda m: (-m[0].support, -m[0].soft, m[1].name))
        out_people: list[PersonAnswer] = []
        for _, person, idx in matches:
            ids = [i for i, h in enumerate(hits) if h.doc in person.docs]
            ranked = scorer.rank(ids)
            marks: list[int] = []
            texts: list[str] = []
            for i in idx:
                s = ranked[i]
                text = hits[s.unit.hit].text
                n = d.cite(s.unit.hit, s.unit.start, s.unit.end, s.support)
                marks.append(n)
                texts.append(f"{flat(text[s.unit.start:s.unit.end]).lstrip('-•·*○◦▪– ')} [{n}]")
            label = person.name if person.owner_known else f"{person.name} (owner unknown)"
            d.lines.append(f"- {label}: " + "; ".join(texts))
            out_people.append(PersonAnswer(person.name, person.docs, tuple(marks), person.owner_known))
        note = f"{searched} {kind}{'s' if searched != 1 else ''} searched, {len(matches)} match"
        return Answer(q.text, "\n".join(d.lines), False, tuple(d.citations), notes=(note,), kind="people",
                      people=tuple(out_people), searched=searched)
