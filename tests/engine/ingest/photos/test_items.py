"""A photo's words: what the vision models found, said in lines a question can meet."""

from __future__ import annotations

import cv2
import pytest

from engine.ingest.photos.analyse import Analysis
from engine.ingest.photos.items import seen_lines
from engine.models import ModelManager
from engine.runtimes.vision import ocr
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module")
def reader():  # noqa: ANN201
    return ocr(ModelManager(MODELS_DIR), threads=2)


def test_a_scanned_page_is_said_to_be_a_page_of_text_and_a_street_of_signs_is_not(reader):  # noqa: ANN001
    page = shared_path("eval", "images", "skimage", "page.png")
    signs = shared_path("eval", "images", "coco_mini", "train2017", "000000231460.jpg")  # a signpost in Berlin
    page_lines = seen_lines(Analysis(reader.read(cv2.imread(str(page))), [], None))
    assert page_lines[0] == "A page of text: 6 lines read."
    assert page_lines[1].startswith("Text in the photo: Region-based segmentation | Let us first determine")
    sign_lines = seen_lines(Analysis(reader.read(cv2.imread(str(signs))), [], None))
    assert len(sign_lines) == 1 and sign_lines[0].startswith("Text in the photo: Potsdamer")
