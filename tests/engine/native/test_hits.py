"""Query results in words: what the answer states and what the model is shown."""

from engine.native.hits import locator, verbalise, worded
from engine.native.querying import QueryOutcome
from engine.native.sources import Source
from local_stores.results import QueryResult


def _outcome(columns: list[str], rows: list[tuple]) -> QueryOutcome:
    source = Source("expenses", "table", "duckdb", "/home/ana/expenses.csv", {"table": "expenses"})
    return QueryOutcome(source, "SELECT …", QueryResult(columns, rows), [])


def test_a_month_grouped_by_is_worded_as_people_say_it():
    assert worded("2024-04") == "April 2024"
    assert worded("2015-12") == "December 2015"
    assert worded("2024-13") == "2024-13"  # not a month
    assert worded("2024-04-02") == "2024-04-02"
    assert worded(2024) == "2024" and worded(463.59999999999997) == "463.6"


def test_a_one_row_result_states_its_month_in_words_and_keeps_the_raw_value_cited():
    outcome = _outcome(["month", "total"], [("2024-04", 310.5)])
    assert verbalise(outcome, "Which month did I spend most?").endswith("month is April 2024; total is 310.5.")
    cited = locator(outcome)
    assert cited["result"] == "month is April 2024; total is 310.5."
    assert cited["result_rows"] == [["2024-04", 310.5]]  # the citation shows what the query returned


def test_a_short_list_names_its_months_in_words():
    outcome = _outcome(["month", "n"], [("2015-07", 14), ("2015-12", 9)])
    assert locator(outcome)["listing"] == ["July 2015, 14", "December 2015, 9"]
    assert "month: July 2015; n: 14" in verbalise(outcome, "Which months?")


def test_columns_that_would_read_alike_say_what_they_are_of():
    """"born is 1941; born is 1938" said nothing of whose years they were."""
    outcome = _outcome(["mormor.born", "husband.born", "husband.name"], [(1941, 1938, "Henk")])
    assert locator(outcome)["result"] == "mormor born is 1941; husband born is 1938; name is Henk."



def test_a_value_that_ends_a_sentence_is_not_given_a_second_full_stop():
    """Spider's real-estate feature type reads "Amenity, eg Pool.": the result said "… Pool.." before."""
    outcome = _outcome(["feature_type_name"], [("Amenity, eg Pool.",)])
    assert locator(outcome)["result"] == "feature type name is Amenity, eg Pool."


def test_an_aggregate_column_is_worded_as_people_say_it():
    """"Sum(final points) is 527.46" was the answer where the model's sentence did not carry the value
    (unseen set): the result reads "total final points is 527.46"."""
    outcome = _outcome(["SUM(final_points)", "COUNT(*)", "avg(T1.age)", "count(DISTINCT T2.state_name)"],
                       [(527.46, 3, 30.5, 8)])
    assert locator(outcome)["result"] == ("total final points is 527.46; count is 3; average age is 30.5; "
                                          "number of state name is 8.")
