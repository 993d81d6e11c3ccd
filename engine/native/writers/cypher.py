"""Cypher writing for property graphs in Kùzu, grounded in the graph's node and relationship
tables, with few-shot examples chosen per question."""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from engine.generation.budget import Budget
from engine.generation.untrusted import inline, quoted
from engine.native import periods
from engine.native.conditions import both_at_once
from engine.native.examples import Example
from engine.native.literals import CYPHER_TEXT, PLAIN_NAME, outside
from engine.native.writers.cypher_fixes import NODE as _NODE
from engine.native.writers.cypher_fixes import VARIABLE as _VARIABLE
from engine.native.writers.cypher_fixes import (
    comparisons_out_of_maps,
    free,
    groups_as_with,
    patterns_into_match,
    subqueries_as_exists,
    without_sql_subqueries,
    wrong_ends,
)
from engine.native.writers.fitting import capped, fit, preferred, schema_room
from engine.native.writers.summary import property_words, stem
from local_stores.quoting import Unquotable
from local_stores.quoting import kuzu_cypher as cy

if TYPE_CHECKING:
    from engine.native.periods import Span
    from engine.native.sources import Source


LANGUAGE = "cypher"
REPLY_TOKENS = 220  # a query's tokens at most
SYSTEM = """You write one Cypher query ({dialect} dialect) that answers the user's question from the graph below.
Rules:
- Use only the node labels, relationship types and properties shown, with the arrow directions shown.
- Always give node labels in MATCH, e.g. (p:Person).
- Reading queries only: MATCH ... WHERE ... RETURN. Never CREATE, MERGE, SET or DELETE.
- Compare text case-insensitively: lower(p.name) = 'ada lovelace', or lower(p.name) CONTAINS 'ada'.
- Return properties (p.name), not whole nodes; use count(), avg(), sum(), min(), max() for aggregates.
- Reply with the Cypher only, no explanation."""

_BOOKS = ("Node tables:\n  Author {name STRING, born INT64}\n  Book {title STRING, year INT64}\n"
          "  Publisher {name STRING}\nRelationship tables:\n  (:Author)-[:WROTE]->(:Book)\n"
          "  (:Book)-[:PUBLISHED_BY]->(:Publisher)")
_READERS = ("Node tables:\n  Reader {name STRING}\n  Book {title STRING, year INT64}\nRelationship tables:\n"
            "  (:Reader)-[:RATED {stars INT64}]->(:Book)\n  (:Reader)-[:FOLLOWS]->(:Reader)")
_CAST = ("Node tables:\n  Actor {name STRING}\n  Play {title STRING, premiere INT64}\nRelationship tables:\n"
         "  (:Actor)-[:PERFORMED_IN {roles STRING[]}]->(:Play)")
_NOTES = ("Node tables:\n  Note {path STRING, title STRING, folder STRING, words INT64}\n  Tag {name STRING}\n"
          "Relationship tables:\n  (:Note)-[:LINKS_TO]->(:Note)\n  (:Note)-[:TAGGED]->(:Tag)")

# Examples in domains unlike the user's data, so that they teach the form, not the content.
EXAMPLES = [
    Example(_BOOKS, "How many books did Ursula Le Guin write?",
            "MATCH (a:Author)-[:WROTE]->(b:Book) WHERE lower(a.name) = 'ursula le guin' RETURN count(b) AS books"),
    Example(_BOOKS, "Which three most recent books were published by Gollancz?",
            "MATCH (b:Book)-[:PUBLISHED_BY]->(p:Publisher) WHERE lower(p.name) = 'gollancz' "
            "RETURN b.title, b.year ORDER BY b.year DESC LIMIT 3"),
    Example(_BOOKS, "Which author wrote the most books?",
            "MATCH (a:Author)-[:WROTE]->(b:Book) RETURN a.name, count(b) AS books ORDER BY books DESC LIMIT 1"),
    Example(_BOOKS, "Who wrote a book together with Neil Gaiman?",
            "MATCH (a:Author)-[:WROTE]->(b:Book)<-[:WROTE]-(c:Author) WHERE lower(a.name) = 'neil gaiman' "
            "RETURN DISTINCT c.name"),
    Example(_BOOKS, "Which books did Terry Pratchett write together with Neil Gaiman?",
            "MATCH (a:Author)-[:WROTE]->(b:Book)<-[:WROTE]-(c:Author) WHERE lower(a.name) = 'terry pratchett' "
            "AND lower(c.name) = 'neil gaiman' RETURN b.title"),
    Example(_BOOKS, "What is the average publication year of books by authors born after 1950?",
            "MATCH (a:Author)-[:WROTE]->(b:Book) WHERE a.born > 1950 RETURN avg(b.year) AS average_year"),
    Example(_BOOKS, "Which authors have not written any book?",
            "MATCH (a:Author) WHERE NOT EXISTS { MATCH (a)-[:WROTE]->(:Book) } RETURN a.name"),
    Example(_READERS, "Which books did Maria rate with more than 4 stars?",
            "MATCH (r:Reader)-[x:RATED]->(b:Book) WHERE lower(r.name) = 'maria' AND x.stars > 4 "
            "RETURN b.title, x.stars"),
    Example(_READERS, "Who follows Jonas?",
            "MATCH (r:Reader)-[:FOLLOWS]->(j:Reader) WHERE lower(j.name) = 'jonas' RETURN r.name"),
    Example(_CAST, "Who played Hamlet, and in which play?",
            "MATCH (a:Actor)-[p:PERFORMED_IN]->(x:Play) WHERE list_contains(p.roles, 'Hamlet') "
            "RETURN a.name, x.title"),
    Example(_CAST, "Which plays have a title containing the word night?",
            "MATCH (x:Play) WHERE lower(x.title) CONTAINS 'night' RETURN x.title, x.premiere"),
    Example(_NOTES, "Which notes link to my note about the garden?",
            "MATCH (n:Note)-[:LINKS_TO]->(m:Note) WHERE lower(m.title) CONTAINS 'garden' RETURN n.title, n.path"),
    Example(_NOTES, "Which notes are tagged recipe?",
            "MATCH (n:Note)-[:TAGGED]->(t:Tag) WHERE t.name = 'recipe' RETURN n.title, n.path"),
]
DEFAULT_EXAMPLES = 3
_FENCE = re.compile(r"```(?:cypher|cql)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_START = re.compile(r"\b(MATCH|OPTIONAL\s+MATCH|UNWIND|WITH|RETURN)\b", re.IGNORECASE)
# Neo4j functions the model knows, and their Kùzu names
_RENAMES = [(r"\btype\(", "label("), (r"\btoInteger\(", "to_int64("), (r"\btoFloat\(", "to_double("),
            (r"\btoString\(", "to_string("), (r"!=", "<>")]  # "!=" is no Cypher: Kùzu and Neo4j say "<>"
# and back: Kùzu's spellings (the prompt's own `lower(p.name)`) as Neo4j's, which FalkorDB speaks too
_NEO4J_RENAMES = [(r"(?<![\w.])lower\(", "toLower("), (r"(?<![\w.])upper\(", "toUpper("),
                  (r"\bto_int64\(", "toInteger("), (r"\bto_double\(", "toFloat("), (r"\bto_string\(", "toString("),
                  (r"!=", "<>")]


# Renderings of a schema, most detailed first: (samples per property, properties per table)
LEVELS = [(3, None), (1, None), (1, 100), (0, 50), (0, 20), (0, 8), (0, 3)]


def _props(props: list[dict], key: str | None, hidden: list[str], samples: int = 3, max_props: int | None = None,
           question: str = "") -> tuple[str, list[str]]:
    """A table's properties (`name TYPE`) and the notes of their values; over `max_props`, those the
    question names first and a count of the others."""
    props = [p for p in props if p["name"] not in hidden]
    shown = preferred([p["name"] for p in props], question, max_props) if max_props is not None \
        else set(range(len(props)))
    fields, notes = [], []
    for i, p in enumerate(props):
        if i not in shown:
            continue
        fields.append(f"{p['name']} {p['type']}" + (" (key)" if p["name"] == key else ""))
        if samples and p.get("values"):
            notes.append(f"{p['name']} is one of " + ", ".join(quoted(v) for v in p["values"]))
        elif samples and p.get("samples"):
            notes.append(f"{p['name']} e.g. " + ", ".join(quoted(v) for v in p["samples"][:samples]))
    if len(shown) < len(props):
        fields.append(f"... and {len(props) - len(shown):,} more")
    return ", ".join(fields), notes


def schema_text(source: Source, budget: Budget | None = None, room: int = 0,
                question: str = "") -> str:
    """Node and relationship tables with property types, counts and sample values (file-given texts
    on one line, cut). With a `budget`, the first rendering within `room` tokens: fewer samples,
    then fewer properties (those the question names first)."""
    if budget is None:
        return _schema(source, *LEVELS[0], question)
    return fit(budget, room, [partial(_schema, source, s, m, question) for s, m in LEVELS])


def _schema(source: Source, samples: int, max_props: int | None, question: str) -> str:
    d = source.descriptor
    lines = [f"// graph from {inline(source.shown, 120)}", "Node tables:"]
    for label, node in d.get("nodes", {}).items():
        fields, notes = _props(node.get("properties", []), node.get("key"), node.get("hidden", []), samples,
                               max_props, question)
        lines.append(f"  {label} {{{fields}}}  // {node.get('count', '?')} nodes" + (
            "; " + "; ".join(notes) if notes else ""))
    lines.append("Relationship tables:")
    for rel, info in d.get("relationships", {}).items():
        fields, notes = _props(info.get("properties", []), None, [], samples, max_props, question)
        props = f" {{{fields}}}" if fields else ""
        for a, b in info.get("pairs", []):
            lines.append(f"  (:{a})-[:{rel}{props}]->(:{b})  // {info.get('count', '?')}" + (
                "; " + "; ".join(notes) if notes else ""))
    return "\n".join(lines)


def default_examples(source: Source) -> list[Example]:
    return EXAMPLES[:DEFAULT_EXAMPLES]


def messages(question: str, source: Source, examples: list[Example] | None = None,
             budget: Budget | None = None) -> list[dict]:
    """Rules and examples, then the user's graph and the question, fitted to `budget` (the model's
    context; an estimate when not given) with room kept for the query and its repairs."""
    budget = budget or Budget()
    question = budget.question(question)
    shots = [f"Example {i}:\n{e.schema}\nQuestion: {e.question}\nCypher: {e.query}"
             for i, e in enumerate(examples if examples is not None else default_examples(source), start=1)]
    system = SYSTEM.format(dialect=source.dialect) + "\n\n" + "\n\n".join(shots)
    head, tail = "The user's graph:\n", f"\n\nQuestion: {question}\nCypher:"
    room = schema_room(budget, question, names_hint(source), system, head + tail)
    return [{"role": "system", "content": system},
            {"role": "user", "content": head + schema_text(source, budget, room, question) + tail}]


def names_hint(source: Source) -> str:
    """The node tables and relationships to remind the model of after a failed query (cut when long)."""
    d = source.descriptor
    nodes = "; ".join(f"{label}({', '.join(p['name'] for p in n.get('properties', []))})"
                      for label, n in d.get("nodes", {}).items())
    rels = "; ".join(f"(:{a})-[:{r}{_held_on(info)}]->(:{b})" for r, info in d.get("relationships", {}).items()
                     for a, b in info.get("pairs", []))
    return capped(f"node tables: {nodes}; relationships: {rels}")


def _held_on(relationship: dict) -> str:
    """A relationship's own properties as the hint writes them (` {roles}`), "" when it has none: what
    a question asks about a link ("which part did X play in Y?") is held there, not on its nodes."""
    names = [p["name"] for p in relationship.get("properties", [])]
    return f" {{{', '.join(names)}}}" if names else ""


def fix(query: str, source: Source) -> str:
    """Functions Kùzu and Neo4j name differently, spelt as the source's engine names them (FalkorDB
    and Neo4j servers speak Neo4j's Cypher); text inside quotes is left alone. A node compared with
    two values at once is matched once per value (`one_node_per_value`), a property named for a
    relationship is read through it (`through_relationship`), an apostrophe doubled as SQL does is
    escaped, a comparison inside a property map is a condition of the WHERE, a label the graph lacks
    at an end of a relationship that has one label there is that label (`mend_labels`), SQL inside
    `IN (…)` is left out, a subquery inside `IN (…)` is an `EXISTS { … }` and a pattern in WHERE that
    binds what the query uses joins the MATCH (`cypher_fixes`)."""
    renames = _RENAMES if source.engine == "kuzu" else _NEO4J_RENAMES
    query = _SQL_APOSTROPHE.sub(r"\\'", query)  # 'something''s gotta give': Cypher escapes it, SQL doubles it
    query = comparisons_out_of_maps(query) or query
    query = groups_as_with(query) or query
    query = without_sql_subqueries(query) or query
    query = subqueries_as_exists(query) or query
    query = patterns_into_match(query) or query
    query = mend_labels(query, source)
    query = one_node_per_value(query) or query
    return _substituted(through_relationship(query, source) or query, renames, re.IGNORECASE)


_SQL_APOSTROPHE = re.compile(r"(?<=\w)''(?=\w)")  # nowhere else in Cypher: two quotes between letters


def _substituted(query: str, substitutions: list[tuple[str, str]], flags: int = 0) -> str:
    """The query with each (pattern, replacement) applied to its text outside string literals."""
    def change(text: str) -> str:
        for pattern, replacement in substitutions:
            text = re.sub(pattern, replacement, text, flags=flags)
        return text
    return outside(query, CYPHER_TEXT, change)


def _written(name: str) -> str:
    """A name from the graph's schema as a query Trove rewrites holds it: bare when it is a plain
    identifier (as the model writes it), else quoted (`cy.ident` refuses what cannot be quoted)."""
    return name if PLAIN_NAME.fullmatch(name) else str(cy.ident(name))


def _property_names(descriptor: dict) -> set[str]:
    """Every property name of the graph's node and relationship tables."""
    return {p["name"] for part in (*descriptor.get("nodes", {}).values(), *descriptor.get("relationships", {}).values())
            for p in part.get("properties", [])}


_MATCH = re.compile(r"\bMATCH\s+(.+?)(?=\s+(?:WHERE|RETURN|WITH)\b)", re.IGNORECASE | re.DOTALL)
_PATH_SPLIT = re.compile(r",\s*(?=\()")


def one_node_per_value(query: str) -> str | None:
    """`MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE p.name = 'A' AND p.name = 'B'`, which no node
    meets, as the query for what both are linked to: the path through `p` matched again with a node of
    its own (`(p_2:Person)-[:ACTED_IN]->(m)`, its relationships renamed too) that the second value is
    compared with. None when the query has no such condition, or `p` is linked to nothing."""
    both = both_at_once(query)
    match = _MATCH.search(query)
    if both is None or "." not in both.field or match is None or match.end() > both.second_at[0]:
        return None
    node = both.field.split(".")[0]
    own = re.compile(rf"\(\s*{re.escape(node)}\b")
    path = next((p for p in _PATH_SPLIT.split(match.group(1)) if own.search(p)), None)
    if path is None or "-" not in path:
        return None
    copy = re.sub(r"\[\s*([A-Za-z_]\w*)", r"[\1_2", own.sub(f"({node}_2", path))
    start, end = both.second_at
    query = query[:start] + f"{node}_2" + both.field[len(node):] + query[end:]
    return query[:match.end(1)] + f", {copy}" + query[match.end(1):]


_LINK = re.compile(r"\(\s*\w*\s*:\s*`?(\w+)`?\s*\)\s*(<?)-\[\s*\w*\s*:\s*`?(\w+)`?[^\]]*\]-(>?)"
                   r"\s*\(\s*\w*\s*:\s*`?(\w+)`?\s*\)")


def mend_labels(query: str, source: Source) -> str:
    """`(r:Reader)-[:FOLLOWS]->(j:Person)` on a graph with no Reader, whose FOLLOWS links Person to
    Person: the label the relationship has at that end (a small model copies its examples' labels)."""
    d = source.descriptor
    nodes, rels = d.get("nodes", {}), d.get("relationships", {})
    bare = CYPHER_TEXT.sub("''", query)
    mended: dict[str, str] = {}
    for left, back, rel, forward, right in _LINK.findall(bare):
        pairs = [tuple(pair) for pair in rels.get(rel, {}).get("pairs", [])]
        if not pairs or bool(back) == bool(forward):
            continue
        starts, ends = {a for a, _ in pairs}, {b for _, b in pairs}
        for label, allowed in ((left, starts if forward else ends), (right, ends if forward else starts)):
            if label not in nodes and len(allowed) == 1:
                mended.setdefault(label, next(iter(allowed)))
    if not mended:
        return query
    try:
        substitutions = [(rf":\s*`?{re.escape(wrong)}`?(?=\s*[){{])", f":{_written(right)}")
                         for wrong, right in mended.items()]
    except Unquotable:
        return query
    return _substituted(query, substitutions)


_EDGE = re.compile(r"\(\s*([A-Za-z_]\w*)[^()]*\)\s*<?-\[\s*([A-Za-z_]\w*)\s*:[^\]]*\]->?\s*\(\s*([A-Za-z_]\w*)")


def through_relationship(query: str, source: Source) -> str | None:
    """`MATCH (p:Person)-[r:ACTED_IN]->(m:Movie) … RETURN m.director` (or `r.director`), where the graph
    has no property `director` but a relationship `(:Person)-[:DIRECTED]->(:Movie)`, as the query that
    matches that relationship too and returns the director's key (`(director:Person)-[:DIRECTED]->(m)`,
    `director.name`). None when no property of the query is such a name or its node is not known."""
    d = source.descriptor
    nodes, rels = d.get("nodes", {}), d.get("relationships", {})
    props = _property_names(d)
    bare = CYPHER_TEXT.sub("''", query)
    labels = {var: label for var, label in _NODE.findall(bare)}
    match = _MATCH.search(query)
    for var, prop in _VAR_PROPERTY.findall(bare):
        named = _relationship_of(prop, props, rels)
        if named is None or match is None:
            continue
        rel, (a, b) = named
        node = _node_of(var, bare, labels, (a, b))
        far = a if node and labels[node] == b else b
        if node is None or not nodes.get(far, {}).get("key"):
            continue
        taken = set(_VARIABLE.findall(bare))
        other = prop.lower() if prop.lower() not in taken else free(prop.lower(), taken)
        try:
            far_label, rel_type, key = _written(far), _written(rel), _written(nodes[far]["key"])
        except Unquotable:
            continue
        path = f"({other}:{far_label})-[:{rel_type}]->({node})" if far == a else \
            f"({node})-[:{rel_type}]->({other}:{far_label})"
        read = re.sub(rf"\b{re.escape(var)}\.`?{re.escape(prop)}`?\b", f"{other}.{key}", query)
        return read[:match.end(1)] + f", {path}" + read[match.end(1):]
    return None


def _node_of(var: str, bare: str, labels: dict[str, str], ends: tuple[str, str]) -> str | None:
    """The node variable whose property `var.…` is: `var` itself when it is a node with one of the
    relationship's labels; for a relationship variable, its far end ("r.director": the movie's)."""
    if var in labels:
        return var if labels[var] in ends else None
    linked = {rel: (x, y) for x, rel, y in _EDGE.findall(bare)}.get(var, ())
    return next((x for x in reversed(linked) if labels.get(x) in ends), None)


_VAR_PROPERTY = re.compile(r"\b([A-Za-z_]\w*)\.`?([A-Za-z_]\w*)`?")


def _relationship_of(prop: str, props: set[str], rels: dict) -> tuple[str, tuple[str, str]] | None:
    """The relationship type (and its first pair of labels) a property the graph lacks is named for:
    "director" and DIRECTED share their first five letters."""
    if prop in props or len(prop) < _NAME_STEM:
        return None
    for rel, info in rels.items():
        if rel.lower()[:_NAME_STEM] == prop.lower()[:_NAME_STEM] and info.get("pairs"):
            a, b = info["pairs"][0]
            return rel, (a, b)
    return None


def extract(reply: str) -> str:
    """The query in a model reply: a fenced block, else the text from its first MATCH/WITH/RETURN."""
    if m := _FENCE.search(reply):
        reply = m.group(1)
    m = _START.search(reply)
    text = reply[m.start():] if m else reply
    return text.strip().split(";")[0].strip()


_LABEL = re.compile(r"\(\s*\w*\s*:\s*`?(\w+)`?")
_TYPE = re.compile(r"\[\s*\w*\s*:\s*`?(\w+)`?")
_PROPERTY = re.compile(r"\b[A-Za-z_]\w*\.`?([A-Za-z_]\w*)`?")


def check(statement: str, source: Source) -> str | None:
    """Labels, relationship types and properties the graph does not have. Kùzu's EXPLAIN names them
    itself; other engines (FalkorDB) give NULL for them, so they are named here. On every engine, a
    property named for what the graph holds as a relationship (`m.director`, with `DIRECTED`) is
    said to be that relationship: the engine's "no property director" alone leads a small model to
    give the same query back; SQL written as Cypher, and a relationship matched between labels it
    does not link (which engines answer with nothing, not an error), are said to be so too."""
    d = source.descriptor
    nodes, rels = d.get("nodes", {}), d.get("relationships", {})
    props = _property_names(d)
    bare = CYPHER_TEXT.sub("''", statement)
    if relationship := _relationship_named(bare, props, rels):
        return relationship
    if _SQL.search(bare):
        return ("Cypher has no SELECT … FROM and no subquery inside IN (…): put each pattern in MATCH, separated "
                "by commas (MATCH (a:X)-[:R]->(m:Y), (b:X)-[:R]->(m)), and each condition in WHERE")
    if wrong := wrong_ends(bare, nodes, rels):
        return wrong
    if on_link := _held_by_relationship(bare, nodes, rels):
        return on_link
    if source.engine == "kuzu":
        return None
    if unknown := [label for label in _LABEL.findall(bare) if label not in nodes]:
        return f"no node label {unknown[0]} in this graph (labels: {', '.join(nodes)})"
    if unknown := [rel for rel in _TYPE.findall(bare) if rel not in rels]:
        return f"no relationship type {unknown[0]} in this graph (types: {', '.join(rels)})"
    if unknown := [p for p in _PROPERTY.findall(bare) if p not in props]:
        return f"no property {unknown[0]} in this graph (properties: {', '.join(sorted(props)[:30])})"
    return None


def _relationship_named(bare: str, props: set[str], rels: dict) -> str | None:
    """What to say of a property the graph lacks whose name is a relationship type's: match it instead."""
    for prop in _PROPERTY.findall(bare):
        if (named := _relationship_of(prop, props, rels)) is not None:
            rel, (a, b) = named
            return (f"{prop} is not a property in this graph: it is the relationship (:{a})-[:{rel}]->(:{b}). "
                    f"Match that path, e.g. (x:{a})-[:{rel}]->(y:{b}), and return the property of the node "
                    "the question asks about (its name)")
    return None


def _held_by_relationship(bare: str, nodes: dict, rels: dict) -> str | None:
    """What to say of a property read on a node whose label lacks it, that one relationship holds
    (`m.rating` where REVIEWED has the rating): read it on that relationship."""
    labels = {var: label for var, label in _NODE.findall(bare)}
    for var, prop in _VAR_PROPERTY.findall(bare):
        label = labels.get(var)
        if label not in nodes or prop in {p["name"] for p in nodes[label].get("properties", [])}:
            continue
        holders = [(rel, info["pairs"][0]) for rel, info in rels.items() if info.get("pairs")
                   and prop in {p["name"] for p in info.get("properties", [])}]
        if len(holders) == 1:
            rel, (a, b) = holders[0]
            return (f"{prop} is a property of the relationship (:{a})-[:{rel}]->(:{b}), not of {label}: name the "
                    f"relationship in the pattern, e.g. (x:{a})-[r:{rel}]->(y:{b}), and read r.{prop}")
    return None


_NAME_STEM = 5
_SQL = re.compile(r"\bSELECT\b[\s\S]*\bFROM\b|\bIN\s*\(\s*(?:MATCH|SELECT)\b", re.IGNORECASE)


# -- Trove's own queries: what the source is about, the values it holds -----------------------------
def summary_words(source: Source) -> list[str]:
    """The names a question about the graph would use: labels, properties and their values, types."""
    words = []
    for label, node in source.descriptor.get("nodes", {}).items():
        words.append(label)
        words += property_words(node.get("properties", []))
    words += [rel.replace("_", " ").lower() for rel in source.descriptor.get("relationships", {})]
    return words


def part_texts(source: Source) -> list[str]:
    """One short text per node label (its properties) and per relationship (its ends)."""
    d = source.descriptor
    out = [f"{stem(source)}: {label}: " + ", ".join(p["name"] for p in node.get("properties", []))
           for label, node in d.get("nodes", {}).items()]
    out += [f"{stem(source)}: {a} {rel.replace('_', ' ').lower()} {b}"
            for rel, info in d.get("relationships", {}).items() for a, b in info.get("pairs", [])]
    return out


def value_lookup(source: Source, wanted: list[str], limit: int) -> tuple[str, list[object]] | None:  # noqa: ARG001
    """No lookup before writing Cypher: graph values are matched by the value index alone."""
    return None


def held_statements(source: Source, per_place: int, max_chars: int) -> list[tuple[str | None, str]]:
    """(place, statement) reading one text property's distinct short values, at most `per_place`."""
    return [(f"{label}.{p['name']}",
             f"MATCH (n:{cy.ident(label)}) WHERE n.{cy.ident(p['name'])} IS NOT NULL AND "
             f"size(n.{cy.ident(p['name'])}) <= {cy.number(max_chars)} RETURN DISTINCT n.{cy.ident(p['name'])} "
             f"LIMIT {cy.number(per_place)}")
            for label, node in source.descriptor.get("nodes", {}).items()
            for p in node.get("properties", []) if str(p.get("type", "")).upper() == "STRING"
            and p["name"] not in node.get("hidden", [])]


_TEXT_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


def compared_literals(statement: str) -> list[str]:
    """Every quoted text of the query (its escapes undone), looked up in the value index."""
    return [re.sub(r"\\(.)", r"\1", a or b) for a, b in _TEXT_LITERAL.findall(statement)]


def place_name(place: object, source: Source) -> str:  # noqa: ARG001
    """Where a value is held, as the schema text names it: `Label.property`."""
    return str(place)


def span_hint(found: list[Span], source: Source) -> str | None:
    """The question's date spans against the graph's DATE and TIMESTAMP properties (Kùzu's
    `date('…')` and `timestamp('…')` literals, one kind per hint: the first property's)."""
    dated = [(f"{label}.{p['name']}", str(p.get("type", "")).upper())
             for label, node in source.descriptor.get("nodes", {}).items() for p in node.get("properties", [])
             if str(p.get("type", "")).upper() in ("DATE", "TIMESTAMP") and p["name"] not in node.get("hidden", [])]
    if not dated:
        return None
    function = dated[0][1].lower()
    return periods.hint(found, [inline(name, 120) for name, _ in dated],
                        lambda day: f"{function}('{day.isoformat()}')")
