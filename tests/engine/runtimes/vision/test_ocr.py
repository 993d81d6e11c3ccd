"""PP-OCR text regions: the words of a rendered sign, where they were drawn."""

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from engine.models import ModelManager
from engine.runtimes.vision import ocr
from engine.runtimes.vision.regions import TEXT
from tests.conftest import MODELS_DIR


@pytest.fixture(scope="module")
def reader():  # noqa: ANN201
    return ocr(ModelManager(MODELS_DIR), threads=2)


def sign(lines: list[str], size: tuple[int, int] = (900, 260)) -> np.ndarray:
    """Large dark text on white, one line every 100 px from y=40, as a BGR image."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=64)
    for i, line in enumerate(lines):
        draw.text((30, 40 + 100 * i), line, fill=(20, 20, 20), font=font)
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def squash(text: str) -> str:
    return "".join(text.split()).upper()  # PP-OCR's Chinese+English model sometimes drops spaces


def test_reads_the_words_of_a_tram_sign_in_place(reader):  # noqa: ANN001
    regions = reader.read(sign(["TRAM 28", "MARTIM MONIZ"]))
    assert [squash(r.text) for r in regions] == ["TRAM28", "MARTIMMONIZ"]
    for r, top in zip(regions, (40, 140), strict=True):
        assert r.kind == TEXT and r.label == "text" and r.score > 0.8
        x1, y1, x2, y2 = r.box
        assert 15 < x1 < 50 and top - 10 < y1 < top + 40 and top + 40 < y2 < top + 90
        quad = np.array(r.extra["quad"])
        assert quad.shape == (4, 2)
        assert np.allclose(quad.min(axis=0), (x1, y1), atol=1) and np.allclose(quad.max(axis=0), (x2, y2), atol=1)
    assert regions[1].box[2] > regions[0].box[2]  # the longer line is wider


def test_a_blank_image_has_no_text(reader):  # noqa: ANN001
    assert reader.read(np.full((200, 300, 3), 255, np.uint8)) == []


def test_spaces_the_recogniser_dropped_come_back_from_the_gaps(reader):  # noqa: ANN001
    from engine.ingest.photos.image_io import load_photo
    from tests.conftest import EXAMPLES

    lines = [r.text for r in reader.read(sign(["TRAM 28", "MARTIM MONIZ"]))]
    assert lines == ["TRAM 28", "MARTIM MONIZ"]
    poster = load_photo(EXAMPLES / "photos" / "2024-10-leiden" / "astronaut-poster.jpg").image
    assert "EILEEN COLLINS" in [r.text for r in reader.read(poster)]


def test_a_scanned_textbook_page_reads_its_heading_whole_and_its_brackets_plain(reader):  # noqa: ANN001
    from tests.conftest import SHARED

    page = SHARED / "eval" / "images" / "skimage" / "page.png"
    if not page.exists():
        pytest.skip(f"{page} is absent (../shared/eval holds the real scanned page)")
    lines = [r.text for r in reader.read(cv2.imread(str(page)))]
    assert lines[0] == "Region-based segmentation"
    assert not any("（" in line for line in lines) and any("(coins)" in line for line in lines)


def test_a_photo_the_first_small_look_finds_no_text_in_is_not_read_further(reader, monkeypatch):  # noqa: ANN001
    blank = np.full((960, 1280, 3), 200, np.uint8)
    assert not reader.may_hold_text(blank)
    assert reader.may_hold_text(sign(["TRAM 28"]))
    calls: list[tuple] = []
    monkeypatch.setattr(reader, "engine", lambda *args, **kwargs: calls.append(args) or ([], None))
    assert reader.read(blank) == [] and calls == []
    reader.read(sign(["TRAM 28"]))
    assert len(calls) == 1


def test_small_text_on_a_large_photo_survives_the_first_look(reader):  # noqa: ANN001
    image = Image.new("RGB", (1600, 1200), (90, 90, 90))  # a phone photo at analysis size
    draw = ImageDraw.Draw(image)
    draw.rectangle((880, 690, 990, 744), fill="white")  # a sign with 22 px letters
    draw.text((890, 700), "EXIT 4", fill=(20, 20, 20), font=ImageFont.load_default(size=22))
    photo = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
    assert reader.may_hold_text(photo)  # a look at 320 px would miss it; half the photo's size sees it
    assert "EXIT4" in [squash(r.text) for r in reader.read(photo)]


def test_every_stage_runs_on_a_session_with_the_memory_arena_on(reader):  # noqa: ANN001
    for stage in (reader.engine.text_det.infer, reader.engine.text_cls.infer, reader.engine.text_rec.session):
        assert stage.session.get_session_options().enable_cpu_mem_arena
    assert reader.detector is reader.engine.text_det.infer.session


def test_a_rapidocr_without_the_sessions_trove_replaces_is_a_model_error_naming_the_stage(tmp_path):  # noqa: ANN001
    from engine.errors import ModelError
    from engine.runtimes.vision.ppocr import _own_sessions

    with pytest.raises(ModelError, match="text_det"):
        _own_sessions(object(), {"text_det": tmp_path / "det.onnx"}, threads=1)
