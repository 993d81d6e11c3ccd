"""Photos and videos as evidence: grounded regions with boxes, clips with seconds, asking with a photo."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import pytest

from engine.ingest.photos.image_io import load_photo
from tests.conftest import EXAMPLES


@pytest.fixture
def media(trove, tmp_path: Path):  # noqa: ANN001, ANN201
    """The example photos, video and knowledge pack, indexed."""
    root = tmp_path / "media"
    for part in ("photos", "videos", "knowledge-pack"):
        shutil.copytree(EXAMPLES / part, root / part)
    trove.index([root])
    return trove, root


def _evidence(trove, question: str, image: Path | None = None) -> list:  # noqa: ANN001
    hits = trove.gather(question, image).hits
    return hits


def test_a_photo_question_cites_the_element_box_the_knowledge_pack_names(media):  # noqa: ANN001
    trove, root = media
    hits = _evidence(trove, "Is Chelsea in the window photo?")
    kind, first = hits[0]
    assert kind == "region" and first.item.source.endswith("chelsea-window.jpg")
    assert first.item.locator["entity"] == "Chelsea" and first.item.text.startswith("Chelsea")
    x1, y1, x2, y2 = first.item.locator["box"]
    assert 150 < x1 < 300 and 100 < y1 < 250 and 550 < x2 <= 800 and 380 < y2 <= 600  # the cat, upright
    photo = next(h for k, h in hits if k == "image" and h.item.source == first.item.source)
    decisions = photo.item.locator["grounding"]
    assert any(d["status"] == "matched" and d["element"]["entity"] == "Chelsea" for d in decisions)
    assert all(d["reason"] for d in decisions)  # kept or not, each region says why
    assert "Shows" not in photo.item.text  # what is in the photo is said by the regions, not the photo


def test_lines_of_one_sign_are_read_as_one_block(media):  # noqa: ANN001
    trove, _ = media
    hits = _evidence(trove, "What does the sign in my tram stop photo say?")
    texts = [h for k, h in hits if k == "region" and h.item.locator["kind"] == "text"]
    sign = next(h for h in texts if "28" in h.item.locator["text"])
    assert "MARTIM MONIZ" in sign.item.locator["text"] and len(sign.item.locator["lines"]) >= 2
    x1, y1, x2, y2 = sign.item.locator["box"]
    assert all(x1 <= line["box"][0] and line["box"][2] <= x2 for line in sign.item.locator["lines"])


def test_a_when_question_finds_the_clip_with_its_seconds(media):  # noqa: ANN001
    trove, _ = media
    hits = _evidence(trove, "When in the Lisbon video do we ride up to the castle?")
    kind, clip = hits[0]
    assert kind == "clip" and (clip.item.locator["start_s"], clip.item.locator["end_s"]) == (6.0, 12.0)
    assert "tram 28" in clip.item.text and Path(clip.item.locator["thumbnail"]).is_file()
    assert all(h.item.locator["start_s"] != 12.0 for k, h in hits if k == "clip")  # far weaker moments dropped


def test_asking_with_a_photo_grounds_its_own_regions_and_finds_the_indexed_one(media, tmp_path: Path):  # noqa: ANN001
    trove, root = media
    mine = load_photo(root / "photos" / "home" / "chelsea-window.jpg").image
    query = tmp_path / "phone-snap.jpg"
    cv2.imwrite(str(query), cv2.flip(mine, 1)[40:-40, 60:-60])
    hits = _evidence(trove, "Who is this?", query)
    own = [h for k, h in hits if k == "region" and h.item.source == str(query.resolve())]
    assert own and own[0].item.locator["entity"] == "Chelsea"
    similar = [h for k, h in hits if k == "image" and "visual" in h.signals]
    assert similar[0].item.source.endswith("chelsea-window.jpg") and similar[0].signals["visual"] > 0.8


def test_asking_with_a_missing_or_broken_photo_says_which_file(trove, tmp_path: Path):  # noqa: ANN001
    from engine.errors import ParseError, TroveError

    with pytest.raises(TroveError, match="no such photo"):
        trove.ask("what is this?", image=tmp_path / "nope.jpg")
    broken = tmp_path / "broken.jpg"
    broken.write_text("not a photo")
    with pytest.raises(ParseError, match="not a readable image"):
        trove.ask("what is this?", image=broken)


def test_an_imported_text_image_model_indexes_looks_and_finds_photos_by_them(trove, tmp_path: Path):  # noqa: ANN001
    from engine.corpora import LOOKS, PHOTO
    from engine.ingest.photos.analyse import VisionModels
    from engine.runtimes.vision.clip import ImageTextEmbedder
    from tests.engine.runtimes.vision.test_clip import hf_export

    clip = ImageTextEmbedder(hf_export(tmp_path / "clip"), name="tiny-clip")
    trove.models.vision = VisionModels(image_text=clip)  # only the text-image role: the others are tested elsewhere
    photos = tmp_path / "photos"
    shutil.copytree(EXAMPLES / "photos", photos)
    trove.index([photos])
    n_photos = trove.store.corpora()[PHOTO]
    assert trove.store.corpora()[LOOKS] == n_photos >= 5

    hits = trove.search("the yellow tram stop sign", k=3, corpus=PHOTO)
    assert len(hits) == 3 and any("looks" in h.signals for h in hits)
    question = trove.models.embedder.embed_one("the yellow tram stop sign")
    for hit in hits:  # relevance stays on the text scale every threshold is set on
        own = trove.store.vectors(PHOTO, [hit.item.id])[hit.item.id]
        assert hit.relevance == pytest.approx(float(own @ question), abs=1e-5)

    photo = next(h.item for h in hits if "looks" in h.signals)
    looks_item = next(it for it in trove.store.file_items(photo.file_id, LOOKS))
    stored = trove.store.vectors(LOOKS, [looks_item.id])[looks_item.id]
    expected = clip.photo_vectors([load_photo(Path(photo.source)).image], [photo.text])[0]
    assert stored == pytest.approx(expected, abs=1e-5)  # 0.8 looks + 0.2 the photo's own text


def test_photos_indexed_before_a_text_image_model_is_imported_get_their_looks(trove, tmp_path: Path):  # noqa: ANN001
    from engine.corpora import LOOKS, PHOTO
    from engine.ingest.photos.analyse import VisionModels
    from engine.models import ModelManager
    from engine.runtimes.vision import image_text_embedder
    from tests.engine.runtimes.vision.test_clip import hf_export

    photos = tmp_path / "photos"
    shutil.copytree(EXAMPLES / "photos", photos)
    trove.models.manager = ModelManager(tmp_path / "models")  # the user's own models folder: nothing imported yet
    trove.models.vision = VisionModels()
    trove.index([photos])
    assert LOOKS not in trove.store.corpora()

    trove.models.manager.import_path(hf_export(tmp_path / "clip-a"), role="image-text-embedder", name="clip-a")
    trove.models.vision = VisionModels(image_text=image_text_embedder(trove.models.manager))
    report = trove.index()  # no photo changed, yet each is read again for its looks vector
    assert trove.store.corpora()[LOOKS] == trove.store.corpora()[PHOTO] >= 5 and report.unchanged < 5
    assert trove.store.embedder_of(LOOKS) == "clip-a"
    assert trove.index().unchanged >= 5  # and only once


def test_the_photos_own_evidence_keeps_what_the_whole_photo_looks_like():
    """"What colour is the bus parked in front of the church with the clock tower?": the regions say
    "a red bus"; only the whole photo's classifier says "church" (COCO 000000466547, unseen set). What
    the regions say (objects, text read) is left to them."""
    from engine.retrieval.hybrid import Hit
    from engine.retrieval.visual import _photo_evidence
    from local_stores.corpus_store import Item

    text = ("Photo 000000466547.jpg in the folder train2017 (000000466547).\nShows 1 bus, 1 person, 1 car.\n"
            "Colours: red bus, black car.\nLooks like: church, church building, fire engine, fire truck.")
    photo = _photo_evidence(Hit(Item("image/photo", "/p/000000466547.jpg", text, {"regions": []}), 0.6))
    assert "Looks like: church" in photo.item.text and "Shows 1 bus" not in photo.item.text
