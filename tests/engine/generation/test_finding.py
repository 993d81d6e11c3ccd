"""Find/show requests are answered by the ranked items: one per file, the best region or moment of
each, with what it shows; facts asked about a photo are not find requests."""

from engine.generation.evidence import Evidence, evidence_of
from engine.generation.finding import answer, is_find


def _ev(n: int, kind: str, source: str, text: str, score: float, locator: dict | None = None) -> Evidence:
    return evidence_of(n, kind, source, source.rsplit("/", 1)[-1], locator or {}, text, score)


def test_find_and_show_requests_are_told_from_questions_of_fact():
    for question in ("Find my photo of a cat.", "Show me the video of people walking in a hall.",
                     "Do I have a picture of a giraffe?", "Which of my papers discuss boundary layers?",
                     "Which files mention the boiler?", "Find the article by Vannevar Bush about memory."):
        assert is_find(question), question
    for question in ("How many people are standing next to the bus in my photo?", "Which movies were released "
                     "before 1990?", "What is written on the sign in my photo?", "Show the average age of singers",
                     "Which document says when the case was argued?"):
        assert not is_find(question), question


def test_a_find_answer_lists_the_best_item_of_each_file_most_relevant_first():
    evidence = [_ev(1, "region", "/p/chelsea.png", "A cat.", 0.73, {"box": [10, 10, 200, 200]}),
                _ev(2, "image", "/p/chelsea.png", "Photo chelsea.png, taken 2020.", 0.72),
                _ev(3, "region", "/p/coffee.png", "A cup.", 0.40),
                _ev(4, "image", "/p/cat2.jpg", "Shows 2 cats.", 0.70)]
    draft = answer(evidence)
    assert draft.text == "Found chelsea.png [1] — A cat. Also: cat2.jpg [4] — Shows 2 cats."
    assert draft.cited == [1, 4] and draft.answered


def test_a_moment_is_listed_with_its_span():
    evidence = [_ev(1, "clip", "/v/vtest.avi", "People walk along a path.", 0.5, {"start_s": 0.0, "end_s": 12.4})]
    assert answer(evidence).text == "Found vtest.avi [1] — 0:00–0:12: People walk along a path."


def test_nothing_listable_gives_no_find_answer():
    assert answer([_ev(1, "table", "/t/sales.csv", "count: 3", 0.9)]) is None


def test_only_photos_that_name_what_is_asked_are_found():
    evidence = [_ev(1, "image", "/p/camera.png", "Photo camera.png. Shows 1 person.", 0.28),
                _ev(2, "image", "/p/bus.jpg", "Photo bus.jpg. Shows 3 people, 1 bus.", 0.26)]
    draft = answer(evidence, "Find my photo of a bus.")
    assert draft.text == "Found bus.jpg [2] — Photo bus.jpg. Shows 3 people, 1 bus." and draft.cited == [2]
    walking = answer([_ev(1, "clip", "/v/vtest.avi", "A person. A person.", 0.4, {"start_s": 0.0, "end_s": 9.0})],
                     "Show me the video of people walking in a hall.")
    assert walking.answered and walking.cited == [1]  # people: the detector's "person"


def test_when_no_photo_shows_what_is_asked_the_answer_says_so_and_names_the_closest():
    evidence = [_ev(1, "image", "/p/camera.png", "Shows 1 person.", 0.28),
                _ev(2, "image", "/p/chelsea.png", "Shows 1 cat.", 0.27)]
    draft = answer(evidence, "Find my photo of a bus.")
    assert not draft.answered and draft.cited == []
    assert draft.text == ("No photo in your files shows a bus. "
                          "The closest: camera.png (Shows 1 person); chelsea.png (Shows 1 cat).")


def test_passages_are_listed_without_the_photo_words_check():
    evidence = [_ev(1, "paragraph", "/d/boiler.md", "Annual service of the heating unit.", 0.5)]
    assert answer(evidence, "Which files mention the boiler?").cited == [1]


def test_a_photo_must_show_the_thing_asked_for_not_only_what_it_sits_on():
    """COCO 358083: "a cat sitting on the toilet tank" — photos of a toilet alone are no find."""
    toilets = [_ev(1, "region", "/p/000000089232.jpg", "A grey toilet.", 0.5),
               _ev(2, "region", "/p/000000432430.jpg", "A white toilet.", 0.48)]
    question = "Find my photo of a cat sitting on the toilet tank next to its reflection in the mirror."
    draft = answer(toilets, question)
    assert not draft.answered and draft.cited == [] and draft.text.startswith("No photo in your files shows a cat")
    cat = _ev(3, "region", "/p/000000358083.jpg", "A cat. A toilet.", 0.47)
    assert answer([*toilets, cat], question).cited == [3]


def test_a_photo_the_classifier_is_sure_of_is_found_by_the_name_the_detector_lacks():
    """COCO's panda photo: the detector knows no pandas ("Shows 1 bear"), the classifier is sure
    ("giant panda, panda, …", 0.96, as `test_a_real_panda_photo_is_classified_sure_enough` reads it)."""
    labels = [["giant panda, panda, panda bear, coon bear, Ailuropoda melanoleuca", 0.961],
              ["tiger cat", 0.9]]
    evidence = [_ev(1, "image", "/p/000000249346.jpg", "Photo 000000249346.jpg.", 0.63, {"labels": labels})]
    assert answer(evidence, "Show me my picture of a panda.").cited == [1]
    for unsure in ("Find my photo of a tiger.", "Find my photo of a giraffe."):  # a word inside a name; none
        assert not answer(evidence, unsure).answered, unsure
    doubtful = [_ev(1, "image", "/p/x.jpg", "Photo x.jpg.", 0.6, {"labels": [["giant panda, panda", 0.3]]})]
    assert not answer(doubtful, "Show me my picture of a panda.").answered


def test_a_file_listed_for_a_request_over_texts_holds_most_of_its_words():
    """"Which of my aerodynamics papers studies ice accretion on wings, and what did it find?" listed
    Cranfield abstracts on wings and slipstreams (unseen set): none mentions ice. A paper that is what
    the request asks for is still listed."""
    import json

    from tests.conftest import shared_path

    lines = shared_path("eval", "text", "cranfield", "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    abstracts = {doc["_id"]: doc for doc in map(json.loads, lines)}

    def item(n: int, doc_id: str, score: float) -> Evidence:
        doc = abstracts[doc_id]
        return evidence_of(n, "paragraph", f"/cranfield/{doc_id}.txt", doc.get("title", ""), {}, doc["text"], score)

    wings = [item(1, "289", 0.62), item(2, "1", 0.60)]
    draft = answer(wings, "Which of my aerodynamics papers studies ice accretion on wings, and what did it find?")
    assert draft is not None and not draft.cited and not draft.answered
    assert draft.text.endswith("do not mention ice, accretion.") and "289.txt" in draft.text
    slipstream = answer(wings, "Which of my papers studies a wing in a slipstream?")
    assert slipstream is not None and slipstream.cited and "1.txt" in slipstream.text


def test_a_thing_the_detector_names_in_two_words_is_what_a_photo_must_show():
    """"Find my photo of a stop sign next to a bush with red flowers." said no photo shows it, the
    closest being the COCO photo described "A brown stop sign" (unseen set): "stop sign" is one class."""
    from engine.generation.finding import main_thing

    assert main_thing("Find my photo of a stop sign next to a bush with red flowers.") == "stop sign"
    assert main_thing("Find my photo of a cat sitting on the toilet tank") == "cat"
    evidence = [_ev(1, "region", "/p/000000525891.jpg", "A brown stop sign.", 0.6, {"box": [1, 2, 30, 40]}),
                _ev(2, "image", "/p/garden.jpg", "Shows 1 potted plant. Looks like: pot, flowerpot", 0.55)]
    draft = answer(evidence, "Find my photo of a stop sign next to a bush with red flowers.")
    assert draft.text.startswith("Found 000000525891.jpg [1]") and draft.cited == [1]


def test_a_request_for_one_video_of_people_lists_those_that_show_several_before_one_person():
    """The descriptions of four real videos (the OpenCV and MSR-VTT samples): the walkers' video
    (vtest.avi) ranked fourth by file, after one whose only clip shows one person."""
    evidence = [_ev(1, "video", "/v/video9770.mp4", "Video video9770.mp4: 0:11 long, 1 clips.\nShows person.", 0.60),
                _ev(2, "clip", "/v/video9770.mp4", "Clip 1 of 1 of the video video9770.mp4.\nShows 1 person.", 0.31,
                    {"start_s": 0.0, "end_s": 11.0}),
                _ev(3, "clip", "/v/Megamind.avi", "Clip 1 of 3 of the video Megamind.avi.\nShows 3 people, 1 tie.",
                    0.59, {"start_s": 0.0, "end_s": 4.0}),
                _ev(4, "video", "/v/video9771.mp4", "Video video9771.mp4: 0:14 long, 2 clips.\nShows person.", 0.58),
                _ev(5, "clip", "/v/video9771.mp4", "Clip 2 of 2 of the video video9771.mp4.\nShows 2 people, 1 bench.",
                    0.57, {"start_s": 7.0, "end_s": 14.0}),
                _ev(6, "clip", "/v/vtest.avi", "Clip 1 of 3 of the video vtest.avi.\nShows 5 people, 2 cars.", 0.569,
                    {"start_s": 0.0, "end_s": 26.0})]
    asked = "Show me the video of people walking along a path past a brick building."
    walking = answer(evidence, asked)
    assert walking.cited == [3, 4, 6]  # video9770.mp4 shows one person only
    uncounted = answer(evidence[:1] + evidence[2:], asked)  # its clip not among the evidence
    assert 1 not in uncounted.cited
    videos = answer(evidence, "Show me my videos of people.")  # several videos, each may show one person
    assert 1 in videos.cited
    one = answer(evidence, "Show me the video of a person on a beam.")
    assert 1 in one.cited
    girl = answer([_ev(1, "video", "/v/video9771.mp4", "Video video9771.mp4.\nShows 2 people, 1 bench.", 0.56)],
                  "Show me the video of a little girl doing gymnastics.")
    assert girl.cited == [1]  # "people" names the detector's person as "person" does
