"""Writing SPARQL for an RDF source: its descriptor as a schema a model reads well (PREFIX lines,
then each class as the triple patterns that reach its predicates, with value samples), the chat
prompt with few-shot examples, and the query taken out of the model's reply. Checking and running
are the store's (`RdfStore.explain` / `execute`)."""

from __future__ import annotations

import json
import re
from functools import partial
from typing import TYPE_CHECKING

from engine.generation.budget import Budget
from engine.generation.untrusted import inline
from engine.native import periods
from engine.native.examples import Example
from engine.native.writers import sparql_fixes
from engine.native.writers.fitting import fit, mentioned, schema_room, words
from engine.native.writers.sparql_fixes import subject_variable, variable_name
from engine.native.writers.summary import property_words, stem
from local_stores.quoting import sparql as sp
from local_stores.rdf_store import COMMON_PREFIXES, compact, local_name, with_prefixes
from local_stores.results import QueryRefused

if TYPE_CHECKING:
    from engine.native.periods import Span
    from engine.native.sources import Source


LANGUAGE = "sparql"
REPLY_TOKENS = 300  # a query's tokens at most: PREFIX lines and triple patterns are long

SYSTEM = """You write one SPARQL 1.1 query that answers the user's question from the RDF data below.
Rules:
- The data's PREFIX lines are declared for you: start with SELECT (or ASK). Use only the prefixes, classes and \
predicates shown.
- Write only the triple patterns the question needs; never copy the data's # comments into the query.
- One SELECT query (ASK for a yes/no question). Never modify data; no SERVICE.
- Compare text case-insensitively: FILTER(lcase(str(?x)) = "value") or FILTER(CONTAINS(lcase(str(?x)), "part")).
- Return readable values: when you select a thing, also select its name or label, not only its IRI.
- For counts, totals and averages use COUNT/SUM/AVG (with GROUP BY per group); ORDER BY and LIMIT for "most" or "top".
- Reply with the SPARQL only, no explanation."""

_OBSERVATORY = """PREFIX obs: <http://example.org/observatory#>
# class obs:Telescope (12 instances)
?telescope a obs:Telescope .
?telescope obs:name ?name .  # string, e.g. "Hale", "Keck I"
?telescope obs:mirrorMetres ?mirrorMetres .  # decimal, e.g. 5.1, 10.0
# class obs:Observation (340 instances)
?observation a obs:Observation .
?observation obs:target ?target .  # string, e.g. "M31", "Vega"
?observation obs:usedTelescope ?telescope .  # a obs:Telescope, e.g. Hale, Keck I
?observation obs:hours ?hours .  # decimal, e.g. 1.5, 3.0"""
_RECIPES = """PREFIX rec: <http://example.org/recipes#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
# class rec:Recipe (80 instances)
?recipe a rec:Recipe .
?recipe rdfs:label ?label .  # string, e.g. "Pea soup", "Apple pie"
?recipe rec:minutes ?minutes .  # integer, e.g. 45, 90
?recipe rec:uses ?ingredient .  # a rec:Ingredient, e.g. Butter, Flour
# class rec:Ingredient (150 instances)
?ingredient a rec:Ingredient .
?ingredient rdfs:label ?label .  # string, e.g. "Butter", "Flour"\""""

# Examples in domains unlike the user's data, so that they teach the form, not the content.
EXAMPLES = [
    Example(_OBSERVATORY, "How many observations were made with the Hale telescope?",
            "SELECT (COUNT(?observation) AS ?count) WHERE {\n"
            "  ?observation a obs:Observation ; obs:usedTelescope ?telescope .\n  ?telescope obs:name ?name .\n"
            "  FILTER(lcase(str(?name)) = \"hale\")\n}"),
    Example(_OBSERVATORY, "Which telescopes observed Vega, and how big are their mirrors?",
            "SELECT DISTINCT ?name ?mirrorMetres WHERE {\n"
            "  ?observation obs:target ?target ; obs:usedTelescope ?telescope .\n"
            "  ?telescope obs:name ?name ; obs:mirrorMetres ?mirrorMetres .\n"
            "  FILTER(CONTAINS(lcase(str(?target)), \"vega\"))\n}"),
    Example(_OBSERVATORY, "Which three targets got the most observing hours?",
            "SELECT ?target (SUM(?hours) AS ?totalHours) WHERE {\n"
            "  ?observation a obs:Observation ; obs:target ?target ; obs:hours ?hours .\n}\n"
            "GROUP BY ?target ORDER BY DESC(?totalHours) LIMIT 3"),
    Example(_OBSERVATORY, "What is the average mirror size of the telescopes?",
            "SELECT (AVG(?mirrorMetres) AS ?average) WHERE {\n"
            "  ?telescope a obs:Telescope ; obs:mirrorMetres ?mirrorMetres .\n}"),
    Example(_OBSERVATORY, "Which telescopes were never used for an observation?",
            "SELECT ?name WHERE {\n  ?telescope a obs:Telescope ; obs:name ?name .\n"
            "  FILTER NOT EXISTS { ?observation obs:usedTelescope ?telescope }\n}"),
    Example(_OBSERVATORY, "Was M31 ever observed?",
            "ASK {\n  ?observation obs:target ?target .\n  FILTER(lcase(str(?target)) = \"m31\")\n}"),
    Example(_OBSERVATORY, "How many different targets were observed?",
            "SELECT (COUNT(DISTINCT ?target) AS ?targets) WHERE {\n  ?observation obs:target ?target .\n}"),
    Example(_OBSERVATORY, "Which telescopes were used for more than 20 observations?",
            "SELECT ?name (COUNT(?observation) AS ?observations) WHERE {\n"
            "  ?observation obs:usedTelescope ?telescope .\n  ?telescope obs:name ?name .\n}\n"
            "GROUP BY ?telescope ?name HAVING (COUNT(?observation) > 20)"),
    Example(_RECIPES, "Which recipes with butter take less than an hour?",
            "SELECT ?name ?minutes WHERE {\n"
            "  ?recipe a rec:Recipe ; rdfs:label ?name ; rec:minutes ?minutes ; rec:uses ?ingredient .\n"
            "  ?ingredient rdfs:label ?ingredientName .\n"
            "  FILTER(lcase(str(?ingredientName)) = \"butter\" && ?minutes < 60)\n}"),
    Example(_RECIPES, "Which ingredient is used in the most recipes?",
            "SELECT ?name (COUNT(?recipe) AS ?recipes) WHERE {\n"
            "  ?recipe rec:uses ?ingredient .\n  ?ingredient rdfs:label ?name .\n}\n"
            "GROUP BY ?ingredient ?name ORDER BY DESC(?recipes) LIMIT 1"),
]
DEFAULT_EXAMPLES = 3
MAX_SCHEMA_CHARS = 6000  # about 1,700 tokens: room for rules, examples and the answer in a 4k context
SCHEMA_CHARS = (MAX_SCHEMA_CHARS, 4000, 2500, 1500, 800)  # tried in turn until the schema fits the budget
_NUMERIC = {"integer", "int", "long", "short", "decimal", "double", "float", "boolean", "nonNegativeInteger",
            "positiveInteger", "unsignedInt", "unsignedLong"}
_FENCE = re.compile(r"```[ \t]*(?:sparql|rq)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_START = re.compile(r"\b(PREFIX|BASE|SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)
_MODIFIERS = re.compile(r"(?:\s*(?:GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET)\b[^\n{}]*)*", re.IGNORECASE)


def _example(value: str, datatype: str | None) -> str:
    """A literal's sample as the schema shows it: numbers bare, text quoted, on one line and cut."""
    return inline(value, 40) if datatype in _NUMERIC else json.dumps(inline(value, 60), ensure_ascii=False)


class _Names:
    """Compacts IRIs with the source's prefixes and remembers which prefixes it used."""

    def __init__(self, prefixes: dict[str, str]) -> None:
        self.prefixes, self.used = prefixes, set[str]()

    def __call__(self, iri: str) -> str:
        name = compact(iri, self.prefixes)
        if not name.startswith("<"):
            self.used.add(name.split(":", 1)[0])
        return name


def _pattern(subject: str, pred: dict, names: _Names, samples: bool) -> str:
    """`?s p ?o .  # kind, samples`: one predicate as the triple pattern that reaches it."""
    if pred["kind"] == "iri":
        rng = pred.get("range")
        obj = variable_name(local_name(rng) if rng else pred["label"], "o")
        note = f"a {names(rng)}" if rng else "an IRI"
        shown = [inline(v, 60) for v in pred.get("samples", [])]
    else:
        obj = f"{subject}_{variable_name(local_name(pred['iri']), 'value')}"  # ?book_name, ?person_name: never shared
        note = pred.get("datatype") or "literal"
        shown = [_example(v, pred.get("datatype")) for v in pred.get("samples", [])]
    if samples and shown:
        note += ", e.g. " + ", ".join(shown)
    if pred["label"].lower() not in (local_name(pred["iri"]).lower(), obj.lower()):
        note = f"{json.dumps(inline(pred['label'], 80), ensure_ascii=False)}; {note}"
    if obj == subject:
        obj += "2"
    return f"?{subject} {names(pred['iri'])} ?{obj} .  # {note}"


def _blocks(d: dict, samples: bool) -> list[tuple[list[str], set[str]]]:
    """One block of lines per class (and one for predicates of things without a class), each with
    the prefixes its lines use."""
    out = []
    for cls in d.get("classes", []):
        names = _Names(d.get("prefixes", {}))
        subject = subject_variable(cls["iri"])
        label = " " + json.dumps(inline(cls["label"], 80), ensure_ascii=False) \
            if cls["label"].lower() != local_name(cls["iri"]).lower() else ""
        lines = [f"# class {names(cls['iri'])}{label} ({cls['instances']} instances)",
                 f"?{subject} a {names(cls['iri'])} ."]
        out.append((lines + [_pattern(subject, p, names, samples) for p in cls.get("predicates", [])], names.used))
    if d.get("predicates"):
        names = _Names(d.get("prefixes", {}))
        out.append((["# predicates of things without a class"]
                    + [_pattern("s", p, names, samples) for p in d["predicates"]], names.used))
    return out


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _within(lines: list[str], room: int, wanted: set[str]) -> list[str]:
    """A class's block within `room` characters: whole, or its header and the predicates that fit
    (those the question names first) with a count of the others; [] when not even one fits."""
    if _size(lines) <= room:
        return lines
    head = [line for line in lines if line.startswith("#") or re.match(r"\?\w+ a ", line)]
    patterns = [line for line in lines if line not in head]
    order = sorted(range(len(patterns)), key=lambda i: (-mentioned(patterns[i].split("#")[0], wanted), i))
    note, chosen = "# ... and {n:,} more predicates, not shown", set()
    size = _size([*head, note]) + 4
    for i in order:
        if size + len(patterns[i]) + 1 <= room:
            chosen.add(i)
            size += len(patterns[i]) + 1
    if not chosen:
        return []
    return head + [patterns[i] for i in sorted(chosen)] + [note.format(n=len(patterns) - len(chosen))]


def schema_text(source: Source, max_chars: int = MAX_SCHEMA_CHARS, budget: Budget | None = None,
                room: int = 0, question: str = "") -> str:
    """The descriptor as a model reads it: PREFIX lines, then per class its instance count and the
    triple patterns of its predicates (kind, datatype or target class, samples; file-given texts on
    one line, cut). Over `max_chars`, samples go first, then the classes that no longer fit (those
    the question's words name are kept first); with a `budget`, `max_chars` shrinks until the text
    fits `room` tokens."""
    if budget is not None:
        return fit(budget, room, [partial(schema_text, source, n, question=question)
                                  for n in SCHEMA_CHARS if n <= max_chars])
    d = source.descriptor
    blocks = _blocks(d, samples=True)
    if _size([line for lines, _ in blocks for line in lines]) > max_chars:
        blocks = _blocks(d, samples=False)
    kept: dict[int, list[str]] = {}
    size, wanted = 0, words(question)
    for i in sorted(range(len(blocks)), key=lambda i: -mentioned(blocks[i][0][0], wanted)):
        if lines := _within(blocks[i][0], max_chars - size, wanted):
            kept[i] = lines
            size += _size(lines)
    body = [line for i in sorted(kept) for line in kept[i]]
    used = {p for i, (_, prefixes) in enumerate(blocks) if i in kept for p in prefixes}
    left_out = len(blocks) - len(kept)
    if left_out:
        body.append(f"# ... and {left_out} more, not shown")
    head = [f"# {inline(source.shown, 120)}: {d.get('format', 'RDF')}, {d.get('triples', '?')} triples"]
    head += [f"PREFIX {p}: <{ns}>" for p, ns in d.get("prefixes", {}).items() if p in used]
    if d.get("graphs"):
        shown = ", ".join(f"<{g}>" for g in d["graphs"][:5]) + (" ..." if len(d["graphs"]) > 5 else "")
        head.append(f"# named graphs (the default graph is their union): {shown}")
    return "\n".join(head + body)


def default_examples(source: Source) -> list[Example]:
    return EXAMPLES[:DEFAULT_EXAMPLES]


def messages(question: str, source: Source, examples: list[Example] | None = None,
             budget: Budget | None = None) -> list[dict]:
    """System (rules, then the examples, each example schema shown once) and user (the source's
    schema and the question, ending with `SPARQL:`), fitted to `budget` (the model's context; an
    estimate when not given) with room kept for the query and its repairs."""
    budget = budget or Budget()
    question = budget.question(question)
    parts, shown = [SYSTEM], None
    for e in examples if examples is not None else default_examples(source):
        if e.schema != shown:
            parts.append(f"Example data:\n{e.schema}")
            shown = e.schema
        parts.append(f"Question: {e.question}\nSPARQL:\n{e.query}")
    system = "\n\n".join(parts)
    head, tail = "The user's RDF data:\n", f"\n\nQuestion: {question}\nSPARQL:"
    room = schema_room(budget, question, names_hint(source), system, head + tail)
    user = head + schema_text(source, budget=budget, room=room, question=question) + tail
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def fix(query: str, source: Source) -> str:
    """Repairs small models need often and that cannot change a query's meaning: SQL's lower/upper
    as SPARQL's lcase/ucase, GROUP BY/ORDER BY/LIMIT written inside the final brace moved after it,
    and the habits `sparql_fixes` knows (variables named with a hyphen or written without `?`, years
    compared as text, SQL's commas between the selected items and its AND/OR, brackets, ORDER BY
    direction, FROM a class, variables no pattern binds, a class named in another namespace or case, a
    predicate named in another namespace, a link written on the wrong class or named after the class it
    reaches, a value followed as a link, a thing linked to itself by a predicate the data lacks, a
    grouped thing's value selected but not grouped, a variable used as a linking row and as a thing it
    links)."""
    query = re.sub(r"(?<![\w:?$])lower\s*\(", "lcase(", query, flags=re.IGNORECASE)
    query = re.sub(r"(?<![\w:?$])upper\s*\(", "ucase(", query, flags=re.IGNORECASE)
    inside = re.search(r"\s((?:GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET)\b[^{}]*?)\s*\}\s*$", query, re.IGNORECASE)
    if inside and len(re.findall(r"\bSELECT\b", query, re.IGNORECASE)) == 1:
        query = f"{query[:inside.start()].rstrip()}\n}}\n{inside.group(1).strip()}"
    query = sparql_fixes.bracket_aggregates(sparql_fixes.select_commas(sparql_fixes.dates_as_text(
        sparql_fixes.bare_subjects(sparql_fixes.variable_names(query)))))
    query = sparql_fixes.order_direction(sparql_fixes.bracket_having(sparql_fixes.logical_operators(query)))
    query = sparql_fixes.having_from_filter(query)
    if source is not None:
        query = _declared(query, source)  # the fixes below parse the query: its prefixes must be known
        schema = schema_text(source)
        query = sparql_fixes.bind_missing(sparql_fixes.class_from(query, source), schema)
        query = _declared(sparql_fixes.filters_bound(query, schema), source)  # patterns just bound use prefixes too
        query = sparql_fixes.without_self_links(sparql_fixes.mend_classes(query, source), source)
        query = sparql_fixes.mend_predicates(sparql_fixes.misplaced_links(query, source), source)
        query = sparql_fixes.links_named_by_class(query, source)
        query = sparql_fixes.grouped_values(sparql_fixes.follow_links(query, source))
        query = sparql_fixes.through_the_other_link(query, source)
    return query


def _declared(query: str, source: Source) -> str:
    """The query with PREFIX lines for the source's prefixes it uses (as the engine adds them)."""
    try:
        return with_prefixes(query, source.descriptor.get("prefixes", {}))
    except QueryRefused:
        return query  # the engine refuses it, with its reason


def check(statement: str, source: Source) -> str | None:
    """What is wrong with a query the engine accepts but that cannot match or means nothing asked:
    predicates or classes the source does not have, parts that share no variable, a FILTER on a
    variable nothing binds, a count named after a property the data holds (None when there is nothing
    to say)."""
    return (sparql_fixes.unknown_names(statement, source) or sparql_fixes.apart(statement)
            or sparql_fixes.unbound_filters(statement) or sparql_fixes.counted_property(statement, source))


def extract(reply: str) -> str:
    """The query in a model reply: a fenced block, else the text from its first PREFIX/SELECT/ASK,
    without comments (a small model copies the schema's `# string, e.g. …` notes) and without any
    explanation after the last closing brace."""
    if m := _FENCE.search(reply):
        reply = m.group(1)
    if m := _START.search(reply):
        reply = reply[m.start():]
    reply = without_comments(reply)
    end = reply.rfind("}")
    if end >= 0:
        tail = reply[end + 1:]
        modifiers = _MODIFIERS.match(tail)  # always matches: every part of it is optional
        reply = reply[:end + 1] + tail[:modifiers.end() if modifiers else 0]
    return reply.strip().rstrip(";").strip()


_COMMENT_OR_QUOTED = re.compile(r"(<[^<>\s\"{}|^`\\]*>|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')|[ \t]*#[^\n]*")


def without_comments(query: str) -> str:
    """The query without its `#` comments (a `#` inside an IRI or a string is kept)."""
    return _COMMENT_OR_QUOTED.sub(lambda m: m.group(1) or "", query)


def names_hint(source: Source) -> str:
    """The classes and predicates to remind the model of after a failed query."""
    d = source.descriptor
    prefixes = d.get("prefixes", {})
    classes = [compact(c["iri"], prefixes) for c in d.get("classes", [])]
    preds = dict.fromkeys(compact(p["iri"], prefixes) for c in d.get("classes", []) for p in c.get("predicates", []))
    preds.update(dict.fromkeys(compact(p["iri"], prefixes) for p in d.get("predicates", [])))
    text = f"classes: {', '.join(classes) or 'none'}; predicates: {', '.join(preds) or 'none'}"
    return text if len(text) <= 800 else text[:797] + "..."


# -- Trove's own queries: what the source is about, the values it holds -----------------------------
_EQUALS_TEXT = re.compile(r"=\s*\"((?:[^\"\\]|\\.)*)\"")


def summary_words(source: Source) -> list[str]:
    """The names a question about the data would use: classes, predicates and their values."""
    words = []
    for cls in source.descriptor.get("classes", []):
        words.append(str(cls.get("label") or cls.get("iri")))
        words += property_words([{"name": p.get("label") or p.get("iri"), "samples": p.get("samples", [])}
                                 for p in cls.get("predicates", [])])
    words += [str(p.get("label") or p.get("iri")) for p in source.descriptor.get("predicates", [])]
    return words


def part_texts(source: Source) -> list[str]:
    """One short text per class: its name and its predicates."""
    return [f"{stem(source)}: {cls.get('label') or cls.get('iri')}: "
            + ", ".join(str(p.get("label") or p.get("iri")) for p in cls.get("predicates", []))
            for cls in source.descriptor.get("classes", [])]


def value_lookup(source: Source, wanted: list[str], limit: int) -> tuple[str, list[object]] | None:  # noqa: ARG001
    """One query finding the literals equal (ignoring case) to one of `wanted`, with their predicates."""
    if not wanted:
        return None
    bound = sp.parameters(len(wanted))
    return (f"SELECT DISTINCT ?place ?value {' '.join(bound)} WHERE {{ ?s ?place ?value . "
            f"FILTER(isLiteral(?value) && lcase(str(?value)) IN ({', '.join(bound)})) }} LIMIT {sp.number(limit)}",
            [w.lower() for w in wanted])


def iri_lookup(wanted: list[str], limit: int) -> tuple[str, list[object]]:
    """One query finding the IRIs the data holds as objects whose last part is one of `wanted`
    (ignoring case): `schema:Hardcover` for "Hardcover"."""
    bound = sp.parameters(len(wanted))
    return (f"SELECT DISTINCT ?value {' '.join(bound)} WHERE {{ ?s ?p ?value . FILTER(isIRI(?value) && "
            f"lcase(replace(str(?value), \"^.*[/#]\", \"\")) IN ({', '.join(bound)})) }} LIMIT {sp.number(limit)}",
            [w.lower() for w in wanted])


def held_statements(source: Source, per_place: int, max_chars: int) -> list[tuple[str | None, str]]:  # noqa: ARG001
    """One statement reading every short literal with its predicate (the rows say the place)."""
    return [(None, "SELECT DISTINCT ?place ?value WHERE { ?s ?place ?value . FILTER(isLiteral(?value) && "
                   f"STRLEN(STR(?value)) <= {sp.number(max_chars)} && STRLEN(STR(?value)) >= 2) }}")]


def compared_literals(statement: str) -> list[str]:
    """The right side of `= "..."` (not CONTAINS or REGEX arguments)."""
    return [t.replace('\\"', '"') for t in _EQUALS_TEXT.findall(statement)]


def place_name(place: object, source: Source) -> str:
    """Where a value is held, as the schema text names it: a prefixed predicate."""
    return compact(str(place), source.descriptor.get("prefixes", {}))


def span_hint(found: list[Span], source: Source) -> str | None:
    """The question's date spans against the predicates whose literals are xsd:date (or, when none
    is, xsd:dateTime): SPARQL compares a date only with a literal of its own datatype."""
    d = source.descriptor
    preds = [p for cls in d.get("classes", []) for p in cls.get("predicates", [])] + d.get("predicates", [])
    xsd = COMMON_PREFIXES["xsd"]  # written whole: the query need not declare the prefix
    for datatype, write in (("date", lambda day: f'"{day.isoformat()}"^^<{xsd}date>'),
                            ("dateTime", lambda day: f'"{day.isoformat()}T00:00:00"^^<{xsd}dateTime>')):
        fields = list(dict.fromkeys(compact(p["iri"], d.get("prefixes", {})) for p in preds
                                    if p.get("datatype") == datatype))
        if fields:
            return periods.hint(found, [inline(f, 120) for f in fields], write)
    return None
