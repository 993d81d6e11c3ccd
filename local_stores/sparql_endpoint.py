"""A SPARQL 1.1 endpoint on a server (Oxigraph, Fuseki, Virtuoso …), as a native store: described
once with Trove's own queries, then asked read-only. Only the SPARQL 1.1 Protocol's query operation
is ever sent (never an update): each query is checked first as for the local RDF stores (one
SELECT/ASK/CONSTRUCT/DESCRIBE, no SERVICE, FROM only on the endpoint's own graphs), sent with the
time limit as its HTTP timeout, and its reply read up to a size cap."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from urllib.parse import urlencode, urlsplit

import pyoxigraph as ox

from local_stores.quoting import sparql as sp
from local_stores.rdf_store import MAX_GRAPHS, check_query, describe_solutions, plain_term
from local_stores.results import QueryFailed, QueryResult, Unreachable

REPLY_BYTES = 64 * 2**20  # a reply past this is refused, not read into memory
DESCRIBE_TIMEOUT_S = 30.0
_JSON = "application/sparql-results+json"
_TRIPLES = "application/n-triples"


def safe_url(url: str) -> str:
    """`url` as Trove keeps and shows it: http(s), without credentials (refused if it has some)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not a SPARQL endpoint URL (http://host:port/query): {url!r}")
    if parts.username or parts.password:
        raise ValueError("the URL holds credentials: Trove keeps none in the index; use an endpoint that "
                         "needs no login, or a read-only proxy in front of it")
    return url


class SparqlEndpoint:
    """One SPARQL endpoint; `descriptor` (from an earlier `describe`) gives the prefixes and graphs
    that queries are checked against."""

    language = "sparql"
    dialect = "SPARQL 1.1"

    def __init__(self, url: str, descriptor: dict | None = None) -> None:
        self.url, self.descriptor = safe_url(url), descriptor or {}
        self.where = urlsplit(self.url).netloc

    # -- the NativeStore protocol --------------------------------------------------------------
    def describe(self) -> dict:
        def solutions(query: str) -> list[dict]:
            return self._solutions(self._reply(query, DESCRIBE_TIMEOUT_S, _JSON))

        counted = solutions("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        graphs = [r["g"].value for r in solutions(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ }} }} LIMIT {MAX_GRAPHS}")
                  if isinstance(r.get("g"), ox.NamedNode)]
        self.descriptor = describe_solutions(solutions, int(counted[0]["n"].value) if counted else 0, graphs, {},
                                             {"engine": "sparql-endpoint", "file": self.url, "format": "endpoint"})
        return self.descriptor

    def explain(self, query: str) -> str:
        return self._check(query)

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        """`params[i]` is bound to ?param{i} by a VALUES block (its columns are left out)."""
        text = self._check(query)
        if params:
            variables = " ".join(sp.parameters(len(params)))
            text += f"\nVALUES ({variables}) {{ ({' '.join(sp.literal(str(v)) for v in params)}) }}"
        form = _form(text)
        data = self._reply(text, timeout_s, _TRIPLES if form in ("CONSTRUCT", "DESCRIBE") else _JSON)
        if form in ("CONSTRUCT", "DESCRIBE"):
            triples = [(plain_term(t.subject), plain_term(t.predicate), plain_term(t.object))
                       for t in ox.parse(data, ox.RdfFormat.N_TRIPLES)]
            return QueryResult(["subject", "predicate", "object"], triples[:max_rows], len(triples) > max_rows)
        reply = json.loads(data)
        if "boolean" in reply:
            return QueryResult(["answer"], [(bool(reply["boolean"]),)], False)
        names = [v for v in reply["head"]["vars"] if not (params and sp.PARAMETER.fullmatch(v))]
        rows = [tuple(plain_term(_term(b.get(n))) for n in names) for b in reply["results"]["bindings"]]
        return QueryResult(names, rows[:max_rows], len(rows) > max_rows)

    # -- the server's side ---------------------------------------------------------------------
    def can_write(self) -> list[str]:
        """Nothing Trove sends can write: only the protocol's query operation, checked first."""
        return []

    def version(self) -> str | None:
        """None: an endpoint has no cheap sign of change (counting its classes reads every triple)."""
        return None

    def _check(self, query: str) -> str:
        return check_query(query, self.descriptor.get("prefixes", {}), self.descriptor.get("graphs", []))[0]

    def _reply(self, query: str, timeout_s: float, accept: str) -> bytes:
        request = urllib.request.Request(self.url, data=urlencode({"query": query}).encode(), method="POST",
                                         headers={"Accept": accept,
                                                  "Content-Type": "application/x-www-form-urlencoded"})
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as reply:
                data = reply.read(REPLY_BYTES + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(2000).decode("utf-8", "replace").strip().splitlines()
            raise QueryFailed(f"the endpoint said {exc.code}: {detail[0] if detail else exc.reason}") from None
        except TimeoutError:
            raise QueryFailed("the query ran past its time limit and was stopped") from None
        except (urllib.error.URLError, OSError) as exc:
            raise Unreachable(f"SPARQL endpoint at {self.where}: {getattr(exc, 'reason', exc)}") from None
        if len(data) > REPLY_BYTES:
            raise QueryFailed(f"the reply is larger than {REPLY_BYTES // 2**20} MB: ask for fewer rows")
        return data

    @staticmethod
    def _solutions(data: bytes) -> list[dict]:
        reply = json.loads(data)
        return [{name: _term(value) for name, value in b.items()} for b in reply.get("results", {}).get("bindings", [])]


def _term(binding: dict | None) -> ox.NamedNode | ox.BlankNode | ox.Literal | None:
    """A SPARQL JSON results term as Oxigraph's term (what the describing code reads)."""
    if binding is None:
        return None
    kind, value = binding.get("type"), binding.get("value", "")
    if kind == "uri":
        return ox.NamedNode(value)
    if kind == "bnode":
        return ox.BlankNode(value)
    if "xml:lang" in binding:
        return ox.Literal(value, language=binding["xml:lang"])
    if "datatype" in binding:
        return ox.Literal(value, datatype=ox.NamedNode(binding["datatype"]))
    return ox.Literal(value)


def _form(query: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the first of these keywords after the prologue."""
    for word in query.upper().replace("{", " ").split():
        if word in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            return word
    return "SELECT"
