"""Answering with native queries: write a query in the source's language (grounded in its
schema, few-shot examples chosen per question), validate it on the engine, repair it from the
engine's error (bounded), and run it read-only."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from engine.generation.budget import Budget
from engine.generation.untrusted import inline
from engine.native import measures, mending, periods, values, variants
from engine.native.conditions import (
    added_up,
    both_at_once,
    compared_twice,
    counted_not_read,
    counts_a_count,
    each_named,
    extreme_not_counted,
    intersect_of_differing,
    negation_dropped,
    other_date_compared,
    other_field_returned,
    pairs_counted,
    pattern_and_where,
    ranking_dropped,
    read_once,
    sized_by_population,
    subtracts_itself,
    sums_years,
    unasked_name,
    without_value,
)
from engine.native.described import FILE_NAMED, described, file_clause, identifying, tables_read, without
from engine.native.examples import Example
from engine.native.kinds import open_store
from engine.native.literals import QUOTED_VALUE, apostrophes_quoted
from engine.native.matched import empty as _empty
from engine.native.matched import outside_span, over_nothing
from engine.native.numeric_text import NUMBER_TYPE, as_numbers, by_number_column
from engine.native.ranking import (
    QUOTED,
    grouped_key,
    key_column,
    limit_of,
    named_groups,
    nulls_last,
    ordering_key,
    same_rows,
    turned,
    with_limit,
    with_ranked_value,
)
from engine.native.row_order import in_row_order
from engine.native.rows_read import rows_read
from engine.native.sources import Source, Stores
from engine.native.writers import QueryWriter, writer_for
from engine.native.writers.sparql_fixes import bind_variable, with_names
from engine.result import LANGUAGES
from local_stores.native_store import NativeStore
from local_stores.results import QueryFailed, QueryRefused, QueryResult, Unreachable
from local_stores.value_index import ValueIndex, field_of

if TYPE_CHECKING:
    from engine.conversations.follow_up import PriorQuery
    from engine.runtimes.llm import ChatModel


@dataclass
class QueryAttempt:
    query: str
    ok: bool
    error: str | None = None


@dataclass
class QueryOutcome:
    source: Source
    query: str
    result: QueryResult | None
    attempts: list[QueryAttempt]
    rows_read: list[int] = dataclasses.field(default_factory=list)  # the rows a result without `_row` read

    @property
    def ok(self) -> bool:
        return self.result is not None

    @property
    def language(self) -> str:
        return self.source.language


def write_and_run(llm: ChatModel, question: str, source: Source, stores: Stores, max_tries: int = 3,
                  timeout_s: float = 10.0, max_rows: int = 50, examples: list[Example] | None = None,
                  held: ValueIndex | None = None, prior: PriorQuery | None = None) -> QueryOutcome:
    """Write, validate, repair (feeding the engine's error back), then run; at most `max_tries` writes.
    `held`, the value index, tells where the values a query names are held where the source's own
    engine has no lookup (graphs); `prior` is the query on this source a follow-up refines."""
    if (unexplained := no_reason_held(question, source)) is not None:
        return QueryOutcome(source, "", None, [QueryAttempt("", False, unexplained)])  # no model call
    writer, store = writer_for(source.language), open_store(source, stores)
    convo = writer.messages(question, source, examples, Budget.of(llm))
    shown = "\n".join(m["content"] for m in convo)  # what the model read besides the question's own hints
    asked = question if prior is None else f"{question} {prior.question} {prior.query}"
    if prior is not None:
        convo[-1] = {**convo[-1], "content": _with_hint(convo[-1]["content"], prior_hint(prior))}
    if found := values.find(question, source, stores, held=held):
        convo[-1] = {**convo[-1], "content": _with_hint(convo[-1]["content"], values.hint(found))}
    if dated := writer.span_hint(periods.spans(question), source):
        convo[-1] = {**convo[-1], "content": _with_hint(convo[-1]["content"], dated)}
    attempts: list[QueryAttempt] = []
    query, fallback, tried, opening = "", None, set[str](), list(convo)
    for _ in range(max_tries):
        written = _write(llm, writer, convo, source, tried, partial(_afresh, opening, attempts))
        if written is None:  # a repair that gives back a query already tried is a wasted run: stop
            attempts[-1].error = f"{attempts[-1].error} (the repair repeated this query; no further tries)"
            break
        query = written
        tried.add(_normal(query))
        query = apostrophes_quoted(every_one_asked(question, query), question, source.language)
        try:
            statement = _explained(store, writer, query, source)
            if problem := writer.check(statement, source) or negation_dropped(question, statement, source.language):
                raise QueryFailed(problem)
            if (summed := sums_years(statement, question)) is not None:
                raise QueryFailed(f"the query adds up {summed}, which holds years: a sum of years means nothing. Use "
                                  "what the question asks for if the source holds it; if it does not, say so")
            if source.language == "sql" and (ranked := counted_not_read(statement, question, _numbers(source))):
                raise QueryFailed(f"the question ranks by {ranked}, a column of numbers: order by it (its SUM per "
                                  "group when a group has several rows), not by a count of rows")
            if source.language == "sql" and (extreme := extreme_not_counted(statement, question)) is not None:
                raise QueryFailed(extreme)
            if source.language == "sql" and (paired := pairs_counted(statement)) is not None:
                if (once := read_once(statement)) is None:
                    raise QueryFailed(paired)
                query, statement = once, store.explain(once)  # each group's own rows, not pairs of them
            if source.language == "sql" and (tally := counts_a_count(statement, question, _numbers(source))):
                statement = store.explain(added_up(statement, tally))  # its value, not how many rows hold one
            if source.language == "sql" and (by_date := other_date_compared(question, statement, source.columns)):
                raise QueryFailed(f"the question asks by {by_date[0]}, which the query never reads; it compares "
                                  f"{by_date[1]} instead: compare {by_date[0]}")
            if source.language == "sql" and (area := sized_by_population(statement, question, source.tables)):
                raise QueryFailed(f"the question asks for a size: the size of a state, country or lake is its "
                                  f"{area}, not its population (a city's size is its population): rank by {area}")
            if (itself := subtracts_itself(statement)) is not None and (apart := each_named(statement)) is not None:
                query, statement = apart, store.explain(apart)  # each name's value on its own, subtracted
            elif itself is not None:
                raise QueryFailed(f"the query subtracts {itself} from itself, which is always 0: read each "
                                  "thing's value on its own (a subquery per name, or one copy of the table per "
                                  "name with its own condition) and subtract those")
            if (copied := unasked_name(statement, asked, shown)) is not None:
                query = _without_copied(query, copied, source)
                statement = _explained(store, writer, query, source)
            if (way := turned(question, statement, source.language)) is not None:
                query = way  # "the oldest person" ranked by year of birth, latest first
                statement = _explained(store, writer, query, source)
            if source.language == "sql" and (placed := in_row_order(question, statement, source)) is not None:
                statement = store.explain(placed)  # "the song before 'Part of Your World'": the rows' order
            if (spelt := variants.widened(statement, source, held)) != statement:
                statement = store.explain(spelt)  # "Franklin County" counts "Franklin County." too
            if (numeric := by_number_column(as_numbers(statement, source), source)) != statement:
                statement = store.explain(numeric)  # '979' and '6194' of a text column ranked as numbers
            result = store.execute(statement, timeout_s, max_rows)
            if source.language == "sql" and (undescribed := _undescribed(question, statement, store, timeout_s)):
                statement, result = _instead(store, undescribed, timeout_s, max_rows) or (statement, result)
            if _empty(result) and (recased := values.recase(statement, source, stores, held=held)) != statement:
                statement = store.explain(recased)  # checked like any statement the model wrote
                result = store.execute(statement, timeout_s, max_rows)
            if _empty(result) and (respelt := variants.respelt(statement, source, held)) != statement:
                statement, result = _instead(store, respelt, timeout_s, max_rows) or (statement, result)
            if _empty(result) and (filled := _one_filled(store, measures.others(statement, question, source),
                                                         timeout_s, max_rows)) is not None:
                statement, result = filled  # the diver's preliminary points, where her final ones are empty
            if _empty(result) and (loosened := _without_description(question, statement, source)) is not None:
                statement, result = _instead(store, loosened, timeout_s, max_rows) or (statement, result)
            if _empty(result) and source.language == "sql" and (
                    alone := unjoined(statement, partial(_places, statement, source, stores, held))) is not None:
                statement, result = _instead(store, alone, timeout_s, max_rows) or (statement, result)
            if _empty(result) and (once := _compared_once(statement, source, stores, held)) is not None:
                statement, result = _instead(store, once, timeout_s, max_rows) or (statement, result)
            if _empty(result) and (linked := values.relinked(statement, source, stores, held=held)) is not None:
                statement, result = _instead(store, linked, timeout_s, max_rows) or (statement, result)
            if _empty(result) and (with_iris := values.as_iris(statement, source, stores)) is not None:
                statement, result = _instead(store, with_iris, timeout_s, max_rows) or (statement, result)
            if (distinct := without_repeats(question, statement, result, source.language)) is not None:
                statement, result = _instead(store, distinct, timeout_s, max_rows) or (statement, result)
            if source.language == "sparql" and _unbound(result) is not None:
                statement, result = _bind_unbound(source, statement, result, store, timeout_s, max_rows)
                query = statement  # the schema's own patterns, added for the model
            if source.language == "sparql" and (named := _named(source, statement, result, store, timeout_s,
                                                                 max_rows)) is not None:
                statement, result = named
            if not _YES_NO.match(question) and (echoed := echo(result, statement)):
                raise QueryFailed(f"the result only repeats {echoed!r}, the value the query filters on: return "
                                  "what the question asks for instead")
            if _counts_instead_of_listing(question, statement, result, source.language):
                raise QueryFailed("the question asks which ones, not how many: return the items themselves "
                                  "(their names), not a count")
            if (filtered := only_the_filtered(question, statement, result)) is not None:
                raise QueryFailed(f"the result gives only {filtered}, the column the query filters on, not the "
                                  "things the question asks for: return those (their names)")
            if _LISTING.match(question) and not _ASKS_ID.search(question) and _only_ids(result) and not _empty(result):
                raise QueryFailed(f"the result gives only {', '.join(result.columns)}, an id the user does not know: "
                                  "return the name (or title) of what the question asks for, joining the table "
                                  "that holds it")
            if (counted := counts_the_named(question, statement, result, source)) is not None:
                raise QueryFailed(counted)
            if (missing := _aggregates_missing(question, result)) is not None:
                raise QueryFailed(f"the question asks for {missing}, each as its own column of one row: the "
                                  f"query returned {len(result.columns)} column(s)")
            if (unranked := ranking_dropped(question, statement, mending.names_of(source, "field"))) is not None:
                raise QueryFailed(unranked)  # after the aggregates: "the minimum and maximum" are theirs to say
            if len(parts := asked_parts(question)) > _shown_columns(result) and not _empty(result):
                fallback = fallback or (statement, result)  # a part of the answer, if no repair gives it all
                raise QueryFailed(f"the question asks {len(parts)} things ({'; '.join(parts)}): return each as "
                                  f"its own column; the query returned {_shown_columns(result)}")
            if not _empty(result) and (unreturned := unreturned_field(question, result, source)) is not None:
                fallback = fallback or (statement, result)
                raise QueryFailed(f"the question also asks for {unreturned}: return it as its own column too")
            if not _empty(result) and (other := other_field_returned(
                    question, [c for c in result.columns if c != "_row"], mending.names_of(source, "field"),
                    statement)) is not None:
                fallback = fallback or (statement, result)
                raise QueryFailed(f"the question names {other[0]}, which the query never reads; it returned "
                                  f"{other[1]}, which the question does not ask for: use {other[0]}")
            if source.language == "sql" and not _empty(result) and (guessed := _guessed(statement, question, found)):
                raise QueryFailed(guessed)  # no fallback: rows of a guessed value answer another question
            if not _YES_NO.match(question) and _empty(result) and (
                    why := _why_empty(statement, question, source, stores, held, found)):
                if why.asked:  # "none" may be the answer: the source holds no value the question names
                    fallback = fallback or (statement, result)
                raise QueryFailed(why.problem)
        except (QueryFailed, QueryRefused) as exc:
            query = exc.query if isinstance(exc, Respelt) else query
            attempts.append(QueryAttempt(query, False, str(exc)))
            if isinstance(exc, Unreachable):
                break  # the server is down or refuses the login: no rewrite helps
            convo += [{"role": "assistant", "content": query},
                      {"role": "user", "content": f"That query failed: {str(exc)[:400]}\nUse only these "
                                                  f"{writer.names_hint(source)}.\nWrite a corrected query for the "
                                                  f"question: {question}\n{LANGUAGES[source.language]}:"}]
            continue
        attempts.append(QueryAttempt(query, True))
        if over_nothing(statement, result, source.language, store, timeout_s) or (
                source.language == "sql" and outside_span(statement, result, store, timeout_s)):
            return QueryOutcome(source, statement, QueryResult(result.columns, []), attempts)  # no 0 of nothing
        statement, result = _ranked(store, statement, result, source.language, timeout_s, max_rows)
        statement, result = _named_first(store, statement, result, source.language, timeout_s, max_rows)
        statement, result = _tied(store, statement, result, source.language, timeout_s)
        statement, result = _valued_first(store, statement, result, source.language, timeout_s, max_rows)
        return QueryOutcome(source, statement, result, attempts, rows_read(statement, result, source, store, timeout_s))
    if fallback is not None:  # an empty answer the repairs could not better
        return QueryOutcome(source, fallback[0], fallback[1], attempts)
    return QueryOutcome(source, query, None, attempts)


def _one_filled(store: NativeStore, statements: list[str], timeout_s: float,
                max_rows: int) -> tuple[str, QueryResult] | None:
    """The one of `statements` that finds something, with its rows; None when none or several do."""
    found = [run for run in (_instead(store, s, timeout_s, max_rows) for s in statements) if run is not None]
    return found[0] if len(found) == 1 else None


def _accepted(store: NativeStore, statement: str) -> str | None:
    """The statement as the engine accepts it, or None when it refuses it."""
    try:
        return store.explain(statement)
    except QueryFailed:
        return None


def _instead(store: NativeStore, statement: str, timeout_s: float, max_rows: int) -> tuple[str, QueryResult] | None:
    """Trove's rewrite of a query that found nothing, with its rows, when it finds some (None when it
    finds none or the engine refuses it: the query stays as the model wrote it)."""
    try:
        explained = store.explain(statement)
        found = store.execute(explained, timeout_s, max_rows)
    except QueryFailed:
        return None
    return None if _empty(found) else (explained, found)


def _ranked(store: NativeStore, statement: str, result: QueryResult, language: str, timeout_s: float,
            max_rows: int) -> tuple[str, QueryResult]:
    """The statement returning the value it ranks by too ("… ORDER BY operating_rooms DESC LIMIT 1"
    shows the rooms), when that finds the same rows; else the statement as it ran."""
    if (ranked := with_ranked_value(statement, language)) is None:
        return statement, result
    found = _instead(store, ranked, timeout_s, max_rows)
    return found if found is not None and same_rows(result, found[1]) else (statement, result)


MAX_TIED = 10  # rows tied for first place that a "the most"/"the least" answer shows at most


def _tied(store: NativeStore, statement: str, result: QueryResult, language: str, timeout_s: float
          ) -> tuple[str, QueryResult]:
    """A query ranking one row first (`ORDER BY n DESC LIMIT 1`) returning every row that ties with it,
    with the LIMIT that returns just those ("which states border the most states?": Missouri and
    Tennessee, 8 each); else the statement as it ran. Needs the ranked value among the columns."""
    key = ordering_key(statement, language)
    at = key_column(result, key) if key is not None and len(result.rows) == 1 else None
    if at is None or limit_of(statement, language) != 1 or result.rows[0][at] is None:
        return statement, result
    probe = with_limit(statement, language, MAX_TIED + 1)
    found = _instead(store, probe, timeout_s, MAX_TIED + 1) if probe is not None else None
    if found is None or found[1].rows[0][at] != result.rows[0][at]:
        return statement, result
    probed, rows = found
    tied = min(MAX_TIED, next((i for i, row in enumerate(rows.rows) if row[at] != result.rows[0][at]), len(rows.rows)))
    if tied <= 1 or (every := with_limit(probed, language, tied)) is None:
        return statement, result
    return every, QueryResult(rows.columns, rows.rows[:tied])  # the probe's first rows: what `every` returns


def _named_first(store: NativeStore, statement: str, result: QueryResult, language: str, timeout_s: float,
                 max_rows: int) -> tuple[str, QueryResult]:
    """A SQL ranking of groups whose first group has no name (the rows with no position, counted as
    one group, "drafted the most"), ranked again without those rows; else the statement as it ran."""
    key = grouped_key(statement) if language == "sql" and result.rows else None
    at = key_column(result, key) if key is not None else None
    if key is None or at is None or result.rows[0][at] is not None:
        return statement, result
    return _instead(store, named_groups(statement, key), timeout_s, max_rows) or (statement, result)


def _valued_first(store: NativeStore, statement: str, result: QueryResult, language: str, timeout_s: float,
                  max_rows: int) -> tuple[str, QueryResult]:
    """The statement ranking first the rows that have a value to rank by, when a row it returned has
    none ("the oldest person … born in None"); else the statement as it ran."""
    key = ordering_key(statement, language)
    at = key_column(result, key) if key is not None else None
    if at is None or all(row[at] is not None for row in result.rows):
        return statement, result
    if (valued := nulls_last(statement, language)) is None:
        return statement, result
    return _instead(store, valued, timeout_s, max_rows) or (statement, result)


def _explained(store: NativeStore, writer: QueryWriter, query: str, source: Source) -> str:
    """The statement the engine accepts; when it refuses it, its message with what the writer's own
    check says is wrong (a property named for a relationship), which the repair needs more."""
    try:
        return store.explain(query)
    except QueryFailed as exc:
        if isinstance(exc, Unreachable):
            raise
        if cut_off(query):
            raise QueryFailed(f"the query stops before its end: it opens more brackets or braces than it closes (a "
                              f"reply is cut after {writer.REPLY_TOKENS} tokens). Write the whole query, shorter: only "
                              "the parts the question needs, no comments") from exc
        if (dated := by_number_column(query, source)) != query and (statement := _accepted(store, dated)):
            return statement  # `date_until - date_from` of written dates: their DATE columns' difference
        spelt = _spelt_right(store, query, str(exc), source)
        if spelt.statement is not None:
            return spelt.statement
        error = str(exc) if spelt.query == query else spelt.error
        if (problem := writer.check(spelt.query, source)) is not None:
            error = f"{error} ({problem})"
        if spelt.query != query:  # the repair hears what is wrong with the query as mended, not as written
            raise Respelt(error, spelt.query) from exc
        raise QueryFailed(error) from exc


class Respelt(QueryFailed):
    """A query the engine refused again once the names it did not know were written as the source's:
    the message is about `query`, the query as mended."""

    def __init__(self, message: str, query: str) -> None:
        super().__init__(message)
        self.query = query


@dataclass(frozen=True)
class Spelling:
    """The query with its unknown names written as the source's, and the statement the engine made of
    it (None: it refused it, saying `error`)."""

    query: str
    statement: str | None
    error: str


def cut_off(query: str) -> bool:
    """Whether a query stops before its end: it opens more brackets or braces than it closes outside
    its quoted texts (a reply cut at the token limit, or a slip)."""
    bare = QUOTED.sub("", query)
    return bare.count("{") > bare.count("}") or bare.count("(") > bare.count(")")


def _spelt_right(store: NativeStore, query: str, error: str, source: Source) -> Spelling:
    """The query once the names the engine does not know are written as the one close name the source
    has (`treatments_types` -> `treatment_types`), and what the engine says of it."""
    for _ in range(mending.MOST_MENDS):
        if (respelt := mending.mended(query, error, source)) is None:
            break
        query = respelt
        try:
            return Spelling(query, store.explain(query), "")
        except Unreachable:
            break
        except QueryFailed as exc:
            error = str(exc)
    return Spelling(query, None, error)


def prior_hint(prior: PriorQuery) -> str:
    """The query a follow-up refines, offered to edit (its question is the user's, neutralised)."""
    language = LANGUAGES[prior.language]
    return (f"This question follows the question \"{inline(prior.question, 300)}\", which this {language} "
            f"answered:\n{prior.query}\nIf the new question refines that one, edit this query rather than "
            "starting over.")


@dataclass(frozen=True)
class Empty:
    """Why a query returned nothing; `asked`: every value it looked for and the source lacks is one
    the question names (so "none" may be the true answer, not the query's mistake)."""

    problem: str
    asked: bool


def _why_empty(statement: str, question: str, source: Source, stores: Stores, held: ValueIndex | None,
               found: list[values.ValueMatch]) -> Empty | None:
    """Why a query returned nothing, when its values tell: one field compared with two values at
    once, one the source holds nowhere, or one held only in a field the query never names. None
    when the values are where the query looks."""
    if (both := both_at_once(statement) or pattern_and_where(statement)) is not None:
        return Empty(f"it returned nothing: {both.field} cannot be {both.first!r} and {both.second!r} at once. To "
                     f"find what has both, {_ONE_PER_VALUE[source.language]}", False)
    if (differing := intersect_of_differing(statement)) is not None:
        return Empty(f"it returned nothing: INTERSECT keeps only whole rows found by both SELECTs, and their "
                     f"{differing.field} differs ({differing.first!r}, {differing.second!r}). Select only the "
                     f"columns the two have in common (not {differing.field})", False)
    if described := _describing_only(question, statement):
        return Empty(f"it returned nothing: {described!r} is in how the question names its file or table, not in "
                     "what it asks: leave that condition out", False)
    checked = values.check_literals(statement, source, stores, held=held)
    if checked.absent:
        fuller = values.fuller_names(checked.absent, source, held)
        hint = values.fuller_hint(fuller) if fuller else values.hint(found) if found else ""
        asked = not fuller and all(value.lower() in question.lower() for value in checked.absent)
        return Empty(f"it returned nothing, because no column holds {', '.join(map(repr, checked.absent))}" + (
            f". {hint}" if hint else ""), asked)
    if checked.misplaced:
        return Empty("it returned nothing: " + "; ".join(_misplaced(statement, m) for m in checked.misplaced), False)
    if source.language == "sql" and (joined := _held_before_the_join(statement, checked.places)):
        return Empty(joined, False)
    if ignored := _ignored(statement, question, found):
        return Empty("it returned nothing, and it never compares " + "; ".join(
            f"{m.phrase!r}, which the question names: it is held in {m.place} as {m.value!r}" for m in ignored), False)
    return None


def _held_before_the_join(statement: str, places: dict[str, list[str]]) -> str | None:
    """Why a SQL join found nothing when a value it compares on one table is held by another table
    the query reads as well ("where is the highest point in Montana?" joining highlow to mountain on
    the point's name, and comparing mountain.state_name, where highlow has the state too): compare it
    there, without the join. None otherwise."""
    read = tables_read(statement)
    tables = {table.lower() for table in read.values()}
    if len(tables) < 2:
        return None
    for m in QUOTED_VALUE.finditer(statement):
        value = m.group(1) or m.group(2) or ""
        held, compared = places.get(value.strip().lower(), []), values.compared_field(statement, value)
        if compared is None:
            continue
        table = read.get(compared[0].lower(), "") if compared[0] else ""
        others = [p for p in held if p.split(".")[0].lower() in tables
                  and p.split(".")[0].lower() != table.lower() and p.split(".")[-1].lower() == compared[1]]
        if table and others:
            return (f"it returned nothing: the join finds no row that matches. {value!r} is held in {others[0]} too, a "
                    f"table the query reads: compare it there, and leave out the join the question does not need")
    return None


_JOINED = re.compile(r"^(?P<head>\s*SELECT\s.+?\sFROM\s+(?P<table>\w+)(?:\s+AS)?\s+(?P<alias>\w+))\s+(?:INNER\s+)?JOIN"
                     r"\s+\w+(?:\s+AS)?\s+(?P<other>\w+)\s+ON\s+.+?\s+(?P<rest>WHERE\s.+)$", re.IGNORECASE | re.DOTALL)


def _places(statement: str, source: Source, stores: Stores, held: ValueIndex | None) -> dict[str, list[str]]:
    """Where each text the statement compares is held (`values.check_literals`)."""
    return values.check_literals(statement, source, stores, held=held).places


def unjoined(statement: str, places_of: Callable[[], dict[str, list[str]]]) -> str | None:
    """`SELECT T1.x FROM a AS T1 JOIN b AS T2 ON … WHERE T2.f = 'v'` as `SELECT T1.x FROM a AS T1
    WHERE T1.f = 'v'` when a's own f holds 'v' and the query reads nothing else of b: the join adds
    nothing the question asks and can only lose rows ("the highest point in Montana" joined highlow
    to mountain on the point's name and found none). `places_of`: where each compared value is
    held (looked up only for a query of that form)."""
    m = _JOINED.match(statement)
    if m is None:
        return None
    places = places_of()
    own, other, rest = m.group("alias"), m.group("other"), m.group("rest")
    for found in QUOTED_VALUE.finditer(rest):
        value = found.group(1) or found.group(2) or ""
        compared = values.compared_field(rest, value)
        held = {p.split(".")[-1].lower() for p in places.get(value.strip().lower(), [])
                if p.split(".")[0].lower() == m.group("table").lower()}
        if compared and compared[0].lower() == other.lower() and compared[1] in held:
            rest = re.sub(rf"\b{re.escape(other)}\.(\"?){re.escape(compared[1])}\b", rf"{own}.\1{compared[1]}", rest,
                          flags=re.IGNORECASE)
    moved = f"{m.group('head')} {rest}"
    return None if rest == m.group("rest") or re.search(rf"\b{re.escape(other)}\.", moved, re.IGNORECASE) else moved


def _misplaced(statement: str, match: values.ValueMatch) -> str:
    """Where a value the query compares is held, and the field it compares it with instead ("'utrecht'
    is held in Person.birthplace, not in p.name: …"), so the repair moves the condition rather than
    adding another beside it."""
    compared = values.compared_field(statement, match.value)
    if compared is None:
        return f"{match.value!r} is held in {match.place}, which the query does not compare it with"
    field = ".".join(part for part in compared if part)
    return (f"{match.value!r} is held in {match.place}, not in {field}: compare it with {match.place} instead of "
            f"{field}, and drop the condition on {field}")


def _ignored(statement: str, question: str, found: list[values.ValueMatch]) -> list[values.ValueMatch]:
    """The values the question names, held as written in the source, that the query compares
    nowhere ("flights that arrive in Aberdeen" counted with `destairport = 'AAF'`): an empty
    result that leaves them out says nothing about them. A value in how the question names its
    file ("In my flights database,") is no condition."""
    text, named = statement.lower(), file_clause(question).lower()
    return [m for m in found if m.value.strip().lower() == m.phrase and m.phrase not in text
            and not re.search(rf"\b{re.escape(m.phrase)}\b", named)]


def _guessed(statement: str, question: str, found: list[values.ValueMatch]) -> str | None:
    """What to tell the repair when a query compares a value the question never names (a code it
    guessed: `destairport = 'AAF'`) and leaves out one the question names and the source holds
    ("flights that arrive in Aberdeen", held in airports.city); None otherwise."""
    ignored = _ignored(statement, question, found)
    asked = question.lower()
    guessed = [value for a, b in QUOTED_VALUE.findall(statement)
               if (value := a or b) and value.strip("%_ ").lower() not in asked]  # '%Heijn%' is asked
    if not ignored or not guessed:
        return None
    return (f"it compares {guessed[0]!r}, which the question does not name, and never compares " + "; ".join(
        f"{m.phrase!r}, which the question names: it is held in {m.place} as {m.value!r}" for m in ignored))


def _describing_only(question: str, statement: str) -> str | None:
    """A value the query filters on that the question only uses to name its file ("In my table of
    churches in Levanger, how many were built in the 1800s?": Levanger is the table, not a condition)."""
    named = FILE_NAMED.match(question)
    if not named:
        return None
    asked = question[named.end():].lower()
    for a, b in QUOTED_VALUE.findall(statement):
        value = (a or b).strip().lower()
        if len(value) > 2 and re.search(rf"\b{re.escape(value)}\b", named.group(1).lower()) and value not in asked:
            return a or b
    return None


def _compared_once(statement: str, source: Source, stores: Stores, held: ValueIndex | None) -> str | None:
    """The statement without its comparisons of a value with a field that never holds it, where it
    compares the value with one that does as well (`{summary: 'The Replacements'}` beside `{title:
    'The Replacements'}`); None when there are none."""
    if source.language == "sparql":
        return None
    places = values.check_literals(statement, source, stores, held=held).places
    for m in QUOTED_VALUE.finditer(statement):
        value = m.group(1) or m.group(2) or ""
        holding = {field_of(place) for place in places.get(value.strip().lower(), [])}
        if holding and (once := compared_twice(statement, value, holding)) is not None:
            return once
    return None


def _undescribed(question: str, statement: str, store: NativeStore, timeout_s: float) -> str | None:
    """The SQL statement without its conditions on the values the question names its table by, when
    each picks out one row ("the medal table topped by China with 63 gold"); None when it has none,
    or one is a scope many rows share. Such a condition that cannot be left out alone (in a join's
    ON, or an OR: "Saracens" of "my rugby table where Saracens finished top" made one side of the
    difference asked between two other clubs) is a QueryFailed for the repair."""
    conditions = described(question, statement)
    if not conditions or not identifying(conditions, store, timeout_s):
        return None
    if (loosened := without(statement, conditions)) is None:
        value = conditions[0].values[0]
        raise QueryFailed(f"the query compares {value!r}, which is in how the question names its file or table, "
                          "not in what it asks: leave every condition on it out")
    return loosened


def _without_description(question: str, statement: str, source: Source) -> str | None:
    """The statement without its conditions on a value the question only names its table by (SQL
    and Cypher; None when it has none)."""
    described = _describing_only(question, statement)
    return without_value(statement, described) if described and source.language != "sparql" else None


_ONE_PER_VALUE = {
    "sql": "join the table once per value, each copy with its own alias and its own condition (or INTERSECT "
           "two SELECTs, one per value)",
    "cypher": "match one node per value, each with its own variable and its own condition, both linked to "
              "the same node",
    "sparql": "use one variable per value, each with its own triple pattern to the same subject",
}
RESAMPLE_TEMPERATURE = 0.7


def _write(llm: ChatModel, writer: QueryWriter, convo: list[dict], source: Source, tried: set[str],
           afresh: Callable[[], list[dict]] | None = None) -> str | None:
    """The model's next query; one that repeats a query already tried is written once more with
    sampling (greedy decoding tends to give it back), then once from the opening prompt told what
    failed (`afresh`: the repair's own turns anchor the model to its query), and None if that
    repeats one too."""
    query = writer.fix(writer.extract(llm.chat(convo, max_tokens=writer.REPLY_TOKENS)), source)
    if _normal(query) not in tried:
        return query
    query = writer.fix(writer.extract(llm.chat(convo, max_tokens=writer.REPLY_TOKENS,
                                               temperature=RESAMPLE_TEMPERATURE)), source)
    if _normal(query) in tried and afresh is not None:
        query = writer.fix(writer.extract(llm.chat(afresh(), max_tokens=writer.REPLY_TOKENS)), source)
    return None if _normal(query) in tried else query


def _afresh(opening: list[dict], attempts: list[QueryAttempt]) -> list[dict]:
    """The opening prompt with the queries tried and why each failed, as a hint before its question."""
    failed = "\n".join(f"- {inline(a.query, 400)}\n  failed: {inline(a.error or '', 300)}"
                       for a in attempts if not a.ok)
    hint = f"These queries were tried for this question and failed; write a different one:\n{failed}"
    return [*opening[:-1], {**opening[-1], "content": _with_hint(opening[-1]["content"], hint)}]


def _normal(query: str) -> str:
    return " ".join(query.split()).rstrip(";").lower()


_AGGREGATES = {"average": r"average|mean", "minimum": r"minimum|min|lowest|smallest|youngest|earliest",
               "maximum": r"maximum|max|highest|largest|biggest|oldest|latest", "total": r"total|sum",
               "count": r"number|count"}
_AGGREGATE = "|".join(_AGGREGATES.values())
_AGGREGATE_LIST = re.compile(rf"\b(?:{_AGGREGATE})\b(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*/\s*)(?:the\s+)?"
                             rf"(?:{_AGGREGATE})\b)+", re.IGNORECASE)


def _aggregates_missing(question: str, result: QueryResult) -> str | None:
    """"What is the average, minimum and maximum age?" answered by a one-row result with fewer
    columns than the aggregates listed: the names of those asked (the repair selects each)."""
    listed = _AGGREGATE_LIST.search(question)
    if not listed:
        return None
    asked = [name for name, words in _AGGREGATES.items() if re.search(rf"\b(?:{words})\b", listed.group(0), re.I)]
    if len(asked) < 2 or len(result.rows) != 1 or len(result.columns) >= len(asked):
        return None
    return ", ".join(asked[:-1]) + " and " + asked[-1]


_WH = r"(?:which|what|who|when|where|how\s+(?:many|much|old|long))\b"
_PART_START = re.compile(rf"(?:,\s*(?:and\s+)?|\s+and\s+)(?={_WH})", re.IGNORECASE)
_OPENS = re.compile(rf"\s*(?:(?:at|in|on|for|from|to|with|by|of)\s+)?{_WH}", re.IGNORECASE)


def asked_parts(question: str) -> list[str]:
    """What a question asks, one part per clause that opens with a question word: "which battle lost
    both ships, and when was it fought?" asks two things. A question word inside a clause ("the
    player who won") opens no part; a yes/no question asks one thing."""
    if _YES_NO.match(question):
        return []
    pieces = _PART_START.split(question.strip().rstrip("?"))
    return [" ".join(piece.split()) for piece in pieces if _OPENS.match(piece)]


_WHY = re.compile(r"\s*(?:(?:and|so|but)\s+)?(?:why\b|for\s+what\s+reason\b|what\s+(?:was|is|were|are)\s+the\s+"
                  r"(?:reasons?|causes?)\b)", re.IGNORECASE)
_REASON_FIELD = re.compile(r"reason|cause|why|because|purpose|explanation|motive|rationale|justification|note|"
                           r"comment|remark|description|detail|summary|text", re.IGNORECASE)


def no_reason_held(question: str, source: Source) -> str | None:
    """Why a source cannot answer a "why …?" question: none of its fields holds a reason, a cause, a
    note or a description (a layoff report's "Layoff Permanent" is what happened, not why); None when
    the question asks something else or a field may hold the reason."""
    if not _WHY.match(question[len(file_clause(question)):]):
        return None
    if any(_REASON_FIELD.search(name) for name in mending.names_of(source, "field")):
        return None
    return "the question asks why, and no field of this source holds a reason, a cause or a note"


def unreturned_field(question: str, result: QueryResult, source: Source) -> str | None:
    """A field of the source that a later part of the question asks for by name ("…, and what is its
    capacity?") and that no column of the result holds; None when every one named is returned."""
    parts = asked_parts(question)
    if len(parts) < 2:
        return None
    first, later = _field_words(parts[0]), _field_words(" ".join(parts[1:]))
    returned = " ".join(_field_words(column) for column in result.columns)
    for field in mending.names_of(source, "field"):
        words = _field_words(field)
        named = re.compile(rf"\b{re.escape(words)}\b")
        if words not in _GENERIC_FIELDS and named.search(later) and not (named.search(first) or named.search(returned)):
            return words
    return None


_GENERIC_FIELDS = frozenset({"", "id", "name", "type", "year", "date", "time", "value"})  # said of anything


def _field_words(name: str) -> str:
    """A field's or a text's words, lower case: `stadium#capacity` and `Trauma_designation` as words."""
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def _shown_columns(result: QueryResult) -> int:
    return sum(1 for column in result.columns if column != "_row")


_LISTING = re.compile(r"\s*(?:(?:in|from|of|among)\b[^?]{0,120}?,\s*)?(?:which|who|list|name)\b", re.IGNORECASE)
_COUNTING = re.compile(r"\b(?:how\s+many|number|count|total|how\s+much)\b", re.IGNORECASE)
_ONLY_COUNT = {  # a query that returns one count and nothing else, per language
    "sql": re.compile(r"^\s*select\s+(?:distinct\s+)?count\s*\([^()]*\)(?:\s+as\s+\w+)?\s+from\b", re.IGNORECASE),
    "cypher": re.compile(r"\bRETURN\s+(?:DISTINCT\s+)?count\s*\([^()]*\)(?:\s+AS\s+\w+)?\s*;?\s*$", re.IGNORECASE),
    "sparql": re.compile(r"\bSELECT\s+(?:DISTINCT\s+)?\(\s*COUNT\s*\([^()]*\)\s+AS\s+\?\w+\s*\)\s*(?:WHERE\b|\{)",
                         re.IGNORECASE),
}


_NOT_NOUN = r"(?!(?:is|was|has|does|this|its|his|us|yes)\b)"
_PLURAL_ASK = re.compile(rf"\b(?:(?:which|what)\s+{_NOT_NOUN}[\w-]*[^s\W]s\b|"
                         r"(?:what|who)\s+(?:are|were)\b|list\b|name\s+(?:all|the|every)\b)", re.IGNORECASE)
_ONE_ASKED = re.compile(r"\b(?:one|single|most|least|first|last|best|worst|top|highest|lowest|largest|smallest|"
                        r"biggest|longest|shortest|oldest|youngest|newest|latest|earliest|greatest|fewest|cheapest|"
                        r"dearest|fastest|slowest|heaviest|lightest|tallest|nearest|farthest|furthest|maximum|"
                        r"minimum|max|min|\w+-most)\b", re.IGNORECASE)
_LIMIT_ONE = re.compile(r"\s+LIMIT\s+1\s*;?\s*$", re.IGNORECASE)


def every_one_asked(question: str, query: str) -> str:
    """The query without its closing `LIMIT 1` when the question asks for several things and for no
    one best or first of them ("Which places are in the town of Durham?": all of them, not the first)."""
    plural = _PLURAL_ASK.search(question)
    if _LIMIT_ONE.search(query) and plural and not _ONE_ASKED.search(question[plural.start():]):
        return _LIMIT_ONE.sub("", query)
    return query


_SELECT = re.compile(r"\bSELECT\s+", re.IGNORECASE)
_PROJECTION = {"sql": _SELECT, "sparql": _SELECT, "cypher": re.compile(r"\bRETURN\s+", re.IGNORECASE)}
_AGGREGATING = re.compile(r"\b(?:COUNT|SUM|AVG|MIN|MAX|GROUP_CONCAT|STRING_AGG|COLLECT)\s*\(|\bGROUP\s+BY\b",
                          re.IGNORECASE)


def without_repeats(question: str, statement: str, result: QueryResult, language: str) -> str | None:
    """The query with DISTINCT when a question asking which things got the same row several times (a
    join that meets one movie once per actor: "A Few Good Men" twelve times, and the other films cut
    off); None when its rows differ, it aggregates, or it has several SELECTs or RETURNs."""
    projection = _PROJECTION.get(language)
    if (projection is None or not _LISTING.match(question) or _AGGREGATING.search(statement)
            or len({repr(tuple(row)) for row in result.rows}) == len(result.rows)):  # lists (roles) too
        return None
    found = projection.findall(statement)
    if len(found) != 1 or re.search(rf"{projection.pattern}DISTINCT\b", statement, re.IGNORECASE):
        return None
    return projection.sub(lambda m: f"{m.group(0)}DISTINCT ", statement, count=1)


def _counts_instead_of_listing(question: str, statement: str, result: QueryResult, language: str) -> bool:
    """"Which laureates are Belgian?" answered by `SELECT COUNT(*) …`: one number where the
    question asks for the items (and does not ask how many)."""
    return (bool(_LISTING.match(question)) and not _COUNTING.search(question) and len(result.rows) == 1
            and len(result.columns) == 1 and language in _ONLY_COUNT and bool(_ONLY_COUNT[language].search(statement)))


_ID = re.compile(r"(?:^|[_.\s])[iI][dD]$|[a-z]ID$")  # student_id, ID, StuID; not paid, valid
_ASKS_ID = re.compile(r"\b(?:ids?|identifiers?|numbers?|codes?)\b", re.IGNORECASE)


def _only_ids(result: QueryResult) -> bool:
    """Every column of the result is an id ("student_id", "ID"): "which student has the most friends?"
    answered "1782"."""
    return bool(result.columns) and all(_ID.search(str(c)) for c in result.columns)


_HOW_MANY = re.compile(r"\bhow\s+many\s+([a-z]+)", re.IGNORECASE)
_NOT_THINGS = frozenset({"times", "more", "other", "of", "in", "different", "total"})


def counts_the_named(question: str, statement: str, result: QueryResult, source: Source) -> str | None:
    """"How many nurses does Cone Health employ?" answered by counting the rows that name Cone Health
    (one): what the query counted is the named row, not nurses, when no table or column of the source
    names nurses. The problem to send back, or None."""
    asked = _HOW_MANY.search(question)
    if source.language != "sql" or asked is None or not _ONLY_COUNT["sql"].match(statement) or \
            [tuple(row) for row in result.rows] != [(1,)]:
        return None
    thing = asked.group(1).lower()
    named = [text for a, b in QUOTED_VALUE.findall(statement) if (text := a or b) and text.lower() in question.lower()]
    if thing in _NOT_THINGS or not named:
        return None
    held = " ".join(f"{t['table']} {t.get('sheet') or ''} {' '.join(c['name'] for c in t.get('columns', []))}"
                    for t in source.tables).lower().replace("_", " ")
    if thing[:5] in held:
        return None
    counts = _counting_columns(source)
    unnamed = (f"; {' and '.join(counts)} count{'s' if len(counts) == 1 else ''} something no name says: if that "
               f"is the {thing}, return its value for that row") if counts else ""
    return (f"the query counts the rows that name {named[0]!r} (one row), not {thing}: no table or column of this "
            f"source is named for {thing}{unnamed}. Count what the question asks for, if the source holds it")


def _counting_columns(source: Source) -> list[str]:
    """The number columns of a SQL source named only as a count of something unsaid (`no_of`, from a
    header cut short at "No. Of": the WARN report's employees per notice; `total`, `number`)."""
    return sorted(c for c in _numbers(source) if set(c.lower().split("_")) <= _COUNT_WORDS)


_COUNT_WORDS = frozenset({"no", "of", "num", "number", "nr", "count", "total", "amount", "qty", "quantity", "n"})


def _without_copied(query: str, copied: str, source: Source) -> str:
    """The query without its condition on a name copied from the prompt (`unasked_name`); QueryFailed,
    for the repair, when it cannot be left out here (SPARQL, an OR, a comparison of another form)."""
    loosened = without_value(query, copied) if source.language != "sparql" else None
    if loosened is None or copied.lower() in loosened.lower():
        raise QueryFailed(f"the query compares with {copied!r}, which the question does not name (it is only an "
                          "example value): leave that condition out, or use the question's own")
    return loosened


def _numbers(source: Source) -> set[str]:
    """The names of a SQL source's number columns."""
    return {c["name"] for c in source.columns if NUMBER_TYPE.match(str(c.get("type")))}


_YES_NO = re.compile(r"\s*(is|are|was|were|do|does|did|have|has|had|can|could)\b", re.IGNORECASE)


def echo(result: QueryResult, query: str) -> str | None:
    """The literal a result merely repeats: every value it returns is a text the query itself
    filters on (a query for books by X that returns X). None when the result says something new.
    Yes/no questions are not checked: there, finding the value itself is the answer."""
    literals = {(a or b).lower() for a, b in QUOTED_VALUE.findall(query) if (a or b)}
    values = {str(v).lower() for row in result.rows for v in row if v is not None}
    if literals and values and values <= literals:
        return next(iter(values))
    return None


_WHICH_THING = re.compile(r"\bwhich\s+([a-z]{4,})", re.IGNORECASE)


def only_the_filtered(question: str, statement: str, result: QueryResult) -> str | None:
    """"Which laureates have Belgian citizenship?" answered by `SELECT citizenship … WHERE citizenship
    LIKE '%Belgian%'`: the one column returned is the one the query filters on, and it is not what the
    question asks for ("which cities start with B?" returning `city` is). Its name, or None."""
    asked = _WHICH_THING.search(question)
    if asked is None or len(result.columns) != 1 or not result.rows:
        return None
    column = str(result.columns[0]).split(".")[-1].strip('"`').lower()
    thing = re.sub(r"ies$", "y", asked.group(1).lower()).removesuffix("s")
    conditions = re.split(r"\b(?:WHERE|FILTER)\b", statement, maxsplit=1, flags=re.IGNORECASE)
    selected = re.search(r"\bSELECT\s+(?:DISTINCT\s+)?(?:(\w+)\.)?", statement, re.IGNORECASE)
    of = (selected.group(1) or "").lower() if selected else ""
    compared = [(m.group(1) or "").lower() for m in re.finditer(
        rf"(?:\b(\w+)\.)?\b{re.escape(column)}[\"`]?\)*\s*(?:=|<>|!=|(?:not\s+)?i?like\b|in\b)",
        conditions[1], re.IGNORECASE)] if len(conditions) > 1 else []
    same = [qualifier for qualifier in compared if not qualifier or not of or qualifier == of]  # T2.name is not T1's
    if not same or thing[:4] in column or column[:4] in thing:
        return None
    return column


def _unbound(result: QueryResult) -> str | None:
    """A selected column with no value in any row (in SPARQL: a variable no pattern binds)."""
    if not result.rows:
        return None
    for i, column in enumerate(result.columns):
        if all(row[i] is None for row in result.rows):
            return column
    return None


def _bind_unbound(source: Source, statement: str, result: QueryResult, store: NativeStore, timeout_s: float,
                  max_rows: int) -> tuple[str, QueryResult]:
    """Every selected variable no pattern binds gets the schema's own pattern for it, one at a time
    (a model that selects `?age ?hometown` often writes the pattern of neither)."""
    schema, tried = writer_for(source.language).schema_text(source), set()
    while (unbound := _unbound(result)) is not None:
        bound = bind_variable(statement, unbound, schema) if unbound not in tried else None
        if bound is None:
            raise QueryFailed(f"?{unbound} is never bound: add the triple pattern that gives it a value")
        tried.add(unbound)
        statement = store.explain(bound)
        result = store.execute(statement, timeout_s, max_rows)
    return statement, result


_IRI = re.compile(r"^(?:https?|urn|file):\S+$")


def _iri_column(result: QueryResult) -> str | None:
    """A column whose values are all IRIs (entities, not their names), when the result has rows."""
    for i, column in enumerate(result.columns):
        cells = [row[i] for row in result.rows if row[i] is not None]
        if cells and all(isinstance(v, str) and _IRI.match(v) for v in cells):
            return column
    return None


def _named(source: Source, statement: str, result: QueryResult, store: NativeStore, timeout_s: float,
           max_rows: int) -> tuple[str, QueryResult] | None:
    """A result that names entities by their IRIs (`…/student/stuid=1001`) with their names instead:
    the query again with the schema's name-like properties of them, the IRI column and the names
    no entity has left out. None when that finds no name (the IRIs are kept)."""
    column = _iri_column(result)
    named = with_names(statement, column, writer_for(source.language).schema_text(source)) if column else None
    if column is None or named is None:
        return None
    query, names = named
    try:
        query = store.explain(query)
        again = store.execute(query, timeout_s, max_rows)
    except (QueryFailed, QueryRefused):
        return None
    found = [n for n in names if n in again.columns and any(row[again.columns.index(n)] is not None
                                                                for row in again.rows)]
    if not found:
        return None
    keep = [i for i, c in enumerate(again.columns) if c != column and (c not in names or c in found)]
    rows = [tuple(row[i] for i in keep) for row in again.rows]
    return query, QueryResult([again.columns[i] for i in keep], rows, truncated=again.truncated)


def _with_hint(user: str, hint: str) -> str:
    """The user message with `hint` as a paragraph just before its closing question."""
    head, sep, question = user.rpartition("\n\nQuestion: ")
    return f"{head}\n\n{hint}{sep}{question}" if sep else f"{hint}\n\n{user}"


