"""The answer a question's evidence allows: a video moment is stated only when its clip shows what
the question asks about; otherwise the answer says what the nearest clip does show."""

from __future__ import annotations

from engine.generation.answer import NOT_FOUND
from engine.generation.answerer import not_shown, shows_asked
from engine.generation.evidence import Evidence, evidence_of

GYMNASTICS = ("Clip 1 of 2 of the video video9771.mp4 (video9771), from 0:00 to 0:07.\nShows 1 person.\n"
              "Looks like: balance beam, beam, parallel bars, bars.")
LISBON = ("Clip 2 of 4 of the video lisbon-day.mp4 (lisbon day), from 0:06 to 0:12.\n"
          "Said: the tram climbs up to the castle.\nShows 1 train.")


def _clip(text: str, source: str) -> Evidence:
    return evidence_of(1, "clip", source, source, {"start_s": 0.0, "end_s": 6.573}, text, 0.7)


def test_a_moment_needs_its_clip_to_show_what_is_asked():
    gymnastics = _clip(GYMNASTICS, "/v/video9771.mp4")
    assert not shows_asked("When does the dog run across the mat in my gymnastics video?", gymnastics)
    assert shows_asked("When is someone on the balance beam?", gymnastics)
    lisbon = _clip(LISBON, "/v/lisbon-day.mp4")
    assert shows_asked("When in the Lisbon video do we ride up to the castle?", lisbon)
    assert not shows_asked("When in the Lisbon video do we see the sea?", lisbon)  # its name is no evidence
    assert shows_asked("When does it start in lisbon-day.mp4?", lisbon)  # nothing asked beyond the video


def test_no_moment_says_what_the_nearest_clip_shows():
    text = not_shown(_clip(GYMNASTICS, "/v/video9771.mp4"))
    assert text.startswith("Your videos do not show this.")
    assert "video9771.mp4 from 0:00 to 0:07" in text and "Shows 1 person." in text


def test_a_question_its_sources_could_not_be_queried_for_is_not_answered_from_general_knowledge(trove):  # noqa: ANN001
    import numpy as np

    from engine.result import QueryRun
    from engine.retrieval.gathering import Gathered
    from engine.routing.base import Route
    from tests.scripted import ScriptedLLM

    trove.models.llm = ScriptedLLM(["Leonardo da Vinci painted it."])
    failed = [QueryRun("cypher", "family", "MATCH (a) WHERE lower(a.name) = 'astrid' RETURN a", False,
                       "Unknown function 'lower'")]
    sure = Gathered([Route("graph", 0.93, "rule")], [], failed, np.zeros(384, dtype=np.float32))
    result = trove.answerer.answer("Who are the grandchildren of Astrid Lindqvist?", sure, [])
    assert not result.answered and not result.general and trove.models.llm.sent == []
    assert result.answer.startswith("I could not answer this from family: no query I wrote for it ran "
                                    "(Unknown function 'lower')")
    unsure = Gathered([Route("graph", 0.31, "rule")], [], failed, np.zeros(384, dtype=np.float32))
    general = trove.answerer.answer("Who painted the Mona Lisa?", unsure, [])  # misrouted by its words
    assert general.general and "Leonardo da Vinci" in general.answer


def test_a_question_whose_sure_query_found_nothing_is_not_answered_from_general_knowledge(trove):  # noqa: ANN001
    """"How many points did Ann Fargher have?": the diving table's query ran and found no final points
    for her; the model's own answer ("10 points in the 1984 NBA Finals") was given, labelled."""
    import numpy as np

    from engine.result import QueryRun
    from engine.retrieval.gathering import Gathered
    from engine.routing.base import Route
    from tests.scripted import ScriptedLLM

    trove.models.llm = ScriptedLLM([])  # asking the model would fail the test
    empty = [QueryRun("sql", "diving", "SELECT SUM(final_points) FROM diving WHERE diver ILIKE '%ann fargher%'",
                      True, None, 0)]
    sure = Gathered([Route("table", 0.99, "trained")], [], empty, np.zeros(384, dtype=np.float32))
    result = trove.answerer.answer("how many points did ann fargher have?", sure, [])
    assert not result.answered and not result.general
    assert result.answer == "I could not find this in diving: the query I wrote for it found nothing that answers it."


def test_a_source_seen_unable_to_answer_before_any_query_says_why_without_a_query():
    from engine.generation.answerer import queries_failed
    from engine.result import QueryRun

    unwritten = QueryRun("sql", "warn", "", False, "the question asks why, and no field of this source holds a reason")
    assert queries_failed([unwritten]) == ("I could not answer this from warn: the question asks why, and no field of "
                                           "this source holds a reason.")


def test_a_general_question_no_file_speaks_of_is_answered_as_general_knowledge(trove):  # noqa: ANN001
    """Routed to files by its words, answered "not found" from them: when none of the files found names
    what the question asks about, the model's own answer is given, said to be general knowledge; when
    they do name it, the answer stays that the files do not say."""
    import numpy as np

    from engine.retrieval.gathering import Gathered
    from engine.retrieval.hybrid import Hit
    from engine.routing.base import Route
    from local_stores.corpus_store import Item
    from tests.scripted import ScriptedLLM

    capitals = Item("text/paragraph", "/f/countries.pdf", "Country Indonesia Germany. Capital Jakarta Berlin.",
                    {"start": 0, "end": 50}, title="Example document")
    hits = [("paragraph", Hit(capitals, 0.6, {"dense": 0.6, "bm25": 1.0}))]
    routed = Gathered([Route("rdf", 0.69, "trained")], hits, [], np.zeros(384, dtype=np.float32))
    trove.models.llm = ScriptedLLM(["The capital of Japan is Jakarta [1].", f"{NOT_FOUND}", "Tokyo."])
    result = trove.answerer.answer("What is the capital of Japan?", routed, [])
    assert result.general and result.answer.endswith("Tokyo.") and result.citations == []
    trove.models.llm = ScriptedLLM([NOT_FOUND])
    kept = trove.answerer.answer("What is the capital of Indonesia?", routed, [])
    assert not kept.general and not kept.answered and len(trove.models.llm.sent) == 1


def test_a_when_question_after_naming_its_video_is_answered_by_the_clip_or_says_it_is_not_shown():
    from engine.generation.answerer import _moment_answer

    gymnastics = _clip(GYMNASTICS, "/v/video9771.mp4")
    asked = "In my gymnastics video, when is someone on the balance beam?"
    moment = _moment_answer(asked, [gymnastics])
    assert moment is not None and moment[1] == ["0:00", "0:07"] and shows_asked(asked, gymnastics)
    assert _moment_answer("In my gymnastics video, who is on the beam?", [gymnastics]) is None


def test_a_clip_whose_labels_share_one_word_with_a_long_description_does_not_show_it():
    """testvideo.mp4 (PySceneDetect): its first clip is labelled "rock crab"; "the brown leaf lying on a
    dark rock" is another clip, which its labels do not describe."""
    first = _clip("Clip 1 of 3 of the video testvideo.mp4 (testvideo), from 0:00 to 0:06.\nShows 1 bird.\n"
                  "Looks like: rock crab, Cancer irroratus.", "/v/testvideo.mp4")
    assert not shows_asked("In testvideo.mp4, when does the video cut to the brown leaf lying on a dark rock?", first)
    assert shows_asked("In testvideo.mp4, when is the rock crab seen?", first)


def test_a_question_about_ones_own_life_is_never_answered_from_general_knowledge(trove):  # noqa: ANN001
    """"What did my dentist say at my last appointment?", routed to `none` with no file near it, used to
    get the model's invention ("My dentist said that I needed to brush …"), marked general knowledge.
    Only the files can answer it; advice in the first person still gets the model's answer."""
    import numpy as np

    from engine.generation.answer import GENERAL_NOTE
    from engine.retrieval.gathering import Gathered
    from engine.routing.base import Route
    from tests.scripted import ScriptedLLM

    nothing = Gathered([Route("none", 0.9)], [], [], np.zeros(384, dtype=np.float32))
    trove.models.llm = ScriptedLLM(["Your dentist said to floss."])
    mine = trove.answerer.answer("What did my dentist say at my last appointment?", nothing, [])
    assert not mine.general and not mine.answered and trove.models.llm.sent == []
    trove.models.llm = ScriptedLLM(["Fill it with half water, half vinegar, boil and rinse."])
    advice = trove.answerer.answer("How do I descale my kettle?", nothing, [])
    assert advice.general and advice.answer.startswith(GENERAL_NOTE)


def test_a_question_about_a_record_is_not_general_knowledge_even_without_my():
    from engine.generation.answerer import _general

    assert _general("What is the capital of Japan?") and _general("Who painted the Mona Lisa?")
    assert not _general("How many permit checks did Illinois have in the November 2015 NICS background check report?")
    assert not _general("In the precinct bulletin for Acton Group 13, how many ballots were cast?")
    assert not _general("What did I pay for the boiler?")


def test_a_general_question_is_not_answered_from_passages_that_never_name_its_subject(trove):  # noqa: ANN001
    """Routed "none", the fallback passages found by its words (a textbook's preface for "Who wrote
    Pride and Prejudice?") are not written into an answer: the model's own, said to be general."""
    import numpy as np

    from engine.retrieval.gathering import Gathered
    from engine.retrieval.hybrid import Hit
    from engine.routing.base import Decision, Route
    from local_stores.corpus_store import Item
    from tests.scripted import ScriptedLLM

    preface = Item("text/paragraph", "/f/93.txt", "The book is the result of a collaborative effort over seven years.",
                   {"start": 0, "end": 66}, title="Preface")
    hits = [("paragraph", Hit(preface, 0.6, {"dense": 0.6, "bm25": 1.0}))]
    routes = [Route("none", 0.96, "trained"), Route("paragraph", 0.0, Decision.FALLBACK)]
    trove.models.llm = ScriptedLLM(["Jane Austen wrote it."])
    result = trove.answerer.answer("Who wrote Pride and Prejudice?", Gathered(routes, hits, [], np.zeros(384)), [])
    assert result.general and result.answer.endswith(": Jane Austen wrote it.") and result.citations == []
    assert len(trove.models.llm.sent) == 1  # no answer was written from the preface first


def test_a_query_result_picked_by_numbers_alone_is_no_evidence_for_a_named_subject():
    from engine.generation.answerer import on_subject

    def result(query: str, text: str) -> Evidence:
        return evidence_of(1, "table", "/t/films.csv", "films.csv: SQL result",
                           {"query": query, "values": ["$10.8 billion"], "result": text, "result_rows": [[text]]},
                           f"For the question 'How much did Top Gun earn?', computed from films.csv: {text}", 1.0)

    def kept(question: str, found: Evidence) -> bool:
        return on_subject(question, [found]) == [found]

    top = result("SELECT box_office FROM films WHERE rank = 1", "box_office = $10.8 billion")
    assert not kept("How much did Top Gun earn at the box office?", top)
    assert kept("How much did the top film earn at the box office?", top)  # nothing named
    named = result("SELECT box_office FROM films WHERE title = 'Top Gun'", "box_office = $357 million")
    assert kept("How much did Top Gun earn at the box office?", named)
    coded = result("SELECT count(*) FROM flights WHERE destairport = 'ABZ'", "count = 21")
    assert kept("How many flights arrive in Aberdeen?", coded)  # a value linked to a code
    whole = result("SELECT count(*) FROM churches", "count = 9")
    assert kept("How many churches are in my Levanger table?", whole)
    built = result("SELECT count(*) FROM churches WHERE built BETWEEN 1800 AND 1899", "count = 4")
    assert kept("In my table of churches in Levanger, how many were built in the 1800s?", built)  # its file's name


def test_an_answer_from_a_result_about_something_else_says_the_files_do_not_say(trove):  # noqa: ANN001
    import numpy as np

    from engine.generation.answer import NOT_BACKED
    from engine.retrieval.gathering import Gathered
    from engine.retrieval.hybrid import Hit
    from engine.routing.base import Route
    from local_stores.corpus_store import Item
    from tests.scripted import ScriptedLLM

    row = Item("table/result", "/t/films.csv", "For the question 'How much did Top Gun earn?', computed from "
               "films.csv: box office is $10.8 billion.", {"query": "SELECT box_office FROM films WHERE rank = 1",
                                                            "values": ["$10.8 billion"],
                                                            "result_rows": [["$10.8 billion"]]}, title="films.csv")
    gathered = Gathered([Route("table", 0.9, "llm")], [("table", Hit(row, 1.0, {}, given=True))], [],
                        np.zeros(384, dtype=np.float32))
    trove.models.llm = ScriptedLLM(["$10.8 billion [1]"])
    result = trove.answerer.answer("How much did Top Gun earn at the box office?", gathered, [])
    assert result.answer == NOT_BACKED and not result.answered and result.citations == []
    assert trove.models.llm.sent == []
