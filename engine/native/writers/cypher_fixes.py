"""Repairs of Cypher a small model writes in forms the engine refuses or reads as something else:
a subquery inside `IN (…)`, a pattern in WHERE that binds what the rest of the query uses, and a
relationship matched between labels it never links."""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.native.literals import CYPHER_TEXT, PLAIN_NAME
from engine.native.writers.sparql_fixes import closing

NODE = re.compile(r"\(\s*([A-Za-z_]\w*)\s*:\s*`?(\w+)`?")  # a node's variable and its label
VARIABLE = re.compile(r"[(\[]\s*([A-Za-z_]\w*)")  # a node's or relationship's variable


def masked(query: str) -> str:
    """The query with the text inside its quotes blanked, same length: positions found in it are
    positions in the query, and nothing a user's value holds reads as syntax."""
    return CYPHER_TEXT.sub(lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], query)


def _renamed(text: str, bare: str, names: dict[str, str]) -> str:
    """`text` with each variable of `names` renamed outside its quotes (`bare` is `text` masked)."""
    for old, new in names.items():
        spots = [m.start() for m in re.finditer(rf"(?<![.\w`]){re.escape(old)}\b", bare)]
        for start in reversed(spots):
            text = text[:start] + new + text[start + len(old):]
            bare = bare[:start] + new + bare[start + len(old):]
    return text


def free(name: str, taken: set[str]) -> str:
    return next(n for n in (f"{name}_{i}" for i in range(2, 99)) if n not in taken)


_IN_SUBQUERY = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s+IN\s*(\()\s*(?=MATCH\b)", re.IGNORECASE)
_INNER = re.compile(r"MATCH\s+(.+?)(?:\s+WHERE\s+(.+?))?\s+RETURN\s+(?:DISTINCT\s+)?(.+?)\s*",
                    re.IGNORECASE | re.DOTALL)


def subqueries_as_exists(query: str) -> str | None:
    """`m IN (MATCH (q:Person)-[:ACTED_IN]->(m:Movie) WHERE … RETURN m)`, which Kùzu cannot parse, as
    `EXISTS { MATCH … }` with `m` the outer one and the subquery's other variables its own (renamed
    where the outer query uses their names, as inside `IN (…)` they are new). None when the query
    has no such subquery, or one that returns something else than what is compared."""
    bare = masked(query)
    found = _IN_SUBQUERY.search(bare)
    if found is None or (end := closing(bare, found.start(2))) < 0:
        return None
    inner, inner_bare = query[found.start(2) + 1:end].strip(), bare[found.start(2) + 1:end].strip()
    parts = _INNER.fullmatch(inner_bare)
    compared = found.group(1)
    if parts is None or " ".join(parts.group(3).split()) != compared:
        return None
    outer = set(VARIABLE.findall(bare[:found.start()] + bare[end + 1:]))
    own = set(VARIABLE.findall(parts.group(1))) - {compared.split(".")[0]}
    taken = outer | own
    names = {v: free(v, taken) for v in sorted(own & outer)}
    where = f" WHERE {inner[parts.start(2):parts.end(2)]}" if parts.group(2) else ""
    body = f"MATCH {inner[parts.start(1):parts.end(1)]}{where}"
    body_bare = f"MATCH {parts.group(1)}" + (f" WHERE {parts.group(2)}" if parts.group(2) else "")
    exists = f"EXISTS {{ {_renamed(body, body_bare, names)} }}"
    return query[:found.start()] + exists + query[end + 1:]


_SQL_IN = re.compile(r"(\s+AND\s+|\bWHERE\s+)[\w.]+\s+IN\s*(\()\s*SELECT\b", re.IGNORECASE)


def without_sql_subqueries(query: str) -> str | None:
    """`… AND p.name IN (SELECT name FROM Person WHERE …)`: SQL inside a Cypher condition, which no
    engine parses and a small model writes again when told so, left out of the AND-chain (the MATCH
    already says what it meant). Brackets are counted as written: such a subquery often holds a quote
    its text does not close ('The Devil's Advocate'). None when there is none, or it is the only
    condition (left out, the query would return everything: the repair hears why it fails)."""
    found = _SQL_IN.search(query)
    if found is None:
        return None
    depth, end = 0, -1
    for i in range(found.start(2), len(query)):
        depth += {"(": 1, ")": -1}.get(query[i], 0)
        if depth == 0:
            end = i
            break
    if end < 0:
        return None
    after = query[end + 1:]
    if found.group(1).strip().upper() == "AND":
        return query[:found.start()] + after
    following = re.match(r"\s+AND\s+", after, re.IGNORECASE)
    return None if following is None else query[:found.start()] + "WHERE " + after[following.end():]


_SINGLE = re.compile(r"\s*MATCH\s+(.+?)\s+WHERE\s+(.+?)\s+(RETURN\s+.+)", re.IGNORECASE | re.DOTALL)
_NODE_TEXT = r"\(\s*\w*\s*(?::[^()]*)?\)"
_PATTERN = re.compile(rf"{_NODE_TEXT}(?:\s*<?-\[[^\]]*\]->?\s*{_NODE_TEXT})+")
_JOINER = re.compile(r"\b(AND|WHERE|OR|XOR)\b", re.IGNORECASE)


def patterns_into_match(query: str) -> str | None:
    """`MATCH (p:Person)-[:DIRECTED]->(m:Movie) WHERE … AND (b:Person)-[:ACTED_IN]->(m) WHERE
    lower(b.name) = '…' RETURN …`: a pattern among the WHERE conditions that binds a variable the rest
    of the query uses (Kùzu keeps a pattern's variables inside it), or that a second WHERE follows (which
    no engine parses), joins the MATCH, and the second WHERE is an AND. None when there is no such
    pattern, or the query is not one MATCH, WHERE and RETURN joined by AND alone."""
    bare = masked(query)
    parts = _SINGLE.fullmatch(bare)
    if parts is None or re.search(r"\b(?:MATCH|WITH|UNION|CALL)\b", parts.group(2) + parts.group(3), re.I):
        return None
    conditions, joiners = _split(query[parts.start(2):parts.end(2)], parts.group(2))
    if conditions is None or any(j.upper() not in ("AND", "WHERE") for j in joiners):
        return None
    second_where = any(j.upper() == "WHERE" for j in joiners)
    matched = set(VARIABLE.findall(parts.group(1)))
    moved, kept = [], []
    for i, (text, text_bare) in enumerate(conditions):
        if not _PATTERN.fullmatch(text_bare):
            kept.append(text)
            continue
        rest = " ".join(b for j, (_, b) in enumerate(conditions) if j != i) + " " + parts.group(3)
        binds = set(VARIABLE.findall(text_bare)) - matched
        if second_where or any(re.search(rf"(?<![.\w]){re.escape(v)}\b", rest) for v in binds):
            moved.append(text)
        else:
            kept.append(text)
    if not moved:
        return None
    match = ", ".join([query[parts.start(1):parts.end(1)], *moved])
    where = f" WHERE {' AND '.join(kept)}" if kept else ""
    return f"MATCH {match}{where} {query[parts.start(3):parts.end(3)]}"


def _split(text: str, bare: str) -> tuple[list[tuple[str, str]] | None, list[str]]:
    """The conditions of a WHERE clause at its top level (outside brackets) and the words joining them."""
    depth, cuts, joiners = 0, [], []
    i = 0
    while i < len(bare):
        if bare[i] in "([{":
            depth += 1
        elif bare[i] in ")]}":
            depth -= 1
        elif depth == 0 and (m := _JOINER.match(bare, i)) and (i == 0 or not bare[i - 1].isalnum()):
            cuts.append((m.start(), m.end()))
            joiners.append(m.group(1))
            i = m.end()
            continue
        i += 1
    if depth != 0:
        return None, joiners
    bounds = [0, *[x for cut in cuts for x in cut], len(bare)]
    pieces = [(text[a:b].strip(), bare[a:b].strip()) for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    return (None if any(not p for p, _ in pieces) else pieces), joiners


_STEP = re.compile(r"\(\s*(\w*)\s*(?::\s*`?(\w+)`?)?[^()]*\)\s*(<?)-\[\s*(\w*)\s*:\s*`?(\w+)`?([^\]]*)\]-(>?)"
                   r"\s*(?=\(\s*(\w*)\s*(?::\s*`?(\w+)`?)?)")  # a step: its ends (variable, label) and relationship


def wrong_ends(bare: str, nodes: dict, rels: dict) -> str | None:
    """What to say of a relationship matched between labels it does not link (`(p:Person)-[:ACTED_IN]->
    (b:Person)` where ACTED_IN links Person to Movie): the engine finds nothing, or, inside WHERE,
    everything, without an error."""
    labels = dict(NODE.findall(bare))
    for left, left_label, back, _, rel, inside, forward, right, right_label in _STEP.findall(bare):
        pairs = [tuple(pair) for pair in rels.get(rel, {}).get("pairs", [])]
        a, b = left_label or labels.get(left), right_label or labels.get(right)
        if not pairs or "|" in inside or a not in nodes or b not in nodes:
            continue
        wanted = [(a, b)] if forward and not back else [(b, a)] if back and not forward else [(a, b), (b, a)]
        if any(pair in pairs for pair in wanted):
            continue
        start, end = wanted[0]
        links = ", ".join(f"(:{x}) to (:{y})" for x, y in pairs)
        x, y = pairs[0]
        return (f"(:{start})-[:{rel}]->(:{end}) is not in this graph: {rel} links {links}. Match it from the "
                f"node that has it, e.g. (a:{x})-[:{rel}]->(b:{y}), with a variable of its own where the query "
                "already uses one for another node")
    return None




def linked_instead(query: str, literal: str, place: str, quote: Callable[[str], str]) -> str | None:
    """`(p:Person)-[r:ACTED_IN]->(m:Movie) WHERE … lower(r.roles) CONTAINS 'tom cruise'` where 'Tom
    Cruise' is a Person's name (`place`, `Label.property`): the value names another node linked to the
    same one the same way, so the condition becomes `EXISTS { MATCH (x:Person)-[:ACTED_IN]->(m) WHERE
    lower(x.name) = 'tom cruise' }` (`quote` writes a text literal). None when the literal is not
    compared with a property of a relationship that has `Label` at one end and a variable at the other."""
    label, _, field = place.partition(".")
    if not PLAIN_NAME.fullmatch(label) or not PLAIN_NAME.fullmatch(field):  # written bare into the query
        return None
    bare = masked(query)
    labels = dict(NODE.findall(bare))
    for left, left_label, back, variable, rel, _, forward, right, right_label in _STEP.findall(bare):
        ends = (left_label or labels.get(left), right_label or labels.get(right))
        other = right if ends[0] == label else left
        if not PLAIN_NAME.fullmatch(variable) or label not in ends or not other:
            continue
        if (compared := _compared_on(query, variable, literal)) is None:
            continue
        new = free("x", set(VARIABLE.findall(bare)))
        arrow = f"-[:{rel}]->" if forward else f"<-[:{rel}]-" if back else f"-[:{rel}]-"
        pattern = f"({new}:{label}){arrow}({other})" if ends[0] == label else f"({other}){arrow}({new}:{label})"
        # sandboxed: a rewrite of the model's query, run read-only; names are \w+, the value is quoted
        exists = f"EXISTS {{ MATCH {pattern} WHERE lower({new}.{field}) = {quote(literal.lower())} }}"
        return query[:compared.start()] + exists + query[compared.end():]
    return None


def _compared_on(query: str, variable: str, literal: str) -> re.Match[str] | None:
    """Where the query compares `literal` with a property of `variable` (`lower(r.roles) CONTAINS '…'`,
    `r.roles = '…'`, `'…' IN r.roles`)."""
    text = r"(['\"])" + re.escape(literal) + r"\1"
    field = rf"(?<![.\w]){re.escape(variable)}\.\w+"
    for form in (rf"(?:lower|tolower)\s*\(\s*{field}\s*\)\s*(?:=|CONTAINS)\s*{text}",
                 rf"{field}\s*(?:=|CONTAINS)\s*{text}", rf"{text}\s+IN\s+{field}"):
        if found := re.search(form, query, re.IGNORECASE):
            return found
    return None


_MAP = re.compile(r"([(\[])\s*([A-Za-z_]\w*)?(\s*:\s*`?\w+`?)?\s*\{([^{}]*)\}")  # `(m:Movie {…})`, `[r:REVIEWED {…}]`
_MAP_COMPARISON = re.compile(r"^\s*([A-Za-z_]\w*)\s*(<=|>=|<>|<|>)\s*(.+?)\s*$")
_CLAUSE_AFTER = re.compile(r"\b(WHERE|RETURN|WITH|MATCH|OPTIONAL|UNWIND|ORDER|CALL)\b", re.IGNORECASE)


def comparisons_out_of_maps(query: str) -> str | None:
    """`-[r:REVIEWED {rating < 50}]->`: a comparison written inside a property map, which only holds
    equalities (every engine refuses it), moved to the MATCH's WHERE as `r.rating < 50` (the element
    gets a variable when it has none). None when no map holds a comparison."""
    bare = masked(query)
    for m in _MAP.finditer(bare):
        entries = [(text, _MAP_COMPARISON.match(masked_text)) for text, masked_text in
                   _top_level_parts(query[m.start(4):m.end(4)], bare[m.start(4):m.end(4)])]
        compared = [(text, found) for text, found in entries if found]
        if not compared:
            continue
        variable = m.group(2) or free("x", set(VARIABLE.findall(bare)) | {"x"})
        kept = ", ".join(text.strip() for text, found in entries if not found)
        conditions = " AND ".join(f"{variable}.{found.group(1)} {found.group(2)} {text[found.start(3):found.end(3)]}"
                                  for text, found in compared)
        element = f"{m.group(1)}{variable}{m.group(3) or ''}{' {' + kept + '}' if kept else ''}"
        query, bare = (query[:m.start()] + element + query[m.end():]), (bare[:m.start()] + element + bare[m.end():])
        return _with_condition(query, bare, m.start() + len(element), conditions)
    return None


def _top_level_parts(text: str, bare: str) -> list[tuple[str, str]]:
    """`text` split at its commas outside quotes, each part with its masked twin."""
    parts, start = [], 0
    for at in [i for i, char in enumerate(bare) if char == ","] + [len(bare)]:
        parts.append((text[start:at], bare[start:at]))
        start = at + 1
    return [(t, b) for t, b in parts if b.strip()]


def _with_condition(query: str, bare: str, after: int, condition: str) -> str:
    """`condition` added to the WHERE of the clause that goes on at `after` (one made when it has none)."""
    clause = _CLAUSE_AFTER.search(bare, after)
    if clause is None:
        return f"{query.rstrip()} WHERE {condition}"
    if clause.group(1).upper() == "WHERE":
        ends = _CLAUSE_AFTER.search(bare, clause.end())
        end = ends.start() if ends else len(query)
        existing = query[clause.end():end].strip()
        if re.search(r"\bOR\b", bare[clause.end():end], re.IGNORECASE):
            existing = f"({existing})"  # `cond AND a OR b` would read as `(cond AND a) OR b`
        return f"{query[:clause.end()]} {condition} AND {existing}{' ' if ends else ''}{query[end:]}"
    return f"{query[:clause.start()]}WHERE {condition} {query[clause.start():]}"


_SQL_GROUP = re.compile(r"\s+GROUP\s+BY\s+(.+?)(?:\s+HAVING\s+(.+?))?\s*(?=\bRETURN\b|\bORDER\s+BY\b|\bLIMIT\b|$)",
                        re.IGNORECASE | re.DOTALL)
_AGGREGATE = re.compile(r"\b(?:count|sum|avg|min|max|collect)\s*\((?:[^()]|\([^()]*\))*\)", re.IGNORECASE)
_NAMED = re.compile(r"(?<![.\w`])([A-Za-z_]\w*)(?=\s*\.)")  # the variable of `m.title`


def groups_as_with(query: str) -> str | None:
    """SQL's `GROUP BY key [HAVING condition]` written in Cypher, which every engine refuses. Cypher
    groups by what RETURN (or WITH) gives beside its aggregates: the GROUP BY goes, a condition on an
    aggregate becomes `WITH <the keys' variables>, <aggregate> AS … WHERE …` before the RETURN, and a
    query that returned nothing returns its keys (and what it orders by). None when the query has no
    GROUP BY, or its RETURN reads a variable the grouping would drop."""
    bare = masked(query)
    group = _SQL_GROUP.search(bare)
    if group is None:
        return None
    keys = [k.strip() for k in query[group.start(1):group.end(1)].split(",") if k.strip()]
    having = query[group.start(2):group.end(2)].strip() if group.group(2) else ""
    head, tail = query[:group.start()].rstrip(), query[group.end():].strip()
    taken = set(VARIABLE.findall(bare))
    if not re.match(r"RETURN\b", tail, re.IGNORECASE):
        tail = _returning(keys, tail, taken)
    if not having:
        return f"{head} {tail}"
    held = {v for key in keys for v in [*_NAMED.findall(key), *([key] if PLAIN_NAME.fullmatch(key) else [])]}
    aggregates = _aliased(_AGGREGATE.findall(having), taken | held)
    if not held or not aggregates or set(_NAMED.findall(masked(tail))) - held:
        return None
    condition = having
    for text, alias in aggregates.items():
        condition = condition.replace(text, alias)
    carried = ", ".join([*sorted(held), *(f"{text} AS {alias}" for text, alias in aggregates.items())])
    return f"{head} WITH {carried} WHERE {condition} {tail}"


def _returning(keys: list[str], tail: str, taken: set[str]) -> str:
    """A RETURN of the grouping keys and of the aggregates `tail` (its ORDER BY … LIMIT) ranks by."""
    aggregates = _aliased(_AGGREGATE.findall(tail), taken)
    for text, alias in aggregates.items():
        tail = tail.replace(text, alias)
    items = ", ".join([*keys, *(f"{text} AS {alias}" for text, alias in aggregates.items())])
    return f"RETURN {items} {tail}".strip()


def _aliased(aggregates: list[str], taken: set[str]) -> dict[str, str]:
    """Each aggregate (once) with a name no variable of the query has: total, total_2, …"""
    out: dict[str, str] = {}
    for text in dict.fromkeys(aggregates):
        alias = "total" if "total" not in taken else free("total", taken)
        taken = taken | {alias}
        out[text] = alias
    return out
