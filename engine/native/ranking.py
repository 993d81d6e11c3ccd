"""The value a ranked query orders by, shown beside what it returns: "Which hospital in Charlotte has
the most operating rooms?" written `SELECT name … ORDER BY operating_rooms DESC LIMIT 1` answers with
the name alone, and neither the answer nor its citation says how many rooms that is. The query with
the ordering value added to what it returns lets the answer state it, and lets the reader check the
ranking in the cited rows. Kept only when it returns the same rows (`same_rows`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from local_stores.results import QueryResult

MAX_RANKED = 10  # "the top three": a short ranked list; a long sorted listing is left as written

QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
_OPEN, _CLOSE = "([{", ")]}"


def flat(query: str) -> str:
    """`query` with its quoted text and everything inside brackets blanked, same length: what is
    left is the query's top level, and positions found in it are positions in `query`."""
    text = QUOTED.sub(lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], query)
    out, depth = [], 0
    for char in text:
        if char in _CLOSE:
            depth = max(0, depth - 1)
        out.append(char if depth == 0 or char == "\n" else "_")
        if char in _OPEN:
            depth += 1
    return "".join(out)


_TAIL = {  # the ordering key and the closing LIMIT, at the query's top level
    "sql": re.compile(r"\bORDER\s+BY\s+(?P<key>.+?)(?:\s+(?:ASC|DESC))?(?:\s+NULLS\s+(?:FIRST|LAST))?"
                      r"\s+LIMIT\s+(?P<n>\d+)\s*;?\s*$", re.IGNORECASE | re.DOTALL),
    "cypher": re.compile(r"\bORDER\s+BY\s+(?P<key>.+?)(?:\s+(?:ASC|DESC|ASCENDING|DESCENDING))?"
                         r"\s+LIMIT\s+(?P<n>\d+)\s*;?\s*$", re.IGNORECASE | re.DOTALL),
    "sparql": re.compile(r"\bORDER\s+BY\s+(?:(?:ASC|DESC)\s*\(\s*(?P<wrapped>.+?)\s*\)|(?P<key>\?\w+))"
                         r"\s+LIMIT\s+(?P<n>\d+)\s*$", re.IGNORECASE | re.DOTALL),
}
_HEAD = {  # what the query returns: from its keyword to where that list ends
    "sql": re.compile(r"^\s*SELECT\s+(?P<distinct>DISTINCT\s+)?(?P<items>.+?)\s+FROM\b", re.IGNORECASE | re.DOTALL),
    "cypher": re.compile(r"\bRETURN\s+(?P<distinct>DISTINCT\s+)?(?P<items>.+?)\s+ORDER\s+BY\b",
                         re.IGNORECASE | re.DOTALL),
    "sparql": re.compile(r"\bSELECT\s+(?P<distinct>(?:DISTINCT|REDUCED)\s+)?(?P<items>.+?)\s*(?:WHERE\b|\{)",
                         re.IGNORECASE | re.DOTALL),
}
_SET_OPERATION = re.compile(r"\b(?:UNION|INTERSECT|EXCEPT|MINUS)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Ranking:
    """Where a query ending in `ORDER BY <one key> LIMIT n` ranks: its top level (`flat`), the tail
    match and the key's span in the query (SPARQL's `DESC(?x)` spans `?x`)."""

    top: str
    tail: re.Match[str]
    start: int
    end: int


def _ranking(query: str, language: str) -> _Ranking | None:
    """The ranking tail of `query`; None when it has none, ranks by several keys or joins set operations."""
    top = flat(query)
    tail = _TAIL[language].search(top)
    if tail is None or _SET_OPERATION.search(top):
        return None
    group = "wrapped" if language == "sparql" and tail.group("wrapped") else "key"
    if "," in top[tail.start(group):tail.end(group)]:
        return None
    return _Ranking(top, tail, tail.start(group), tail.end(group))


def with_ranked_value(query: str, language: str) -> str | None:
    """`query` returning the value it ranks by too, or None: it does not end in `ORDER BY <one key>
    LIMIT n` (n ≤ MAX_RANKED), returns `*` or distinct rows, or already returns that value."""
    ranking = _ranking(query, language)
    if ranking is None:
        return None
    tail, head = ranking.tail, _last(_HEAD[language], ranking.top, language)
    if head is None or head.group("distinct"):
        return None
    if int(tail.group("n")) > MAX_RANKED or head.end("items") > tail.start():
        return None
    key = query[ranking.start:ranking.end].strip()
    items = query[head.start("items"):head.end("items")]
    if re.fullmatch(r"\d+", key) or key.strip('"') == "_row" or _shown(key, items, language):
        return None  # a place in the file (engine.native.row_order) is no value to state
    added = _item(key, language)
    if added is None:
        return None
    joiner = " " if language == "sparql" else ", "
    return query[:head.end("items")] + joiner + added + query[head.end("items"):]


def _last(pattern: re.Pattern[str], top: str, language: str) -> re.Match[str] | None:
    """The head the ranking applies to: SQL's first SELECT, Cypher's last RETURN, SPARQL's first SELECT."""
    found = list(pattern.finditer(top))
    if not found:
        return None
    return found[-1] if language == "cypher" else found[0]


def _shown(key: str, items: str, language: str) -> bool:
    """Whether the returned items hold the ordering key: as an item, an alias or a column's name."""
    if language == "sparql":
        return "*" in items or key.lower() in {v.lower() for v in re.findall(r"\?\w+", items)}
    wanted = {_normal(key), _normal(key).rsplit(".", 1)[-1]}
    for item in _split_items(items):
        if item.strip() == "*" or item.strip().endswith(".*"):
            return True
        expression, *alias = re.split(r"\s+AS\s+", item, maxsplit=1, flags=re.IGNORECASE)
        names = {_normal(expression), _normal(expression).rsplit(".", 1)[-1], *map(_normal, alias)}
        if wanted & (names - {""}):
            return True
    return False


def _split_items(items: str) -> list[str]:
    top, parts, start = flat(items), [], 0
    for i, char in enumerate(top):
        if char == ",":
            parts.append(items[start:i])
            start = i + 1
    return [*parts, items[start:]]


def _normal(text: str) -> str:
    return re.sub(r"[\s\"`]", "", text).lower()


_REFERENCE = re.compile(r'(?:[A-Za-z_]\w*\.)?(?:[A-Za-z_]\w*|"[^"]+"|`[^`]+`)|\?\w+')
_AGGREGATE = re.compile(r"(?P<function>COUNT|SUM|AVG|MIN|MAX)\s*\(\s*(?:DISTINCT\s+)?(?P<argument>[^()]*?)\s*\)",
                        re.IGNORECASE)


def _item(key: str, language: str) -> str | None:
    """The ordering key as an item the query can return: a column, property or variable as it is;
    an aggregate under a name that says what it counts or sums (`COUNT(*) AS count_all`); anything
    else None."""
    if _REFERENCE.fullmatch(key):
        return key
    if (aggregate := _AGGREGATE.fullmatch(key)) is None:
        return None
    argument = re.sub(r"\W+", "_", aggregate.group("argument").rsplit(".", 1)[-1]).strip("_").lower() or "all"
    name = f"{aggregate.group('function').lower()}_{argument}"
    return f"({key} AS ?{name})" if language == "sparql" else f"{key} AS {name}"


def same_rows(before: QueryResult, after: QueryResult) -> bool:
    """Whether `after` holds `before`'s rows, in order, each with one more value at the end."""
    width = len(before.columns)
    return (len(after.columns) == width + 1 and after.columns[:width] == before.columns
            and len(after.rows) == len(before.rows)
            and all(tuple(a[:width]) == tuple(b) for a, b in zip(after.rows, before.rows, strict=True)))


def ordering_key(query: str, language: str) -> str | None:
    """The one key a query ending in `ORDER BY <key> LIMIT n` ranks by (SPARQL's `DESC(?x)` as `?x`)."""
    ranking = _ranking(query, language)
    return None if ranking is None else query[ranking.start:ranking.end].strip()


def nulls_last(query: str, language: str) -> str | None:
    """`query` ranking the rows that have no value to rank by after those that have one ("the oldest
    person" is not one whose year of birth is missing: Kùzu ranks a missing value above every year,
    SQLite below), or None when it does not end in `ORDER BY <one key> LIMIT n`."""
    ranking = _ranking(query, language)
    if ranking is None:
        return None
    key = query[ranking.start:ranking.end].strip()
    order = _ORDER_BY.match(ranking.top, ranking.tail.start())
    assert order is not None  # the tail opens with ORDER BY
    first = f"DESC(BOUND({key})) " if language == "sparql" else f"{key} IS NULL, "
    return query[:order.end()] + first + query[order.end():]


_ORDER_BY = re.compile(r"ORDER\s+BY\s+", re.IGNORECASE)
_GROUP_BY = re.compile(r"\s+GROUP\s+BY\s+((?:\w+\.)?\"?\w+\"?)\s*(?=ORDER\b|HAVING\b|LIMIT\b|$|;)", re.IGNORECASE)
_WHERE = re.compile(r"\bWHERE\s+", re.IGNORECASE)


def nested_select(statement: str) -> bool:
    """Whether a SQL statement holds a SELECT inside its own (its quoted text left out): the rewrites
    that read one query's parts leave it alone."""
    return QUOTED.sub("''", statement).upper().count("SELECT") > 1


def grouped_key(query: str) -> str | None:
    """The one column a SQL query that ranks its groups (`GROUP BY position … ORDER BY … LIMIT n`)
    groups by; None for any other query (several keys, a subquery, a set operation)."""
    top = flat(query)
    if _ranking(query, "sql") is None or nested_select(query) or len(_GROUP_BY.findall(top)) != 1:
        return None
    found = _GROUP_BY.search(top)
    return query[found.start(1):found.end(1)] if found else None


def named_groups(query: str, key: str) -> str:
    """The SQL query without the rows whose group `key` is empty: "Position is None; count all is 10"
    is the rows with no position, counted as one group, not the position drafted most."""
    top = flat(query)
    group = _GROUP_BY.search(top)
    assert group is not None  # grouped_key found it
    where = _WHERE.search(top, 0, group.start())
    if where is None:
        return f"{query[:group.start()]} WHERE {key} IS NOT NULL{query[group.start():]}"
    return (f"{query[:where.end()]}({query[where.end():group.start()].strip()}) AND {key} IS NOT NULL"
            f"{query[group.start():]}")



def with_limit(query: str, language: str, n: int) -> str | None:
    """`query` with the LIMIT of its `ORDER BY <one key> LIMIT m` ending set to `n`, or None when it
    does not end so."""
    ranking = _ranking(query, language)
    if ranking is None:
        return None
    tail = ranking.tail
    return query[:tail.start("n")] + str(int(n)) + query[tail.end("n"):]


def limit_of(query: str, language: str) -> int | None:
    """The n of a query ending in `ORDER BY <one key> LIMIT n`, or None."""
    ranking = _ranking(query, language)
    return None if ranking is None else int(ranking.tail.group("n"))


def key_column(result: QueryResult, key: str) -> int | None:
    """Where the ordering `key` is among the result's columns (`p.born`, `born`, `?born`), or None."""
    wanted = {_normal(key).lstrip("?"), _normal(key).lstrip("?").rsplit(".", 1)[-1]}
    for i, column in enumerate(result.columns):
        if _normal(column).lstrip("?") in wanted:
            return i
    return None


_EARLIEST = re.compile(r"\b(?:oldest|earliest)\b", re.IGNORECASE)
_LATEST = re.compile(r"\b(?:youngest|newest|latest|most\s+recent(?:ly)?)\b", re.IGNORECASE)
_WHEN_KEY = re.compile(r"(?:born|birth|year(?!s)|date|founded|established|released|built|opened|created|started)",
                       re.IGNORECASE)  # a point in time: "years" counts them (`duration_years_days`)
_DIRECTION = re.compile(r"\b(ASC|DESC|ASCENDING|DESCENDING)\b", re.IGNORECASE)
_MOST = re.compile(r"\b(?:longest|largest|biggest|highest|greatest|maximum|(?<!at )most(?!\s+recent))\b", re.IGNORECASE)
_LEAST = re.compile(r"\b(?:shortest|smallest|lowest|minimum|fewest|(?<!at )least)\b", re.IGNORECASE)
_PLACE_KEY = re.compile(r"rank|position|place|pos\b|seed|standing", re.IGNORECASE)  # the highest rank is 1


def turned(question: str, query: str, language: str) -> str | None:
    """`query` ranked the way the question asks when it ranks the wrong way: by a date or year ("the
    oldest person" written `ORDER BY p.born DESC`: the latest born first), or by an amount ("held
    the title for the longest time" written `ORDER BY duration ASC LIMIT 1`: the shortest first);
    None when it does not, or when the question asks both ways or neither."""
    ranking = _ranking(query, language)
    if ranking is None:
        return None
    key = query[ranking.start:ranking.end].strip().rsplit(".", 1)[-1]
    if _WHEN_KEY.search(key):
        first, last = bool(_EARLIEST.search(question)), bool(_LATEST.search(question))
    elif not _PLACE_KEY.search(key):
        first, last = bool(_LEAST.search(question)), bool(_MOST.search(question))
    else:
        return None
    return None if first == last else _directed(query, language, ranking, descending_asked=last)


def _directed(query: str, language: str, ranking: _Ranking, descending_asked: bool) -> str | None:
    """`query` with its ranking in the direction asked; None when it already has it."""
    top, tail = ranking.top, ranking.tail
    if language == "sparql":
        written = re.search(r"\b(ASC|DESC)\s*\(", top[tail.start():], re.IGNORECASE)
        descending = written is not None and written.group(1).upper() == "DESC"
        span = (tail.start() + written.start(1), tail.start() + written.end(1)) if written else None
    else:
        written = _DIRECTION.search(top, tail.end("key"), tail.start("n"))
        descending = written is not None and written.group(1).upper().startswith("DESC")
        span = written.span(1) if written else None
    if descending == descending_asked:
        return None
    if span is not None:
        return query[:span[0]] + ("DESC" if descending_asked else "ASC") + query[span[1]:]
    start, end = tail.span("key")  # no direction written: ascending, the largest or newest last
    key = query[start:end]
    return query[:start] + (f"DESC({key})" if language == "sparql" else f"{key} DESC") + query[end:]
