"""The write-validate-repair loop's own rules: where looked-up values go in the prompt, and which
results count as empty (and so are worth a repair when a literal matched nothing)."""

from __future__ import annotations

from engine.native.querying import _empty, _with_hint
from local_stores.results import QueryResult


def test_the_hint_goes_just_before_the_question():
    user = "The user's tables:\nCREATE TABLE t (a TEXT);\n\nQuestion: which a?\nSQL:"
    assert _with_hint(user, "Values: 'x' in t.a") == \
        "The user's tables:\nCREATE TABLE t (a TEXT);\n\nValues: 'x' in t.a\n\nQuestion: which a?\nSQL:"
    assert _with_hint("no question here", "Values") == "Values\n\nno question here"


def test_no_rows_and_a_count_of_nothing_are_empty_but_real_answers_are_not():
    assert _empty(QueryResult(["a"], [], False))
    assert _empty(QueryResult(["n"], [(0,)], False)) and _empty(QueryResult(["s", "n"], [(None, 0)], False))
    assert not _empty(QueryResult(["n"], [(3,)], False))
    assert not _empty(QueryResult(["a"], [(0,), (0,)], False))
    assert not _empty(QueryResult(["name"], [("Kit",)], False))


def test_a_field_compared_with_two_values_in_one_condition_is_found_and_separate_clauses_are_not():
    from engine.native.conditions import both_at_once

    cypher = ("MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE lower(p.name) = 'tom hanks' AND lower(p.name) = "
              "'meg ryan' RETURN m.title")
    found = both_at_once(cypher)
    assert found is not None and (found.field, found.first, found.second) == ("p.name", "tom hanks", "meg ryan")
    assert cypher[found.second_at[0]:found.second_at[1]] == "p.name" and found.second_at[0] > cypher.index("AND")
    two_nodes = ("MATCH (a:Person)-[:ACTED_IN]->(m)<-[:ACTED_IN]-(b:Person) WHERE a.name = 'Tom Hanks' AND "
                 "b.name = 'Meg Ryan' RETURN m.title")
    intersect = ("SELECT b.name FROM ship s JOIN battle b ON b.id = s.lost_in_battle WHERE s.name = 'Lettice' "
                 "INTERSECT SELECT b.name FROM ship s JOIN battle b ON b.id = s.lost_in_battle "
                 "WHERE s.name = 'Atalanta'")
    subqueries = ("SELECT name FROM battle WHERE id IN (SELECT lost_in_battle FROM ship WHERE name = 'Lettice') "
                  "AND id IN (SELECT lost_in_battle FROM ship WHERE name = 'Atalanta')")
    either = "SELECT * FROM ship WHERE name = 'Lettice' OR name = 'Atalanta'"
    same = "SELECT * FROM ship WHERE name = 'Lettice' AND lower(name) = 'lettice'"
    assert [both_at_once(q) for q in (two_nodes, intersect, subqueries, either, same)] == [None] * 5


def test_a_question_asks_one_thing_per_clause_that_opens_with_a_question_word():
    from engine.native.querying import asked_parts

    assert asked_parts("In my ships database, which battle lost both ships, and when was it fought?") == \
        ["which battle lost both ships", "when was it fought"]
    assert asked_parts("Who directed it and when was it released?") == ["Who directed it", "when was it released"]
    assert len(asked_parts("What is the name of the player who won the most?")) == 1  # "who" inside a clause
    assert len(asked_parts("What is the average, minimum, and maximum age of French singers?")) == 1
    assert asked_parts("Is there a singer from France?") == []
