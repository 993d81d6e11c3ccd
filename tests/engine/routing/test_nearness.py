"""The user's structured sources as routing evidence: nearness per label, a doubt between structured
kinds settled by the nearest source, and a near source adding or correcting its route."""

from __future__ import annotations

from pathlib import Path

from engine.routing.base import Route, RouteRequest
from engine.routing.ensemble import EnsembleRouter
from engine.routing.llm_router import LLMRouter
from engine.routing.nearness import by_evidence, by_label, named_kind, named_label, settle_structured, with_sources
from engine.routing.trained import TrainedRouter
from tests.conftest import EXAMPLES

ALL = {"paragraph", "document", "table", "graph", "rdf", "image", "region", "clip", "video"}


def test_nearness_per_label_takes_the_nearest_of_its_source_kinds():
    assert by_label({"table": 0.3, "database": 0.5, "rdf": 0.2}) == {"table": 0.5, "rdf": 0.2}
    assert by_label({}) == {}


def test_a_doubt_between_structured_kinds_goes_to_the_nearest_source():
    probabilities = {"rdf": 0.45, "table": 0.35, "paragraph": 0.3, "graph": 0.05}
    settled = settle_structured(probabilities, {"rdf": 0.2, "table": 0.6, "graph": 0.9}, shortlist=3)
    assert settled["table"] == 0.8 and settled["rdf"] == 0.0
    assert settled["graph"] == 0.05 and settled["paragraph"] == 0.3  # outside the shortlist / not structured
    alone = {"rdf": 0.45, "paragraph": 0.4}
    assert settle_structured(alone, {"rdf": 0.1, "table": 0.9}, shortlist=3) == alone


def labels(routes: list[Route], nearness: dict[str, float]) -> list[tuple[str, str]]:
    return [(r.label, r.router) for r in with_sources(routes, nearness, level=0.5, margin=0.1)]


def test_a_near_source_adds_its_route_or_replaces_none():
    assert labels([Route("paragraph", 0.9, "trained")], {"rdf": 0.55}) == [("paragraph", "trained"), ("rdf", "sources")]
    assert labels([Route("none", 0.65, "trained")], {"table": 0.52}) == [("table", "sources")]


def test_a_far_source_changes_nothing():
    routes = [Route("none", 0.99, "trained")]
    assert with_sources(routes, {"table": 0.3, "rdf": 0.49}, 0.5, 0.1) == routes
    assert with_sources(routes, {}, 0.5, 0.1) == routes


def test_another_structured_route_is_replaced_only_when_its_sources_are_clearly_farther():
    routed = [Route("rdf", 0.9, "trained")]
    assert labels(routed, {"table": 0.6, "rdf": 0.45}) == [("table", "sources")]
    assert labels(routed, {"table": 0.6, "rdf": 0.55}) == [("rdf", "trained")]
    assert labels([Route("table", 0.9, "trained")], {"table": 0.4, "graph": 0.7}) == [("graph", "sources")]


def test_a_routed_structured_kind_gives_way_to_a_clearly_nearer_kind_below_the_adding_level():
    """WikiTableQuestions' "how many hospital have no operating rooms?" read as RDF (0.67): the table
    is 0.40 similar, the nearest RDF graph 0.24. Below the level that adds a route, a clearly nearer
    kind still settles which kind of file holds the data the router said is structured."""
    near = {"table": 0.40, "rdf": 0.24}
    routed = [Route("rdf", 0.67, "trained")]
    assert [r.label for r in with_sources(routed, near, 0.5, 0.1, switch=0.4)] == ["table"]
    assert with_sources(routed, near, 0.5, 0.1) == routed  # without the switch level: the adding level
    assert with_sources(routed, {"table": 0.40, "rdf": 0.35}, 0.5, 0.1, switch=0.4) == routed  # not clearly nearer
    unrouted = [Route("none", 0.9, "trained")]
    assert with_sources(unrouted, near, 0.5, 0.1, switch=0.4) == unrouted  # nothing structured was routed


def test_the_ensemble_follows_the_users_sources(trove):  # noqa: ANN001
    """A running log kept as a database: a question whose words alone read as general knowledge
    (the trained router says `none`) goes to it."""
    trove.index([EXAMPLES / "health"])
    question = "How many kilometres have I run in my Hoka shoes?"
    vector = trove.models.embedder.embed_one(question)
    nearness = trove.native.nearness(vector)
    assert set(nearness) == {"table"} and nearness["table"] > 0.5
    seeing = EnsembleRouter(TrainedRouter(), LLMRouter(trove.models), confident=0.0)
    assert [r.label for r in seeing.route(RouteRequest(question, frozenset(ALL), vector, nearness))] == ["table"]
    assert [r.label for r in trove.route(question)] == ["table"]  # the product's router is the seeing ensemble


def test_a_passage_that_fits_much_better_than_any_source_turns_a_structured_route_to_text():
    routes = by_evidence([Route("rdf", 0.9, "trained")], {"rdf": 0.33, "table": 0.30}, 0.71, 0.1)
    assert [(r.label, r.router) for r in routes] == [("paragraph", "evidence")]


def test_a_source_that_fits_much_better_than_any_passage_turns_a_text_route_to_it():
    routes = by_evidence([Route("paragraph", 0.7, "trained")], {"table": 0.62, "rdf": 0.55}, 0.24, 0.1)
    assert [(r.label, r.router) for r in routes] == [("table", "evidence")]


def test_close_evidence_and_visual_routes_are_left_as_routed():
    assert [r.label for r in by_evidence([Route("table", 0.9, "t")], {"table": 0.5}, 0.55, 0.1)] == ["table"]
    assert [r.label for r in by_evidence([Route("image", 0.9, "t")], {"table": 0.9}, 0.1, 0.1)] == ["image"]


def test_the_kind_of_file_a_question_names_settles_between_structured_kinds():
    available = {"table", "rdf", "graph", "paragraph"}
    routed = [Route("rdf", 0.9, "trained")]
    assert [r.label for r in named_kind(routed, "How many students are in my student database?", available)] == [
        "table"]
    assert [r.label for r in named_kind([Route("table", 0.9, "t")], "In my pets knowledge graph, how many dogs?",
                                        available)] == ["rdf"]
    assert named_kind(routed, "How many students are there?", available) == routed


def test_a_question_that_opens_by_naming_its_table_goes_there_from_a_video_route():
    """"In my diving results table (Sylvie Bernier first), how many final points did Kelly McCormick
    score?" went to the video clips (unseen set); a table inside a photo stays a photo question."""
    available = {"table", "clip", "video", "region", "image", "paragraph"}
    routed = [Route("clip", 0.69, "trained"), Route("paragraph", 0.0, "fallback")]
    diving = named_kind(routed, "In my diving results table (Sylvie Bernier first), how many final points did "
                                "Kelly McCormick score?", available)
    assert [r.label for r in diving] == ["table", "paragraph"]
    kitchen = [Route("region", 0.8, "trained")]
    assert named_kind(kitchen, "How many cups are on the table?", available) == kitchen
    assert named_kind(kitchen, "What is on the kitchen table in my photo?", available) == kitchen


def test_a_question_about_what_is_in_a_photo_or_video_goes_there_not_to_a_graph_of_the_same_subject():
    """"How many zebras are grazing in my photo of zebras?" went to a pets RDF graph (dev set)."""
    available = {"table", "rdf", "region", "image", "clip", "paragraph"}
    zebras = named_kind([Route("rdf", 0.64, "trained")], "How many zebras are grazing in my photo of zebras?",
                        available)
    assert [r.label for r in zebras] == ["region"]
    moment = named_kind([Route("table", 0.7, "t")], "In testvideo.mp4, when does the deer appear?", available)
    assert [r.label for r in moment] == ["clip"]
    taken = [Route("table", 0.9, "t")]  # how many photos there are is the photos table's
    assert named_kind(taken, "How many photos did I take in May 2025?", available) == taken


class _NoneRouter:
    """A router that reads every question as general knowledge (control flow only)."""

    name = "none"

    def route(self, request: RouteRequest) -> list[Route]:  # noqa: ARG002
        return [Route("none", 0.9, "scripted")]


class _TableRouter:
    """A trained router sure every question is about a table (control flow only)."""

    name = "trained"

    def route(self, request: RouteRequest) -> list[Route]:  # noqa: ARG002
        return [Route("table", 0.95, "trained")]


class _RdfRouter:
    """A trained router sure every question is about an RDF graph (control flow only)."""

    name = "trained"

    def route(self, request: RouteRequest) -> list[Route]:  # noqa: ARG002
        return [Route("rdf", 0.95, "trained")]


class _GuessingRouter:
    """The LLM router's guess for a question the trained router was unsure of (control flow only)."""

    name = "llm"

    def route(self, request: RouteRequest) -> list[Route]:  # noqa: ARG002
        return [Route("clip", 0.9, "llm")]


def test_a_question_about_my_own_table_goes_to_the_table_it_names_when_a_passage_is_nearer(trove, tmp_path):  # noqa: ANN001
    """"In my periodic table of elements, how many elements are gases …?" read as general knowledge,
    then sent to the nearest passage (a note on gases) instead of the table of elements it names."""
    import shutil

    from tests.conftest import shared_path

    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(shared_path("eval", "tables", "wtq", "csv", "csv__203-csv__599.csv"), folder / "elements.csv")
    (folder / "gases.txt").write_text("How many elements are gases at standard temperature and pressure? Eleven "
                                      "elements are gases at standard temperature and pressure.\n", encoding="utf-8")
    trove.index([folder])
    trove.routing.router = _NoneRouter()
    question = "In my periodic table of elements, how many elements are gases at standard temperature and pressure?"
    routes = trove.routing.route(question)
    assert [(r.label, r.router) for r in routes] == [("table", "first person")]
    unnamed = trove.routing.route("How many elements are gases at standard temperature and pressure, by my notes?")
    assert [r.label for r in unnamed] == ["paragraph"]  # no kind named: the nearest


def test_a_question_that_names_a_video_is_not_answered_from_photos_nor_the_reverse():
    """"In my short clip of someone reaching behind a computer tower, what are they doing?" went to the
    photos (dev set); a video named goes to its moments, a photo named to its regions."""
    available = {"paragraph", "image", "region", "clip", "video"}
    clip = named_kind([Route("image", 0.93, "t"), Route("paragraph", 0.0, "f")],
                      "In my short clip of someone reaching behind a computer tower, what are they doing?", available)
    assert [r.label for r in clip] == ["clip", "paragraph"]
    photo = named_kind([Route("video", 0.8, "t")], "How many zebras are grazing in my photo of zebras?", available)
    assert [r.label for r in photo] == ["region"]
    found = [Route("image", 0.9, "t")]  # the same medium: a find request keeps its photos
    assert named_kind(found, "Find the dog in my photo of the park.", available) == found


def test_a_general_question_that_names_a_title_only_one_source_holds_goes_to_that_source(trove, tmp_path):  # noqa: ANN001
    """"Who wrote A Few Good Men?" read as general knowledge was answered from a CISI abstract that
    names a Guy R. Lyle; the title is a movie of the user's graph. A name three tables hold (a
    country) is no sign the question is about any one of them."""
    import shutil

    from engine.native import values
    from engine.routing.base import Decision
    from tests.conftest import shared_path

    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(shared_path("eval", "cypher", "movies", "movies.cypher"), folder / "movies.cypher")
    for name in ("csv__203-csv__566.csv", "csv__203-csv__585.csv", "csv__203-csv__617.csv"):  # a cell "United States"
        shutil.copy(shared_path("eval", "tables", "wtq", "csv", name), folder / name)
    trove.index([folder])
    trove.routing.router = _NoneRouter()
    routes = trove.routing.route("Who wrote A Few Good Men?")
    assert [(r.label, r.router) for r in routes] == [("graph", Decision.HELD)]
    common = "Who is the president of the United States?"
    assert len(values.held_by(values.names(common), trove.native.value_index())["united states"]) == 3  # 3 tables
    assert [r.label for r in trove.routing.route(common)] == ["none"]
    assert [r.label for r in trove.routing.route("Who painted the Mona Lisa?")] == ["none"]
    trove.routing.router = _GuessingRouter()  # the trained router was unsure; the LLM router said "a clip"
    routes = trove.routing.route("What part did Cuba Gooding Jr. play in As Good as It Gets?")
    assert [(r.label, r.router) for r in routes][:2] == [("graph", Decision.HELD), ("clip", "llm")]
    assert [r.label for r in trove.routing.route("What part did the actor play in the scene?")][0] == "clip"
    trove.routing.router = _TableRouter()  # sure of the wrong structured kind: the name's holder decides
    assert [(r.label, r.router) for r in trove.routing.route("Who directed A Few Good Men?")] == [
        ("graph", Decision.HELD)]
    assert [r.label for r in trove.routing.route("Which players did the United States draft?")] == ["table"]


def test_a_structured_question_goes_to_the_kind_whose_source_holds_the_name_and_the_field_asked(trove, tmp_path):  # noqa: ANN001
    """"Who is the mayor of Ashdod?" read as RDF: a graph of cities holds Ashdod, a table of Israeli
    cities holds it with its mayor. A field both have (population) leaves the route as it was."""
    from engine.routing.base import Decision

    _table_beside_cities(trove, tmp_path, "csv__204-csv__512.csv", "israel.csv", ("Ashdod", "Haifa", "Lyon"))
    routes = trove.routing.route("Who is the mayor of Ashdod?")
    assert [(r.label, r.router) for r in routes] == [("table", Decision.HELD)]
    assert [r.label for r in trove.routing.route("What is the population of Ashdod?")] == ["rdf"]
    assert [r.label for r in trove.routing.route("Who is the mayor of Lyon?")] == ["rdf"]  # no source holds both


def test_a_question_that_names_a_pdf_goes_to_its_passages_from_a_photo_route():
    """"What fingerprint is given next to the name Foo Bar in my signed overlay PDF?" went to the photos'
    regions at 0.97 (unseen set). A PDF's printed tables are tables: a table route stays."""
    available = {"table", "region", "image", "clip", "paragraph"}
    routed = [Route("region", 0.97, "trained")]
    overlay = named_kind(routed, "What fingerprint is given next to the name Foo Bar in my signed overlay PDF?",
                         available)
    assert [r.label for r in overlay] == ["paragraph"]
    table = [Route("table", 0.92, "trained")]
    assert named_kind(table, "How many employees did the notices in my WARN report PDF affect?", available) == table
    assert named_kind(routed, "What does the sign say in my photo of the document?", available) == routed


def test_of_two_kinds_named_the_file_the_question_is_in_is_the_one_asked():
    available = {"table", "rdf", "paragraph", "region"}
    assert named_label("What currency does the country table in my example document give for Indonesia?",
                       available) == "paragraph"
    assert named_label("In my document templates database, which documents use a presentation (PPT) template?",
                       available) == "table"
    assert named_label("Which documents mention the sales table?", available) is None


def test_a_structured_route_with_no_source_near_enough_goes_to_the_kind_that_has_one(trove, tmp_path):  # noqa: ANN001
    """"How many hospitals have at least 10 operating rooms?" read as RDF: no graph is about hospitals,
    so that route would query nothing; a table has their operating rooms. A question a graph is
    about keeps its route."""
    from engine.routing.base import Decision

    _table_beside_cities(trove, tmp_path, "csv__203-csv__319.csv", "hospitals.csv", ("Ashdod", "Lyon"))
    question = "How many hospitals have at least 10 operating rooms?"
    reachable = trove.native.reachable(question, trove.models.embedder.embed_one(question))
    assert reachable["rdf"] < trove.settings.source_min_similarity <= reachable["table"]
    assert [(r.label, r.router) for r in trove.routing.route(question)] == [("table", Decision.SOURCES)]
    assert [r.label for r in trove.routing.route("What is the population of the city of Lyon?")] == ["rdf"]


POPULATIONS = {"Ashdod": 204153, "Haifa": 265600, "Lyon": 513275}


def _table_beside_cities(trove, tmp_path: Path, wtq_file: str, name: str, cities: tuple[str, ...]) -> None:  # noqa: ANN001
    """A WikiTableQuestions table and a small RDF graph of `cities` indexed together, with a router sure
    every question is about an RDF graph."""
    import shutil

    from tests.conftest import shared_path

    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(shared_path("eval", "tables", "wtq", "csv", wtq_file), folder / name)
    (folder / "cities.ttl").write_text("@prefix ex: <http://example.org/> .\n" + "".join(
        f'ex:{city.lower()} a ex:City ; ex:name "{city}" ; ex:population {POPULATIONS[city]} .\n' for city in cities),
        encoding="utf-8")
    trove.index([folder])
    trove.routing.router = _RdfRouter()
