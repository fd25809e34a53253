"""What a question asks, read from English interrogative syntax alone: the kind of thing it asks for
(`asked`: "when" / "what year" -> date, "how" + an adjective or adverb -> number, "who" / "whom" /
"whose" -> person, "where" -> place or organisation, and the noun a "what" question asks for when it
names a kind with a written shape of its own, "What is Jane Roe's email?" -> email; `addresses.SHAPED`), the
kind a second interrogative joined by "and" asks for ("Where *and when* ...?": `also_asked`),
the noun it names as its answer's type (`type_word`), and whether it asks for one person or every match
(`asks_one`, `asks_who`, `is_list`, `asks_anyone`). Where a text holds such a thing is `detect`'s. No domain words.
"""

from __future__ import annotations

import re

# the nouns that ask for a shaped kind, alone or as the head of a two-word noun ("email address", "web page")
_SHAPE_NOUNS = {"email": "email", "e-mail": "email", "emails": "email", "e-mails": "email",
                "website": "url", "websites": "url", "web-site": "url", "homepage": "url", "home-page": "url",
                "webpage": "url", "web-page": "url", "url": "url", "urls": "url"}
_SHAPE_PAIRS = {("web", "page"): "url", ("home", "page"): "url", ("web", "site"): "url", ("web", "address"): "url"}
_PREPOSITIONS = frozenset(["of", "for", "at", "on", "in", "from", "to", "with", "by", "as"])
AUX = frozenset(["do", "does", "did", "is", "are", "was", "were", "am", "be", "been", "can", "could", "would", "should", "will", "shall", "has", "have", "had", "may", "might", "must"])
_DETERMINERS = frozenset(["the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "its",
                          "our", "their", "every", "each", "all", "any", "some", "no"])
# English prepositions and verb particles: a word ending in "s" right before one of them, past the
# question's first noun, is a verb with its particle or object ("Which option turns on strict mode?")
_PARTICLES = frozenset(["on", "off", "up", "down", "out", "in", "into", "onto", "to", "for", "from", "with",
                        "about", "at", "by", "over", "through"])
TOKENS = re.compile(r"[\w'’.-]+")


def asked(question: str) -> str:
    """The kind of thing `question` asks for: one of `detect.KINDS`, or "" (a passage).

    The first interrogative decides; a later one opens a clause ("What was the pilot doing *when* the
    airplane crashed?" asks for an activity, not a date). A clause set off before the question by a
    comma is not the question ("When doing PGO, *which* tool ...?" asks for a tool)."""
    words = [w.lower() for w in TOKENS.findall(main_clause(question))]
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w == "when":
            return "date"
        if w in ("what", "which"):
            return "date" if nxt in ("year", "date", "month", "day", "years", "dates") else _shape_asked(words[i + 1:])
        if w == "how":
            return "number" if nxt and nxt not in AUX else ""
        if w in ("who", "whom", "whose"):
            return "person"
        if w == "where":
            return "place"
    return ""


_INTERROGATIVES = frozenset(["what", "which", "how", "who", "whom", "whose", "where", "when", "why"])


def also_asked(question: str) -> str:
    """The kind a second question joined to the first by "and" asks for, when it differs from the first's
    (`asked`): "Where *and when* did he earn his B.S.?", "Where and in what year was she born?", "When did he get
    the prize, *and who* shared it?", "Where did she work, *and during which years*?" -> "date" (or "person").
    "and" then an interrogative, or one word before it ("and *during* which years"), joins them; a later
    interrogative that "and" does not join opens a clause ("What was he doing *when* ...?"). "" when there is
    none."""
    words = [w.lower() for w in TOKENS.findall(main_clause(question))]
    first = asked(question)
    for i, w in enumerate(words):
        if w != "and":
            continue
        j = next((k for k in (i + 1, i + 2) if k < len(words) and words[k] in _INTERROGATIVES), 0)
        if j:
            kind = asked(" ".join(words[j:]))
            return kind if kind != first else ""
    return ""


def main_clause(question: str) -> str:
    """`question` less a clause set off before it by a comma, when the question proper follows ("When
    doing profile-guided optimization, *which LLVM tool turns ...?*", "In rustc PGO, *how many ...?*"):
    the part whose interrogative says what is asked for. Else the whole question."""
    head, comma, rest = question.partition(",")
    first = [w.lower() for w in TOKENS.findall(rest)[:1]]
    return rest.strip() if comma and first and first[0] in _INTERROGATIVES else question


def counts(question: str) -> bool:
    """Does `question` ask how many or how much of something ("How many patients ...?", "How much does
    the bounty pay?"): an amount, which a passage without a number cannot give."""
    words = [w.lower() for w in TOKENS.findall(question)]
    return any(w == "how" and nxt in ("many", "much") for w, nxt in zip(words, words[1:], strict=False))


def counted(question: str) -> tuple[str, ...]:
    """The words a "how many / how much" question counts: those after it up to its verb ("How many
    *total flight hours* did ...?", "How many *unique patients* met ...?"); () for any other question, or
    when the verb follows at once ("How much does the bounty pay?")."""
    words = [w.lower() for w in TOKENS.findall(question)]
    for i, (w, nxt) in enumerate(zip(words, words[1:], strict=False)):
        if w == "how" and nxt in ("many", "much"):
            from .words import common_words

            out = []
            for x in words[i + 2:i + 6]:
                if x in AUX or x in common_words():  # the verb, or the words after the counted noun's
                    break
                out.append(x.strip(".,;:?"))
            return tuple(x for x in out if x)
    return ()


def _shape_asked(words: list[str]) -> str:
    """The shaped kind (`addresses.SHAPED`) the words after "what"/"which" ask for, or "": the type phrase before
    the verb ("Which *email address* does she use?"), else the subject after it, up to a preposition
    ("What is *the email address* of Jane Roe?", "What is *Jane Roe's email*?"), judged by its last two
    words."""
    j = next((n for n, w in enumerate(words) if w in AUX), len(words))
    phrase = words[:j] if j else words[1:]
    phrase = phrase[: next((n for n, w in enumerate(phrase) if w in _PREPOSITIONS), len(phrase))]
    tail = [w.strip(".-") for w in phrase[-2:]]
    if not tail:
        return ""
    if len(tail) == 2 and (tail[0], tail[1]) in _SHAPE_PAIRS:
        return _SHAPE_PAIRS[(tail[0], tail[1])]
    if tail[-1] == "address" and len(tail) == 2:
        return _SHAPE_NOUNS.get(tail[0], "")
    return _SHAPE_NOUNS.get(tail[-1], "")


def type_word(question: str) -> str:
    """The noun a "what"/"which" question names as the type of its answer ("Which *company* does she
    work for?", "At what *venue* was it published?"): the last word of the phrase between the
    interrogative and its auxiliary verb, when that phrase is one to three words. The answer is an
    instance of the type (a company's name), so a passage need not contain the word itself. "" when
    there is none ("What is ...", "Which of ...")."""
    words = [w.lower() for w in TOKENS.findall(question)]
    for i, w in enumerate(words):
        if w not in ("what", "which"):
            continue
        for j in range(i + 1, min(i + 5, len(words))):
            if words[j] in AUX:
                return words[j - 1] if 1 <= j - i - 1 <= 3 and words[i + 1] not in ("of", "the", "a", "an") else ""
        return ""
    return ""


def thing_asked(question: str) -> str:
    """The singular noun a question opens on as the subject of its verb, "Which paper proposes ...?"
    -> "paper", "What study used ...?" -> "study": the kind of thing it asks to be named. "" when it
    opens otherwise ("In which journal ...", "What is ...", "Which of ...", "Which method does the paper
    use?") or asks for several (a plural noun: `is_list`). Syntax only; whether that kind of thing is a document is the documents' to say
    (`titles.self_named`)."""
    from index.lemmas import lemma

    words = [w.lower() for w in TOKENS.findall(question)]
    if len(words) < 3 or words[0] not in ("which", "what"):
        return ""
    noun = words[1]
    if noun in AUX or noun in _DETERMINERS or noun in _PARTICLES or noun == "of" or not noun.isalpha():
        return ""
    if noun == "people" or (len(noun) > 3 and noun.endswith("s") and not noun.endswith("ss") and lemma(noun) != noun):
        return ""  # a plural: every matching document is asked for, not one
    if words[2] in _DETERMINERS or words[2] in _PARTICLES or words[2] == "of" or AUX & set(words[2:4]):
        # "Which method does the paper use?", "What teaching prize did she win?": the question's verb is said
        # of something else, or the noun is only the first word of a longer one
        return ""
    return noun


def asks_one(question: str) -> bool:
    """"Who is/was the/a <singular> ...?" asks whom one role names (a fact question), unlike "Who has
    ...?" or "Who are the ...?", which ask for every match."""
    words = [w.lower() for w in TOKENS.findall(question)]
    return words[:1] in (["who"], ["whom"]) and words[1:2] in (["is"], ["was"]) and words[2:3] in (["the"], ["a"], ["an"])


def asks_who(question: str) -> bool:
    """The one test the search and the reader share: does a question that names nobody ask for every
    matching person ("Who has ...?", "Which researchers ...?", "Is there anyone who ...?")?"""
    return (is_list(question, False) or asks_anyone(question)) and not asks_one(question)


# English's indefinite pronouns for people, and the imperatives that ask for a list
_ANYONE = frozenset(["anyone", "anybody", "everyone", "everybody", "someone", "somebody", "people", "persons"])
_LISTING = frozenset(["list", "name", "find", "show", "give"])


def asks_anyone(question: str) -> bool:
    """Does `question` ask about people by an indefinite pronoun or a listing imperative: "Is there anyone
    who ...?", "Does anybody ...?", "Has anyone ...?", "List all people who ...", "Find researchers who ...",
    "Name the people with ..."? Syntax only: an auxiliary opening the question and a pronoun for people
    right after it ("Does anybody ...?") or after "there" ("Are there any people ...?"), or an imperative
    opening it followed (past a determiner) by such a pronoun or a plural noun."""
    from index.lemmas import lemma

    words = [w.lower() for w in TOKENS.findall(question)]
    if not words:
        return False
    if words[0] in AUX:
        if words[1:2] == ["there"]:  # "Is there anyone ...?", "Are there any people ...?"
            return bool(_ANYONE & set(w for w in words[2:4] if w != "any"))
        return bool(_ANYONE & set(words[1:2])) and words[1] not in ("people", "persons")
    if words[0] in _LISTING:
        rest = [w for w in words[1:4] if w not in _DETERMINERS and w not in ("me", "us")]
        x = rest[0] if rest else ""
        return x in _ANYONE or (len(x) > 3 and x.endswith("s") and not x.endswith("ss") and lemma(x) != x)
    return False


def is_list(question: str, names_someone: bool) -> bool:
    """Does `question` ask for every matching person or document ("Who has ...?", "Which reports ...?")?

    Syntax only: "who"/"whose" opening a question that names nobody (but not "Who is/was the/a
    <singular> ...?", which asks for one role's holder), or "which"/"what" followed
    (within three words, or "which of") by a plural noun: a word ending in "s" whose lemma is shorter,
    or "people", English's plural of "person" ("Which two people ...?"). Other irregular plurals are
    not told apart from irregular past tenses ("men" / "won") without a tagger, so they are left out.
    A plural followed by "of" names parts of one thing ("Which parts of N1181Y were damaged?"): a
    fact about it, not a list of people or documents. A word ending in "s" after the first noun and
    before a determiner, a preposition or a particle is a verb with its object ("What command opens the
    docs?", "Which asn1Decoding option turns on strict decoding?"), not a plural.
    """
    if names_someone:
        return False
    words = [w.lower() for w in TOKENS.findall(question)]
    if words and words[0] in ("who", "whose", "whom"):
        return not asks_one(question)
    return bool(listed_noun(question))


def listed_noun(question: str) -> str:
    """The plural noun a "which/what" list question asks for (`is_list`): "railroads" in "What two railroads
    have railyards in Fresno?"; "of" for "Which of these papers ...?", which asks which of the things in view
    (the documents); "" when it asks for no list."""
    from index.lemmas import lemma

    words = [w.lower() for w in TOKENS.findall(question)]
    for i, w in enumerate(words[:4]):
        if w not in ("which", "what"):
            continue
        nxt = words[i + 1:i + 4]
        if nxt[:1] == ["of"]:
            return "of"
        for j, x in enumerate(nxt):
            if x in AUX:
                break
            plural = x == "people" or (len(x) > 3 and x.endswith("s") and not x.endswith("ss") and lemma(x) != x)
            after = words[i + j + 2:i + j + 3]  # the word after x, which may lie past the three read
            if plural and j and after and after[0] in _DETERMINERS | _PARTICLES:
                break  # "What command opens the docs?", "Which option turns on ...": a verb, not a plural noun
            if plural:
                return x if after != ["of"] else ""
    return ""
