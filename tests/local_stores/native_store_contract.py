"""The contract every native store keeps, as one suite each implementation runs (the model is
Haystack's `DocumentStoreBaseTests`): subclass `NativeStoreContract` in a test module and give it a
`contract` fixture, a `Contract` holding the store, loaded with `PEOPLE`, and queries in its language.

What it holds a store to: it describes itself; it runs one read-only statement and nothing else,
within a time limit and a row limit; `explain` checks without running; a bad query fails with the
engine's message; a store stays usable after a refused, failed or stopped query."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from local_stores.native_store import NativeStore
from local_stores.results import QueryError, QueryFailed, QueryRefused

CITIES = ("Oslo", "Lund", "Umeå")
# the data every store under contract is loaded with: 60 people, each with a name, a year of birth, a city
PEOPLE = [{"name": f"p{i}", "born": 1950 + i, "city": CITIES[i % 3]} for i in range(60)]
TIME_LIMIT_S = 1.0
GRACE_S = 5.0  # a worker's kill backstop and a loaded 2-core machine, beside the limit itself


@dataclass
class Contract:
    store: NativeStore
    count: str  # how many people: one row, one column, 60
    names: str  # every person's name: 60 rows
    unknown_field: str  # names a field the data does not have
    runaway: str  # runs far past TIME_LIMIT_S
    writes: Sequence[str]  # each would change the data
    two_statements: str  # a read followed by a write
    bound: tuple[str, Sequence[object], int] | None = None  # a query with bound values, its count


class NativeStoreContract:
    """Inherit and provide a `contract` fixture."""

    def test_is_a_native_store_with_a_language_and_a_dialect(self, contract: Contract):
        assert isinstance(contract.store, NativeStore)
        assert contract.store.language in ("sql", "cypher", "sparql") and contract.store.dialect

    def test_describes_its_fields_with_sample_values(self, contract: Contract):
        described = json.dumps(contract.store.describe(), ensure_ascii=False, default=str)
        assert all(name in described for name in ("born", "city"))
        assert any(city in described for city in CITIES)

    def test_runs_a_read_and_gives_columns_and_rows(self, contract: Contract):
        result = contract.store.execute(contract.count, TIME_LIMIT_S * 10, 10)
        assert len(result.columns) == 1 and result.rows == [(60,)] and not result.truncated

    def test_stops_at_the_row_limit_and_says_so(self, contract: Contract):
        result = contract.store.execute(contract.names, TIME_LIMIT_S * 10, 5)
        assert len(result.rows) == 5 and result.truncated
        assert not contract.store.execute(contract.names, TIME_LIMIT_S * 10, 100).truncated

    def test_explain_checks_without_running_and_its_statement_runs(self, contract: Contract):
        statement = contract.store.explain(contract.count)
        assert isinstance(statement, str) and statement.strip()
        assert contract.store.execute(statement, TIME_LIMIT_S * 10, 10).rows == [(60,)]

    def test_a_field_the_data_lacks_fails_with_the_engine_message(self, contract: Contract):
        with pytest.raises(QueryError) as failed:
            contract.store.explain(contract.unknown_field)
        assert str(failed.value).strip()

    def test_an_empty_query_is_refused(self, contract: Contract):
        with pytest.raises(QueryRefused):
            contract.store.execute("   ", TIME_LIMIT_S, 10)

    def test_writes_are_refused_and_change_nothing(self, contract: Contract):
        for write in contract.writes:
            with pytest.raises(QueryRefused):
                contract.store.execute(write, TIME_LIMIT_S * 10, 10)
            with pytest.raises(QueryRefused):
                contract.store.explain(write)
        assert contract.store.execute(contract.count, TIME_LIMIT_S * 10, 10).rows == [(60,)]

    def test_a_second_statement_is_refused(self, contract: Contract):
        with pytest.raises(QueryError):
            contract.store.execute(contract.two_statements, TIME_LIMIT_S * 10, 10)
        assert contract.store.execute(contract.count, TIME_LIMIT_S * 10, 10).rows == [(60,)]

    def test_a_runaway_is_stopped_at_the_time_limit_and_the_next_query_runs(self, contract: Contract):
        start = time.monotonic()
        with pytest.raises(QueryFailed):
            contract.store.execute(contract.runaway, TIME_LIMIT_S, 10)
        assert time.monotonic() - start < TIME_LIMIT_S + GRACE_S
        assert contract.store.execute(contract.count, TIME_LIMIT_S * 10, 10).rows == [(60,)]

    def test_bound_values_are_bound_or_refused(self, contract: Contract):
        if contract.bound is None:  # a language without positional parameters
            with pytest.raises(ValueError, match="bound values"):
                contract.store.execute(contract.count, TIME_LIMIT_S * 10, 10, ["Oslo"])
            return
        query, params, expected = contract.bound
        assert contract.store.execute(query, TIME_LIMIT_S * 10, 10, params).rows == [(expected,)]
