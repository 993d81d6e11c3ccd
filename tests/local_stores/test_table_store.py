"""DuckDB tables: loading with provenance, descriptors, and generated SQL that cannot escape."""

from __future__ import annotations

from pathlib import Path

import pytest

from local_stores.results import QueryFailed, QueryRefused
from local_stores.table_store import TableStore, check_query, table_name

CSV = "Date,Shop,Amount (EUR)\n2024-03-01,Albert Heijn,23.50\n2024-03-02,HEMA,7.95\n2024-04-11,Albert Heijn,41.20\n"


@pytest.fixture
def store(tmp_path: Path) -> TableStore:
    s = TableStore(tmp_path / "tables.duckdb")
    s.load_csv("expenses", tmp_path / "expenses.csv", CSV)
    return s


def test_csv_becomes_a_typed_table_with_original_row_numbers(store: TableStore):
    info = store.describe("expenses")
    assert info.rows == 3
    cols = {c["name"]: c["type"] for c in info.columns}
    assert cols == {"_row": "BIGINT", "date": "DATE", "shop": "VARCHAR", "amount_eur": "DOUBLE"}
    result = store.execute("SELECT _row, shop FROM expenses WHERE amount_eur > 20 ORDER BY _row")
    assert result.columns == ["_row", "shop"] and result.rows == [(1, "Albert Heijn"), (3, "Albert Heijn")]
    assert "Albert Heijn" in next(c for c in info.columns if c["name"] == "shop")["samples"]
    assert next(c for c in info.columns if c["name"] == "amount_eur")["label"] == "Amount (EUR)"


def test_aggregates_come_from_the_engine(store: TableStore):
    result = store.execute("SELECT round(sum(amount_eur), 2) FROM expenses WHERE month(date) = 3")
    assert result.rows == [(31.45,)]


@pytest.mark.parametrize("sql", [
    "DELETE FROM expenses",
    "DROP TABLE expenses",
    "UPDATE expenses SET amount_eur = 0",
    "INSERT INTO expenses VALUES (9, DATE '2024-01-01', 'x', 1)",
    "CREATE TABLE x AS SELECT 1",
    "ATTACH '/tmp/evil.db' AS evil",
    "COPY expenses TO '/tmp/leak.csv'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "PRAGMA version",
    "SET enable_external_access = true",
    "CALL pragma_version()",
    "SELECT 1; DROP TABLE expenses",
    "EXPORT DATABASE '/tmp/dump'",
])
def test_anything_but_one_select_is_refused_and_changes_nothing(store: TableStore, sql: str):
    with pytest.raises(QueryRefused):
        store.execute(sql)
    assert store.execute("SELECT count(*) FROM expenses").rows == [(3,)]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM read_text('/etc/hostname')",
    "WITH x AS (SELECT 1) SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')",
])
def test_file_and_network_access_is_off(store: TableStore, sql: str):
    with pytest.raises((QueryRefused, QueryFailed)):
        store.execute(sql)


def test_time_and_row_limits(store: TableStore):
    with pytest.raises(QueryFailed, match="time limit"):
        store.execute("SELECT count(*) FROM range(1000000000000) a, range(1000) b", timeout_s=0.5)
    result = store.execute("SELECT range FROM range(1000)", max_rows=10)
    assert len(result.rows) == 10 and result.truncated


def test_errors_are_messages_a_model_can_repair_from(store: TableStore):
    with pytest.raises(QueryFailed, match="amount"):
        store.execute("SELECT amount FROM expenses")
    with pytest.raises(QueryFailed, match="syntax"):
        check_query("SELEC shop FROM expenses")


def test_malformed_csv_loads_what_it_can_and_says_so(tmp_path: Path):
    store = TableStore(tmp_path / "t.duckdb")
    text = "name,age\nAnn,31\nBob,40,extra,cells\nCid,29\n" + "".join(f"P{i},{i}\n" for i in range(50))
    info = store.load_csv("people", tmp_path / "people.csv", text)
    assert info.warnings and "malformed" in info.warnings[0]
    names = [r[0] for r in store.execute("SELECT name FROM people ORDER BY _row").rows]
    assert names[:3] == ["Ann", "Bob", "Cid"] and len(names) == 53


def test_table_names_are_safe_and_unique():
    assert table_name("2024 Expenses (v2)", set()) == "t_2024_expenses_v2"
    assert table_name("expenses", {"expenses"}) == "expenses_2"
    assert table_name("…", set()) == "table"


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_query_that_would_eat_the_machine_ends_in_the_worker_not_here(store: TableStore):
    """DuckDB's memory_limit does not bound `repeat`: in-process this grew to 5.8 GB."""
    before = _peak_rss_mb()
    with pytest.raises(QueryFailed, match="longer than|memory|Out of Memory"):
        store.execute("SELECT length(repeat('x', 4000000000)) AS n", timeout_s=3)
    assert _peak_rss_mb() - before < 500
    assert store.execute("SELECT count(*) FROM expenses").rows == [(3,)]


def test_a_hostile_header_is_a_column_name_and_runs_nothing(tmp_path: Path):
    marker = tmp_path / "PWNED.txt"
    header = (f'name,"name"" AS x FROM (SELECT 1 AS name); COPY (SELECT \'pwned\') TO \'{marker}\'; '
              'SELECT ""name"')
    info = TableStore(tmp_path / "t.duckdb").load_csv("evil", tmp_path / "evil.csv", f"{header}\na,b\n")
    assert not marker.exists()
    assert [c.get("label") for c in info.columns][-1].startswith('name" AS x FROM (SELECT 1 AS name); COPY')


def _wtq(store: TableStore, file: str, name: str) -> dict[str, dict]:
    from tests.conftest import shared_path

    path = shared_path("eval", "tables", "wtq", "csv", file)
    info = store.load_csv(name, path, path.read_text(encoding="utf-8"))
    return {c["name"]: c for c in info.columns} | {"": {"rows": info.rows}}


def test_a_row_that_repeats_the_header_is_no_data_and_numbers_with_one_unit_are_numbers(tmp_path: Path):
    """WikiTableQuestions' oldest living US presidents: row 26 repeats the header, and "Duration
    (Days)" writes "3,880 days"; MAX over that text gave "Duration (Days)", and the longest was read
    as "990 days" (unseen set). Hoover held the title longest."""
    store = TableStore(tmp_path / "t.duckdb")
    columns = _wtq(store, "csv__203-csv__260.csv", "presidents")
    assert columns[""]["rows"] == 25  # 26 lines of data, one of them the header again
    assert columns["duration_days"]["type"] == "BIGINT" and columns["duration_days"]["label"] == "Duration (Days)"
    longest = store.execute("SELECT president, duration_days FROM presidents ORDER BY duration_days DESC LIMIT 1")
    assert longest.rows == [("Herbert Hoover", 11611)]
    assert columns["duration_years_days"]["type"] == "VARCHAR"  # "10 years, 228 days": no one number
    throws = _wtq(store, "csv__204-csv__483.csv", "throws")
    assert throws["notes"]["type"] == "DOUBLE" and throws["notes"]["label"] == "Notes (m)"


def test_a_last_row_of_totals_is_no_data(tmp_path: Path):
    """A medal table's last row "Total, Total, 43, 41, 42, 126" was a nation to MAX and COUNT, and a
    budget's "Total" line doubles every SUM; "the last description of losses" was "Total". Its
    numbers are the columns' sums, so it is left out; SUM still gives them."""
    store = TableStore(tmp_path / "t.duckdb")
    medals = _wtq(store, "csv__204-csv__382.csv", "medals")
    assert medals["gold"]["type"] == "BIGINT" and medals["nation"]["type"] == "VARCHAR"
    assert store.execute("SELECT sum(gold), sum(total) FROM medals").rows == [(43, 126)]
    assert "Total" not in {r[0] for r in store.execute("SELECT nation FROM medals").rows}
    losses = _wtq(store, "csv__204-csv__149.csv", "losses")  # "504,000" … as numbers once the totals are out
    last = store.execute("SELECT description_losses FROM losses ORDER BY _row DESC LIMIT 1")
    assert last.rows == [("Deaths other countries",)] and losses[""]["rows"] == 6  # 7 lines of data
    _wtq(store, "csv__203-csv__624.csv", "career")  # "", "", "Totaal", 278, 4: in Dutch, under the competition
    most = store.execute("SELECT club FROM career GROUP BY club ORDER BY sum(games) DESC LIMIT 1")
    assert most.rows == [("KSV Roeselare",)]


def test_a_sum_written_out_with_its_result_gets_a_number_column_of_its_results(tmp_path: Path):
    """A golf table's "72-72-70-71=285": SUM(score) failed on text and CAST failed on the rounds
    (the sampled WTQ set, "what was Frank Nobilo's total score?")."""
    store = TableStore(tmp_path / "t.duckdb")
    golf = _wtq(store, "csv__204-csv__900.csv", "golf")
    assert golf["score"]["type"] == "VARCHAR" and golf["score_total"]["type"] == "BIGINT"
    assert golf["score_total"]["label"] == "Score (total)"
    assert store.execute("SELECT score_total FROM golf WHERE player = 'Frank Nobilo'").rows == [(285,)]
    medals = _wtq(store, "csv__204-csv__382.csv", "medals")
    assert not any(name.endswith("_total") for name in medals)


def test_a_last_row_named_total_whose_numbers_are_not_sums_is_data(tmp_path: Path):
    store = TableStore(tmp_path / "t.duckdb")
    text = "band,albums\nAlpha,3\nBeta,4\nTotal Eclipse,2\n"
    assert store.load_csv("bands", tmp_path / "bands.csv", text).rows == 3
    spending = "item,amount\nrent,900\nfood,250.50\nTotal,1150.50\n"
    assert store.load_csv("spending", tmp_path / "spending.csv", spending).rows == 2
    assert store.execute("SELECT sum(amount) FROM spending").rows == [(1150.5,)]


def test_numbers_but_for_a_few_words_are_numbers_with_the_words_in_the_label(tmp_path: Path):
    """The Green Line's "Station Parking" writes "2050 Spaces" … and one "No parking": as text,
    "the most parking spaces" sorted "No parking" first (unseen set). A column of many wordings
    stays text."""
    store = TableStore(tmp_path / "t.duckdb")
    stations = _wtq(store, "csv__202-csv__168.csv", "stations")
    parking = stations["station_parking"]
    assert parking["type"] == "BIGINT"
    assert parking["label"] == "Station Parking (space)" and parking["empty_for"] == ["No parking"]
    most = store.execute("SELECT station, station_parking FROM stations ORDER BY station_parking DESC LIMIT 1")
    assert most.rows == [("Norwalk", 2050)]
    none = store.execute("SELECT station FROM stations WHERE station_parking IS NULL")
    assert none.rows == [("Mariposa",)]
    assert stations["station_connections"]["type"] == "VARCHAR"


def test_a_header_holding_the_emptied_words_marker_stays_the_label(tmp_path: Path):
    """A column's comment keeps its file header; one that happens to hold the marker of the words a
    number column emptied is read as a label, not as a broken list."""
    store = TableStore(tmp_path / "t.duckdb")
    header = '"n\nempty for: [oops"'
    info = store.load_csv("odd", tmp_path / "odd.csv", f"{header},name\n1,a\n2,b\n")
    assert info.columns[-2]["label"] == "n\nempty for: [oops" and "empty_for" not in info.columns[-2]


def test_a_column_of_written_dates_gets_a_date_column_beside_it(tmp_path: Path):
    """Russian ambassadors to Austria, "October 1761" … "5 October 1801" (the sampled WTQ set: "who
    served the longest?" subtracted two text columns and failed); air dates "September 22, 1965" under
    a first row that is a name."""
    store = TableStore(tmp_path / "t.duckdb")
    envoys = _wtq(store, "csv__203-csv__840.csv", "envoys")
    assert envoys["date_from"]["type"] == "VARCHAR" and envoys["date_from_as_date"]["type"] == "DATE"
    assert envoys["date_until_as_date"]["label"] == "Date until (as a date)"
    first = store.execute("SELECT date_from_as_date FROM envoys WHERE date_from = 'October 1761'").rows
    assert first == [("1761-10-01",)]  # a month alone: its first day (results give dates as ISO text)
    longest = store.execute("SELECT name FROM envoys ORDER BY date_until_as_date - date_from_as_date DESC LIMIT 1")
    assert longest.rows == [("Dmitry Mikhailovich Golitsyn",)]
    episodes = _wtq(store, "csv__203-csv__315.csv", "episodes")
    assert episodes["original_air_date_as_date"]["type"] == "DATE"
    assert "name_as_date" not in envoys and "russian_state_as_date" not in envoys
    matches = _wtq(store, "csv__204-csv__224.csv", "matches")  # "January 10", "Dec 17": no year, no date
    assert matches["date"]["type"] == "VARCHAR" and "date_as_date" not in matches
