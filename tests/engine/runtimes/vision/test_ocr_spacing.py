"""The spaces of an OCR'd line: put back from the gaps between character boxes, taken out where they cut
a word the text embedder's real vocabulary spells joined."""

from engine.models import ModelManager
from tests.conftest import MODELS_DIR


def test_spacing_leaves_text_alone_when_the_boxes_do_not_fit_it():
    from engine.runtimes.vision.ocr_spacing import spaced

    box = [[0, 0], [10, 0], [10, 10], [0, 10]]
    assert spaced("AB", [box, box], ["A"]) == "AB"  # one box short
    assert spaced("AB", [box, [[30, 0], [40, 0], [40, 10], [30, 10]]], ["A", "B"]) == "A B"


def boxes(gaps: list[float]) -> list:
    """Character boxes 10 px wide with `gaps` (in characters) between them."""
    out, x = [], 0.0
    for gap in [0.0, *gaps]:
        x += gap * 10
        out.append([[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]])
        x += 10
    return out


def test_middling_gaps_split_only_into_known_words():
    from engine.runtimes.vision.ocr_spacing import Vocabulary, spaced

    words = Vocabulary(words=frozenset({"first", "woman", "to", "pilot", "mart"}))
    text = "FIRSTWOMANTOPILOT"
    gaps = [0.0] * (len(text) - 1)
    for at in (4, 5, 9, 11):  # after FIRST, after W (a wide letter, not a word end), after WOMAN, after TO
        gaps[at] = 0.45
    assert spaced(text, boxes(gaps), list(text), words) == "FIRST WOMAN TO PILOT"
    assert spaced("MARTIM", boxes([0, 0, 0.45, 0, 0]), list("MARTIM"), words) == "MARTIM"  # "im" is no word
    assert spaced("TRAM28", boxes([0, 0, 0, 0.8, 0]), list("TRAM28"), words) == "TRAM 28"  # a wide gap always


def test_a_space_that_cuts_a_word_the_vocabulary_spells_joined_is_left_out():
    from engine.runtimes.vision.ocr_spacing import spaced, vocabulary

    vocab = vocabulary(ModelManager(MODELS_DIR).paths("text-embedder")["tokenizer.json"])
    assert vocab.pieces("segmentation") == 2 and vocab.pieces("seg") + vocab.pieces("mentation") > 2

    def read(text: str, wide_after: int) -> str:  # a run-together line with one wide gap
        gaps = [0.0] * (len(text) - 1)
        gaps[wide_after - 1] = 0.7
        return spaced(text, boxes(gaps), list(text), vocab)

    assert read("segmentation", 3) == "segmentation"
    assert read("EILEENCOLLINS", 6) == "EILEEN COLLINS"  # two words
    assert read("TRAM28", 4) == "TRAM 28"
    assert read("MARTIMMONIZ", 6) == "MARTIM MONIZ"  # joined, no word nor a word and an ending

    def recognised(text: str) -> str:  # the recogniser's own spaces, narrow gaps everywhere
        return spaced(text.replace(" ", ""), boxes([0.0] * (len(text) - 1)), list(text), vocab)

    assert recognised("the indicator m ay be unreliable") == "the indicator may be unreliable"  # not "maybe"
    assert recognised("in a m anner not") == "in a manner not"
    assert recognised("U sing perform ance tables fro m") == "Using performance tables from"
    assert recognised("The M CAS function") == "The M CAS function"  # letters of an acronym are left alone
    assert recognised("MICHAEL P RIVES") == "MICHAEL P RIVES"  # an initial in capitals too
