"""What a query's conditions say on their own text: a question's "not" or "the first" the query leaves out."""

from __future__ import annotations

import json
from pathlib import Path

from engine.native import sources
from engine.native.conditions import (
    extreme_not_counted,
    negation_dropped,
    pairs_counted,
    ranking_dropped,
    read_once,
)
from engine.native.querying import write_and_run
from engine.native.sources import Stores
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore
from tests.conftest import shared_path
from tests.engine.native.test_querying import geoquery_db
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
                     "SELECT name FROM teacher WHERE subject != 'math'",
                     "SELECT T1.name FROM teacher T1 LEFT JOIN course_arrange T2 USING (id) WHERE T2.id IS NULL"):
        assert negation_dropped(_NOT_ARRANGED, left_out, "sql") is None


def test_a_negated_comparison_a_quoted_no_and_a_question_without_not_are_left_alone():
    assert negation_dropped("What is the average age of the visitors whose membership level is not higher than 4?",
                            "SELECT avg(age) FROM visitor WHERE level_of_membership <= 4", "sql") is None
    assert negation_dropped("Who acted in the movie with the tagline 'Speed has no limits'?",
                            "MATCH (p:Person)-[:ACTED_IN]->(m:Movie {tagline: 'Speed has no limits'}) RETURN p.name",
                            "cypher") is None
    assert negation_dropped("Which teachers teach math?", "SELECT name FROM teacher", "sql") is None
    assert negation_dropped("Who starred in Never Say Never Again?",
                            "SELECT star FROM film WHERE title = 'Never Say Never Again'", "sql") is None
    iri_only = "SELECT ?n WHERE { ?t <http://valuenet/ontop/teacher#name> ?n }"  # its <…> compare nothing
    assert negation_dropped(_NOT_ARRANGED, iri_only, "sparql") is not None


def test_spiders_own_gold_queries_are_never_sent_back_for_a_not_or_a_ranking():
    """Spider's dev set: of the questions each check reads as negating or ranking, the gold queries it
    would send back (no NOT, EXCEPT, `!=`…; no ORDER BY, MIN/MAX, LIMIT) must be none."""
    dev = json.loads(shared_path("eval", "sql", "spider", "dev.json").read_text(encoding="utf-8"))
    negating = [d for d in dev if negation_dropped(d["question"], "SELECT 1", "sql") is not None]
    assert len(negating) > 40  # the check hears Spider's "not" questions
    assert [d["question"] for d in negating if negation_dropped(d["question"], d["query"], "sql")] == []
    ranking = [d for d in dev if ranking_dropped(d["question"], "SELECT 1", []) is not None]
    assert len(ranking) > 120
    assert [d["question"] for d in ranking if ranking_dropped(d["question"], d["query"], [])] == []


def test_a_ranking_question_is_sent_back_when_the_query_ranks_nothing_and_names_are_no_ranking():
    assert "ORDER BY … LIMIT 1" in (ranking_dropped("Who is the first student to register?",
                                                    "SELECT first_name FROM students", []) or "")
    for asked in ("How many students have the first name John?", "What are the first, middle, and last names?",
                  "How much was sold in the last 5 years?", "Which player has the highest score?"):
        assert ranking_dropped(asked, "SELECT name FROM player ORDER BY score DESC LIMIT 1", []) is None
        assert asked.startswith("Which") or ranking_dropped(asked, "SELECT name FROM player", []) is None
    assert ranking_dropped("Who won the Most Valuable Player award?",
                           "SELECT name FROM awards WHERE award = 'Most Valuable Player'", []) is None
    assert ranking_dropped("Which players have the longest drive?", "SELECT name FROM p", ["longest_drive"]) is None


def test_the_first_place_registered_comes_back_after_a_query_that_lists_every_one(tmp_path: Path):

    stores = Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))
    csv = "name,registered\nThompson Hall,1983-05-02\nBack River Farm,1979-11-20\nSmith Chapel,1990-01-15\n"
    info = stores.tables.load_csv("register", tmp_path / "register.csv", csv)
    source = sources.Source("register", "table", "duckdb", str(tmp_path / "register.csv"), info.descriptor())
    llm = ScriptedLLM(["SELECT name FROM register", "SELECT name FROM register ORDER BY registered LIMIT 1"])
    outcome = write_and_run(llm, "Which place was registered first?", source, stores)
    assert outcome.ok and [r[0] for r in outcome.result.rows] == ["Back River Farm"]  # with its date
    assert "the query ranks nothing" in (outcome.attempts[0].error or "")


def test_the_teachers_whose_courses_were_not_arranged_on_the_spider_graph(tmp_path: Path):
    """The model's query listed every teacher: its `!=` compared a teacher's id with the teacher, two
    variables, which leaves none out. It is sent back; the repair's FILTER NOT EXISTS gives the two."""
    store, source = spider_graph("course_teach_triples", tmp_path)
    every = """PREFIX course_arrange: <http://valuenet/ontop/course_arrange#>
PREFIX ontop: <http://valuenet/ontop/>
PREFIX teacher: <http://valuenet/ontop/teacher#>
SELECT ?teacher_name WHERE { ?teacher teacher:name ?teacher_name .
  ?teacher a ontop:teacher .
  ?teacher teacher:teacher_id ?teacher_teacher_id .
  ?course_arrange a ontop:course_arrange .
  ?course_arrange course_arrange:ref-teacher_id ?teacher .
  FILTER(?teacher_teacher_id != ?teacher)
}"""
    left_out = """PREFIX teacher: <http://valuenet/ontop/teacher#>
PREFIX course_arrange: <http://valuenet/ontop/course_arrange#>
SELECT ?teacher_name WHERE { ?teacher teacher:name ?teacher_name .
  FILTER NOT EXISTS { ?arranged course_arrange:ref-teacher_id ?teacher . } }"""
    llm = ScriptedLLM([every, left_out])
    outcome = write_and_run(llm, _NOT_ARRANGED, source, Stores(None, None, store))
    assert outcome.ok and sorted(r[0] for r in outcome.result.rows) == ["John Deloor", "Joseph Huts"]
    assert "leave out those that do (FILTER NOT EXISTS" in (outcome.attempts[0].error or "")


def test_which_year_most_countries_joined_is_not_the_latest_year_on_the_wtq_table(tmp_path: Path):
    """"Which year did most countries join in?" written `SELECT MAX(joining_year)` answered "2008 1",
    the latest year (WTQ sample); the year nine of ten associations joined is 2002."""
    from tests.engine.native.test_querying import wtq_table

    stores, source = wtq_table("csv__203-csv__495.csv", "eaff", tmp_path)
    question = "which year did most countries join in?"
    llm = ScriptedLLM(["SELECT MAX(joining_year) FROM eaff",
                       "SELECT joining_year FROM eaff GROUP BY joining_year ORDER BY COUNT(*) DESC LIMIT 1"])
    outcome = write_and_run(llm, question, source, stores)
    assert outcome.ok and str(outcome.result.rows[0][0]) == "2002"
    assert "group the rows by joining_year" in (outcome.attempts[0].error or "")
    assert extreme_not_counted("SELECT MAX(points) FROM t", "which year had the most points?") is None
    assert extreme_not_counted("SELECT MAX(year) FROM t", "which year had the most recent win?") is None


def test_spiders_own_gold_queries_are_never_sent_back_for_an_extreme_instead_of_a_count():
    dev = json.loads(shared_path("eval", "sql", "spider", "dev.json").read_text(encoding="utf-8"))
    assert [d["question"] for d in dev if extreme_not_counted(d["query"], d["question"])] == []


def test_a_table_joined_with_itself_and_counted_per_group_is_read_once_on_geoquery(tmp_path: Path):
    """"Which states border the most other states?" over GeoQuery's database, written as `border_info`
    joined with itself on `border` (rest set): it counted pairs of rows and answered "missouri 48", and
    the repair wrote it again each time. The second copy is left out: Missouri and Tennessee, 8 each."""
    stores, source = geoquery_db(tmp_path)
    paired = ("SELECT T1.state_name, COUNT(T2.state_name) FROM border_info AS T1 JOIN border_info AS T2 "
              "ON T1.border = T2.border GROUP BY T1.state_name ORDER BY COUNT(T2.state_name) DESC LIMIT 1")
    outcome = write_and_run(ScriptedLLM([paired]), "Which states border the most other states?", source, stores)
    assert outcome.ok and sorted(row[0] for row in outcome.result.rows) == ["missouri", "tennessee"]
    assert {row[1] for row in outcome.result.rows} == {8} and "JOIN" not in outcome.query.upper()
    assert "counts pairs of rows that share a border" in (pairs_counted(paired) or "")
    also = paired.replace("T1.border = T2.border", "T1.border = T2.border AND T1.state_name <> 'x'")
    assert pairs_counted(also) is not None and read_once(also) is None  # a join this cannot take out: the repair
    assert pairs_counted("SELECT T1.name, COUNT(*) FROM employee T1 JOIN employee T2 ON T1.id = T2.manager_id "
                         "GROUP BY T1.name") is None  # a manager and the people under them: two columns
    left = paired.replace(" JOIN ", " LEFT JOIN ")  # any kind of join counts pairs the same way
    assert pairs_counted(left) is not None and "JOIN" not in (read_once(left) or "JOIN").upper()


def test_no_gold_query_of_spider_or_geoquery_is_sent_back_for_counting_pairs():
    dev = json.loads(shared_path("eval", "sql", "spider", "dev.json").read_text(encoding="utf-8"))
    geo = json.loads(shared_path("eval", "sql", "geoquery", "geography.json").read_text(encoding="utf-8"))
    gold = [d["query"] for d in dev] + [sql for entry in geo for sql in entry["sql"]]
    assert len(gold) > 700 and [sql for sql in gold if pairs_counted(sql)] == []
