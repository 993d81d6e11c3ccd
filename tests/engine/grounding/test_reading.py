"""Reading the text in a photo from the OCR's regions: quoted, cited per box, the largest lettering
or the numbers first when the question asks for them; never for a question about a document."""

from __future__ import annotations

from engine.generation.evidence import Evidence, evidence_of
from engine.grounding.reading import answer, asks_to_read

BUS = "/p/bus.jpg"


def _bus() -> list[Evidence]:
    """bus.jpg (ultralytics) as grounding gives it: the bus, then the texts the OCR read on it."""
    def text(n: int, words: str, box: list[float]) -> Evidence:
        return evidence_of(n, "region", BUS, "bus.jpg", {"kind": "text", "text": words, "box": box},
                           f'Text: "{words}".', 0.7 - n / 100)
    return [evidence_of(1, "region", BUS, "bus.jpg", {"kind": "object", "label": "bus", "box": [0, 230, 800, 750]},
                        "A blue bus.", 0.74),
            text(2, "m eri st pl n", [60, 500, 200, 520]), text(3, "cero / emisiones", [300, 420, 560, 520]),
            text(4, "10", [700, 300, 730, 330]),
            evidence_of(5, "image", "/p/other.jpg", "other.jpg", {"width": 640}, "Photo other.jpg.", 0.6)]


def test_what_is_written_in_large_letters_quotes_the_largest_text_first():
    draft = answer("What is written in large white letters on the side of the blue bus in my photo?", _bus())
    assert draft is not None and draft.answered
    assert draft.text == ('The text read in bus.jpg (the largest lettering first): "cero emisiones" [3]; '
                          'also "10" [4], "m eri st pl n" [2].')  # 50, 30 and 20 pixels a line
    assert draft.cited == [3, 4, 2]


def test_a_number_asked_for_comes_first_and_a_document_question_is_left_to_the_model():
    draft = answer("What route number is shown on the front of the bus?", _bus())
    assert draft is not None and draft.text.startswith('The text read in bus.jpg: "10" [4]')
    passage = evidence_of(1, "paragraph", "/d/lease.pdf", "Lease", {"start": 0, "end": 40},
                          "Pets are allowed with written consent.", 0.8)
    assert answer("What is written in my lease about pets?", [passage, *_bus()]) is None
    assert answer("How many people are next to the bus?", _bus()) is None
    assert asks_to_read("In my photo of the shop, what does the sign say?")
    assert not asks_to_read("Who is standing next to the bus?")
