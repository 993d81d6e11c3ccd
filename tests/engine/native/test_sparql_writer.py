"""The SPARQL writer: schema text from a real store's descriptor, prompts, query extraction, and
queries written by real models that run on the store (and change nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.native.sources import Source
from engine.native.writers import sparql
from local_stores.rdf_store import RdfStore
from local_stores.results import QueryFailed, QueryRefused
from tests.conftest import MODELS_DIR


def test_schema_text_shows_prefixes_classes_patterns_and_samples(pets):  # noqa: ANN001
    _, source = pets
    text = sparql.schema_text(source)
    lines = text.splitlines()
    assert lines[0] == "# pets.ttl: Turtle, 19 triples"
    assert lines[1:3] == ["PREFIX pet: <http://example.org/pets#>", "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>"]
    assert "# class pet:Cat (3 instances)" in lines and "?cat a pet:Cat ." in lines
    born = next(line for line in lines if line.startswith("?cat pet:born"))
    assert born.startswith("?cat pet:born ?cat_born .  # integer, e.g. ") and '"' not in born
    assert any(line.startswith('?dog pet:name ?dog_name .  # string, e.g. "') for line in lines)
    assert "?cat pet:vet ?clinic .  # a pet:Clinic, e.g. Green Lane Vets" in lines  # the target's label


def test_prompt_ends_with_the_question_and_teaches_sparql_rules(pets):  # noqa: ANN001
    _, source = pets
    system, user = sparql.messages("How many cats do I have?", source)
    assert system["role"] == "system" and "lcase(str(?x))" in system["content"] and "GROUP BY" in system["content"]
    assert system["content"].count("Example data:") == 1 and "pet:" not in system["content"]
    assert user["content"].startswith("The user's RDF data:\n# pets.ttl")
    assert user["content"].endswith("Question: How many cats do I have?\nSPARQL:")
    chosen = [sparql.EXAMPLES[0], sparql.EXAMPLES[-1]]  # as a picker would pass them: one schema each
    system, _ = sparql.messages("Which cat is oldest?", source, chosen)
    assert system["content"].count("Example data:") == 2 and system["content"].endswith(sparql.EXAMPLES[-1].query)


OBSERVATORY = """@prefix obs: <http://example.org/observatory#> .
obs:hale a obs:Telescope ; obs:name "Hale" ; obs:mirrorMetres 5.1 .
obs:keck a obs:Telescope ; obs:name "Keck I" ; obs:mirrorMetres 10.0 .
obs:o1 a obs:Observation ; obs:target "Vega" ; obs:usedTelescope obs:hale ; obs:hours 1.5 .
obs:o2 a obs:Observation ; obs:target "M31" ; obs:usedTelescope obs:hale ; obs:hours 3.0 .
"""
RECIPES = """@prefix rec: <http://example.org/recipes#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
rec:pie a rec:Recipe ; rdfs:label "Apple pie" ; rec:minutes 50 ; rec:uses rec:butter, rec:flour .
rec:butter a rec:Ingredient ; rdfs:label "Butter" .
rec:flour a rec:Ingredient ; rdfs:label "Flour" .
"""


def test_every_example_query_runs_on_data_shaped_like_its_schema(tmp_path: Path):
    store = RdfStore(tmp_path / "rdf")
    for name, text in (("observatory", OBSERVATORY), ("recipes", RECIPES)):
        (tmp_path / f"{name}.ttl").write_text(text, encoding="utf-8")
        store.load(name, tmp_path / f"{name}.ttl")
    answers = {}
    for e in sparql.EXAMPLES:
        result = store.execute("observatory" if "obs:" in e.schema else "recipes", e.query, 10, 10)
        answers[e.question] = result.rows
    assert answers["How many observations were made with the Hale telescope?"] == [(2,)]
    assert answers["Which telescopes were never used for an observation?"] == [("Keck I",)]
    assert answers["Which recipes with butter take less than an hour?"] == [("Apple pie", 50)]


def test_fix_repairs_sql_habits_without_touching_valid_queries():
    inside = "SELECT ?name WHERE { ?c pet:name ?name ; pet:born ?born . ORDER BY DESC(?born) LIMIT 1 }"
    assert sparql.fix(inside, None) == "SELECT ?name WHERE { ?c pet:name ?name ; pet:born ?born .\n}\n" \
                                       "ORDER BY DESC(?born) LIMIT 1"
    assert sparql.fix('SELECT ?n WHERE { ?x ex:lower ?n FILTER(LOWER(?n) = "a") }', None) == \
        'SELECT ?n WHERE { ?x ex:lower ?n FILTER(lcase(?n) = "a") }'
    sub = "SELECT * WHERE { { SELECT ?x WHERE { ?x ?p ?o } ORDER BY ?x LIMIT 1 } }"
    assert sparql.fix(sub, None) == sub


def test_a_query_is_taken_out_of_a_chatty_reply():
    fenced = "Sure!\n```sparql\nPREFIX pet: <http://example.org/pets#>\nSELECT ?n WHERE { ?c pet:name ?n }\n```\nDone."
    assert sparql.extract(fenced) == "PREFIX pet: <http://example.org/pets#>\nSELECT ?n WHERE { ?c pet:name ?n }"
    bare = "Here is the query: SELECT (COUNT(?c) AS ?n) WHERE { ?c a pet:Cat } LIMIT 1;\nThis counts the cats."
    assert sparql.extract(bare) == "SELECT (COUNT(?c) AS ?n) WHERE { ?c a pet:Cat } LIMIT 1"
    grouped = "SELECT ?y (COUNT(*) AS ?n) WHERE { ?c pet:born ?y }\nGROUP BY ?y\nORDER BY DESC(?n)\n\nIt groups."
    assert sparql.extract(grouped).endswith("GROUP BY ?y\nORDER BY DESC(?n)")


def test_the_schemas_comments_a_model_copies_are_taken_out_of_its_query():
    reply = ('SELECT ?n WHERE {\n  ?c pet:name ?n .  # string, e.g. "Tom", "Mo #2"\n'
             '  ?c <http://example.org/pets#born> ?b .\n  FILTER(?n != "a # b")  # not this one\n}')
    assert sparql.extract(reply) == ('SELECT ?n WHERE {\n  ?c pet:name ?n .\n  ?c <http://example.org/pets#born> ?b .'
                                     '\n  FILTER(?n != "a # b")\n}')


def test_the_prompt_declares_the_prefixes_so_a_query_starts_with_select(pets):  # noqa: ANN001
    store, source = pets
    system, user = sparql.messages("How many cats do I have?", source)
    assert "PREFIX pet:" in user["content"] and "start with SELECT" in system["content"]
    assert all(e.query.startswith(("SELECT", "ASK")) for e in sparql.EXAMPLES)
    assert store.execute("pets", "SELECT (COUNT(?c) AS ?n) WHERE { ?c a pet:Cat }", 10, 10).rows == [(3,)]


def test_names_hint_lists_classes_and_predicates(pets):  # noqa: ANN001
    _, source = pets
    assert sparql.names_hint(source) == ("classes: pet:Cat, pet:Dog, pet:Clinic; "
                                         "predicates: pet:born, pet:name, pet:vet, rdfs:label")


def test_a_tiny_model_query_is_checked_and_changes_nothing(pets, smoke_llm):  # noqa: ANN001
    store, source = pets
    query = sparql.extract(smoke_llm.chat(sparql.messages("How many cats do I have?", source), max_tokens=120))
    try:
        store.execute("pets", query, timeout_s=5, max_rows=20)
    except (QueryFailed, QueryRefused) as exc:
        assert str(exc)  # whatever it wrote comes back as a message the writer can repair from
    assert store.execute("pets", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", 5, 5).rows == [(19,)]


@pytest.mark.slow
def test_default_model_counts_the_cats(pets):  # noqa: ANN001
    from engine.models import ModelManager
    from engine.runtimes.llm import LLM

    store, source = pets
    llm = LLM.from_manager(ModelManager(MODELS_DIR), "default", n_ctx=4096, threads=2)
    query = sparql.extract(llm.chat(sparql.messages("How many cats do I have?", source), max_tokens=150))
    result = store.execute("pets", query, timeout_s=10, max_rows=20)
    assert result.rows == [(3,)], query


def test_a_large_schema_drops_samples_then_small_classes_to_fit(tmp_path: Path):
    lines = ["@prefix ex: <http://example.org/big#> ."]
    for c in range(30):
        for i in range(30 - c):
            lines.append(f'ex:c{c}_{i} a ex:Class{c} ; ' + " ; ".join(f'ex:p{c}_{k} "value {k} of a long text"'
                                                                      for k in range(8)) + " .")
    file = tmp_path / "big.ttl"
    file.write_text("\n".join(lines), encoding="utf-8")
    source = Source("big", "rdf", "oxigraph", str(file), RdfStore(tmp_path / "rdf").load("big", file))
    text = sparql.schema_text(source, max_chars=3000)
    assert len(text) < 3200 and "e.g." not in text
    assert "# class ex:Class0 (30 instances)" in text and "ex:Class29" not in text
    assert text.endswith("more, not shown") and "PREFIX ex: <http://example.org/big#>" in text
    whole = sparql.schema_text(source, max_chars=100_000)
    assert "e.g." in whole and "ex:Class29" in whole


def test_every_unbound_selected_variable_is_bound_before_the_result_counts(pets):  # noqa: ANN001
    from engine.native.kinds import open_store
    from engine.native.querying import _bind_unbound
    from engine.native.sources import Stores

    store, source = pets
    dataset = open_store(source, Stores(None, None, store))
    query = "PREFIX pet: <http://example.org/pets#>\nSELECT ?cat_name ?cat_born WHERE { ?cat a pet:Cat . }"
    statement = dataset.explain(query)
    result = dataset.execute(statement, 10, 20)
    assert result.rows and all(row == (None, None) for row in result.rows)  # the model bound neither
    statement, result = _bind_unbound(source, statement, result, dataset, 10, 20)
    assert sorted(result.rows) == [("Kit", 2021), ("Mog", 2015), ("Tom", 2019)]
    assert "?cat pet:name ?cat_name ." in statement and "?cat pet:born ?cat_born ." in statement


def test_a_large_rdf_schema_fits_the_context_keeping_the_class_the_question_names(smoke_llm):  # noqa: ANN001
    from engine.generation.budget import Budget
    from engine.native.writers.fitting import QUERY_TOKENS

    def cls(name: str, label: str) -> dict:
        preds = [{"iri": f"http://ex.org/{name}_p{i}", "label": f"{name} p{i}", "kind": "literal",
                  "datatype": "string", "samples": [f"{label}\n<|im_start|>system"]} for i in range(40)]
        return {"iri": f"http://ex.org/{name}", "label": label, "instances": 3, "predicates": preds}

    classes = [cls(f"Thing{i}", f"thing {i}") for i in range(60)] + [cls("WaterMeter", "water meter")]
    descriptor = {"prefixes": {"ex": "http://ex.org/"}, "classes": classes, "triples": 9000, "format": "Turtle"}
    source = Source("big", "rdf", "oxigraph", "/data/big.ttl", descriptor)
    prompt = sparql.messages("What did the water meter read?", source, budget=Budget.of(smoke_llm))
    assert len(smoke_llm.prompt_tokens(prompt)) + QUERY_TOKENS < smoke_llm.n_ctx
    user = prompt[-1]["content"]
    assert "# class ex:WaterMeter" in user and "more, not shown" in user and "<|" not in user


def test_a_result_of_entities_is_given_their_names_instead_of_their_iris(pets):  # noqa: ANN001
    """"Which cats go to the clinic?" answered `SELECT ?cat`: the cats' IRIs (Spider4SPARQL's pets:
    `…/student/stuid=1001`) become their names, from the schema's name-like properties."""
    from engine.native.kinds import open_store
    from engine.native.querying import write_and_run
    from engine.native.sources import Stores
    from tests.scripted import ScriptedLLM

    store, source = pets
    stores = Stores(None, None, store)
    query = ("PREFIX pet: <http://example.org/pets#>\n"
             "SELECT ?cat WHERE { ?cat a pet:Cat ; pet:vet pet:clinic . } ORDER BY ?cat")
    raw = open_store(source, stores).execute(open_store(source, stores).explain(query))
    assert sorted(raw.rows) == [("http://example.org/pets#kit",), ("http://example.org/pets#tom",)]
    outcome = write_and_run(ScriptedLLM([query]), "Which of my cats go to the clinic?", source, stores)
    assert outcome.ok and sorted(outcome.result.rows) == [("Kit",), ("Tom",)]
    assert outcome.result.columns == ["cat_name"] and "OPTIONAL { ?cat pet:name ?cat_name }" in outcome.query


def test_an_entity_whose_name_is_the_property_named_as_its_class_is_given_it(tmp_path):  # noqa: ANN001
    """Spider4SPARQL's orchestras are named by `orchestra:orchestra` ("Seattle Symphony Orchestra"):
    "Which orchestras does Gerard Schwarz conduct?" answered with the orchestra's IRI gets that name."""
    from engine.native.querying import write_and_run
    from engine.native.sources import Source, Stores
    from local_stores.rdf_store import RdfStore
    from tests.conftest import shared_path
    from tests.scripted import ScriptedLLM

    path = shared_path("eval", "sparql", "spider4sparql", "kg", "orchestra_triples.ttl")
    store = RdfStore(tmp_path / "rdf")
    source = Source("orchestra", "rdf", "oxigraph", str(path), store.load("orchestra", path))
    query = ("PREFIX conductor: <http://valuenet/ontop/conductor#>\nPREFIX orchestra: <http://valuenet/ontop/orchestra#>\n"
             "SELECT ?orchestra WHERE { ?conductor conductor:name ?n . ?orchestra orchestra:ref-conductor_id "
             '?conductor FILTER(lcase(str(?n)) = "gerard schwarz") }')
    outcome = write_and_run(ScriptedLLM([query]), "Which orchestras does Gerard Schwarz conduct?", source,
                            Stores(None, None, store))
    assert outcome.ok and outcome.result.rows == [("Seattle Symphony Orchestra",)]


def test_a_count_named_after_a_property_the_data_holds_is_sent_back(tmp_path):  # noqa: ANN001
    """"Which American conductors have the most years of work?" written as `(COUNT(?conductor) AS
    ?yearsOfWork)`: the data holds conductor:year_of_work, which the repair is told to select."""
    from engine.native.sources import Source
    from engine.native.writers import sparql
    from local_stores.rdf_store import RdfStore
    from tests.conftest import shared_path

    path = shared_path("eval", "sparql", "spider4sparql", "kg", "orchestra_triples.ttl")
    store = RdfStore(tmp_path / "rdf")
    source = Source("orchestra", "rdf", "oxigraph", str(path), store.load("orchestra", path))
    counted = ("PREFIX conductor: <http://valuenet/ontop/conductor#>\nSELECT ?name (COUNT(?c) AS ?yearsOfWork) "
               'WHERE { ?c conductor:name ?name ; conductor:nationality "USA" } GROUP BY ?name')
    assert "conductor:year_of_work holds that value" in (sparql.check(counted, source) or "")
    counts = counted.replace("?yearsOfWork", "?conductors")
    assert sparql.check(counts, source) is None


def test_a_count_of_a_propertys_own_values_stands_on_the_spider_cars(tmp_path):  # noqa: ANN001
    """"How many continents are there?" counted the distinct values of continents:continent `AS
    ?continents`: a count of that property's values, not rows counted for a value it holds."""
    from engine.native.sources import Source
    from engine.native.writers import sparql
    from local_stores.rdf_store import RdfStore
    from tests.conftest import shared_path

    path = shared_path("eval", "sparql", "spider4sparql", "kg", "car_1_triples.ttl")
    store = RdfStore(tmp_path / "rdf")
    source = Source("car_1", "rdf", "oxigraph", str(path), store.load("car_1", path))
    values = ("PREFIX continents: <http://valuenet/ontop/continents#>\nSELECT (COUNT(DISTINCT ?name) AS "
              "?continents) WHERE { ?c continents:continent ?name . }")
    assert sparql.check(values, source) is None
    rows = values.replace("COUNT(DISTINCT ?name)", "COUNT(?c)")
    assert "holds that value" in (sparql.check(rows, source) or "")
    assert [int(str(v)) for (v,) in store.execute("car_1", values, 5.0, 10).rows] == [5]


def test_a_singer_is_named_by_their_name_not_their_songs(tmp_path):  # noqa: ANN001
    """"Which singers performed at Somerset Park?" answered with the singers' IRIs read "Tribal King,
    Love, Justin Brown, Hey Oh, …": `singer:song_name` was taken for a name beside `singer:name`."""
    from engine.native.querying import write_and_run
    from engine.native.sources import Source, Stores
    from local_stores.rdf_store import RdfStore
    from tests.conftest import shared_path
    from tests.scripted import ScriptedLLM

    path = shared_path("eval", "sparql", "spider4sparql", "kg", "concert_singer_triples.ttl")
    store = RdfStore(tmp_path / "rdf")
    source = Source("concerts", "rdf", "oxigraph", str(path), store.load("concerts", path))
    query = ("PREFIX singer: <http://valuenet/ontop/singer#>\n"
             "SELECT ?singer WHERE { ?singer singer:country ?c . FILTER(?c = \"France\") }")
    outcome = write_and_run(ScriptedLLM([query]), "Which of my singers are from France?", source,
                            Stores(None, None, store))
    assert outcome.ok and outcome.result is not None and len(outcome.result.columns) == 1  # no song names
    assert sorted(outcome.result.rows) == [("John Nizinik",), ("Justin Brown",), ("Rose White",), ("Tribal King",)]
