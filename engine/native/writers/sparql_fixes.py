"""Repairs to model-written SPARQL that cannot change what a query means, and a check of the names
it uses against the source's descriptor.

Small models write SPARQL with SQL's habits: `SELECT COUNT(?x) AS ?n`, `HAVING COUNT(*) > 1`,
`ORDER BY ?n DESC`, `FROM ontop:city` for "from the city table", and variables selected or counted
that no pattern binds. Each repair here turns one such habit into the query the model meant; a
query without the habit comes back unchanged. An unknown predicate or class is not repaired but
reported, because SPARQL would silently match nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.native.literals import SPARQL_TEXT, outside
from engine.native.ranking import flat
from local_stores.quoting import Unquotable
from local_stores.quoting import sparql as sq
from local_stores.rdf_store import COMMON_PREFIXES, MAX_CLASSES, MAX_PREDICATES, compact, local_name

if TYPE_CHECKING:
    from engine.native.sources import Source

_AGGREGATE = re.compile(r"\b(COUNT|SUM|AVG|MIN|MAX|SAMPLE|GROUP_CONCAT)\s*\(", re.IGNORECASE)
_VARIABLE = re.compile(r"[?$](\w+)")


def variable_name(text: str, fallback: str) -> str:
    """A SPARQL variable name from a name: `Book title` -> `book_title`, `2nd` -> `v_2nd`."""
    name = re.sub(r"\W+", "_", text).strip("_")
    if not name:
        return fallback
    return f"v_{name}" if name[0].isdigit() else name[0].lower() + name[1:]


def subject_variable(class_iri: str) -> str:
    """The variable the schema text uses for instances of a class (`?city` for ontop:city)."""
    return variable_name(local_name(class_iri), "s")


def closing(text: str, start: int) -> int:
    """The index of the bracket that closes the one opening at `start` (-1 when none does)."""
    pair = {"(": ")", "{": "}"}[text[start]]
    depth = 0
    for i in range(start, len(text)):
        if text[i] == text[start]:
            depth += 1
        elif text[i] == pair:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _where_block(query: str) -> tuple[int, int] | None:
    """Start and end of the outermost group graph pattern (after WHERE, or the first `{`)."""
    m = re.search(r"\bWHERE\s*\{", query, re.IGNORECASE) or re.search(r"\{", query)
    if m is None:
        return None
    start = m.end() - 1
    end = closing(query, start)
    return (start, end) if end > 0 else None


def _select_clause(query: str) -> tuple[int, int] | None:
    m = re.search(r"\bSELECT\b", query, re.IGNORECASE)
    if m is None:
        return None
    rest = re.search(r"\bWHERE\b|\{|\bFROM\b", query[m.end():], re.IGNORECASE)
    return m.end(), m.end() + (rest.start() if rest else len(query) - m.end())


def select_commas(query: str) -> str:
    """`SELECT ?school, (COUNT(?s) AS ?n)` -> `SELECT ?school (COUNT(?s) AS ?n)`: SQL's commas between
    the selected items, which SPARQL refuses; commas inside brackets (`CONCAT(?a, ?b)`) stay."""
    span = _select_clause(query)
    if span is None:
        return query
    head = query[span[0]:span[1]]
    kept = "".join(" " if top == "," else char for char, top in zip(head, flat(head), strict=True))
    return query[:span[0]] + re.sub(r"(?<=\S)  +(?=\S)", " ", kept) + query[span[1]:]


_DATED = r"\"\d{4}(?:-\d{2}(?:-\d{2})?)?\""  # "1970", "2024-05", "2024-05-01"
_VARIABLE_VS_DATE = re.compile(rf"(?<!str\()(\?\w+)(\s*(?:<=|>=|!=|<|>|=)\s*{_DATED})")
_DATE_VS_VARIABLE = re.compile(rf"({_DATED}\s*(?:<=|>=|!=|<|>|=)\s*)(\?\w+)(?!\w)")


def dates_as_text(query: str) -> str:
    """`?published >= "1970"` where the data types its years (`"1974"^^xsd:gYear`): a typed value and a
    plain text never compare, so nothing matches. Compared as text (`str(?published) >= "1970"`),
    ISO years and dates order as they should, whatever their type."""
    query = _VARIABLE_VS_DATE.sub(r"str(\1)\2", query)
    return _DATE_VS_VARIABLE.sub(r"\1str(\2)", query)


def bracket_aggregates(query: str) -> str:
    """`SELECT COUNT(?x) AS ?n` -> `SELECT (COUNT(?x) AS ?n)`: SPARQL needs the brackets."""
    span = _select_clause(query)
    if span is None:
        return query
    head = query[span[0]:span[1]]
    for m in reversed(list(_AGGREGATE.finditer(head))):
        before = head[:m.start()].rstrip()
        if before.endswith("("):
            continue
        end = closing(head, m.end() - 1)
        alias = re.match(r"\s+AS\s+[?$]\w+", head[end + 1:], re.IGNORECASE) if end > 0 else None
        if alias:
            stop = end + 1 + alias.end()
            head = f"{head[:m.start()]}({head[m.start():stop].strip()}){head[stop:]}"
    return query[:span[0]] + head + query[span[1]:]


def bracket_having(query: str) -> str:
    """`HAVING COUNT(*) >= 2` -> `HAVING (COUNT(*) >= 2)`: a HAVING condition is a bracketed expression."""
    m = re.search(r"\bHAVING\s+", query, re.IGNORECASE)
    if m is None:
        return query
    stop = re.search(r"\b(ORDER\s+BY|LIMIT|OFFSET)\b|$", query[m.end():], re.IGNORECASE)
    condition = query[m.end():m.end() + stop.start() if stop else None].rstrip()
    if not condition or (condition.startswith("(") and closing(condition, 0) == len(condition) - 1):
        return query
    return f"{query[:m.end()]}({condition}){query[m.end() + len(condition):]}"


def having_from_filter(query: str) -> str:
    """`{ … FILTER(COUNT(?song) > 1) }` -> `{ … } GROUP BY ?singer HAVING (COUNT(?song) > 1)`: SQL's
    habit of a count in the conditions; SPARQL refuses an aggregate in a FILTER. The groups are the
    selected variables that are not aggregated; a query that already groups or has a HAVING is left
    as written (the repair hears the engine)."""
    block = _where_block(query)
    if block is None or re.search(r"\b(?:GROUP\s+BY|HAVING)\b", query[block[1]:], re.IGNORECASE):
        return query
    for m in re.finditer(r"\bFILTER\s*\(", query[:block[1]], re.IGNORECASE):
        end = closing(query, m.end() - 1)
        condition = query[m.end() - 1:end + 1] if end > 0 else ""
        if m.start() < block[0] or not _AGGREGATE.search(condition):
            continue
        groups = _grouped(query)
        if not groups:
            return query
        inside = query[:m.start()] + query[end + 1:]
        block_end = closing(inside, block[0])
        return f"{inside[:block_end + 1]} GROUP BY {' '.join(groups)} HAVING {condition}{inside[block_end + 1:]}"
    return query


def _grouped(query: str) -> list[str]:
    """The selected variables outside aggregates and `(… AS ?x)` items ([] for `SELECT *`)."""
    span = _select_clause(query)
    if span is None:
        return []
    head = flat(query[span[0]:span[1]])  # bracketed items blanked
    return [] if "*" in head else list(dict.fromkeys(f"?{name}" for name in _VARIABLE.findall(head)))


def logical_operators(query: str) -> str:
    """SQL's `AND` / `OR` between the conditions of a FILTER or HAVING as SPARQL's `&&` / `||`
    (outside strings and IRIs); SPARQL has no such keywords, only NOT EXISTS / NOT IN."""
    return outside(query, SPARQL_TEXT, lambda text: re.sub(r"(?<=[\s)])OR(?=[\s(])", "||", re.sub(
        r"(?<=[\s)])AND(?=[\s(])", "&&", text, flags=re.IGNORECASE), flags=re.IGNORECASE))


_ORDER_TERM = r"[?$]\w+|\w+\s*\((?:[^()]|\([^()]*\))*\)"


def order_direction(query: str) -> str:
    """`ORDER BY ?n DESC` -> `ORDER BY DESC(?n)`: SPARQL puts the direction first, as a call."""
    return re.sub(rf"(?<=\bORDER BY )({_ORDER_TERM})\s+(DESC|ASC)\b(?!\s*\()",
                  lambda m: f"{m.group(2).upper()}({m.group(1)})",
                  re.sub(r"\bORDER\s+BY\s+", "ORDER BY ", query, flags=re.IGNORECASE), flags=re.IGNORECASE)


def class_from(query: str, source: Source) -> str:
    """`FROM ontop:city` (SQL's FROM, naming a class, not a graph) -> a `?city a ontop:city` pattern."""
    classes = known_names(source)[0]
    prefixes = source.descriptor.get("prefixes", {})
    for m in reversed(list(re.finditer(r"\bFROM\s+(?!NAMED\b)(<[^<>\s]+>|[\w-]*:[\w-]+)\s*", query, re.IGNORECASE))):
        iri = expand(m.group(1), query, prefixes)
        if iri not in classes:
            continue
        pattern = f"?{subject_variable(iri)} a {m.group(1)} ."
        query = query[:m.start()] + query[m.end():]
        block = _where_block(query)
        if block is None:
            query = f"{query.rstrip()}\nWHERE {{ {pattern} }}"
        else:
            query = f"{query[:block[0] + 1]} {pattern}{query[block[0] + 1:]}"
    return query


def bind_missing(query: str, schema: str) -> str:
    """Variables the query selects, counts, groups or orders by but no pattern binds get the
    schema's own pattern for them, when its subject is a variable the query already uses (so the
    pattern joins and never multiplies rows)."""
    block = _where_block(query)
    if block is None:
        return query
    body = query[block[0]:block[1] + 1]
    around = query[:block[0]] + " " + query[block[1] + 1:]
    around = re.sub(r"\bAS\s+[?$]\w+", " ", SPARQL_TEXT.sub(" ", around), flags=re.IGNORECASE)
    bound = set(_VARIABLE.findall(body))
    for variable in dict.fromkeys(_VARIABLE.findall(around)):
        if variable not in bound and (joined := bind_variable(query, variable, schema)) is not None:
            query, bound = joined, bound | {variable}
    return query


_FILTER = re.compile(r"\bFILTER\s*\(", re.IGNORECASE)


def filters_bound(query: str, schema: str) -> str:
    """Variables only a FILTER of the WHERE block names, that no pattern binds: written as the bound
    variable they differ from only in case or underscores (`?book_format` for the `?bookFormat` a
    pattern binds), else bound by the schema's own pattern for them (`?book_datePublished`). A FILTER
    on a variable nothing binds is never true, so the query would find nothing."""
    bound, unbound = _filtered(query)
    for variable in unbound:
        same = [b for b in bound if _plain(b) == _plain(variable)]
        if len(same) == 1:
            query = _renamed_variable(query, variable, same[0])
        elif (joined := bind_variable(query, variable, schema)) is not None:
            query = joined
    return query


def _filtered(query: str) -> tuple[list[str], list[str]]:
    """The variables the WHERE block's patterns bind, and those only its FILTERs name (a FILTER with
    EXISTS binds its own), in the order written."""
    block = _where_block(query)
    if block is None:
        return [], []
    body = query[block[0] + 1:block[1]]
    filters = [body[m.start():end + 1] for m in _FILTER.finditer(body) if (end := closing(body, m.end() - 1)) > 0]
    patterns = body
    for text in filters:
        patterns = patterns.replace(text, " ")
    bound = list(dict.fromkeys(_VARIABLE.findall(SPARQL_TEXT.sub(" ", patterns))))
    compared = dict.fromkeys(v for text in filters if not re.search(r"\bEXISTS\b", text, re.IGNORECASE)
                             for v in _VARIABLE.findall(SPARQL_TEXT.sub(" ", text)))
    return bound, [v for v in compared if v not in bound]


def unbound_filters(statement: str) -> str | None:
    """A message naming the variables a FILTER compares that no pattern binds: such a FILTER is never
    true, so the query finds nothing (and an average over nothing reads as 0). None when there are none."""
    _, unbound = _filtered(statement)
    if not unbound:
        return None
    names = ", ".join(f"?{v}" for v in unbound)
    return (f"a FILTER compares {names}, which no pattern binds, so it is never true and nothing is found: bind it "
            "with a pattern of the data, or leave that condition out if the question does not ask for it")


def _plain(variable: str) -> str:
    return variable.replace("_", "").replace("-", "").lower()


def _renamed_variable(query: str, old: str, new: str) -> str:
    """The query with `?old` written `?new` everywhere outside its strings and IRIs."""
    return outside(query, SPARQL_TEXT, lambda text: re.sub(rf"([?$]){re.escape(old)}\b", rf"\g<1>{new}", text))


def bind_variable(query: str, variable: str, schema: str) -> str | None:
    """The query with a pattern of the schema that binds `?variable` joined to it: its own pattern
    (`?book schema:name ?book_name .`), or, for a variable named by the property alone (`?name`),
    the property's pattern with that variable as its object; on a subject the query uses, or
    reached from one through one link of the schema (`?player poker:ref-people_id ?people .`).
    None when no pattern joins."""
    block = _where_block(query)
    if block is None:
        return None
    used = set(_VARIABLE.findall(query[block[0]:block[1]]))
    patterns = _patterns(schema)
    owned = [p for p in patterns if p[2] == f"?{variable}"] or \
        [(s, pred, f"?{variable}") for s, pred, o in patterns if o.endswith(f"_{variable}")]
    for subject, predicate, obj in owned:
        if subject[1:] in used:
            return bind(query, f"{subject} {predicate} {obj} .")
    for subject, predicate, obj in owned:
        link = next((p for p in patterns if p[2] == subject and p[0][1:] in used and p[1] != "a"), None)
        if link is not None and (linked := bind(query, " ".join(link) + " .")) is not None:
            return bind(linked, f"{subject} {predicate} {obj} .")
    return None


_NAME_LIKE = re.compile(r"(?:^|[_-])(?:name|fname|lname|first_?name|last_?name|given_?name|family_?name|surname|"
                        r"title|label)$", re.IGNORECASE)
NAMES_TRIED = 4  # name-like properties tried at most for one variable
# a class's own name, beside which `singer:song_name` (a song's) is no name of the singer
_BARE_NAME = re.compile(r"[fl]?name|first_?name|last_?name|title|label", re.IGNORECASE)


def with_names(query: str, variable: str, schema: str) -> tuple[str, list[str]] | None:
    """The query with the names of the entities `?variable` holds (their IRIs) selected beside it: each
    name-like property of the schema (name, fname and lname, title, label, or a property named as
    its class, as Spider's tables name their name column; not `song_name` where the class has a
    `name`) in an OPTIONAL pattern.
    The new variables come with it; None when the schema has no such property or the query no
    WHERE block or SELECT that names the variable."""
    predicates = list(dict.fromkeys(p for s, p, _ in _patterns(schema) if _NAME_LIKE.search(local_name(p))
                                    or local_name(p) == s[1:]))  # `?orchestra orchestra:orchestra`: its name
    bare = {_namespace(p) for p in predicates if _BARE_NAME.fullmatch(local_name(p))}
    predicates = [p for p in predicates if _BARE_NAME.fullmatch(local_name(p)) or _namespace(p) not in bare]
    predicates = predicates[:NAMES_TRIED]
    block, select = _where_block(query), _select_clause(query)
    if not predicates or block is None or select is None:
        return None
    head = query[select[0]:select[1]]
    named = re.search(rf"\?{re.escape(variable)}\b", head)
    if named is None:
        return None
    names: list[str] = []
    for predicate in predicates:
        name = f"{variable}_{local_name(predicate).replace('-', '_')}"
        names.append(name if name not in names and not re.search(rf"\?{name}\b", query) else f"{name}_{len(names)}")
    optional = " ".join(f"OPTIONAL {{ ?{variable} {p} ?{n} }}" for p, n in zip(predicates, names, strict=True))
    query = query[:block[1]] + f" {optional} " + query[block[1]:]
    at = select[0] + named.end()
    return query[:at] + "".join(f" ?{n}" for n in names) + query[at:], names


def _patterns(schema: str) -> list[tuple[str, str, str]]:
    """The schema's `?s predicate ?o .` lines as (subject, predicate, object)."""
    out = []
    for line in schema.splitlines():
        parts = line.split("#")[0].split()
        if len(parts) == 4 and parts[3] == "." and parts[0].startswith("?") and parts[2].startswith("?"):
            out.append((parts[0], parts[1], parts[2]))
    return out


def bind(query: str, pattern: str) -> str | None:
    """The query with `pattern` added at the start of its WHERE block, when the pattern's subject is
    a variable the query already uses there (so the new pattern joins, never multiplies rows)."""
    subject = pattern.split()[0]
    block = _where_block(query)
    if block is None or not re.search(re.escape(subject) + r"\b", query[block[0]:block[1]]):
        return None
    return query[:block[0] + 1] + f" {pattern} " + query[block[0] + 1:]


def expand(name: str, query: str, prefixes: dict[str, str]) -> str | None:
    """The IRI a `prefix:local` name or `<iri>` stands for in `query` (its own PREFIX lines first)."""
    if name.startswith("<"):
        return name[1:-1]
    prefix, _, local = name.partition(":")
    declared = dict(re.findall(r"\bPREFIX\s+([\w-]*):\s*<([^<>\s]*)>", query, re.IGNORECASE))
    ns = declared.get(prefix) or prefixes.get(prefix) or COMMON_PREFIXES.get(prefix)
    return ns + local if ns else None


def known_names(source: Source) -> tuple[set[str], set[str], bool]:
    """The source's class IRIs, its predicate IRIs, and whether the descriptor lists them all
    (it is capped at MAX_CLASSES classes and MAX_PREDICATES predicates per class)."""
    d = source.descriptor
    classes = {c["iri"] for c in d.get("classes", [])}
    lists = [c.get("predicates", []) for c in d.get("classes", [])] + [d.get("predicates", [])]
    predicates = {p["iri"] for preds in lists for p in preds}
    complete = len(classes) < MAX_CLASSES and all(len(preds) < MAX_PREDICATES for preds in lists)
    return classes, predicates, complete


def unknown_names(statement: str, source: Source) -> str | None:
    """A message naming the predicates (and classes after `a`) in the query's patterns that the
    source does not have; None when all are known, or when the descriptor is capped and cannot
    tell. Such a pattern matches nothing, so the query would return an empty answer, not an error."""
    from rdflib import RDF, URIRef

    classes, predicates, complete = known_names(source)
    if not complete:
        return None
    tree = _algebra(statement)
    if tree is None:
        return None
    prefixes = source.descriptor.get("prefixes", {})
    unknown, namesakes = {}, {}
    for _s, p, o in _triples(tree):
        if isinstance(p, URIRef) and p != RDF.type and str(p) not in predicates:
            unknown[str(p)] = sorted(compact(x, prefixes) for x in predicates if _namespace(x) == _namespace(str(p)))
            namesakes[str(p)] = sorted(compact(x, prefixes) for x in predicates if same_local(x, str(p)))
        elif p == RDF.type and isinstance(o, URIRef) and str(o) not in classes:
            unknown[str(o)] = sorted(compact(x, prefixes) for x in classes)
            namesakes[str(o)] = []
    return "; ".join(f"{compact(iri, prefixes)} is not in this data"
                     + (f" (it has {', '.join(kin[:12])})" if kin else "")
                     + (f"; the data has {' and '.join(namesakes[iri][:3])}" if namesakes[iri] else "")
                     for iri, kin in unknown.items()) or None


_COUNTED = re.compile(r"\(\s*COUNT\s*\(\s*(?:DISTINCT\s+)?(\?\w+|\*)?[^()]*\)\s+AS\s+\?(\w+)\s*\)", re.IGNORECASE)
_OBJECT_OF = r"(?:\S+:|<[^>]*[/#])(\w+)>?\s+{}(?!\w)"  # `?s ns:continent ?c`: ?c holds ns:continent's values


def counted_property(statement: str, source: Source) -> str | None:
    """`(COUNT(?conductor) AS ?yearsOfWork)` where the data has conductor:year_of_work: the query
    counts rows for a value a property holds. None when no count is named after a property, or the
    count is of that property's own values ("How many continents are there?" counting the distinct
    values of continents:continent)."""
    _, predicates, _ = known_names(source)
    by_words = {_words_of(local_name(p)): p for p in predicates}
    for counted, alias in _COUNTED.findall(statement):
        if counted.startswith("?") and any(_words_of(name) == _words_of(alias) for name in re.findall(
                _OBJECT_OF.format(re.escape(counted)), statement)):
            continue
        if (held := by_words.get(_words_of(alias))) is not None:
            return (f"?{alias} counts rows, but {compact(held, source.descriptor.get('prefixes', {}))} holds that "
                    "value: select the property's value instead of a COUNT")
    return None


def _words_of(name: str) -> str:
    """`yearsOfWork`, `year_of_work` and `YearOfWork` as one key: the words, singular, lower-cased."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    return " ".join(re.sub(r"(?<=[a-z]{3})s$", "", w.lower()) for w in words)


def same_local(known: str, wanted: str) -> bool:
    return local_name(known).lower() == local_name(wanted).lower()


def mend_classes(query: str, source: Source) -> str:
    """A class the data lacks, written where one class of the data has its name in another namespace
    or case (`battle:Battle` for `ontop:battle`), as that class: it cannot be meant otherwise."""
    def mended(m: re.Match, iri: str, classes: set[str]) -> str:
        namesakes = [c for c in classes if same_local(c, iri)]
        return _written_at(m, namesakes[0]) if len(namesakes) == 1 else m.group(0)
    return _unknown_mended(query, source, _CLASS_AFTER_A, 1, mended, classes=True)


def mend_predicates(query: str, source: Source) -> str:
    """A predicate the data lacks, written where one predicate of the data has its local name in
    another namespace (`battle:lost_in_battle` for `ship:lost_in_battle`), as that predicate; left
    as written when no predicate, or several (`friend:` and `likes:ref-student_id`), has the name."""
    subjects = _subject_classes(query)

    def mended(m: re.Match, iri: str, predicates: set[str]) -> str:
        namesakes = [p for p in predicates if same_local(p, iri)]
        if len(namesakes) != 1 or not all(namesakes[0] in _predicates_of(c, source) for c in subjects.get(iri, [])):
            return m.group(0)  # none, several, or one the subject's class lacks (a battle has no ship's link)
        return _written_at(m, namesakes[0])
    return _unknown_mended(query, source, _PREFIXED, 1, mended, classes=False)


def links_named_by_class(query: str, source: Source) -> str:
    """A link the data lacks, named after the class it reaches (`countrylanguage:country ?country`),
    written as the one link of the subject's class to that class (`countrylanguage:ref-countrycode`);
    left as written when the class has no such link, or several."""
    def mended(m: re.Match, iri: str, predicates: set[str]) -> str:
        links = [p["iri"] for p in (_own_class(iri, source) or {}).get("predicates", []) if p.get("kind") == "iri"
                 and local_name(str(p.get("range") or "")).lower() == local_name(iri).lower()]
        return _written_at(m, links[0]) if len(links) == 1 else m.group(0)
    return _unknown_mended(query, source, _PAIR, 1, mended, classes=False)  # a predicate: a variable follows


def _written_at(m: re.Match, iri: str) -> str:
    """The text `m` matched with its first group (a name the data lacks) written as the data's `iri`,
    quoted as SPARQL quotes an IRI; as it was when the IRI cannot be written into SPARQL."""
    try:
        written = str(sq.iri(iri))
    except Unquotable:
        return m.group(0)
    return m.group(0)[:m.start(1) - m.start(0)] + written + m.group(0)[m.end(1) - m.start(0):]


def misplaced_links(query: str, source: Source) -> str:
    """A predicate the data lacks, whose name the data has on one other class (a link written on the
    wrong end), made into what the data can answer. Joined by a shared value (`?battle
    battle:lost_in_battle ?v . ?ship ship:lost_in_battle ?v`): the pattern is left out, and
    `follow_links` joins the two through the ship's link to its battle. Skipping a class between
    (`?sic singer_in_concert:ref-stadium_id ?stadium`, where a concert has the stadium): the link to
    that class, then its own (`?sic singer_in_concert:ref-concert_id ?via_concert . ?via_concert
    concert:ref-stadium_id ?stadium`). Unchanged when the data's names are not all known."""
    classes, predicates, complete = known_names(source)
    if not complete:
        return query
    prefixes = source.descriptor.get("prefixes", {})
    for _ in range(MOST_MISPLACED):
        pairs = [(m, expand(m.group(1), query, prefixes)) for m in _PAIR.finditer(query)]
        mended = next((fixed for m, iri in pairs if iri is not None and iri not in predicates and iri not in classes
                       and (fixed := _misplaced(query, m, iri, pairs, predicates, source)) not in (None, query)), None)
        if mended is None:
            return query
        query = mended
    return query


def _misplaced(query: str, m: re.Match, iri: str, pairs: list[tuple[re.Match, str | None]], predicates: set[str],
               source: Source) -> str | None:
    namesakes = _namesakes(iri, predicates)
    if not namesakes:
        return None
    if any(other.group(2) == m.group(2) and known in predicates for other, known in pairs if other is not m):
        return _without_pair(query, m)
    links = [p for p in namesakes if _described(p, source).get("kind") == "iri"]
    return _through_class(query, m, iri, links[0], source) if len(links) == 1 else None


MOST_MISPLACED = 3
_PAIR = re.compile(r"(<[^<>\s]+>|[A-Za-z_][\w-]*:[\w-]+)\s+[?$](\w+)\b(?!\s*\()")


def _namesakes(iri: str, predicates: set[str]) -> list[str]:
    """The data's predicates named as `iri` is, a link's `ref-` aside."""
    def bare(name: str) -> str:
        return local_name(name).lower().removeprefix("ref-")
    return [p for p in predicates if bare(p) == bare(iri) and _namespace(p) != _namespace(iri)]


def _without_pair(query: str, m: re.Match) -> str | None:
    """The query without the predicate and object `m` matched: a whole `?s p ?o .` pattern, or one pair
    of a `;` list."""
    start, end = m.start(), m.end()
    whole = re.search(r"[?$]\w+\s+$", query[:start])
    tail = re.match(r"\s*\.", query[end:])
    if whole and tail and re.search(r"(?:^|[.{}]\s*)$", query[:whole.start()]):
        return query[:whole.start()] + query[end + tail.end():]
    before = re.search(r";\s*$", query[:start])
    if before:
        return query[:before.start()] + query[end:]
    after = re.match(r"\s*;", query[end:])
    return query[:start] + query[end + after.end():].lstrip(" ") if after else None


def _through_class(query: str, m: re.Match, iri: str, namesake: str, source: Source) -> str | None:
    """`?s A:p ?o` as `?s A:ref-B ?via_b . ?via_b B:p ?o` where the data has B:p (a link) and A's one
    link to B; None when A has no such one link."""
    holder = next(iter(_holders(namesake, source)), None)
    own = _own_class(iri, source)
    if holder is None or own is None:
        return None
    links = [p["iri"] for p in own.get("predicates", []) if p.get("kind") == "iri" and p.get("range") == holder]
    if len(links) != 1:
        return None
    via = "via_" + variable_name(local_name(holder), "thing")
    if (block := _where_block(query)) is None:
        return None
    opening = block[0]
    try:
        link, onward = str(sq.iri(links[0])), str(sq.iri(namesake))
    except Unquotable:
        return None
    mended = query[:m.start()] + f"{link} ?{via}" + query[m.end():]
    return mended[:opening + 1] + f"\n  ?{via} {onward} ?{m.group(2)} ." + mended[opening + 1:]


def _own_class(iri: str, source: Source) -> dict | None:
    """The one class of the data whose predicates are in `iri`'s namespace (`countrylanguage:` ->
    countrylanguage): the class a predicate written in that namespace is about. None when no class,
    or several, have predicates there (one namespace for the whole data)."""
    owners = [c for c in source.descriptor.get("classes", [])
              if any(_namespace(p["iri"]) == _namespace(iri) for p in c.get("predicates", []))]
    return owners[0] if len(owners) == 1 else None


def _subject_classes(query: str) -> dict[str, list[str]]:
    """Per predicate of the query, the classes its subjects are typed with (`?battle a ontop:battle`)."""
    from rdflib import RDF, URIRef, Variable

    tree = _algebra(query)
    if tree is None:
        return {}
    triples = _triples(tree)
    typed = {s: str(o) for s, p, o in triples if p == RDF.type and isinstance(s, Variable) and isinstance(o, URIRef)}
    out: dict[str, list[str]] = {}
    for s, p, _ in triples:
        if isinstance(p, URIRef) and s in typed:
            out.setdefault(str(p), []).append(typed[s])
    return out


def _unknown_mended(query: str, source: Source, pattern: re.Pattern, group: int,
                    mend: Callable[[re.Match, str, set[str]], str], classes: bool) -> str:
    """The query with each match of `pattern` whose IRI (its `group`, expanded) is none of the data's
    classes (`classes`) or predicates written as `mend` gives it (the match, the IRI, the known
    names); unchanged when the data's names are not all known."""
    known_classes, predicates, complete = known_names(source)
    if not complete:
        return query
    known = known_classes if classes else predicates
    prefixes = source.descriptor.get("prefixes", {})

    def mended(m: re.Match) -> str:
        iri = expand(m.group(group), query, prefixes)
        return m.group(0) if iri is None or iri in known else mend(m, iri, known)
    return pattern.sub(mended, query)


_PREFIXED = re.compile(r"(?<![\w?$:<\"'])((?:[A-Za-z_][\w-]*)?:[A-Za-z_][\w-]*)(?![\w:-])")
_CLASS_AFTER_A = re.compile(r"(?<=[\s;])a\s+((?:[A-Za-z_][\w-]*)?:[A-Za-z_][\w-]*|<[^<>\s]+>)")


def _namespace(iri: str) -> str:
    return re.sub(r"[^#/:]*$", "", iri)


def _triples(node: object) -> list[tuple]:
    """Every triple pattern of a translated query's algebra (in any nested group, filter or subquery)."""
    return _gathered(node, "BGP", lambda bgp: list(bgp.get("triples") or []))


def _gathered(node: object, name: str, take: Callable[[Any], list]) -> list:
    """What `take` gives for every part of a translated query's algebra named `name`, at any depth."""
    from rdflib.plugins.sparql.parserutils import CompValue

    found = []
    if isinstance(node, CompValue):
        if node.name == name:
            found += take(node)
        for value in node.values():
            found += _gathered(value, name, take)
    elif isinstance(node, (list, tuple)):
        for value in node:
            found += _gathered(value, name, take)
    return found


def follow_links(query: str, source: Source) -> str:
    """`?x singer_in_concert:singer_id ?singer . ?singer singer:name ?name`: a variable bound to a
    predicate's values (numbers, text) and then used as a thing, which matches nothing. The class's
    link to the thing (`singer_in_concert:ref-singer_id`, whose objects are IRIs) is used instead."""
    triples = _parsed_triples(query)
    if triples is None:
        return query
    from rdflib import RDF, Variable

    things = {s for s, _, _ in triples if isinstance(s, Variable)}
    used = {s: {str(p) for x, p, _ in triples if x == s and p != RDF.type} for s in things}
    for _, p, o in triples:
        if not isinstance(o, Variable):
            continue
        if o in things and (link := _link_for(str(p), used[o], source)) is not None:
            query = _swap_predicate(query, str(p), link, str(o), source)
        elif len(re.findall(rf"[?$]{re.escape(str(o))}\b", query)) == 1 and (
                joined := _join_by_link(query, str(p), str(o), used, source)) is not None:
            query = joined
    return query


def without_self_links(query: str, source: Source) -> str:
    """`?conductor conductor:ref-conductor_id ?conductor .`: a pattern that links a thing to itself by a
    predicate the data does not have matches nothing and says nothing; it is left out."""
    return _unknown_mended(query, source, _SELF_LINK, 2, lambda m, iri, known: "", classes=False)


_SELF_LINK = re.compile(r"[?$](\w+)\s+(<[^<>\s]+>|[A-Za-z_][\w-]*:[\w-]+)\s+[?$]\1\b\s*\.[ \t]*\n?")


def _join_by_link(query: str, literal: str, variable: str, used: dict, source: Source) -> str | None:
    """`?x singer_in_concert:concert_id ?concert_id` (a value named nowhere else) beside a part about
    `?concert`, a thing of the class that predicate's link reaches: the link to `?concert` instead,
    which joins the two parts (else every singer pairs with every concert)."""
    for thing, predicates in used.items():
        link = _link_for(literal, predicates, source)
        if link is not None and link != literal and predicates <= _predicates_of(_range_of(link, source), source):
            swapped = _swap_predicate(query, literal, link, variable, source)
            return re.sub(rf"[?$]{re.escape(variable)}\b", f"?{thing}", swapped) if swapped != query else None
    return None


def _range_of(link: str, source: Source) -> str:
    return str(_described(link, source).get("range") or "")


def _described(predicate: str, source: Source) -> dict:
    """What the descriptor says of a predicate (its kind, its range), or {}."""
    return next((p for c in source.descriptor.get("classes", []) for p in c.get("predicates", [])
                 if p["iri"] == predicate), {})


def _link_for(literal: str, used: set[str], source: Source) -> str | None:
    """The IRI-valued predicate of the class that holds `literal` (a predicate with literal values)
    that links to the same thing: the one named for it (`ref-singer_id` for `singer_id`), else the
    only one whose range class has the predicates the thing is used with."""
    for cls in source.descriptor.get("classes", []):
        preds = cls.get("predicates", [])
        own = next((p for p in preds if p["iri"] == literal), None)
        if own is None or own.get("kind") != "literal":
            continue
        links = [p for p in preds if p.get("kind") == "iri"]
        named = [p["iri"] for p in links if local_name(p["iri"]).endswith(local_name(literal))]
        ranged = [p["iri"] for p in links if used & _predicates_of(p.get("range", ""), source)]
        return named[0] if len(named) == 1 else ranged[0] if len(ranged) == 1 else None
    return None


def _predicates_of(class_iri: str, source: Source) -> set[str]:
    return {p["iri"] for p in _class_named(class_iri, source).get("predicates", [])}


_NAME_BEFORE_VARIABLE = r"(<[^<>\s]+>|[A-Za-z_][\w-]*:[\w-]+)(\s+[?$]{var}\b)"


def _swap_predicate(query: str, old: str, new: str, variable: str, source: Source) -> str:
    """The query with `old` (as the query writes it, prefixed or in brackets) before `?variable`
    written as `new`, in the same spelling."""
    prefixes = source.descriptor.get("prefixes", {})

    def swapped(m: re.Match) -> str:
        name = m.group(1)
        if expand(name, query, prefixes) != old:
            return m.group(0)
        prefixed = not name.startswith("<") and _namespace(new) == _namespace(old) and _LOCAL.fullmatch(local_name(new))
        written = f"{name.partition(':')[0]}:{local_name(new)}" if prefixed else str(sq.iri(new))
        return written + m.group(2)
    try:
        return re.sub(_NAME_BEFORE_VARIABLE.format(var=re.escape(variable)), swapped, query)
    except Unquotable:  # an IRI of the data that cannot be written into SPARQL: the query as it was
        return query


_LOCAL = re.compile(r"[A-Za-z_][\w-]*")  # a local name written after a prefix as it stands


def _parsed_triples(query: str) -> list[tuple] | None:
    """The triple patterns of a query rdflib can parse (None when it cannot)."""
    tree = _algebra(query)
    return None if tree is None else _triples(tree)


def _algebra(query: str) -> object | None:
    """A query's translated algebra (None when rdflib cannot parse it: the engine reports syntax)."""
    from rdflib.plugins.sparql import algebra, parser

    try:
        return algebra.translateQuery(parser.parseQuery(query)).algebra
    except Exception:  # noqa: BLE001
        return None


def _has_subquery(query: str) -> bool:
    """Whether `query` holds a SELECT inside its own: the fixes that read one query's parts leave it alone."""
    return len(re.findall(r"\bSELECT\b", query, re.IGNORECASE)) > 1


def apart(statement: str) -> str | None:
    """A message when the query's patterns fall into groups that share no variable (nor a filter
    that compares them): every match of one is paired with every match of the other, which is never
    what a question means. None when they are joined, or for a query with a subquery or UNION."""
    if _has_subquery(statement) or re.search(r"\bUNION\b", statement, re.I):
        return None
    from rdflib import Variable

    tree = _algebra(statement)
    if tree is None:
        return None
    groups = [{t for t in triple if isinstance(t, Variable)} for triple in _triples(tree)]
    filters = _gathered(tree, "Filter", lambda f: [_variables(f.get("expr"))])
    joined = _joined([g for g in groups if g] + [g for g in filters if len(g) > 1])
    if len(joined) < 2:
        return None
    parts = sorted(", ".join(f"?{v}" for v in sorted(group)) for group in joined)
    return (f"the query falls into parts that share no variable ({'; '.join(parts)}), so every match of one part "
            "is paired with every match of the other: join them through the thing they share (the same variable "
            "for it in both parts, reached by a link predicate whose objects are IRIs)")


def _variables(node: object) -> set:
    """The variables an expression of the algebra names."""
    from rdflib import Variable
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(node, Variable):
        return {node}
    if isinstance(node, CompValue):
        return set().union(*(_variables(v) for v in node.values()))
    if isinstance(node, (list, tuple)):
        return set().union(*(_variables(v) for v in node))
    return set()


def _joined(groups: list[set]) -> list[set]:
    """The groups merged wherever they share a member."""
    merged: list[set] = []
    for group in groups:
        overlapping = [m for m in merged if m & group]
        for m in overlapping:
            merged.remove(m)
        merged.append(set(group).union(*overlapping))
    return merged


_GROUP_BY = re.compile(r"\bGROUP\s+BY((?:\s+[?$]\w+)+)", re.IGNORECASE)


def grouped_values(query: str) -> str:
    """`SELECT ?employee_name … GROUP BY ?employee`: a selected value of a grouped thing (its name),
    neither grouped nor aggregated, which SPARQL refuses. It is grouped too: a thing's value is one
    per thing, so the groups stay the same. Other ungrouped variables are left to the repair."""
    group_by, span = _GROUP_BY.search(query), _select_clause(query)
    if group_by is None or span is None or _has_subquery(query):
        return query
    grouped = set(_VARIABLE.findall(group_by.group(1)))
    selected = flat(query[span[0]:span[1]])  # what brackets hold (aggregates, `AS ?n`) blanked
    wanted = [v for v in dict.fromkeys(_VARIABLE.findall(selected)) if v not in grouped]
    triples = _parsed_triples(query) if wanted else None
    if not triples:
        return query
    from rdflib import Variable

    valued = {str(o) for s, _, o in triples
              if isinstance(o, Variable) and isinstance(s, Variable) and str(s) in grouped}
    added = [v for v in wanted if v in valued]
    if not added:
        return query
    return query[:group_by.end(1)] + "".join(f" ?{v}" for v in added) + query[group_by.end(1):]


_HYPHENED = re.compile(r"([?$][A-Za-z_]\w*)((?:-[A-Za-z_]\w*)+)")


def variable_names(query: str) -> str:
    """`?ref-channel` as `?ref_channel`: a variable named after a predicate's local name
    (`cartoon:ref-channel`) keeps its hyphen, which SPARQL reads as a minus ("Expected SelectQuery;
    near '-channel'"); `?a-?b` and `?year-1` stay subtractions."""
    return outside(query, SPARQL_TEXT, lambda code: _HYPHENED.sub(lambda m: m.group(1) + m.group(2).replace("-", "_"),
                                                                   code))


_BARE_SUBJECT = re.compile(r"(?P<sep>[;.{])(?P<space>\s*)(?P<word>[A-Za-z_]\w*)"
                           r"(?=\s+(?:[A-Za-z_][\w-]*:[\w-]+|<[^<>\s]*>)\s+\S)")


def bare_subjects(query: str) -> str:
    """`?cartoon cartoon:ref-channel ?tv_channel ; tv_channel tv_channel:country ?c .`: a subject written
    without its `?` (SPARQL: "Expected SelectQuery"), where the query uses that variable elsewhere. The
    word becomes the variable, and a `;` before it (which would make it the previous subject's
    predicate) ends that subject's patterns with `.`. A word no variable of the query is named is left."""
    def mended(code: str) -> str:
        def subject(m: re.Match) -> str:
            if f"?{m.group('word')}" not in variables:
                return m.group(0)
            sep = " ." if m.group("sep") == ";" else m.group("sep")
            return f"{sep}{m.group('space')}?{m.group('word')}"
        return _BARE_SUBJECT.sub(subject, code)
    variables = {f"?{v}" for v in _VARIABLE.findall(query)}
    return outside(query, SPARQL_TEXT, mended)


def through_the_other_link(query: str, source: Source) -> str:
    """`?friend friend:ref-student_id ?john . ?friend high_schooler:grade ?grade`: one variable used as
    a row of a class that links two things of another class (a friendship: a student and a friend)
    and as a thing of that class, which no subject is. The variable stays the thing (what a question
    asks about); the row's patterns move to a variable of their own, joined to the thing by the row's
    one link the query does not use yet (`?via_friend friend:ref-student_id ?john . ?via_friend
    friend:ref-friend_id ?friend`). Unchanged when the classes or that link are not one."""
    triples = _parsed_triples(query)
    if triples is None or _has_subquery(query):
        return query
    from rdflib import RDF, URIRef, Variable

    for subject in dict.fromkeys(s for s, _, _ in triples if isinstance(s, Variable)):
        pairs = [(str(p), o) for s, p, o in triples if s == subject and isinstance(p, URIRef) and p != RDF.type]
        owners = {p: _holders(p, source) for p, _ in pairs}
        if not pairs or any(len(held) != 1 for held in owners.values()):
            continue
        row_class = _linking_class({held[0] for held in owners.values()}, source)
        if row_class is None:
            continue
        row, thing = row_class
        unused = [p["iri"] for p in _class_named(row, source).get("predicates", [])
                  if p.get("kind") == "iri" and p.get("range") == thing and p["iri"] not in owners]
        moved = [(p, o) for p, o in pairs if owners[p][0] == row]
        if len(unused) == 1 and all(isinstance(o, Variable) for _, o in moved):
            return _rows_apart(query, str(subject), row, unused[0], moved, source) or query
    return query


def _holders(predicate: str, source: Source) -> list[str]:
    return [c["iri"] for c in source.descriptor.get("classes", []) if any(p["iri"] == predicate
                                                                          for p in c.get("predicates", []))]


def _class_named(iri: str, source: Source) -> dict:
    return next((c for c in source.descriptor.get("classes", []) if c["iri"] == iri), {})


def _linking_class(classes: set[str], source: Source) -> tuple[str, str] | None:
    """(row class, thing class) of two classes when exactly one of them has links to the other."""
    if len(classes) != 2:
        return None
    first, second = sorted(classes)
    links = {(a, b) for a, b in ((first, second), (second, first)) if any(
        p.get("kind") == "iri" and p.get("range") == b for p in _class_named(a, source).get("predicates", []))}
    return next(iter(links)) if len(links) == 1 else None


def _rows_apart(query: str, subject: str, row: str, link: str, moved: list[tuple[str, object]],
                source: Source) -> str | None:
    """The query with `moved` (predicate, object variable) taken from `?subject` to a variable of the
    row class, itself linked to `?subject` by `link`."""
    prefixes = source.descriptor.get("prefixes", {})
    via = "via_" + variable_name(local_name(row), "row")
    added: list[str] = []
    for predicate, obj in moved:
        m = next((m for m in _PAIR.finditer(query) if m.group(2) == str(obj)
                  and expand(m.group(1), query, prefixes) == predicate), None)
        if m is None or (without := _without_pair(query, m)) is None:
            return None
        query, added = without, [*added, f"?{via} {m.group(1)} ?{obj} ."]
    if (block := _where_block(query)) is None:
        return None
    try:
        added.append(f"?{via} {sq.iri(link)} ?{subject} .")
    except Unquotable:
        return None
    return query[:block[0] + 1] + "".join(f"\n  {line}" for line in added) + query[block[0] + 1:]
