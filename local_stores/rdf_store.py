"""RDF files in Oxigraph stores (OmniRetrieval: RDF stays RDF, queried in SPARQL).

Why Oxigraph (pyoxigraph) and not an rdflib store: rdflib's Memory store holds every triple in
RAM and re-parses each file at every start (100k triples of Turtle: 2.7 s); its BerkeleyDB store
needs a C library we would have to ship. Oxigraph keeps each source on disk in RocksDB, so memory
stays bounded at ~1M triples and a restart parses nothing; it evaluates SPARQL 1.1 natively and
fast, and is maintained. rdflib is still used, to parse and check generated queries before they run.

One store per source under `root/<name>/` (the database and its descriptor), rebuilt in
`root/<name>.tmp/` and swapped in, so a failed load never loses the previous good store. Generated
SPARQL is checked (one SELECT/ASK/CONSTRUCT/DESCRIBE query; no update, no SERVICE, FROM only on
the source's own graphs) and runs in a worker process on read-only stores, killed at the time limit.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import re
import shutil
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox

from local_stores import query_worker
from local_stores.native_store import NamedSource
from local_stores.quoting import Quoted, Unquotable
from local_stores.quoting import sparql as sp
from local_stores.results import MEMORY_MB, QueryFailed, QueryRefused, QueryResult

if TYPE_CHECKING:
    from rdflib.plugins.sparql.parserutils import CompValue

FORMATS = {".ttl": "Turtle", ".nt": "N-Triples", ".nq": "N-Quads", ".trig": "TriG", ".rdf": "RDF/XML",
           ".owl": "RDF/XML", ".jsonld": "JSON-LD", ".n3": "N3"}
_OX_FORMATS = {"Turtle": ox.RdfFormat.TURTLE, "N-Triples": ox.RdfFormat.N_TRIPLES, "N-Quads": ox.RdfFormat.N_QUADS,
               "TriG": ox.RdfFormat.TRIG, "RDF/XML": ox.RdfFormat.RDF_XML, "JSON-LD": ox.RdfFormat.JSON_LD,
               "N3": ox.RdfFormat.N3}
COMMON_PREFIXES = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "schema": "http://schema.org/",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
}
RDF_TYPE = COMMON_PREFIXES["rdf"] + "type"
MAX_CLASSES = 40  # descriptor caps: a huge ontology still gives a prompt-sized description
MAX_PREDICATES = 25
MAX_GRAPHS = 1000
MAX_QUERY_CHARS = 10_000
SAMPLE_CHARS = 40


class RdfLoadError(ValueError):
    """An RDF file that cannot be read; the message names the format and where it went wrong."""


class EmptyRdf(ValueError):
    """An RDF file that holds no triples."""


# -- loading and describing --------------------------------------------------------------------------
def format_of(path: Path) -> str | None:
    """The RDF syntax of a file by its extension (`.owl` by its first bytes: RDF/XML or Turtle)."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt and path.suffix.lower() == ".owl":
        with contextlib.suppress(OSError), path.open("rb") as fh:
            head = fh.read(512).lstrip(b"\xef\xbb\xbf \t\r\n")
            if head and not head.startswith(b"<"):
                fmt = "Turtle"
    return fmt


def local_name(iri: str) -> str:
    """The part of an IRI after its last `#`, `/` or `:`: `http://x.org/onto#Person` -> `Person`."""
    for sep in ("#", "/", ":"):
        if sep in iri.rstrip(sep):
            return iri.rstrip(sep).rsplit(sep, 1)[1]
    return iri


def namespace(iri: str) -> str:
    return iri[: len(iri) - len(local_name(iri))] if local_name(iri) != iri else iri


_PN_LOCAL = re.compile(r"[A-Za-z0-9_](?:[\w.-]*[\w-])?")


def compact(iri: str, prefixes: dict[str, str]) -> str:
    """`prefix:local` when a prefix covers the IRI and the rest is a plain local name, else `<iri>`."""
    best = None
    for prefix, ns in prefixes.items():
        if ns and iri.startswith(ns) and _PN_LOCAL.fullmatch(iri[len(ns):]) and (
                best is None or len(ns) > len(prefixes[best])):
            best = prefix
    return f"{best}:{iri[len(prefixes[best]):]}" if best is not None else f"<{iri}>"


def plain_term(term: object) -> object:
    """A SPARQL term as a plain Python value: IRIs as strings, typed literals as int/float/bool."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Literal):
        kind = local_name(term.datatype.value) if term.datatype.value.startswith(COMMON_PREFIXES["xsd"]) else ""
        try:
            if kind in _INTEGER_TYPES:
                return int(term.value)
            if kind in ("decimal", "double", "float"):
                return float(term.value)
        except ValueError:
            return term.value
        if kind == "boolean":
            return term.value in ("true", "1")
        return term.value
    return str(term)


_INTEGER_TYPES = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
                  "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort",
                  "unsignedByte"}


def _rows(store: ox.Store, query: str) -> list[dict]:
    result = store.query(query, use_default_graph_as_union=True)
    if not isinstance(result, ox.QuerySolutions):
        raise TypeError(f"Trove's own describing query gave no solutions: {query[:80]}")
    names = [v.value for v in result.variables]
    return [{n: row[n] for n in names} for row in result]


def _declared_prefixes(path: Path, fmt: str) -> dict[str, str]:
    """Prefixes the file itself declares near its top (read cheaply: the first 256 KB only)."""
    with path.open("rb") as fh:
        head = fh.read(256 * 1024).decode("utf-8", "replace")
    if fmt == "RDF/XML":
        pattern = r"xmlns:([A-Za-z][\w.-]*)\s*=\s*[\"']([^\"']+)[\"']"
    elif fmt == "JSON-LD":
        pattern = r"\"([A-Za-z][\w.-]*)\"\s*:\s*\"([a-z][\w+.-]*:[^\"\s]*[/#])\""
    else:
        pattern = r"(?im)^\s*@?prefix\s+([A-Za-z][\w.-]*)?:\s*<([^>\s]*)>"
    found: dict[str, str] = {}
    for prefix, iri in re.findall(pattern, head):
        if re.match(r"[a-z][\w+.-]*:", iri, re.IGNORECASE) and len(found) < 30:
            found.setdefault(prefix, iri)
    return found


def _prefix_name(ns: str, taken: set[str]) -> str:
    """A short, readable prefix for a namespace: its last word (`.../ontop/singer#` -> `singer`)."""
    words = [w for w in re.split(r"[/#:]", ns) if re.match(r"[A-Za-z]", w)]
    words = [w for w in words if w.lower() not in ("http", "https", "www", "urn")] or ["ns"]
    first = re.match(r"[A-Za-z][A-Za-z0-9_]*", words[-1])
    base = first.group(0).lower()[:20] if first else "ns"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    return name


def _with_prefixes(declared: dict[str, str], iris: list[str]) -> dict[str, str]:
    """The file's prefixes, plus common or generated ones for namespaces the descriptor uses."""
    prefixes = dict(declared)
    known = set(prefixes.values())
    common = {ns: p for p, ns in COMMON_PREFIXES.items()}
    for iri in iris:
        ns = namespace(iri)
        if ns == iri or ns in known or not _PN_LOCAL.fullmatch(iri[len(ns):]):
            continue
        name = common[ns] if ns in common and common[ns] not in prefixes else _prefix_name(ns, set(prefixes))
        prefixes[name] = ns
        known.add(ns)
    return prefixes


Solutions = Callable[[str], list[dict]]  # a SELECT's rows as {variable: ox term}


def _counts(solutions: Solutions, where: Quoted, limit: int) -> list[tuple[str, int]]:
    """The most used predicates (not rdf:type) of the subjects `where` keeps, with counts; `where`
    follows the pattern `?s ?p ?o` (`. ?s a <C>`, `MINUS {...}`)."""
    rows = solutions(f"SELECT ?p (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o {where} }} GROUP BY ?p "
                        f"ORDER BY DESC(?n) ?p LIMIT {limit + 1}")
    return [(r["p"].value, int(r["n"].value)) for r in rows if r["p"].value != RDF_TYPE][:limit]


def _predicate(solutions: Solutions, where: Quoted, iri: str, count: int) -> dict:
    """One predicate as the descriptor shows it: count, kind (by its sample objects), samples, and
    the datatype of its literals or the class its IRIs point to."""
    predicate = sp.iri(iri)
    values = [r["o"] for r in solutions(f"SELECT DISTINCT ?o WHERE {{ ?s {predicate} ?o {where} }} LIMIT 3")]
    literals = [v for v in values if isinstance(v, ox.Literal)]
    out = {"iri": iri, "count": count, "kind": "literal" if 2 * len(literals) >= len(values) else "iri",
           "samples": values}
    if out["kind"] == "literal" and literals:
        out["datatype"] = "langString" if literals[0].language else local_name(literals[0].datatype.value)
    elif out["kind"] == "iri":
        ranges = solutions(f"SELECT ?c (COUNT(*) AS ?k) WHERE {{ {{ SELECT ?o WHERE {{ ?s {predicate} ?o {where} "
                           f"FILTER(isIRI(?o)) }} LIMIT 200 }} ?o a ?c }} GROUP BY ?c ORDER BY DESC(?k) LIMIT 1")
        if ranges:
            out["range"] = ranges[0]["c"].value
    return out


def _labels(solutions: Solutions, iris: set[str]) -> dict[str, str]:
    """rdfs:label or skos:prefLabel of each IRI that has one (English or untagged first)."""
    labels: dict[str, tuple[int, str]] = {}
    todo = sorted(iris)
    for start in range(0, len(todo), 500):
        values = sp.iris(todo[start:start + 500])
        label = sp.iri(COMMON_PREFIXES["rdfs"] + "label")
        preferred = sp.iri(COMMON_PREFIXES["skos"] + "prefLabel")
        for r in solutions(f"SELECT ?x ?l WHERE {{ VALUES ?x {{ {values} }} ?x {label}|{preferred} ?l "
                           "FILTER(isLiteral(?l)) }"):
            lang = r["l"].language or ""
            rank = 0 if lang in ("", "en") or lang.startswith("en-") else 1
            if r["x"].value not in labels or rank < labels[r["x"].value][0]:
                labels[r["x"].value] = (rank, r["l"].value)
    return {iri: " ".join(text.split())[:80] for iri, (_, text) in labels.items()}


def _sample_text(term: object, labels: dict[str, str]) -> str:
    if isinstance(term, ox.NamedNode):
        return labels.get(term.value) or local_name(term.value)
    text = " ".join(str(term.value if isinstance(term, ox.Literal) else plain_term(term)).split())
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


def describe(store: ox.Store, path: Path, fmt: str) -> dict:
    """What a model needs to write SPARQL over a loaded file (see `describe_solutions`)."""
    graphs = [g.value for g in islice(store.named_graphs(), MAX_GRAPHS) if isinstance(g, ox.NamedNode)]
    return describe_solutions(lambda query: _rows(store, query), len(store), graphs, _declared_prefixes(path, fmt),
                              {"engine": "oxigraph", "file": str(path), "format": fmt})


def describe_solutions(solutions: Solutions, triples: int, graphs: list[str], declared: dict[str, str],
                       origin: dict) -> dict:
    """What a model needs to write SPARQL: classes with instance counts and their predicates (kind,
    count, samples), predicates of untyped subjects, named graphs and prefixes; `origin` says where
    the data is (engine, file or URL). Aggregates with LIMITs, so it stays cheap and small even for
    large datasets. `solutions` runs Trove's own describing queries (a store, or an endpoint)."""
    classes = []
    for row in solutions(f"SELECT ?c (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a ?c FILTER(isIRI(?c)) }} "
                         f"GROUP BY ?c ORDER BY DESC(?n) ?c LIMIT {MAX_CLASSES}"):
        where = Quoted(f". ?s a {sp.iri(row['c'].value)}")
        classes.append({"iri": row["c"].value, "instances": int(row["n"].value), "predicates": [
            _predicate(solutions, where, *p) for p in _counts(solutions, where, MAX_PREDICATES)]})
    untyped = Quoted("MINUS { ?s a ?any }")  # much faster than FILTER NOT EXISTS in Oxigraph
    loose = [_predicate(solutions, untyped, *p) for p in _counts(solutions, untyped, MAX_PREDICATES)]

    preds = [p for c in classes for p in c["predicates"]] + loose
    iris = {c["iri"] for c in classes} | {p["iri"] for p in preds} | {p["range"] for p in preds if "range" in p}
    labels = _labels(solutions, iris | {s.value for p in preds for s in p["samples"] if isinstance(s, ox.NamedNode)})
    for c in classes:
        c["predicates"] = [_labelled(p, labels) for p in c["predicates"]]
    return {"language": "sparql", "dialect": "sparql", **origin,
            "triples": triples, "prefixes": _with_prefixes(declared, sorted(iris)),
            "classes": [{"iri": c["iri"], "label": labels.get(c["iri"]) or local_name(c["iri"]),
                         "instances": c["instances"], "predicates": c["predicates"]} for c in classes],
            "predicates": [_labelled(p, labels) for p in loose], "graphs": graphs}


def _labelled(pred: dict, labels: dict[str, str]) -> dict:
    """A predicate with its label and its samples as short text, keys in reading order."""
    out = {"iri": pred["iri"], "label": labels.get(pred["iri"]) or local_name(pred["iri"])}
    out.update({k: v for k, v in pred.items() if k not in ("iri", "samples")})
    out["samples"] = [_sample_text(s, labels) for s in pred["samples"]]
    return out


# -- checking generated queries ------------------------------------------------------------------------
_TOKEN = re.compile(r"""
    (?P<string>'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
              |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
   |(?P<iri><[^<>"{}|^`\\\s]*>)
   |(?P<var>[?$]\w+)
   |(?P<bnode>_:[\w.-]*)
   |(?P<pname>(?:[A-Za-z](?:[\w.-]*\w)?)?:(?:[\w\-:%.]|\\.)*)
   |(?P<comment>\#[^\n]*)
   |(?P<word>[A-Za-z_]\w*)
   |(?P<other>\S)
""", re.VERBOSE | re.DOTALL)
_UPDATE_WORDS = {"insert", "delete", "load", "clear", "create", "drop", "copy", "move", "add", "with"}


def with_prefixes(text: str, prefixes: dict[str, str]) -> str:
    """`text` with PREFIX lines for the prefixes it uses but does not declare, when `prefixes` or the
    common ones know them (a model is told the data's are declared for it). QueryRefused as
    `check_query`."""
    used, declared = _refuse_lexically(text)
    known = {**COMMON_PREFIXES, **prefixes}
    added = [line for p in sorted(used - declared) if p in known and (line := _prefix_line(p, known[p]))]
    return "\n".join([*added, text]) if added else text


def _prefix_line(prefix: str, namespace: str) -> str:
    """`PREFIX p: <namespace>` (`prefix` is a name the query's tokens gave); "" for a namespace that
    cannot be written as an IRI (the parser then names the prefix as unknown)."""
    try:
        return f"PREFIX {prefix}: {sp.iri(namespace)}"
    except Unquotable:
        return ""


def _refuse_lexically(text: str) -> tuple[set[str], set[str]]:
    """Refuse updates, SERVICE and a second statement from the tokens (strings and IRIs skipped);
    return the prefixes the query uses and those it declares."""
    used: set[str] = set()
    declared: set[str] = set()
    depth, previous = 0, ""
    for m in _TOKEN.finditer(text):
        kind, token = m.lastgroup, m.group()
        if kind == "comment":
            continue
        if kind == "word" and token.lower() in _UPDATE_WORDS:
            what = "reads files or the network" if token.lower() == "load" else "changes data"
            raise QueryRefused(f"{token.upper()} {what}: only read-only SELECT or ASK queries may run")
        if kind == "word" and token.lower() == "service":
            raise QueryRefused("SERVICE calls another endpoint over the network: query this source's own data only")
        if kind == "pname":
            (declared if previous == "prefix" else used).add(token.split(":", 1)[0])
        if token in "{(":
            depth += 1
        elif token in "})":
            depth -= 1
        elif token == ";" and depth <= 0:
            raise QueryRefused("only one query may run: remove everything after the first query")
        previous = token.lower() if kind == "word" else ""
    return used, declared


class _QuietIriWarnings(logging.Filter):
    """rdflib warns about `\\#` escapes in local names (valid SPARQL, used by Spider4SPARQL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "does not look like a valid URI" not in record.getMessage()


_IRI_FILTER = _QuietIriWarnings()


def _walk(node: object) -> Iterator[CompValue]:
    """Every rdflib parse-tree node under `node`."""
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, CompValue):
            yield item
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, ParseResults)):
            stack.extend(item)


def check_query(query: str, prefixes: dict[str, str], graphs: list[str]) -> tuple[str, bool]:
    """The query to run (with PREFIX lines added for known prefixes it uses but does not declare)
    and whether it names its own dataset (FROM). QueryRefused for anything but one read-only query;
    QueryFailed with the parser's message for a syntax error."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql import algebra, parser

    text = query.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    if not text:
        raise QueryRefused("empty query")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryRefused(f"query longer than {MAX_QUERY_CHARS} characters")
    text = with_prefixes(text, prefixes)
    logging.getLogger("rdflib.term").addFilter(_IRI_FILTER)
    try:
        tree = parser.parseQuery(text)
    except ParseException as exc:
        near = exc.line[max(exc.col - 1, 0):][:40]
        hint = ""
        if re.match(r"(ORDER|GROUP)\s+BY|HAVING|LIMIT|OFFSET", near, re.IGNORECASE):
            hint = " (after the closing brace of WHERE, in this order: GROUP BY, HAVING, ORDER BY, LIMIT, OFFSET)"
        raise QueryFailed(f"SPARQL syntax error at line {exc.lineno}, column {exc.col}: {exc.msg}; "
                          f"near {near!r}{hint}") from exc
    except Exception as exc:  # rdflib reports some lexical errors as plain exceptions
        raise QueryFailed(f"SPARQL syntax error: {str(exc)[:300]}") from exc
    form = tree[1].name
    if form not in ("SelectQuery", "AskQuery", "ConstructQuery", "DescribeQuery"):
        raise QueryRefused(f"only SELECT or ASK queries may run, not {form}")
    if any(node.name == "ServiceGraphPattern" for node in _walk(tree)):
        raise QueryRefused("SERVICE calls another endpoint over the network: query this source's own data only")
    try:
        algebra.translateQuery(tree)  # also resolves prefixed names in `tree`
    except Exception as exc:
        message = str(exc)
        if m := re.match(r"Unknown namespace prefix : (\S*)", message):
            shown = ", ".join(f"{p}:" for p in prefixes) or "none"
            message = f"unknown prefix {m.group(1)}: declare it with PREFIX or use a full <IRI> (known: {shown})"
        raise QueryFailed(message[:300]) from exc
    dataset = [str(n.get("default") or n.get("named")) for n in _walk(tree) if n.name == "DatasetClause"]
    for iri in dataset:
        if iri not in graphs:
            raise QueryRefused(f"FROM <{iri}> is not a graph of this source" + (
                f" (its graphs: {', '.join(graphs[:5])})" if graphs else " (it has no named graphs)"))
    _engine_check(text)
    return text, bool(dataset)


def _engine_check(text: str) -> None:
    """Oxigraph's own parser on the query (on an empty in-memory store, where it cannot cost
    anything): it is stricter than rdflib's, e.g. about variables neither grouped nor aggregated."""
    try:
        ox.Store().query(text)
    except SyntaxError as exc:
        raise QueryFailed(_engine_message(str(exc))) from exc


_ENGINE_HINTS = {"The SELECT contains a variable that is unbound": "a selected variable is neither grouped nor "
                 "aggregated, or not bound in WHERE (GROUP BY it, or use SAMPLE/COUNT)"}


def _engine_message(text: str) -> str:
    """Oxigraph's parser error, short: its own words (`Duplicated variable name in SELECT`) when it
    has some, else the tokens it expected without the long character classes."""
    text = " ".join(text.split())
    where = re.match(r"error at (\d+):(\d+): (?:expected one of |expected )?", text)
    rest = text[where.end():] if where else text
    items = [i.strip() for i in re.findall(r'"(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^,]+', rest) if i.strip()]
    words = [_ENGINE_HINTS.get(i, i) for i in items if " " in i and not i.startswith(('"', "["))]
    tokens = [i for i in items if not i.startswith("[")]
    detail = "; ".join(dict.fromkeys(words)) or "expected " + ", ".join(tokens or items[:1])
    head = f"SPARQL error at line {where.group(1)}, column {where.group(2)}" if where else "SPARQL error"
    return f"{head}: {detail}"[:300]


# -- the query worker -------------------------------------------------------------------------------------
_STORES: OrderedDict[str, tuple[object, ox.Store]] = OrderedDict()  # in the worker: read-only stores kept open


def serve(fd: int, memory_mb: int = 0) -> None:
    """The worker process (local_stores.query_worker): one SPARQL query at a time on read-only stores."""
    query_worker.serve(fd, memory_mb, _answer)


def _answer(request: tuple) -> tuple:
    if request[0] == "forget":  # the store was replaced or dropped: let go of its files
        _STORES.pop(request[1], None)
        return ("ok",)
    _, db, stamp, query, own_dataset, max_rows, params = request
    if db not in _STORES or _STORES[db][0] != stamp:
        _STORES.pop(db, None)
        _STORES[db] = (stamp, ox.Store.read_only(db))
        while len(_STORES) > 8:
            _STORES.popitem(last=False)
    _STORES.move_to_end(db)
    substitutions: dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple] = {
        ox.Variable(f"param{i}"): _term(value) for i, value in enumerate(params)}
    try:
        result = _STORES[db][1].query(query, use_default_graph_as_union=not own_dataset,
                                      substitutions=substitutions or None)
    except RuntimeError as exc:  # a bound variable the SELECT does not project
        return ("error", str(exc))
    return ("ok", *_result(result, max_rows, bound=bool(params)))


def _term(value: object) -> ox.Literal:
    """A bound value as an RDF literal: text as a plain string, numbers and booleans typed."""
    if isinstance(value, (bool, int, float)):
        return ox.Literal(value)
    return ox.Literal(str(value))


def _result(result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples, max_rows: int,
            bound: bool = False) -> tuple[list[str], list[tuple], bool]:
    """Columns, at most `max_rows` rows of plain values, and whether there were more; with `bound`
    values, the columns of their variables (?param0 …) are left out."""
    if isinstance(result, ox.QueryBoolean):
        return ["answer"], [(bool(result),)], False
    if isinstance(result, ox.QuerySolutions):
        names = [v.value for v in result.variables]
        kept = [i for i, name in enumerate(names) if not (bound and sp.PARAMETER.fullmatch(name))]
        columns = [names[i] for i in kept]
        rows = [tuple(plain_term(row[i]) for i in kept) for row in islice(result, max_rows + 1)]
    else:  # CONSTRUCT / DESCRIBE: triples as rows
        columns = ["subject", "predicate", "object"]
        rows = [tuple(plain_term(t) for t in (tr.subject, tr.predicate, tr.object))
                for tr in islice(result, max_rows + 1)]
    return columns, rows[:max_rows], len(rows) > max_rows


WORKER_OVERHEAD_MB = 2048  # the worker itself (idle with 8 stores open: about 650 MB), beside the queries' memory
_WORKER = query_worker.Worker("local_stores.rdf_store", "SPARQL", MEMORY_MB, WORKER_OVERHEAD_MB)
atexit.register(_WORKER.close)


# -- the store ---------------------------------------------------------------------------------------------
_NAME = re.compile(r"[A-Za-z0-9_][\w.-]*")


class RdfStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._descriptors: dict[str, tuple[tuple[int, int], dict]] = {}

    def _folder(self, name: str) -> Path:
        if not _NAME.fullmatch(name) or name.endswith((".tmp", ".old")):
            raise ValueError(f"not a valid RDF source name: {name!r}")
        folder = self.root / name
        old = self.root / f"{name}.old"
        if not folder.exists() and old.exists():  # a swap interrupted between its two renames
            old.rename(folder)
        return folder

    # -- writing (Trove's own code only) ------------------------------------------------------------
    def load(self, name: str, path: Path) -> dict:
        """(Re)build source `name` from one RDF file and return its descriptor. RdfLoadError or
        EmptyRdf leave the previous store of that name as it was."""
        path = Path(path)
        fmt = format_of(path)
        if fmt is None:
            raise RdfLoadError(f"{path.suffix or 'no extension'}: not an RDF file extension "
                               f"({', '.join(sorted(set(FORMATS)))})")
        folder = self._folder(name)
        tmp, old = self.root / f"{name}.tmp", self.root / f"{name}.old"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            store = ox.Store(str(tmp / "oxigraph"))
            try:
                store.bulk_load(path=str(path), format=_OX_FORMATS[fmt], base_iri=path.resolve().as_uri())
            except SyntaxError as exc:
                raise RdfLoadError(f"not valid {fmt}: {_parser_message(exc)}") from exc
            except (OSError, ValueError) as exc:
                raise RdfLoadError(f"cannot read this {fmt} file: {' '.join(str(exc).split())[:200]}") from exc
            if next(iter(store.quads_for_pattern(None, None, None, None)), None) is None:
                raise EmptyRdf(f"no triples in this {fmt} file")
            descriptor = describe(store, path, fmt)
            store.flush()
            del store
            (tmp / "descriptor.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)  # left by a swap interrupted after its second rename
            folder.rename(old)
        tmp.rename(folder)
        _WORKER.forget(str(folder / "oxigraph"))
        shutil.rmtree(old, ignore_errors=True)
        return descriptor

    def drop(self, name: str) -> None:
        folder = self._folder(name)
        _WORKER.forget(str(folder / "oxigraph"))
        shutil.rmtree(folder, ignore_errors=True)
        self._descriptors.pop(name, None)

    # -- reading ----------------------------------------------------------------------------------------
    def names(self) -> list[str]:
        if not self.root.exists():
            return []
        for old in self.root.glob("*.old"):
            self._folder(old.name[:-4])  # heals a swap interrupted between its renames
        return sorted(p.name for p in self.root.iterdir()
                      if (p / "descriptor.json").exists() and not p.name.endswith((".tmp", ".old")))

    def descriptor(self, name: str) -> dict:
        """The descriptor `load` returned, read back from disk (cached until the store changes)."""
        file = self._folder(name) / "descriptor.json"
        try:
            st = file.stat()
        except OSError as exc:
            raise QueryFailed(f"no RDF source named {name!r} is indexed") from exc
        cached = self._descriptors.get(name)
        if cached is None or cached[0] != (st.st_ino, st.st_mtime_ns):
            cached = ((st.st_ino, st.st_mtime_ns), json.loads(file.read_text(encoding="utf-8")))
            self._descriptors[name] = cached
        return cached[1]

    def explain(self, name: str, query: str) -> str:
        """The checked query text, ready to run; QueryRefused or QueryFailed on a bad query."""
        return self._check(name, query)[0]

    def _check(self, name: str, query: str) -> tuple[str, bool]:
        descriptor = self.descriptor(name)
        return check_query(query, descriptor.get("prefixes", {}), descriptor.get("graphs", []))

    def execute(self, name: str, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        """Run one generated query read-only in the worker process, with time and row limits;
        `params[i]` is bound to the variable ?param{i}, which the SELECT must project."""
        text, own_dataset = self._check(name, query)
        folder = self._folder(name)
        st = (folder / "descriptor.json").stat()
        request = ("query", str(folder / "oxigraph"), (st.st_ino, st.st_mtime_ns), text, own_dataset, max_rows,
                   list(params))
        reply = _WORKER.run(request, timeout_s)
        if reply[0] != "ok":
            raise QueryFailed(reply[1])
        return QueryResult(reply[1], reply[2], reply[3])


    def dataset(self, name: str) -> OxigraphDataset:
        return OxigraphDataset(self, name)


class OxigraphDataset(NamedSource):
    """One RDF dataset in Oxigraph, as a native store (SPARQL, read-only)."""

    language, dialect = "sparql", "Oxigraph"
    store: RdfStore

    def describe(self) -> dict:
        return self.store.descriptor(self.name)

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        """`params[i]` is bound to ?param{i} (SPARQL has no positional parameters)."""
        return self.store.execute(self.name, query, timeout_s, max_rows, params)


def _parser_message(exc: SyntaxError) -> str:
    """Oxigraph's parser message without its boilerplate: `line 3 between columns 16 and 20: ...`."""
    text = " ".join(str(exc).split())
    text = re.sub(r"^Parser error at ", "", text)
    text = re.sub(r"\s*\([^()]*, line \d+\)$", "", text)
    return text[:300]
