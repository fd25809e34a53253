"""Name candidates for the owner decision (`ingest.owner`): lines of page 1 cut into runs that may be
a person's name (a degree or generation nameparser knows beside it left out), how strongly probablepeople
reads a run as a person (or an organisation), whether a line is one person with a degree or honorific
(`credentialed`), how many people a run too long for one name lists (`listed_people`), and how well a
handle (an e-mail local part, a URL, a file name) spells a name.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from functools import lru_cache

from .names import fold, join_spacing_accents, split_name

W_PERSON = 0.5  # probablepeople reads a person
W_ORG = -1.5  # probablepeople reads an organisation (a word like University, Board, Centre, Ltd)
SURNAME_AGREES = 0.8  # `agreement` of a handle that holds the surname (1.0: the whole name)
_MONTHS = frozenset(
    m.lower() for m in (*calendar.month_name[1:], *calendar.month_abbr[1:], *calendar.day_name, *calendar.day_abbr)
)
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "du", "le", "la", "bin", "al", "y"})
_SEPARATORS = re.compile(r"\s*(?:[|•·:;,/\\()\[\]<>{}\"“”«»–—]|\s-\s|\s{2,}|\t)\s*")
_NAME_TOKEN = re.compile(r"^(?:[^\W\d_][^\W\d_'’\-]*(?:['’\-][^\W\d_]+)*\.?|[^\W\d_]\.)$")
_PRONOUN = re.compile(r"^I['’][a-z]+$")  # "I'm", "I've": the speaker, before a name in "Hi, I'm Jane Roe"
_ORG_TAGS = frozenset({"CorporationNameOrganization", "CorporationLegalType", "CorporationNameBranchType",
                       "CorporationNameBranchIdentifier", "CorporationCommitteeType"})
_NAME_TAGS = frozenset({"GivenName", "Surname", "MiddleName", "MiddleInitial", "FirstInitial", "LastInitial",
                        "Nickname", "SuffixGenerational", "SuffixOther", "PrefixMarital", "PrefixOther"})


# -- normalising lines into name candidates ------------------------------------------------------------
def normalise(text: str) -> str:
    """NFKC, spacing accents joined, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", join_spacing_accents(text)).split())


def _recase(token: str) -> str:
    """"DOMINICIS" -> "Dominicis", "JEAN-PAUL" -> "Jean-Paul"; mixed case is kept ("McDonald")."""
    if token.isupper() and len(token.rstrip(".")) > 1:
        return "-".join(p[:1] + p[1:].lower() for p in token.split("-"))
    return token


def _is_name_token(tok: str) -> bool:
    if not _NAME_TOKEN.match(tok) or tok.rstrip(".").lower() in _MONTHS or _PRONOUN.match(tok):
        return False
    return tok[0].isupper()


def line_names(line: str, max_words: int = 4) -> list[str]:
    """Name-shaped windows (2-4 capitalised words, initials and particles allowed) of one line."""
    return [name for name, _ in line_windows(line, max_words)]


def line_windows(line: str, max_words: int = 4) -> list[tuple[str, float]]:
    """Name-shaped windows of a line with how alone they stand: 1.0 for a window that is a whole
    separator-delimited part ("Aamir Sohail" in "Last edited: 5/10/2023 | Aamir Sohail"), 0.5 for a
    whole run of capitalised words inside a longer part ("Sharbatanu Chatterjee Last updated"),
    0.25 for a piece of a longer run ("George Mason" in "George Mason University")."""
    out: list[tuple[str, float]] = []
    for words, runs, extras in _parts(line):
        for run in runs:
            upper = all(t.isupper() or len(t.rstrip(".")) <= 1 for t in run)
            for i, j in _spans(run, max_words):
                win = run[i:j]
                alone = 1.0 if len(win) + extras == len(words) else (0.5 if len(win) == len(run) else 0.25)
                # Capitals are case-folded: a whole name in capitals, or a surname in capitals
                # beside a mixed-case given name ("Jean DUPONT"); short runs stay (initials "MF").
                out.append((" ".join(_recase(t) if upper or len(t) >= 4 else t for t in win), alone))
    return out


def listed_people(line: str, max_words: int = 4) -> int:
    """How many people a run of capitalised words too long for one name lists, read left to right
    as the longest windows the tagger reads as a person ("Ahmed Elsheikh Michele Bevilacqua Roberto
    Navigli", a byline whose names no separator parts, lists three); 0 when no run is that long."""
    most = 0
    for _words, runs, _extras in _parts(line):
        for run in runs:
            if sum(w.lower() not in _PARTICLES for w in run) <= max_words:
                continue
            found, i = 0, 0
            while i < len(run):
                ends = [j for a, j in _spans(run, max_words) if a == i and person_evidence(" ".join(run[i:j])) > 0]
                found += bool(ends)
                i = max(ends, default=i + 1)
            most = max(most, found)
    return most


# a nickname in brackets between a given name and a surname ("Yuxiao (Rain) Luo"): no separator inside the name
_NICKNAME = re.compile(r"(?<=[^\W\d_]) \([^\W\d_][\w'’.-]*\) (?=[^\W\d_])")


def _parts(line: str) -> list[tuple[list[str], list[list[str]], int]]:
    """Each separator-delimited part of a line, a nickname in brackets inside a name left out (`_NICKNAME`): (its
    words, its runs of name tokens, how many of its words are degrees, acronyms or digits beside a name rather than
    against it)."""
    out = []
    for part in _SEPARATORS.split(_NICKNAME.sub(" ", normalise(line))):
        words = [w.strip("*_'\"") for w in part.split()]
        words = [w for w in words if w]
        mixed = any(not w.isupper() for w in words if _is_name_token(w))
        runs: list[list[str]] = [[]]
        extras = 0  # degrees and acronyms beside the name ("Jane Roe PhD", "JANE ROE Ph.D.", "Jane Roe CV")
        for w in words:
            if (len(runs[-1]) >= 2 and (_suffix(w) or mixed and _acronym(w))
                    and not _surname_of(" ".join([*runs[-1], w]), w)):
                extras += 1
                if runs[-1]:
                    runs.append([])
            elif _is_name_token(w) or (runs[-1] and w.lower() in _PARTICLES):
                runs[-1].append(w)
            else:
                if not _NAME_TOKEN.match(w) and not any(c.isalpha() for c in w):
                    extras += 1  # digits and symbols ("2024") say nothing against the name either
                if runs[-1]:
                    runs.append([])
        out.append((words, runs, extras))
    return out


def _spans(run: list[str], max_words: int) -> list[tuple[int, int]]:
    """(start, end) of the windows of 2 to `max_words` words of a run that may be a name: not starting
    or ending with a particle, not ending with an initial, with two words longer than an initial."""
    out = []
    for i in range(len(run)):
        for j in range(i + 2, min(len(run), i + max_words) + 1):
            win = run[i:j]
            if win[0].lower() in _PARTICLES or win[-1].lower() in _PARTICLES or len(win[-1].rstrip(".")) < 2:
                continue
            if sum(len(t.rstrip(".")) > 1 for t in win) < 2:
                continue
            out.append((i, j))
    return out


@lru_cache(maxsize=1024)
def _surname_of(name: str, word: str) -> bool:
    """Whether probablepeople reads `word` as the surname of `name` ("Jean Pierre ROY": yes;
    "Jane Roe CV": no, a suffix)."""
    import probablepeople as pp

    try:
        tags, kind = pp.tag(name)
    except Exception:
        return False
    return kind == "Person" and tags.get("Surname") == word


def _suffix(word: str) -> bool:
    """A suffix nameparser knows after a name: a degree or title of office ("Ph.D.", "PhD", "MD",
    "Esq.") or a generation ("Jr.", "III"); a single letter is an initial, not a suffix."""
    from nameparser.config import CONSTANTS

    key = word.lower().replace(".", "").rstrip(",")
    return len(key) > 1 and (key in CONSTANTS.suffix_acronyms or key in CONSTANTS.suffix_not_acronyms)


@lru_cache(maxsize=4096)
def credentialed(line: str) -> bool:
    """Whether the tagger reads the whole line as one person with a degree or an honorific that
    nameparser also knows ("ADRIAN FORSYTHE Ph.D.", "Dr. Jane Roe"): a thing has neither."""
    import probablepeople as pp

    try:
        tags, kind = pp.tag(normalise(line))
    except Exception:
        return False
    if kind != "Person" or not set(tags) <= _NAME_TAGS or "Surname" not in tags:
        return False
    degree = tags.get("SuffixOther", "")
    honorific = tags.get("PrefixOther", "") or tags.get("PrefixMarital", "")
    return (bool(degree) and all(_suffix(w) for w in degree.split())) or (
        bool(honorific) and all(_is_title(w) for w in honorific.split()))


def _acronym(word: str) -> bool:
    """An acronym or degree written in capitals ("CV", "PHD", "MBA"; "Ph.D." has its dots)."""
    letters = word.replace(".", "")
    return letters.isalpha() and letters.isupper() and 2 <= len(letters) <= 4 or (
        "." in word.rstrip(".") and letters.isalpha() and len(letters) <= 4)


@lru_cache(maxsize=4096)
def strip_title(name: str) -> str:
    """The name without an honorific nameparser knows ("Dr. Ahmed Hassan" -> "Ahmed Hassan"); kept
    whole when no given name and surname would remain ("Judge Reinhold")."""
    words = name.split()
    if len(words) < 3 or not _is_title(words[0]):
        return name  # (nameparser itself is ~5 ms a name: only asked when its title list matches)
    from nameparser import HumanName

    h = HumanName(name)
    if h.title and h.first and h.last and name.startswith(h.title):
        return name[len(h.title):].strip(" ,")
    return name


def _is_title(word: str) -> bool:
    from nameparser.config import CONSTANTS

    return word.lower().rstrip(".") in CONSTANTS.titles


# English's closed classes of pronouns, determiners and prepositions: a phrase made of them alone ("About Me", "For
# You") is a heading, whatever the tagger reads in its capitals
_FUNCTION_WORDS = frozenset(["i", "me", "my", "mine", "myself", "you", "your", "yours", "we", "us", "our", "ours", "he",
                             "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their", "this", "that",
                             "these", "those", "the", "a", "an", "about", "of", "to", "in", "on", "at", "for", "with",
                             "by", "from", "and", "or", "who", "what", "which", "whom", "whose"])


@lru_cache(maxsize=4096)
def person_evidence(name: str) -> float:
    """W_PERSON when probablepeople reads `name` as a person, W_ORG when it finds an organisation's
    words in it, 0 when unsure or when it is made of function words alone ("About Me")."""
    if all(w.lower().strip(".,;:!?") in _FUNCTION_WORDS for w in name.split()):
        return 0.0
    import probablepeople as pp

    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    try:
        tags, kind = pp.tag(plain)
    except Exception:  # RepeatedLabelError: a label came twice ("Radu Andrei Parvulescu" -> two surnames)
        try:
            labels = {label for _, label in pp.parse(plain)}
        except Exception:
            return 0.0
        return W_PERSON if labels <= _NAME_TAGS and "Surname" in labels else 0.0
    if kind == "Person" and set(tags) <= _NAME_TAGS and ("Surname" in tags or "LastInitial" in tags):
        # ... unless every word is a title nameparser knows: a role ("Software Engineer", "Senior
        # Lecturer") that the tagger reads as a given name and a surname
        return 0.0 if all(_is_title(w) for w in plain.split()) else W_PERSON
    if set(tags) & _ORG_TAGS and kind != "Person":
        return W_ORG
    return 0.0


# -- handles: e-mail, URL, file name -------------------------------------------------------------------
def _alnum(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", fold(s))


def _handle_words(s: str) -> list[str]:
    """Words of a handle or file name: split at separators and case changes, digits dropped."""
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", s)
    return [w for w in re.split(r"[^A-Za-zÀ-ÿ]+", s) if len(w) >= 2]


def agreement(name: str, handle: str) -> float:
    """How well `handle` (an e-mail local part, a URL, a file name) spells `name`: 0.8 when it holds
    the surname, 0.6 for a long surname prefix ("mrevsin1"), plus 0.2 when it also holds a given
    name (so 1.0 means the whole name); 0.4 for a given name alone, 0 otherwise."""
    h = _alnum(handle)
    if not h:
        return 0.0
    given, surname = split_name(name)
    sur = re.sub(r"[^a-z0-9]", "", surname)
    if len(sur) < 2:
        return 0.0
    score = 0.0
    if len(sur) >= 3 and sur in h or sur in {_alnum(w) for w in _handle_words(handle)}:
        score = SURNAME_AGREES  # a surname of two letters only as a word of its own ("hu_cv" for Bowei Hu)
    elif len(sur) >= 5 and sur[: max(4, len(sur) - 2)] in h:
        score = 0.6
    if any(len(g) >= 3 and re.sub(r"[^a-z]", "", g) in h for g in given):
        score = score + 0.2 if score else 0.4
    initials = "".join(t[0] for t in (*given, *surname.split()) if t)
    if len(initials) >= 3 and re.match(r"[a-z]+", h) and re.match(r"[a-z]+", h).group(0) == initials:  # type: ignore[union-attr]
        score = max(score, 0.6)  # "rap348" for Radu Andrei Pârvulescu
    return min(score, 1.0)


def _handle_names(words: list[str]) -> list[str]:
    """A person's name spelled by handle words ("nick", "danis" -> "Nick Danis"; "Jane_Roe_CV" ->
    "Jane Roe"): the leftmost two words of three letters or more that probablepeople reads as exactly
    a given name and a surname; [] when none do."""
    import probablepeople as pp

    words = [w for w in words if len(w) >= 3]
    for i in range(len(words) - 1):
        pair = [w.capitalize() if w.islower() or w.isupper() else w for w in words[i : i + 2]]
        try:
            tags, kind = pp.tag(" ".join(pair))
        except Exception:
            continue
        if kind == "Person" and set(tags) == {"GivenName", "Surname"}:
            return [" ".join(pair)]
    return []
