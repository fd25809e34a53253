"""Question analysis: what kind of answer is asked for, whom it names, which words must be supported.

`analyze(question, people)` returns a `Question`:
- `kind`: "people" for questions that ask which people in the collection match ("Who has worked at
  Netflix?", "Which researchers ..."), else "fact";
- `persons`: the known people (document owners) the question names, however written ("Balin",
  "M. F. Balin", "Fatih Balin's");
- `groups`: the key terms an answer must support, as groups of alternatives ("distributed or
  multi-GPU training" gives {distributed, multi-gpu} and {train}); words that only locate the answer
  (the named person, question words, generic verbs and nouns such as "paper" or "approach") are left
  out, and so are words naming the kind of answer (`slot`: "company", "year", "venue" ...);
- `slot`: the short fact asked for ("number", "date", "org", "venue", "title", "degree", "person",
  "define", "list") or "text" when the answer is a passage.

Terms are compared by `term_key` (lower case, dots dropped, light suffix stripping) and by the
CV-domain equivalences in `EQUIVALENT` ("undergraduate" ~ "B.Eng.", "now" ~ "present"). Left out:
full parsing, coreference (see `followup`), and languages other than English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ingest.names import names_match

STOPWORDS = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done", "has", "have", "had", "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "that", "this", "these", "those", "it", "its", "as", "into", "about", "their", "his", "her", "hers", "they", "them", "he", "she", "i", "you", "we", "our", "your", "my", "me", "any", "some", "all", "can", "could", "would", "should", "will", "shall", "may", "might", "than", "then", "there", "here", "not", "no", "yes", "so", "such", "also", "just", "only", "more", "most", "very", "much", "many", "de", "la", "la", "s", "ever", "currently"]
)
# Words that locate or frame a question but never need to appear in the answer's passage.
LIGHT = frozenset(
    ["approach", "approaches", "method", "methods", "way", "ways", "kind", "kinds", "type", "types", "thing", "things", "profile", "profiles", "document", "documents", "cv", "resume", "résumé", "person", "people", "persons", "researcher", "researchers", "someone", "somebody", "anyone", "anybody", "everyone", "one", "ones", "topic", "topics", "area", "areas", "field", "fields", "list", "lists", "listed", "mention", "mentions", "mentioned", "say", "says", "said", "describe", "describes", "tell", "show", "shows", "showed", "propose", "proposes", "proposed", "give", "gave", "given", "get", "got", "make", "made", "know", "knows", "use", "used", "using", "work", "works", "worked", "working", "study", "studied", "studies", "involve", "involved", "name", "named", "call", "called", "main", "primary", "key", "particular", "specific", "exactly", "actually", "various", "different", "something", "anything", "co-author", "co-authored", "coauthor", "coauthored", "author", "authored", "wrote", "write", "written", "most", "often", "usually", "information", "detail", "details", "publish", "published", "publishing", "paper", "papers", "publication", "publications", "article", "articles", "employ", "employed", "employs", "interned", "during", "take", "took", "taken", "taking", "accept", "accepted", "accepts", "receive", "received", "get", "gets", "getting", "number", "numbers"]
)
# Words that name the kind of fact asked for: they pick the slot, the answer need not repeat them.
SLOT_WORDS: dict[str, str] = {
    **dict.fromkeys(["company", "companies", "employer", "employers", "organization", "organisation", "organizations", "firm", "lab", "laboratory", "university", "universities", "school", "schools", "institution", "institutions", "college", "colleges", "institute"], "org"),
    **dict.fromkeys(["journal", "journals", "venue", "venues", "conference", "conferences", "workshop", "workshops"], "venue"),
    **dict.fromkeys(["paper", "papers", "talk", "talks", "publication", "publications", "title", "titles", "article", "articles", "project", "projects"], "title"),
    **dict.fromkeys(["year", "years", "date", "dates"], "date"),
    **dict.fromkeys(["degree", "degrees"], "degree"),
}
# CV-domain equivalence classes: a question word is supported by any word of its class.
EQUIVALENT: tuple[frozenset[str], ...] = tuple(frozenset(c.split()) for c in (
    "phd doctorate doctoral doctor dphil",
    "undergraduate undergrad bachelor bachelors bs bsc ba beng bachelor's",
    "master masters ms msc meng ma mba master's graduate",
    "now current present today presently",
    "paper papers publication publications publish published article preprint",
    "talk talks presentation presentations present presented presenter seminar seminars lecture lectures keynote speaker invited",
    "award awards prize prizes honor honors honour honours distinction fellowship",
    "teach teaching taught teacher lecturer instructor ta",
    "advisor adviser advised supervisor supervised supervision",
    "review reviewer reviewed reviewing",
    "employment job company intern internship position experience",
    "gpa grade",
    "multi-gpu multigpu multi-gpus",
    "language languages",
    "co-author co-authored coauthor coauthored",
))

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#'’-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_SUFFIXES = ("izations", "ization", "isations", "isation", "ations", "ation", "ings", "ing", "ers", "er",
             "ies", "es", "ed", "s")  # "-ized" is kept: "randomized" is not "random"


def term_key(word: str) -> str:
    """A comparable form of `word`: lower case, no dots or possessive, light suffix stripping."""
    w = word.lower().replace(".", "").replace("’", "'")
    w = w.removesuffix("'s").strip("'")
    if len(w) < 4 or any(c.isdigit() for c in w):
        return w
    for suf in _SUFFIXES:
        if not w.endswith(suf) or len(w) - len(suf) < (3 if suf == "s" else 4):
            continue
        stem = w[: -len(suf)]
        if suf == "ies":
            return stem + "y"
        if suf == "es" and not stem.endswith(("s", "x", "z", "ch", "sh")):
            return w[:-1]
        if suf == "s" and stem.endswith(("s", "u", "i")):
            return w
        return stem
    return w


def tokens(text: str) -> list[str]:
    """Word tokens of `text`; "14papers" and "multi-GPU" also give their parts."""
    out: list[str] = []
    for t in _TOKEN.findall(text):
        out.append(t)
        parts = re.findall(r"[A-Za-z](?:[A-Za-z-]*[A-Za-z])?|\d+", t)
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    return out


_CLASS_OF: dict[str, frozenset[int]] = {}
for _i, _c in enumerate(EQUIVALENT):
    for _w in _c:
        _CLASS_OF[term_key(_w)] = _CLASS_OF.get(term_key(_w), frozenset()) | {_i}
# What may follow a shared stem for two words to count as the same word ("distribut" ~ "distribution").
_INFLECTIONS = frozenset(["s", "es", "ed", "ing", "er", "ers", "ion", "ions", "ation", "ations", "al", "ally", "ly", "ity", "ive", "ives", "or", "ors", "ment", "ments", "e"])


def term_classes(key: str) -> frozenset[int]:
    return _CLASS_OF.get(key, frozenset())


_PATTERN_KEYS = (
    (re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+"), ("email", "e-mail", "mail")),
    (re.compile(r"(?:\+\d{1,3}[\s)]*)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b"), ("phone", "telephone")),
    (re.compile(r"https?://\S+|\bwww\.\S+"), ("website", "homepage", "url", "link")),
)


def keys_of(text: str) -> set[str]:
    """`term_key`s of every token of `text` (stopwords kept out), plus "email" / "phone" / "website"
    for text holding an address, a phone number or a URL."""
    keys = {term_key(t) for t in tokens(text) if t.lower() not in STOPWORDS}
    for pattern, words in _PATTERN_KEYS:
        if pattern.search(text):
            keys.update(term_key(w) for w in words)
    return keys


def same_word(a: str, b: str) -> bool:
    """Two term keys of one word: equal, or one is the other plus an inflection ("review", "reviewers")."""
    if a == b:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long.startswith(short) and long[len(short):] in _INFLECTIONS


def supports(term: str, keys: set[str], classes: set[int]) -> bool:
    """Does a passage with these term keys (and their equivalence classes) contain `term`?"""
    if term in keys or term_classes(term) & classes:
        return True
    return len(term) >= 4 and any(same_word(term, k) for k in keys if k[:2] == term[:2])


def classes_of(keys: Iterable[str]) -> set[int]:
    return {c for k in keys for c in term_classes(k)}


@dataclass(frozen=True)
class Question:
    text: str
    kind: str  # "people" | "fact"
    slot: str  # "number" | "date" | "org" | "venue" | "title" | "degree" | "person" | "define" | "list" | "text"
    persons: tuple[str, ...]  # known people (document owners) the question names
    groups: tuple[frozenset[str], ...]  # key terms to support; each group is a set of alternatives
    other_names: tuple[str, ...] = ()  # capitalised names that are not known people (kept as terms)
    topic: str = ""  # the question without the named person, for retrieval
    soft: frozenset[str] = frozenset()  # framing words (slot nouns, generic verbs): they rank, never decide

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(t for g in self.groups for t in g)


_PEOPLE_Q = re.compile(
    r"^\s*(?:who(?:m)?\b|which\s+(?:people|persons|researchers|scientists|authors|engineers|students|candidates|"
    r"profiles|of\s+(?:them|the\s+\w+))\b|what\s+(?:people|researchers|persons)\b|(?:list|name|find|show)\s+"
    r"(?:all\s+|the\s+)?(?:people|researchers|persons|profiles|everyone|anyone)\b|(?:is|are)\s+there\s+"
    r"(?:any(?:one|body)?|people|researchers)\b|does\s+any(?:one|body)\b|has\s+any(?:one|body)\b)",
    re.I,
)


def _slot(q: str) -> tuple[str, str]:
    """(slot, the question word naming it, or "")."""
    low = q.lower()
    if re.search(r"\bhow\s+(?:many|much)\b|\bnumber\s+of\b|\bh-?index\b|\bgpa\b|\bcitations?\b", low):
        return "number", ""
    if re.search(r"^\s*when\b|\b(?:what|which)\s+(?:year|date|month)\b", low):
        return "date", ""
    if re.search(r"^\s*who\b|\bwhose\b|\bwith\s+whom\b", low):
        return "person", ""
    m = re.search(r"\b(?:which|what)\s+((?:[\w-]+\s+){0,3}[\w-]+)", low)
    if m:  # "which company", "what is the title of", "which two venues"
        word = next((w for w in m.group(1).split() if w in SLOT_WORDS), None)
        if word:
            return SLOT_WORDS[word], word
    if re.search(r"\bdegree\b|\bwhat\s+did\s+.+\bstudy\b|\bmajor\b", low):
        return "degree", "degree" if re.search(r"\bdegree\b", low) else ""
    if re.search(r"^\s*where\b", low):
        return "org", ""
    if re.fullmatch(r"\s*(?:what|who)\s+(?:is|are|was)\s+(?:an?\s+|the\s+)?[\w.+#-]+(?:\s+[\w.+#-]+)?\s*\??\s*", q, re.I):
        return "define", ""
    if re.search(r"\b(?:what|which)\s+(?:\w+\s+)?(?:languages|skills|tools|technologies|courses|interests)\b", low):
        return "list", ""
    return "text", ""


def _name_runs(question: str) -> list[list[tuple[str, int, int]]]:
    """Runs of capitalised words and initials, possessives and punctuation stripped: [(word, start, end)]."""
    runs: list[list[tuple[str, int, int]]] = []
    cur: list[tuple[str, int, int]] = []
    for m in re.finditer(r"\S+", question):
        word = re.sub(r"(?:'s|’s|')?[?.,!;:]*$", "", m.group(0)) or m.group(0)
        if re.fullmatch(r"[A-Z]\.?(?:[A-Z]\.?)*|[A-Z][\w'’-]+", word) and word.lower() not in STOPWORDS | LIGHT:
            cur.append((word, m.start(), m.start() + len(word)))
            if word != m.group(0).rstrip(".") and not re.fullmatch(r"[A-Z]\.", m.group(0)):
                runs.append(cur)  # "Balin's" or "Balin?" ends the run
                cur = []
        else:
            if cur:
                runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    return runs


def named_people(question: str, people: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(known people named in `question`, other capitalised multi-word names), in order of mention."""
    people = list(people)
    found: list[str] = []
    others: list[str] = []
    for run in _name_runs(question):
        matched = False
        for size in range(min(5, len(run)), 0, -1):
            for i in range(len(run) - size + 1):
                span = " ".join(w for w, _, _ in run[i : i + size])
                hit = [p for p in people if names_match(span, p)]
                if hit:
                    found.extend(p for p in hit if p not in found)
                    matched = True
                    break
            if matched:
                break
        if not matched and len(run) >= 2 and run[0][1] > 0:
            others.append(" ".join(w for w, _, _ in run))
    return tuple(found), tuple(others)


def name_words(question: str, persons: Sequence[str]) -> set[str]:
    """The lower-cased words of `question` that write the names of `persons`."""
    out: set[str] = set()
    for run in _name_runs(question):
        for size in range(min(5, len(run)), 0, -1):
            for i in range(len(run) - size + 1):
                span = " ".join(w for w, _, _ in run[i : i + size])
                if any(names_match(span, p) for p in persons):
                    out.update(w.lower().strip(".") for w, _, _ in run[i : i + size])
    for p in persons:
        out.update(w.lower() for w in re.split(r"[\s.]+", p) if w)
    return out


def _groups(text: str, drop: set[str]) -> tuple[frozenset[str], ...]:
    """Key-term groups of `text`: "A or B" puts A and B in one group of alternatives."""
    groups: list[set[str]] = []
    join_next = False
    for w in _TOKEN.findall(text):
        low = w.lower().removesuffix("'s").removesuffix("’s")
        if low == "or":
            join_next = bool(groups)
            continue
        if low in STOPWORDS or low in LIGHT or low in drop or len(low) < 2:
            continue
        key = term_key(w)
        if join_next:
            groups[-1].add(key)
        else:
            groups.append({key})
        join_next = False
    out: list[frozenset[str]] = []
    for g in groups:
        if frozenset(g) not in out:
            out.append(frozenset(g))
    return tuple(out)


def analyze(question: str, people: Iterable[str] = ()) -> Question:
    """Analyse `question` against the known people (document owners) of the collection."""
    q = " ".join(question.split())
    persons, others = named_people(q, people)
    name_words_ = name_words(q, persons)
    kind = "people" if _PEOPLE_Q.search(q) and not persons else "fact"
    topic = q
    for w in sorted(name_words_, key=len, reverse=True):
        topic = re.sub(rf"\b{re.escape(w)}(?:'s|’s)?\b", " ", topic, flags=re.I)
    topic = " ".join(topic.split())
    slot, slot_word = _slot(q)
    drop = name_words_ | ({slot_word} if slot_word else set())
    groups = _groups(topic, drop)
    if not groups and slot_word:  # "Which company does X work for?": the company itself must be there
        groups = (frozenset({term_key(slot_word)}),)
    if re.search(r"\bwork(?:s|ed|ing)?\s+(?:at|for|with)\b|\bemployed\b|\binterned\b", q, re.I):
        groups = (*groups, frozenset({"employment"}))  # "worked at Netflix": as an employee, not a mention
    if not groups:  # "How many papers does X list?": the domain nouns are all there is to look for
        groups = tuple(frozenset({term_key(w)}) for w in _TOKEN.findall(topic)
                       if w.lower() not in drop and term_classes(term_key(w)) and w.lower() not in STOPWORDS)
    required = {t for g in groups for t in g}
    soft = frozenset(k for w in _TOKEN.findall(topic) if (low := w.lower()) not in STOPWORDS
                     and low not in name_words_ | {"who", "co"} and (k := term_key(w)) not in required)
    return Question(text=q, kind=kind, slot=slot, persons=persons, groups=groups, other_names=others,
                    topic=topic, soft=soft)
