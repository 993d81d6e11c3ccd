"""Counting things in a photo: from the detector's regions of the question's class in the best
photo, citing their boxes, saying how sure and what a detector misses."""

from engine.generation.evidence import Evidence, evidence_of
from engine.grounding.counting import answer, target, targets


def _decision(label: str, score: float, kind: str = "object") -> dict:
    return {"region": {"kind": kind, "label": label, "box": [0, 0, 10, 10], "score": score, "text": ""}}


def _evidence() -> list[Evidence]:
    photo = "/p/bus.jpg"
    grounding = [_decision("person", 0.89), _decision("person", 0.88), _decision("bus", 0.76),
                 _decision("person", 0.41), _decision("face", 0.9, kind="face")]
    return [evidence_of(1, "region", photo, "bus.jpg", {"label": "person", "box": [1, 1, 5, 5]}, "A person.", 0.6),
            evidence_of(2, "region", photo, "bus.jpg", {"label": "bus", "box": [0, 0, 9, 9]}, "A bus.", 0.6),
            evidence_of(3, "region", photo, "bus.jpg", {"label": "person", "box": [6, 1, 9, 5]}, "A person.", 0.59),
            evidence_of(4, "image", photo, "bus.jpg", {"grounding": grounding}, "Photo bus.jpg.", 0.58),
            evidence_of(5, "image", "/p/other.jpg", "other.jpg", {"grounding": [_decision("person", 0.9)]}, "x", 0.5)]


def test_the_counted_class_is_read_from_the_question():
    assert target("How many people are standing next to the bus in my photo?") == "person"
    assert target("How many traffic lights are there?") == "traffic light"
    assert target("How many toothbrushes are in the holder?") == "toothbrush"
    assert target("How many photos did I take in May?") is None and target("Who is in the photo?") is None


def test_the_count_is_the_detectors_in_the_best_photo_with_its_boxes_cited():
    draft = answer("How many people are standing next to the bus?", _evidence())
    assert draft.text.startswith("The object detector found 3 people in bus.jpg [1][3], one of them less surely;")
    assert draft.cited == [1, 3] and draft.answered


def test_nothing_of_the_class_found_is_said_as_what_the_detector_saw():
    draft = answer("How many dogs are in my photo of the bus?", _evidence())
    assert draft.text.startswith("The object detector found no dogs in bus.jpg [4]")


def test_when_the_best_photo_has_none_of_the_class_the_next_photo_with_some_is_counted():
    """"How many toothbrushes …" answered 0 from coins.png, ranked first, while the holder's photo came next."""
    coins = evidence_of(1, "image", "/p/coins.png", "coins.png", {"grounding": [_decision("clock", 0.7)]}, "x", 0.6)
    holder = evidence_of(2, "image", "/p/holder.jpg", "holder.jpg",
                         {"grounding": [_decision("toothbrush", 0.8), _decision("toothbrush", 0.6)]}, "y", 0.5)
    draft = answer("How many toothbrushes are in the holder in my photo?", [coins, holder])
    assert draft.text.startswith("The object detector found 2 toothbrushes in holder.jpg [2]")


def test_the_photo_counted_is_the_one_showing_the_other_things_the_question_describes():
    """People counted in the photo with the frisbee and the dog, not in the first photo with people."""
    street = evidence_of(1, "image", "/p/street.jpg", "street.jpg",
                         {"grounding": [_decision("person", 0.9), _decision("car", 0.8)]}, "x", 0.7)
    seen = [_decision("person", 0.9), _decision("person", 0.7), _decision("dog", 0.8), _decision("frisbee", 0.6)]
    woods = evidence_of(2, "image", "/p/woods.jpg", "woods.jpg", {"grounding": seen}, "y", 0.5)
    draft = answer("In my photo of people playing frisbee in the woods with a dog, how many people are there?",
                   [street, woods])
    assert draft.text.startswith("The object detector found 2 people in woods.jpg [2]")


def test_no_photo_with_the_counted_things_nor_what_is_described_is_not_found_not_zero():
    coins = evidence_of(1, "image", "/p/coins.png", "coins.png", {"grounding": [_decision("clock", 0.7)]}, "x", 0.6)
    draft = answer("How many toothbrushes are in the holder in my photo taken from above?", [coins])
    assert not draft.answered and draft.cited == [] and "could not find a photo" in draft.text
    named = answer("How many toothbrushes are in coins.png?", [coins])
    assert named.answered and named.text.startswith("The object detector found no toothbrushes in coins.png [1]")


def test_among_photos_showing_the_counted_thing_the_one_holding_the_best_scored_region_is_counted():
    """The evidence comes grouped by photo: horse.png's zebra (0.677) came first, the photo of two
    zebras' regions (0.681) after it; the count is the better match's."""
    horse = [evidence_of(1, "region", "/p/horse.png", "horse.png", {"label": "zebra", "box": [0, 0, 9, 9]}, "A zebra.",
                         0.677),
             evidence_of(2, "image", "/p/horse.png", "horse.png", {"grounding": [_decision("zebra", 0.5)]}, "x", 0.670)]
    herd = [evidence_of(3, "region", "/p/herd.jpg", "herd.jpg", {"label": "zebra", "box": [0, 0, 4, 4]}, "A zebra.",
                        0.681),
            evidence_of(4, "image", "/p/herd.jpg", "herd.jpg",
                        {"grounding": [_decision("zebra", 0.8), _decision("zebra", 0.7)]}, "y", 0.667)]
    draft = answer("How many zebras are grazing in my photo of zebras?", horse + herd)
    assert draft.text.startswith("The object detector found 2 zebras in herd.jpg [3]")


def test_every_class_the_question_counts_is_counted_in_the_same_photo():
    """"How many people …, and how many dogs?" answered the people alone."""
    question = "How many people are in my photo of the guys playing frisbee in the woods, and how many dogs?"
    assert targets(question) == ["person", "dog"]
    draft = answer(question, _evidence())
    assert draft.text.startswith("The object detector found 3 people in bus.jpg [1][3]")
    assert draft.text.endswith("It found no dogs there [4].") and draft.cited == [1, 3, 4]
    both = answer("How many people and how many buses are in bus.jpg?", _evidence())
    assert both.text.endswith("It found 1 bus there [2].") and both.cited == [1, 3, 2]
