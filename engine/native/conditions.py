"""What a query's conditions say on their own text, before any engine runs it: a field compared
with two different values in one AND-chain, which no row (or node) can meet; a name compared with
that the question never names and the prompt showed (copied, not asked); a question's "not" or
"the first" the query leaves out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from engine.native.described import dropped, tables_read
from engine.native.literals import QUOTED_VALUE

_EQUALS = re.compile(r"(?:\b(?:lower|upper|tolower|toupper)\s*\(\s*)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)\s*\)?\s*="
                     r"\s*'((?:[^'\\]|\\.|'')*)'", re.IGNORECASE)
_CLAUSE = re.compile(r"\b(?:SELECT|INTERSECT|UNION|EXCEPT|OR|MATCH|WITH|RETURN|OPTIONAL|WHERE|HAVING|CASE|WHEN|"
                     r"THEN|ELSE|END)\b", re.IGNORECASE)


@dataclass(frozen=True)
class BothAtOnce:
    """`field` compared with `first` and then `second`; `second_at`: where that second comparison's
    field is written in the statement (start, end)."""

    field: str
    first: str
    second: str
    second_at: tuple[int, int]


def both_at_once(statement: str) -> BothAtOnce | None:
    """A field compared with two different values in one AND-chain (`T2.name = 'Lettice' AND T2.name =
    'HMS Atalanta'`), which nothing meets. Conditions in different SELECTs, subqueries, OR branches or
    MATCH clauses, or a CASE and the WHERE, are not compared with each other."""
    bounds = [0, *(m.start() for m in _CLAUSE.finditer(statement)), len(statement)]
    for start, end in pairwise(bounds):
        seen: dict[str, str] = {}
        for m in _EQUALS.finditer(statement, start, end):
            field, value = m.group(1), m.group(2)
            key = field.lower()
            if key in seen and seen[key].lower() != value.lower():
                return BothAtOnce(field, seen[key], value, m.span(1))
            seen.setdefault(key, value)
    return None


_NODE_MAP = re.compile(r"\(\s*([A-Za-z_]\w*)\s*(?::\s*`?\w+`?\s*)?\{([^{}]*)\}")  # (p:Person {name: 'A'})
_MAP_ENTRY = re.compile(r"([A-Za-z_]\w*)\s*:\s*(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")")


def pattern_and_where(statement: str) -> BothAtOnce | None:
    """A Cypher node matched with a value in its pattern and compared with another in the WHERE
    that follows (`MATCH (p:Person {name: 'Rob Reiner'})-[:DIRECTED]->(m) WHERE p.name = 'Kevin
    Bacon'`), which no node meets. A WHERE with an OR branch is left alone (another branch may hold)."""
    clauses = [*_CLAUSE.finditer(statement)]
    for here, after in pairwise(clauses):
        if here.group(0).upper() != "MATCH" or after.group(0).upper() != "WHERE":
            continue
        inline = {f"{node.group(1)}.{entry.group(1)}".lower(): entry.group(2) or entry.group(3) or ""
                  for node in _NODE_MAP.finditer(statement, here.end(), after.start())
                  for entry in _MAP_ENTRY.finditer(node.group(2))}
        following = next((c for c in clauses if c.start() > after.start()), None)
        end = following.start() if following else len(statement)
        if following is not None and following.group(0).upper() == "OR":
            continue
        for m in _EQUALS.finditer(statement, after.end(), end):
            first = inline.get(m.group(1).lower())
            if first is not None and first.lower() != m.group(2).lower():
                return BothAtOnce(m.group(1), first, m.group(2), m.span(1))
    return None


_INTERSECT = re.compile(r"\bINTERSECT\b", re.IGNORECASE)
_SELECTED = re.compile(r"\bSELECT\b(.*?)\bFROM\b", re.IGNORECASE | re.DOTALL)


def intersect_of_differing(statement: str) -> BothAtOnce | None:
    """Two SELECTs intersected that each return the field they compare with a different value
    (`SELECT b.name, s.name … WHERE s.name = 'Lettice' INTERSECT SELECT b.name, s.name … WHERE s.name =
    'HMS Atalanta'`): INTERSECT keeps whole rows found in both, and those rows differ in that field."""
    halves = _INTERSECT.split(statement)
    if len(halves) != 2:
        return None
    compared = [{m.group(1).lower(): (m.group(1), m.group(2)) for m in _EQUALS.finditer(half)} for half in halves]
    selected = [(m.group(1).lower() if (m := _SELECTED.search(half)) else "") for half in halves]
    for key, (field, first) in compared[0].items():
        second = compared[1].get(key, ("", first))[1]
        if second.lower() != first.lower() and all(
                re.search(rf"(?<![\w.]){re.escape(key)}(?!\w)", cols) for cols in selected):
            return BothAtOnce(field, first, second, (0, 0))
    return None


_AFTER_WHERE = r"(?=\s*(?:$|;|\)|ORDER\b|GROUP\b|LIMIT\b|RETURN\b|WITH\b|UNION\b|INTERSECT\b|EXCEPT\b|HAVING\b))"


def without_value(statement: str, value: str) -> str | None:
    """The SQL or Cypher statement with every `field = 'value'` (or `LIKE '%value%'`) condition of an
    AND-chain left out (the value compared in any case, the field bare or inside lower()/upper()), and
    a Cypher node's `{field: 'value'}`; None when it has none."""
    condition = (r"(?:\b(?:lower|upper|tolower|toupper)\s*\(\s*)?[A-Za-z_][\w.]*\s*\)?\s*(?:=|\bI?LIKE\b)\s*'%?"
                 + re.escape(value).replace("'", "''") + "%?'")
    loosened = re.sub(rf"\s+AND\s+{condition}", "", statement, flags=re.IGNORECASE)
    loosened = re.sub(rf"\bWHERE\s+{condition}\s+AND\s+", "WHERE ", loosened, flags=re.IGNORECASE)
    loosened = re.sub(rf"\s*\bWHERE\s+{condition}{_AFTER_WHERE}", "", loosened, flags=re.IGNORECASE)
    loosened = re.sub(r"\s*\{\s*[A-Za-z_]\w*\s*:\s*'" + re.escape(value).replace("'", "''") + r"'\s*\}", "", loosened,
                      flags=re.IGNORECASE)
    return loosened if loosened != statement else None


_NAME_VALUE = re.compile(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)+")  # two or more capitalised words
_WORD = re.compile(r"\w+")


def unasked_name(statement: str, asked: str, shown: str) -> str | None:
    """A name the query compares with ('Aaron Sorkin') that shares no word with what was asked
    (`asked`: the question, and the one a follow-up refines) and that the prompt showed the model
    (`shown`: the schema's sample values, the examples): copied from the prompt, so the query answers
    another question ("Which movies released before 1990 …?" kept to one person's). None when every
    name it compares with was asked."""
    words = {w.lower() for w in _WORD.findall(asked)}
    for m in QUOTED_VALUE.finditer(statement):
        value = (m.group(1) or m.group(2) or "").strip()
        if (_NAME_VALUE.fullmatch(value) and not {w.lower() for w in _WORD.findall(value)} & words
                and value.lower() in shown.lower()):
            return value
    return None


_SUMMED = re.compile(r"\bSUM\s*\(\s*(?:DISTINCT\s+)?[?$]?(?:\w+\.)?(\w+)\s*\)", re.IGNORECASE)
_YEARLY = re.compile(r"(?:^|_)(?:year|released|born|birth|founded|built|established|opened)$", re.IGNORECASE)


def sums_years(statement: str, question: str) -> str | None:
    """The column a query adds up that holds years (`sum(m.released)` for "How much did Top Gun earn at
    the box office?"): a sum of years means nothing, so the query answers something else; None when it
    sums none, or the question itself is about years."""
    if re.search(r"\byears?\b", question, re.IGNORECASE):
        return None
    return next((m.group(1) for m in _SUMMED.finditer(statement) if _YEARLY.search(m.group(1))), None)


_MOST = re.compile(r"\b(?:most|fewest|least|highest|lowest|largest|smallest|greatest)\s+(?:number\s+of\s+)?"
                   r"([a-z][a-z-]{3,})", re.IGNORECASE)
_BY_COUNT = re.compile(r"\bORDER\s+BY\s+COUNT\s*\(", re.IGNORECASE)


def counted_not_read(statement: str, question: str, columns: set[str]) -> str | None:
    """The column a question ranks by ("the most permit checks": `permit`) when the query ranks by a
    count of rows instead (`ORDER BY COUNT(*)`) and never reads that column; None otherwise. `columns`:
    the source's number columns."""
    asked = _MOST.search(question)
    if asked is None or not _BY_COUNT.search(statement):
        return None
    word = asked.group(1).lower()
    named = [c for c in columns if _holds(c, word[:5])]
    named = [c for c in named if c.lower() in (word, word.rstrip("s"))] or named  # `handgun` of the handgun columns
    if len(named) != 1 or re.search(rf"\b{re.escape(named[0])}\b", statement, re.IGNORECASE):
        return None
    return named[0]


_GROUPED_BY = re.compile(r"\bGROUP\s+BY\s+(?:[A-Za-z_]\w*\.)?\"?(\w+)\"?", re.IGNORECASE)
_ANY_COUNT = re.compile(r"\bCOUNT\s*\(", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_SELF_JOIN = re.compile(r"\s+(?:(?:INNER|LEFT|RIGHT|FULL)(?:\s+OUTER)?\s+)?JOIN\s+\"?(\w+)\"?"
                        r"(?:\s+(?:AS\s+)?(?!ON\b)(\w+))?\s+ON\s+(\w+)\.\"?(\w+)\"?\s*=\s*(\w+)\.\"?(\w+)\"?"
                        r"(\s*(?:AND|OR)\b)?", re.IGNORECASE)


@dataclass(frozen=True)
class _SelfJoin:
    """`JOIN border_info AS T2 ON T1.border = T2.border`: a second copy of T1's table, on one column."""

    table: str
    joined: str  # the second copy's alias (or table name), as written
    kept: str  # the first copy's alias, lower-cased
    column: str
    span: tuple[int, int]  # the JOIN clause in the statement
    alone: bool  # its ON holds nothing else (no AND/OR after it)


def _self_joins(statement: str) -> list[_SelfJoin]:
    """The statement's joins of a table with itself on one column (the same on both sides)."""
    tables, found = tables_read(statement), []
    for m in _SELF_JOIN.finditer(statement):
        table, alias, left, column, right, other, more = m.groups()
        joined, aliases = (alias or table).lower(), {left.lower(), right.lower()}
        if column.lower() != other.lower() or joined not in aliases or len(aliases) != 2:
            continue
        (kept,) = aliases - {joined}
        if tables.get(kept) and tables.get(kept) == tables.get(joined):
            found.append(_SelfJoin(tables[joined], alias or table, kept, column, m.span(), more is None))
    return found


def _counted_per_group(statement: str) -> str | None:
    """The column a query of one SELECT that counts groups by, or None."""
    grouped = _GROUPED_BY.search(statement)
    if grouped is None or not _ANY_COUNT.search(statement) or len(_SELECT.findall(statement)) > 1:
        return None
    return grouped.group(1)


def pairs_counted(statement: str) -> str | None:
    """What to tell the repair when a query joins a table with itself on one column and counts per
    group ("which states border the most states?" as `border_info T1 JOIN border_info T2 ON T1.border =
    T2.border … COUNT(T2.state_name)`): it counts pairs of rows sharing a value, not each group's rows.
    None for any other query (one with a subquery, or a self-join on two different columns, such as
    an employee's manager)."""
    group = _counted_per_group(statement)
    joins = _self_joins(statement) if group is not None else []
    if not joins:
        return None
    table, column = joins[0].table, joins[0].column.lower()
    return (f"the query joins {table} with itself on {column}, so COUNT counts pairs of rows that share a "
            f"{column}, not the rows of each {group}: read {table} once and count its rows per {group}")


def read_once(statement: str) -> str | None:
    """The query `pairs_counted` sends back with its second copy of the table left out and that
    copy's columns read from the first (`COUNT(T2.state_name)` becomes `COUNT(T1.state_name)`: each
    state's own rows); None when the join is not one this can take out on its own (its ON holds more)."""
    if _counted_per_group(statement) is None:
        return None
    for join in _self_joins(statement):
        if join.alone:
            alone = statement[:join.span[0]] + statement[join.span[1]:]
            return re.sub(rf"\b{re.escape(join.joined)}\.", f"{_as_written(statement, join.kept)}.", alone)
    return None


def _as_written(statement: str, alias: str) -> str:
    """An alias as the statement writes it (`T1` for `t1`)."""
    m = re.search(rf"\b({re.escape(alias)})\.", statement, re.IGNORECASE)
    return m.group(1) if m else alias


_WHICH_MOST = re.compile(r"\b(?:which|what)\s+([a-z]{3,})\b[^?]*?\b(most|fewest|least)\s+(?:number\s+of\s+)?"
                         r"([a-z][a-z-]{2,}s)\b", re.IGNORECASE)  # "which year did most countries join"
_ONE_EXTREME = re.compile(r"^\s*SELECT\s+(MAX|MIN)\s*\(\s*(?:\w+\.)?\"?(\w+)\"?\s*\)(?:\s+AS\s+\w+)?\s+FROM\b"
                          r"(?!.*\bGROUP\s+BY\b)", re.IGNORECASE | re.DOTALL)


def extreme_not_counted(statement: str, question: str) -> str | None:
    """What to tell the repair when "which year did most countries join?" is written `SELECT
    MAX(joining_year)`: the latest year, where the question asks for the year that has the most rows
    (or the largest total). None unless the query returns only the MAX/MIN of a column named by the
    word after "which" and the question ranks by a count of things ("most countries")."""
    asked, extreme = _WHICH_MOST.search(question), _ONE_EXTREME.search(statement)
    if asked is None or extreme is None:
        return None
    noun, most, things, column = (*(g.lower() for g in asked.groups()), extreme.group(2))
    if not _holds(column, noun[:4]) or _holds(column, things[:5]):
        return None  # "which player has the most points": MAX(points) reads the ranked measure itself
    largest = "largest" if extreme.group(1).upper() == "MAX" else "smallest"
    return (f"the question asks for the {noun} with the {most} {things}, but the query returns the {largest} "
            f"{column}: group the rows by {column} and rank the groups by how many rows each holds (or by the "
            f"total that counts {things}), keeping the first")


def _holds(column: str, stem: str) -> bool:
    """Whether a column is named for what `stem` begins; never an id (`friend_id` numbers friends, it
    does not count them)."""
    parts = column.lower().split("_")
    return "id" not in parts and any(part.startswith(stem) for part in parts)


# what a question asks for: the words after "how many", "what is the", "which" ("how many titles did")
_ASKED_FOR = re.compile(r"\b(?:how\s+(?:many|much)|what(?:\s+(?:is|was|are|were))?(?:\s+the)?|which)\s+"
                        r"((?:[\w-]+\s+){0,2}[\w-]+)", re.IGNORECASE)
_NAMING = frozenset({"name", "title", "label", "type", "kind", "value", "numbe", "count", "total"})  # by stem


def other_field_returned(question: str, returned: list[str], fields: list[str],
                         statement: str) -> tuple[str, str] | None:
    """(field the question names, column returned instead): "how many titles did Jansher Khan win?"
    answered with `final_appearances` where the table has `no_of_titles`. Only for a result of one
    column that is itself a field the question names no word of, and one field whose words all follow
    what the question asks with ("how many", "what is the", "which") and the query never reads; None
    otherwise ("why did they lay off 474 employees?" does not ask for the employees field)."""
    if len(returned) != 1 or returned[0].lower() not in {f.lower() for f in fields}:
        return None
    asked = {w.lower()[:5] for w in _WORD.findall(question) if len(w) >= 3}
    if _words_of(returned[0]) & asked or not _words_of(returned[0]) - _NAMING:
        return None
    wanted = _asked_for(question)
    named = [f for f in fields if (words := _words_of(f)) and words <= wanted
             and not _reads(statement, f)]
    return (named[0], returned[0]) if len(named) == 1 else None


def _asked_for(question: str) -> set[str]:
    """The words (by their first five letters) that follow what the question asks with."""
    return {w.lower()[:5] for m in _ASKED_FOR.finditer(question) for w in _WORD.findall(m.group(1)) if len(w) >= 3}


def _words_of(field: str) -> set[str]:
    """A field's words of three letters or more, by their first five: `no_of_titles` -> {"title"}."""
    return {w.lower()[:5] for w in re.findall(r"[A-Za-z]{3,}", field)}


_COUNTED = re.compile(r"\bCOUNT\s*\(\s*(?:DISTINCT\s+)?(?:\w+\.)?\"?(\w+)\"?\s*\)", re.IGNORECASE)
_A_COUNT = re.compile(r"^(?:no|num|nr|number|count|total|n)_(?:of_)?|_(?:count|total|number|num)$", re.IGNORECASE)


def counts_a_count(statement: str, question: str, columns: set[str]) -> str | None:
    """A number column that already holds a count of what the question asks how many of
    (`no_of_titles`, `goal_count`), or is named for it (`final_points` of "how many final points"), that
    the query counts the rows of (`COUNT(no_of_titles)` for "how many titles did Jansher Khan win?":
    1, where the row says 8); None otherwise ("how many players won a title?" may count them).
    `columns`: the source's number columns."""
    held = {c.lower(): c for c in columns}
    wanted, counted, first = _asked_for(question), _how_many_of(question), _how_many_first(question)
    for m in _COUNTED.finditer(statement):
        column = held.get(m.group(1).lower())
        if column is not None and (_A_COUNT.search(column) and _words_of(_A_COUNT.sub("", column)) <= wanted
                                   or _words_of(column) and _words_of(column) <= counted
                                   or first in _words_of(column)):  # "how many points" of `final_points`
            return column
    return None


def added_up(statement: str, column: str) -> str:
    """The statement adding up `column` where it counted its rows (`COUNT(no_of_titles)` of a row that
    says 8 is 1; `SUM(no_of_titles)` is 8, and the total over several rows)."""
    return re.sub(rf"\bCOUNT\s*\(\s*(?:DISTINCT\s+)?((?:\w+\.)?\"?{re.escape(column)}\"?)\s*\)", r"SUM(\1)", statement,
                  flags=re.IGNORECASE)


def _how_many_first(question: str) -> str | None:
    """The first word (by its first five letters) of what the question asks how many of: "point" of
    "how many points did Ann Fargher have?"."""
    m = _HOW_MANY_OF.search(question)
    word = _WORD.match(m.group(1)) if m else None
    return word.group(0).lower()[:5] if word and len(word.group(0)) >= 3 else None


_HOW_MANY_OF = re.compile(r"\bhow\s+many\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)


def _how_many_of(question: str) -> set[str]:
    """The words (by their first five letters) of what the question asks how many of, at most two:
    "final points" of "how many final points did Kelly McCormick score?"."""
    return {w.lower()[:5] for m in _HOW_MANY_OF.finditer(question) for w in _WORD.findall(m.group(1)) if len(w) >= 3}


_SELF_DIFFERENCE = re.compile(r"(?<![\w.\"])((?:[A-Za-z_]\w*\s*\(\s*(?:DISTINCT\s+)?)?(?:[A-Za-z_]\w*\.)?"
                              r"\"?[A-Za-z_]\w*\"?(?:\s*\))?)\s*-\s*\1(?![\w.(\"])", re.IGNORECASE)


def subtracts_itself(statement: str) -> str | None:
    """An expression the query subtracts from itself (`SUM(total) - SUM(total) … WHERE name = 'A' OR
    name = 'B'` for "the difference in goals between A and B"): always 0, so it answers nothing. None
    when every difference is between two different things."""
    found = _SELF_DIFFERENCE.search(statement)
    return found.group(1) if found else None


_TWO_NAMED = re.compile(
    r"^\s*SELECT\s+(?P<expr>.+?)\s*-\s*(?P=expr)\s+(?:AS\s+\w+\s+)?FROM\s+(?P<table>[\w\"]+)"
    r"(?:\s+(?:AS\s+)?(?P<alias>\w+))?\s+WHERE\s+(?:(?P<col>[\w.\"]+)\s*=\s*(?P<a>'(?:[^']|'')*')\s+OR\s+"
    r"(?P=col)\s*=\s*(?P<b>'(?:[^']|'')*')|(?P<incol>[\w.\"]+)\s+IN\s*\(\s*(?P<ia>'(?:[^']|'')*')\s*,\s*"
    r"(?P<ib>'(?:[^']|'')*')\s*\))\s*;?\s*$", re.IGNORECASE | re.DOTALL)


_EACH_OR = (r"SELECT (SELECT \g<expr> FROM \g<table> WHERE \g<col> = \g<a>) - "
            r"(SELECT \g<expr> FROM \g<table> WHERE \g<col> = \g<b>) AS difference")
_EACH_LISTED = _EACH_OR.replace("<col>", "<incol>").replace("<a>", "<ia>").replace("<b>", "<ib>")


def each_named(statement: str) -> str | None:
    """`SELECT SUM(total) - SUM(total) FROM goals WHERE name = 'A' OR name = 'B'` as the difference of
    each one's value, A's less B's (a subquery per name): what such a query means; None for any other
    form (the repair hears `subtracts_itself`'s message)."""
    m = _TWO_NAMED.match(statement)
    if m is None:
        return None
    template = _EACH_LISTED if m.group("incol") else _EACH_OR
    if m.group("alias"):
        template = template.replace(r"\g<table>", r"\g<table> AS \g<alias>")
    return m.expand(template)


_SIZE_OF = re.compile(r"\b(?:largest|biggest|smallest)\s+(?!(?:city|cities|town|towns|village|villages|population|"
                      r"capital|capitals|number|count|amount|share|group|crowd|family|families)\b)([a-z]+)",
                      re.IGNORECASE)
_BY_POPULATION = re.compile(r"\b(?:ORDER\s+BY|MAX|MIN)\s*\(?\s*(?:\w+\.)?\"?(\w*population\w*)\"?", re.IGNORECASE)


def sized_by_population(statement: str, question: str, tables: list[dict]) -> str | None:
    """The population column a query ranks by for "the largest state" where that table measures
    area too: the size of a state, country, lake or park is its area (a city's is its population).
    Returns the area column the query should rank by, or None."""
    if _SIZE_OF.search(question) is None or (ranked := _BY_POPULATION.search(statement)) is None:
        return None
    read = {name.lower() for name in tables_read(statement).values()}
    for table in tables:
        names = [str(c["name"]) for c in table.get("columns", [])]
        area = next((n for n in names if re.fullmatch(r"(?:\w+_)?area", n, re.IGNORECASE)), None)
        if area and str(table.get("table", "")).lower() in read and ranked.group(1).lower() in map(str.lower, names):
            return area
    return None


_DATE_TYPE = re.compile(r"\b(?:DATE|TIMESTAMP\w*|DATETIME)\b", re.IGNORECASE)


def other_date_compared(question: str, statement: str, columns: list[dict]) -> tuple[str, str] | None:
    """(date column the question names, date column the query compares instead): "How many WARN
    notices were received in April 2016?" counted by `effective` where the table has `received`.
    Only when exactly one date column is named by all its words, outside what the question counts
    ("how many WARN notices": not `notice_date`), and the query never reads it."""
    dates = [str(c["name"]) for c in columns if _DATE_TYPE.search(str(c.get("type", "")))]
    words = {w.lower()[:5] for w in _WORD.findall(question) if len(w) >= 3} - _asked_for(question)
    named = [d for d in dates if (parts := _words_of(d)) and parts <= words]
    if len(named) != 1 or _reads(statement, named[0]):
        return None
    compared = [d for d in dates if _reads(statement, d)]
    return (named[0], compared[0]) if compared else None


def _reads(statement: str, column: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(column)}(?![\w])", statement, re.IGNORECASE) is not None


_ENTRY_OF = r"([A-Za-z_]\w*)\s*:\s*{literal}"
_EQUAL_TO = r"(?:\b(?:lower|tolower)\s*\(\s*)?(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\s*\)?\s*=\s*{literal}"


def compared_twice(statement: str, value: str, holding: set[str]) -> str | None:
    """The statement without its comparisons of `value` with fields that do not hold it, where it
    also compares it with one that does (`-[:REVIEWED {summary: 'The Replacements'}]->(m:Movie {title:
    'The Replacements'})`: the title holds it, the summary never does); None otherwise. `holding`:
    the fields (lower-cased) the source holds the value in."""
    literal = "'" + re.escape(value.replace("'", "''")) + "'"
    entries = [(m, m.group(1).lower()) for m in re.finditer(_ENTRY_OF.format(literal=literal), statement, re.I)]
    equals = [(m, m.group(1).lower()) for m in re.finditer(_EQUAL_TO.format(literal=literal), statement, re.I)]
    fields = {f for _, f in entries + equals}
    if not fields & holding or not fields - holding:
        return None
    out: str | None = statement
    for m, field_name in sorted(entries + equals, key=lambda pair: -pair[0].start()):
        if out is not None and field_name not in holding:
            out = _without_entry(out, m) if (m, field_name) in entries else dropped(out, m.start(), m.end())
    return out


def _without_entry(statement: str, m: re.Match) -> str:
    """A property map's entry left out, with its comma; the map itself when it was its only entry."""
    before, after = statement[:m.start()], statement[m.end():]
    if (opening := re.search(r"\s*\{\s*$", before)) and (closing := re.match(r"\s*\}", after)):
        return before[:opening.start()] + after[closing.end():]
    if (comma := re.match(r"\s*,\s*", after)) is not None:
        return before + after[comma.end():]
    return re.sub(r",\s*$", "", before) + after


_NEGATED = re.compile(r"\b(?:(?:do|does|did|have|has|had|is|are|was|were|can|could|will|would)\s+(?:not|never)|"
                      r"(?:don|doesn|didn|haven|hasn|hadn|isn|aren|wasn|weren)['’]t|never|without|"
                      r"(?:with|have|has|had)\s+no)\b", re.IGNORECASE)
_QUESTION_QUOTE = re.compile(r"(?<!\w)['\"“‘][^'\"”’]*['\"”’](?!\w)")  # 'Speed has no limits': a value
_NEGATING = re.compile(r"\bNOT\b|\bMINUS\b|\bEXCEPT\b|!\s*(?:BOUND|EXISTS|REGEX|CONTAINS)\b|FILTER\s*\(\s*!|"
                       r"(?:!=|<>)\s*(?:['\"\d-]|true\b|false\b)|['\"\d]\s*(?:!=|<>)|"  # a value, not `?a != ?b`
                       r"\bIS\s+NULL\b|\bNONE\s*\(|=\s*0(?![\d.])|=\s*'(?:no|none|n/?a)?'", re.IGNORECASE)
_COMPARING = re.compile(r"<=|>=|<|>")
_IRI_OR_ARROW = re.compile(r"<[^<>\s]*>|<-|->")
_WAYS_TO_LEAVE_OUT = {"sql": "NOT IN (SELECT …) or NOT EXISTS (SELECT …)", "cypher": "WHERE NOT (…)-[…]-(…)",
                      "sparql": "FILTER NOT EXISTS { … } or MINUS { … }"}


def negation_dropped(question: str, statement: str, language: str) -> str | None:
    """What to tell the repair when the question asks for the things that do not do something ("the
    teachers whose courses have not been arranged") and the query leaves none out: no NOT, MINUS,
    EXCEPT, `!=` a value, `IS NULL` or `= 0` in it, so it answers with every one (the arranged ones
    too; `?teacher_id != ?teacher`, two variables, left none out).
    None when the question negates nothing, or the query compares (`<=` for "not higher than 4")."""
    negated = _NEGATED.search(_QUESTION_QUOTE.sub(" ", question))
    if negated is None or _compares_a_value_with(negated.group(0).split()[-1], statement):
        return None  # "Never Say Never Again" is a title the query compares
    if _NEGATING.search(statement) or _COMPARING.search(_IRI_OR_ARROW.sub(" ", QUOTED_VALUE.sub("''", statement))):
        return None
    return (f"the question asks for the ones that {negated.group(0).lower()} …, but the query leaves none out, so it "
            f"returns every one: leave out those that do ({_WAYS_TO_LEAVE_OUT.get(language, 'NOT')})")


_RANKED = re.compile(r"\b(?:(?<!at )most|(?<!at )least|fewest|highest|lowest|largest|smallest|biggest|greatest|"
                     r"oldest|youngest|earliest|latest|newest|longest|shortest|heaviest|lightest|maximum|minimum|"
                     r"(?:first|last)(?![\w\s,]{0,30}?\bnames?\b)(?!\s+(?:\d+|few|several|half|quarter|weeks?|"
                     r"months?|years?|days?|decades?|time)\b))\b", re.IGNORECASE)  # not "first names", "last 5 years"
_FIRST_ONLY = "ORDER BY … LIMIT 1"  # the advice, not a statement: kept out of the message's f-string
_RANKING = re.compile(r"\bORDER\s+BY\b|\b(?:MIN|MAX|ARGMIN|ARGMAX)\s*\(|\bLIMIT\b|\bTOP\s+\d", re.IGNORECASE)


def ranking_dropped(question: str, statement: str, fields: list[str]) -> str | None:
    """What to tell the repair when the question asks for the first, most, largest… ("Who is the first
    student to register?") and the query ranks nothing: no ORDER BY, MIN/MAX or LIMIT, so it answers
    with every one. None when the word names a field of the source (a `max_speed` column) or a value
    the query compares, or the question asks no ranking. Spider's dev set: every gold query of the 150
    questions it reads as ranking ranks."""
    ranked = _RANKED.search(_QUESTION_QUOTE.sub(" ", question))
    if ranked is None or _RANKING.search(statement):
        return None
    word = ranked.group(0).lower()
    fielded = any(word in re.split(r"[^a-z]+", re.split(r"[#/]", f)[-1].lower()) for f in fields)
    if fielded or _compares_a_value_with(word, statement):  # "Most Valuable Player" is a value the query compares
        return None
    return (f"the question asks for the {word}, but the query ranks nothing, so it returns every one: order by what "
            f"makes one the {word} and keep the first ({_FIRST_ONLY}), or take MIN/MAX of it")


def _compares_a_value_with(word: str, statement: str) -> bool:
    """Whether one of the quoted values `statement` compares holds `word` (any case) as a word."""
    return any(word.lower() in re.findall(r"[\w'’]+", (m.group(1) or m.group(2) or "").lower())
               for m in QUOTED_VALUE.finditer(statement))
