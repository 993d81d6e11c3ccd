"""Values the question mentions, looked up in the source's own data before a query is written.

A model that reads "flights leaving from Aberdeen" guesses where Aberdeen is stored and how it is
spelt (`sourceairport = 'Aberdeen'`, `region = 'Africa'` where the rows say `continent`). Telling
it which column holds the phrase, spelt as stored, is what grounds the query: the same lookup
text-to-SQL systems call value linking. The lookup is one read-only, time-limited query per source
through the source's own engine (SQL tables and databases, and RDF literals); when it fails or
times out the query is written without it."""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from dataclasses import dataclass, field
from functools import partial

from engine.generation.untrusted import inline, neutralise
from engine.native.kinds import open_store
from engine.native.sources import Source, Stores
from engine.native.writers import sparql, sql, writer_for
from engine.native.writers.cypher_fixes import NODE, linked_instead, masked
from engine.native.writers.sql import PART_SEPARATORS
from local_stores.native_store import NativeStore
from local_stores.quoting import Unquotable, kuzu_cypher
from local_stores.quoting import sparql as quote_sparql
from local_stores.results import QueryError
from local_stores.value_index import ValueIndex, field_of

log = logging.getLogger(__name__)

MAX_WORDS = 4  # longest phrase looked up
MAX_PHRASES = 200
PARTICLES = frozenset({"out", "up", "off", "away", "over", "down", "back", "in", "on"})  # may end a value's words
MAX_MATCHES = 8
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|(?<!\w)'([^']{2,80})'(?!\w)")
_WORD = re.compile(r"[\w][\w'’&.-]*")
STOPWORDS = frozenset("""a about above after all also am an and any are as at be been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other
our out over own same she should so some such than that the their them then there these they this those through
to too under until up very was we were what when where which while who whom why will with would you your list
show give find return tell name names number many much count total average also""".split())


@dataclass(frozen=True)
class ValueMatch:
    phrase: str  # as the question says it
    value: str  # as the data holds it
    place: str  # table.column


def phrases(question: str) -> list[str]:
    """What the question could name as a stored value, lower-cased: its quoted texts, then its word
    runs of 1 to MAX_WORDS words that neither start nor end with a stopword, except a leading "the"
    (titles: "The Dispossessed", "The Matrix") and a closing particle (a category "going out",
    "take away"); single words of at least two characters; a possessive 's dropped; a run of two
    words or more that ends in a plural also in the singular ("year end rankings": "year end
    ranking"). A name that ends in a full stop is kept with it too ("Cuba Gooding Jr.")."""
    quoted = [(a or b).strip().lower() for a, b in _QUOTED.findall(question) if (a or b).strip()]
    words = [re.sub(r"['’]s$", "", w).strip(".'’-").lower() for w in _WORD.findall(question)]
    out: dict[str, None] = dict.fromkeys(quoted + [name for name in names(question) if name.endswith(".")])
    for n in range(MAX_WORDS, 0, -1):
        for i in range(len(words) - n + 1):
            run_ = words[i:i + n]
            leading = run_[1:] if n > 1 and run_[0] == "the" else run_
            closing = run_[-1] in STOPWORDS and not (n > 1 and run_[-1] in PARTICLES and run_[-2] not in STOPWORDS)
            if not all(run_) or leading[0] in STOPWORDS or closing:
                continue
            if n == 1 and len(run_[0]) < 2:
                continue
            out[" ".join(run_)] = None
            if n > 1:
                out[" ".join([*run_[:-1], singular(run_[-1])])] = None
    return list(out)[:MAX_PHRASES]


def singular(word: str) -> str:
    """A word without its plural ending ("rankings" -> "ranking", "countries" -> "country"): a
    question asks for "year end rankings" where the table's row says "Year End Ranking"."""
    if word.endswith("ies") and len(word) > 5:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def _lookup(store: NativeStore, source: Source, wanted: list[str], timeout_s: float,
            held: ValueIndex | None = None) -> list[tuple] | None:
    """The (place, value) rows of the stored values equal to one of `wanted`, by the writer's own
    lookup statement, or from the value index (`held`) for a language without one (Cypher); None
    when neither can tell or the lookup fails (the query is written without)."""
    lookup = writer_for(source.language).value_lookup(source, wanted, MAX_MATCHES * 4)
    if lookup is None:
        keys = list(dict.fromkeys(w.strip().lower() for w in wanted if len(w.strip()) <= HELD_MAX_CHARS))
        return None if held is None else [(place, value) for _, name, place, value in held.lookup(keys)
                                          if name == source.name]
    try:
        return store.execute(lookup[0], timeout_s, MAX_MATCHES * 4, lookup[1]).rows
    except QueryError as exc:
        log.info("value lookup skipped for %s: %s", source.name, exc)
        return None


def find(question: str, source: Source, stores: Stores, timeout_s: float = 3.0,
         held: ValueIndex | None = None) -> list[ValueMatch]:
    """The stored values the question names, longest phrases first, at most MAX_MATCHES; a phrase
    inside a longer phrase that matched is not reported again."""
    wanted, writer = phrases(question), writer_for(source.language)
    by_phrase: dict[str, list[tuple[str, str]]] = {}
    for place, value in _lookup(open_store(source, stores), source, wanted, timeout_s, held) or []:
        by_phrase.setdefault(_phrase_of(str(value), wanted), []).append((str(value), writer.place_name(place, source)))
    found: list[ValueMatch] = []
    for phrase in sorted(by_phrase, key=lambda p: (-len(p.split()), wanted.index(p) if p in wanted else 0)):
        if any(re.search(rf"\b{re.escape(phrase)}\b", m.phrase) for m in found):
            continue
        whole_first = sorted(by_phrase[phrase], key=lambda held: held[0].strip().lower() != phrase)
        found += [ValueMatch(phrase, value, place) for value, place in whole_first[:2]]
    return found[:MAX_MATCHES]


def _phrase_of(value: str, wanted: list[str]) -> str:
    """The wanted phrase a found value is: itself, or one of its parts ('belgian' of 'Belgian/French')."""
    whole = value.strip().lower()
    if whole in wanted:
        return whole
    parts = {part.strip() for part in re.split(PART_SEPARATORS, whole)}
    return next((phrase for phrase in wanted if phrase in parts), whole)


# -- which sources hold the values a question names (the value index) ------------------------------
HELD_PER_PLACE = 10_000  # distinct values read per column, predicate or node property
HELD_MAX_CHARS = 60  # longer texts are descriptions, not values a question names
# How the value index keys a value (local_stores.value_index.keys; 2: without a bracketed qualifier too,
# 3: without the quotes around it too): a change reads every source's values again.
KEYS_VERSION = 3


def held_values(source: Source, stores: Stores, timeout_s: float = 20.0) -> list[tuple[str, str]]:
    """The short text values a source holds, as (value, place): distinct, not purely numeric, at
    most HELD_PER_PLACE per column or property. A place that cannot be read is skipped."""
    out: list[tuple[str, str]] = []
    writer, store = writer_for(source.language), open_store(source, stores)
    for place, statement in writer.held_statements(source, HELD_PER_PLACE, HELD_MAX_CHARS):
        try:
            rows = store.execute(statement, timeout_s, HELD_PER_PLACE * 10).rows
        except QueryError as exc:
            log.info("values of %s (%s) not read: %s", source.name, place, exc)
            continue
        for row in rows:
            value, where = (row[0], place) if place else (row[1], writer.place_name(row[0], source))
            if isinstance(value, str) and not re.fullmatch(r"[\d\s,.:/%+-]*", value):
                out.append((value, where))
    return out


def stamp(source: Source) -> str:
    """What a source's values were read from: its location and descriptor (row counts, samples)."""
    text = json.dumps([KEYS_VERSION, source.location, source.descriptor], sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def refresh(index: ValueIndex, sources: list[Source], stores: Stores) -> int:
    """Bring the value index up to date with `sources`: read the new and changed ones, drop the
    gone ones. Returns how many sources were read."""
    known = index.stamps()
    current = {s.name: s for s in sources}
    for name in set(known) - set(current):
        index.drop(name)
    stale = [s for s in sources if known.get(s.name) != stamp(s)]
    for source in stale:
        index.replace(source.name, stamp(source), held_values(source, stores))
    return len(stale)


_ASKED_NUMBER = re.compile(r"(?<![\w.,])\d{2,}(?:\.\d+)?(?![\w]|[.,]\d)")  # "63", "141", "5.05"; not "1" or "7th"


def row_numbers(question: str, sources: list[Source], stores: Stores, timeout_s: float = 2.0) -> dict[str, int]:
    """Per SQL source, the most of the question's numbers one of its rows holds, when two or more:
    "the medal table topped by China with 63 gold and 141 medals in total" is the table with a row
    of 63 and 141, of the many medal tables that hold China. Numbers are not in the value index."""
    asked = sorted({float(n) for n in _ASKED_NUMBER.findall(question)})
    if len(asked) < 2:
        return {}
    out: dict[str, int] = {}
    for source in sources:
        if source.language != "sql":
            continue
        store = open_store(source, stores)
        for statement in sql.most_numbers_statements(source, asked):
            try:
                rows = store.execute(statement, timeout_s, 1).rows
            except QueryError as exc:
                log.info("numbers of %s not read: %s", source.name, exc)
                continue
            most = int(rows[0][0] or 0) if rows else 0
            if most >= 2:
                out[source.name] = max(out.get(source.name, 0), most)
    return out


def source_evidence(question: str, index: ValueIndex) -> dict[str, float]:
    """Per source, how strongly the question names values it holds: each phrase found counts its
    words, weighted by how few sources hold it (a phrase every source holds counts nothing)."""
    holders = held_by(phrases(question), index)
    if not holders:
        return {}
    total = max(index.sources(), 2)
    out: dict[str, float] = {}
    for key, sources in holders.items():
        weight = len(key.split()) * math.log(total / len(sources)) / math.log(total)
        for source in sources:
            out[source] = out.get(source, 0.0) + weight
    return out


_CAPITALISED = r"[A-Z][\w'’&.-]*"
_NAME_RUN = re.compile(rf"{_CAPITALISED}(?:\s+(?:(?:of|and|the|a|an|de|du|la|le|von|van|der|in|on|for)\s+)*"
                       rf"{_CAPITALISED})+")


def names(question: str) -> list[str]:
    """The names a question writes as names, lower-cased, as the value index keys them: each run
    of two or more capitalised words ("A Few Good Men", "Cuba Gooding Jr."; small joining words
    allowed inside) and each shorter run of two or more of its words ("In Jerry Maguire" gives
    "jerry maguire"), with and without a closing full stop."""
    out: dict[str, None] = {}
    for run_ in _NAME_RUN.findall(question):
        words = run_.split()
        for n in range(len(words), 1, -1):
            for i in range(len(words) - n + 1):
                part = " ".join(words[i:i + n]).lower()
                out[part] = None
                out[part.rstrip(".")] = None
    return list(out)[:MAX_PHRASES]


_INNER_WORD = re.compile(r"(?<=[\w,;:] )[A-Z][\w'’-]{2,}(?=[\s,;:?.!]|$)")


def inner_names(question: str) -> list[str]:
    """`names`, and each single capitalised word inside the sentence ("Who is the mayor of Ashdod?":
    "ashdod"): a name of one word, which a source may hold as a value."""
    words = [w.lower() for w in _INNER_WORD.findall(question)]
    return list(dict.fromkeys(names(question) + [w for w in words if w not in STOPWORDS]))


def held_by(keys: list[str], index: ValueIndex) -> dict[str, set[str]]:
    """Per key (a lower-cased phrase) held as a value, the sources that hold it."""
    holders: dict[str, set[str]] = {}
    for key, source, _, _ in index.lookup(keys):
        holders.setdefault(key, set()).add(source)
    return holders


def value_notes(question: str, index: ValueIndex, most: int = 3) -> dict[str, str]:
    """Per source, the values of it the question names, as a note for the LLM choosing among
    sources: `'Aberdeen' (airports.city)`."""
    held: dict[str, list[str]] = {}
    for _, source, place, value in index.lookup(phrases(question)):
        held.setdefault(source, []).append(f"{value!r} ({place})")
    return {source: ", ".join(shown[:most]) for source, shown in held.items()}


def hint(matches: list[ValueMatch]) -> str:
    """The matches as a line a model reads before the question."""
    return "Values the question mentions, spelt as the data holds them: " + "; ".join(
        f"{neutralise(m.value)[:80]!r}{_among(m)} in {inline(m.place)}" for m in matches)  # repr keeps its spaces


def _among(match: ValueMatch) -> str:
    """For a value that holds the phrase among others ('Belgian/French'), a note saying so."""
    if match.value.strip().lower() == match.phrase:
        return ""
    return f" (holds {neutralise(match.phrase)[:40]!r} among other values: match it with LIKE)"


@dataclass(frozen=True)
class LiteralCheck:
    """What the text values a query compares with say about an empty result."""

    absent: list[str]  # held nowhere in the source
    misplaced: list[ValueMatch]  # held, but not in the field the query compares them with
    places: dict[str, list[str]] = field(default_factory=dict)  # each held value (lower-cased): where it is


def check_literals(statement: str, source: Source, stores: Stores, timeout_s: float = 3.0,
                   held: ValueIndex | None = None) -> LiteralCheck:
    """The query's compared values that the source holds nowhere (ignoring case and, in tables,
    surrounding spaces; never LIKE patterns, dates, numbers or texts longer than the values a
    question names), and those it compares with a field that does not hold them (`{summary: 'Jerry
    Maguire'}` where the title holds it; where the compared field cannot be told, the query must name
    a field that holds them), each with the first place that does. One lookup for both."""
    literals = _compared(statement, source)
    rows = _lookup(open_store(source, stores), source, literals, timeout_s, held) if literals else None
    if rows is None:
        return LiteralCheck([], [])
    places: dict[str, list[str]] = {}
    for place, value in rows:
        places.setdefault(str(value).strip().lower(), []).append(str(place))
    absent = [t for t in literals if t.strip().lower() not in places and len(t.strip()) <= HELD_MAX_CHARS]
    return LiteralCheck(absent, _misplaced(statement, literals, places, source), places)


FULLER_MOST = 3  # a word held inside more values than this points at none of them


def fuller_names(absent: list[str], source: Source, held: ValueIndex | None) -> list[ValueMatch]:
    """The held values that hold a value the source lacks as one of their words ('cuba' of 'Cuba
    Gooding Jr.', 'hanks' of 'Tom Hanks'): a name the question shortened. None for a word held in
    more than FULLER_MOST values, or one shorter than three letters."""
    if held is None:
        return []
    writer, found = writer_for(source.language), []
    for text in absent:
        word = " ".join(text.split()).lower()
        if len(word) < 3:
            continue
        rows = held.containing(source.name, word, FULLER_MOST + 1)
        if len(rows) <= FULLER_MOST:
            found += [ValueMatch(word, value, writer.place_name(place, source)) for place, value in rows]
    return found


def fuller_hint(matches: list[ValueMatch]) -> str:
    """The fuller names as a line the repair reads."""
    return "; ".join(f"{inline(m.phrase)[:40]!r} is part of {neutralise(m.value)[:80]!r} in {inline(m.place)}: "
                     "compare with that whole value" for m in matches)


_FOLDED = r"(?:lower|tolower|lcase|upper|toupper|ucase)\s*\((?:[^()]|\([^()]*\))*\)\s*=\s*"  # lcase(str(?n)) too


def recase(statement: str, source: Source, stores: Stores, timeout_s: float = 3.0,
           held: ValueIndex | None = None) -> str:
    """The query with each text value it compares written in the case the comparison can match:
    inside lower()/upper(), folded that way (`lower(m.title) = 'Jerry Maguire'` matches nothing);
    elsewhere, as the source holds it when that differs only in case and is one spelling
    (`city = 'charlotte'` where the city is 'Charlotte')."""
    literals = _compared(statement, source)
    if not literals:
        return statement
    rows = _lookup(open_store(source, stores), source, literals, timeout_s, held) or []
    spellings: dict[str, set[str]] = {}
    for _, value in rows:
        spellings.setdefault(str(value).strip().lower(), set()).add(str(value).strip())
    for literal in literals:
        if "'" in literal or '"' in literal or "\\" in literal:  # escaped in the query: left as written
            continue
        for quote in ("'", '"'):
            written = f"{quote}{literal}{quote}"
            if re.search(_FOLDED + re.escape(written), statement, re.IGNORECASE):
                statement = re.sub(_FOLDED + re.escape(written), _folded, statement, flags=re.IGNORECASE)
            elif len(held_as := spellings.get(literal.strip().lower(), set())) == 1 and literal not in held_as:
                statement = statement.replace(written, f"{quote}{next(iter(held_as))}{quote}")
    return statement


def relinked(statement: str, source: Source, stores: Stores, timeout_s: float = 3.0,
             held: ValueIndex | None = None) -> str | None:
    """A Cypher query that compares a node's value with a relationship's property (another actor's
    name with an actor's roles) matching that node instead (`cypher_fixes.linked_instead`); None
    where it does not, or the source is not a graph."""
    literals = _compared(statement, source) if source.language == "cypher" else []
    rows = _lookup(open_store(source, stores), source, literals, timeout_s, held) or [] if literals else []
    for place, value in rows:
        literal = next((t for t in literals if t.strip().lower() == str(value).strip().lower()), None)
        if literal and (linked := linked_instead(statement, literal, str(place), _cypher_text)) is not None:
            return writer_for(source.language).fix(linked, source)  # lower() as the source's engine names it
    return None


def as_iris(statement: str, source: Source, stores: Stores, timeout_s: float = 3.0) -> str | None:
    """A SPARQL query comparing a variable with a text (`?format = "Hardcover"`) where the data holds
    an IRI of that name instead (`schema:Hardcover`), with the IRI in its place; None when no
    compared text is such an IRI's name, or it names several."""
    if source.language != "sparql":
        return None
    as_text = [(m.group(0), m.group(1), m.group(2)) for form in _TEXT_COMPARED for m in form.finditer(statement)]
    literals = [t for t in dict.fromkeys([*_compared(statement, source), *(lit for *_, lit in as_text)])
                if re.fullmatch(r"[\w -]{2,60}", t)]
    if not literals:
        return None
    query, params = sparql.iri_lookup(literals, MAX_MATCHES * 4)
    try:
        rows = open_store(source, stores).execute(query, timeout_s, MAX_MATCHES * 4, params).rows
    except QueryError as exc:
        log.info("IRI lookup skipped for %s: %s", source.name, exc)
        return None
    named: dict[str, set[str]] = {}
    for (value,) in rows:
        named.setdefault(re.split(r"[/#]", str(value))[-1].lower(), set()).add(str(value))
    changed = statement
    for whole, variable, literal in as_text:  # `strstarts(str(?format), "Hardcover")`: the IRI's own name
        if (written := _one_iri(named, literal)) is not None:
            changed = changed.replace(whole, f"{variable} = {written}")
    for literal in literals:
        if (written := _one_iri(named, literal)) is not None:
            changed = re.sub(r"(=\s*)\"" + re.escape(literal) + '"', partial(_put, written), changed)
    return None if changed == statement else changed


_TEXT_OF = r"(?:(?:lcase|ucase)\s*\(\s*)?str\s*\(\s*([?$]\w+)\s*\)(?:\s*\))?"
_TEXT_COMPARED = (re.compile(rf"{_TEXT_OF}\s*=\s*\"([^\"\\]*)\"", re.IGNORECASE),
                  re.compile(rf"\b(?:strstarts|contains)\s*\(\s*{_TEXT_OF}\s*,\s*\"([^\"\\]*)\"\s*\)", re.IGNORECASE))


def _one_iri(named: dict[str, set[str]], literal: str) -> str | None:
    """The one IRI whose name the literal is, written for a query (None: none, or several)."""
    if len(iris := named.get(literal.lower(), set())) != 1:
        return None
    try:
        return str(quote_sparql.iri(next(iter(iris))))
    except Unquotable:
        return None


def _put(written: str, compared: re.Match[str]) -> str:
    return compared.group(1) + written


def _cypher_text(text: str) -> str:
    return str(kuzu_cypher.literal(text))


def _folded(comparison: re.Match[str]) -> str:
    """`lower(x) = 'Utrecht'` as `lower(x) = 'utrecht'` (upper-cased for the upper functions)."""
    text = comparison.group(0)
    opened = text.rindex(text[-1], 0, len(text) - 1)  # the literal's opening quote
    fold = str.upper if text.split("(")[0].strip().lower() in ("upper", "toupper", "ucase") else str.lower
    return text[:opened + 1] + fold(text[opened + 1:-1]) + text[-1]


def _misplaced(statement: str, literals: list[str], places: dict[str, list[str]], source: Source) -> list[ValueMatch]:
    named = {w.lower() for w in re.findall(r"\w+", statement)}
    labels = {v: label.lower() for v, label in NODE.findall(masked(statement))} if source.language == "cypher" else {}
    out = []
    for literal in {t.strip().lower(): t for t in reversed(literals)}.values():  # 'Utrecht' and 'utrecht': once
        held_at = places.get(literal.strip().lower(), [])
        fields = [field_of(place) for place in held_at]
        compared = compared_field(statement, literal)
        if compared and compared[0] in labels:  # `p.name` of a (p:Person): held in Person.name, not Place.name
            elsewhere = f"{labels[compared[0]]}.{compared[1]}" not in {p.lower() for p in held_at}
        else:
            elsewhere = compared[1] not in fields if compared else not named & set(fields)
        if fields and elsewhere:  # the places with the field it compared first: `p.name` meant a Place's name
            held_at = sorted(held_at, key=lambda p: compared is None or field_of(p) != compared[1])
            named_at = dict.fromkeys(writer_for(source.language).place_name(p, source) for p in held_at)
            out.append(ValueMatch(literal, literal, " and ".join(list(named_at)[:3])))
    return out


_COMPARED = re.compile(r"(?<![?$\w])(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)[\"`\]]?\s*\)?\s*(?:=|<>|!=|:|\bCONTAINS\b|"
                       r"\bI?LIKE\b|\b(?:STARTS|ENDS)\s+WITH\b)\s*(?:\w+\(\s*)?$", re.IGNORECASE)


def compared_field(statement: str, literal: str) -> tuple[str, str] | None:
    """The variable (or table; "" when none is written) and field a literal is compared with
    (`x.title = 'Up'`, `{title: 'Up'}`, `lower(city) = 'x'`, `lower(r.roles) CONTAINS 'x'`), the
    field lower-cased; None where the query compares a variable or the form is not one of these."""
    for quote in ("'", '"'):
        at = statement.find(f"{quote}{literal}{quote}")
        if at >= 0 and (m := _COMPARED.search(statement[:at])):
            return m.group(1) or "", m.group(2).lower()
    return None


def _compared(statement: str, source: Source) -> list[str]:
    """The distinct text values a query compares with, less LIKE patterns, dates and numbers."""
    found = writer_for(source.language).compared_literals(statement)
    return [t for t in dict.fromkeys(found) if t.strip() and "%" not in t and not re.fullmatch(r"[\d :.-]+", t)]
