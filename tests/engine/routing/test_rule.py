"""The rule router sends questions about quantities and relations to the structured sources that
exist, and everything else to text."""

from __future__ import annotations

from engine.routing.rule import RuleRouter
from tests.engine.routing.requests import request

ALL = {"paragraph", "document", "table", "graph", "rdf"}


def labels(question: str, available: set[str] = ALL) -> list[str]:
    return [r.label for r in RuleRouter().route(request(question, available))]


def test_relations_and_quantities_go_to_every_structured_corpus_there_is():
    assert labels("Which notes link to the garden plan?") == ["table", "graph", "rdf", "paragraph"]
    assert labels("Who are the grandchildren of Astrid?", {"paragraph", "graph"}) == ["graph", "paragraph"]
    assert labels("How much did I spend in March?", {"paragraph", "table"}) == ["table", "paragraph"]


def test_plain_questions_stay_with_text_and_summaries_with_documents():
    assert labels("What is the hotel booking reference?") == ["paragraph"]
    assert labels("Summarise the letter to my landlord") == ["document"]
    assert labels("anything", {"graph"}) == ["graph"]  # no text corpus: the structured one is all there is
    assert labels("anything", set()) == ["none"]


VISUAL = ALL | {"image", "region", "clip", "video"}


def test_photo_questions_go_to_photos_and_the_elements_inside_them():
    assert labels("Show me the photos from the beach", VISUAL) == ["image", "region"]
    assert labels("What does the sign in the tram photo say?", VISUAL) == ["region", "image"]
    assert labels("How many photos did I take in March 2024?", VISUAL) == ["table", "image", "region"]
    assert labels("Show me the photos from the beach") == ["paragraph"]  # no photos indexed: text it is


def test_video_questions_go_to_clips_or_whole_videos():
    assert labels("When in the video do we reach the castle?", VISUAL) == ["clip", "video"]
    assert labels("What is the video about?", VISUAL) == ["video", "clip"]
