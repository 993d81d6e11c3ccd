"""What a query's conditions say on their own text: a question's "not" the query leaves out."""

from __future__ import annotations

import json
from pathlib import Path

from engine.native.conditions import negation_dropped
from engine.native.querying import write_and_run
from engine.native.sources import Stores
from tests.conftest import shared_path
from tests.engine.native.test_sparql_fixes import spider_graph
from tests.scripted import ScriptedLLM

_NOT_ARRANGED = "What are the names of the teachers whose courses have not been arranged?"


def test_a_question_that_negates_is_sent_back_when_the_query_leaves_nothing_out():
    plain = "SELECT name FROM teacher"
    assert "leave out those that do (NOT IN" in (negation_dropped(_NOT_ARRANGED, plain, "sql") or "")
    assert "WHERE NOT" in (negation_dropped("Which people never acted in a movie?", "MATCH (p:Person) RETURN p.name",
                                            "cypher") or "")
    for left_out in ("SELECT name FROM teacher WHERE teacher_id NOT IN (SELECT teacher_id FROM course_arrange)",
                     "SELECT name FROM teacher EXCEPT SELECT T1.name FROM teacher T1 JOIN course_arrange T2 USING (id)",
                     "SELECT name FROM hospital WHERE operating_rooms = 0",
                     "SELECT T1.name FROM teacher T1 LEFT JOIN course_arrange T2 USING (id) WHERE T2.id IS NULL"):
        assert negation_dropped(_NOT_ARRANGED, left_out, "sql") is None


def test_a_negated_comparison_a_quoted_no_and_a_question_without_not_are_left_alone():
    assert negation_dropped("What is the average age of the visitors whose membership level is not higher than 4?",
                            "SELECT avg(age) FROM visitor WHERE level_of_membership <= 4", "sql") is None
    assert negation_dropped("Who acted in the movie with the tagline 'Speed has no limits'?",
                            "MATCH (p:Person)-[:ACTED_IN]->(m:Movie {tagline: 'Speed has no limits'}) RETURN p.name",
                            "cypher") is None
    assert negation_dropped("Which teachers teach math?", "SELECT name FROM teacher", "sql") is None
    iri_only = "SELECT ?n WHERE { ?t <http://valuenet/ontop/teacher#name> ?n }"  # its <…> compare nothing
    assert negation_dropped(_NOT_ARRANGED, iri_only, "sparql") is not None


def test_how_often_spider_questions_that_negate_are_answered_with_a_negation_by_their_gold_queries():
    """Spider's own dev set: of the questions the check reads as negating, the gold queries that it
    would send back (no NOT, EXCEPT, `!=`… and no comparison) must be none."""
    dev = json.loads(shared_path("eval", "sql", "spider", "dev.json").read_text(encoding="utf-8"))
    negating = [d for d in dev if negation_dropped(d["question"], "SELECT 1", "sql") is not None]
    assert len(negating) > 40  # the check hears Spider's "not" questions
    assert [d["question"] for d in negating if negation_dropped(d["question"], d["query"], "sql")] == []


def test_the_teachers_whose_courses_were_not_arranged_on_the_spider_graph(tmp_path: Path):
    """The model's query listed every teacher (its `!=` compared an id with a teacher, always true);
    one with no negation at all is sent back, and the repair's FILTER NOT EXISTS gives the two."""
    store, source = spider_graph("course_teach_triples", tmp_path)
    every = """PREFIX teacher: <http://valuenet/ontop/teacher#>
SELECT ?teacher_name WHERE { ?teacher teacher:name ?teacher_name . }"""
    left_out = """PREFIX teacher: <http://valuenet/ontop/teacher#>
PREFIX course_arrange: <http://valuenet/ontop/course_arrange#>
SELECT ?teacher_name WHERE { ?teacher teacher:name ?teacher_name .
  FILTER NOT EXISTS { ?arranged course_arrange:ref-teacher_id ?teacher . } }"""
    llm = ScriptedLLM([every, left_out])
    outcome = write_and_run(llm, _NOT_ARRANGED, source, Stores(None, None, store))
    assert outcome.ok and sorted(r[0] for r in outcome.result.rows) == ["John Deloor", "Joseph Huts"]
    assert "leave out those that do (FILTER NOT EXISTS" in (outcome.attempts[0].error or "")
