"""Both COCO-80 object detectors on real photos: same labels, boxes in the photo's own pixels."""

import cv2
import numpy as np
import pytest

from engine.models import ModelManager
from engine.runtimes.vision import DETECTORS, object_detector
from engine.runtimes.vision.coco import COCO80, normalise_label, read_names
from engine.runtimes.vision.regions import OBJECT
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module", params=sorted(name for name in DETECTORS if name != "ultralytics"))  # see test_registry
def detector(request):  # noqa: ANN001, ANN201
    return object_detector(ModelManager(MODELS_DIR), request.param, threads=2)


def photo(*parts: str) -> np.ndarray:
    return cv2.imread(str(shared_path("eval", "images", *parts)), cv2.IMREAD_COLOR)


def test_bus_photo_has_people_and_the_bus(detector):  # noqa: ANN001
    image = photo("ultralytics", "bus.jpg")
    height, width = image.shape[:2]
    regions = detector.detect(image)
    labels = [r.label for r in regions]
    assert labels.count("person") >= 2 and "bus" in labels, labels
    assert all(r.kind == OBJECT and r.label in COCO80 for r in regions)
    assert [r.score for r in regions] == sorted((r.score for r in regions), reverse=True)
    for r in regions:
        x1, y1, x2, y2 = r.box
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height
    bus = next(r for r in regions if r.label == "bus")
    assert bus.area > 0.3 * width * height  # the bus fills most of the photo
    people = [r for r in regions if r.label == "person"]
    assert all(r.box[3] - r.box[1] > r.box[2] - r.box[0] for r in people)  # standing people are tall boxes


def test_cat_and_cup_are_found_and_a_blank_page_gives_nothing(detector):  # noqa: ANN001
    assert "cat" in [r.label for r in detector.detect(photo("skimage", "chelsea.png"))]
    assert "cup" in [r.label for r in detector.detect(photo("skimage", "coffee.png"))]
    assert detector.detect(np.full((300, 400, 3), 255, np.uint8)) == []


def test_grey_and_bgra_inputs_give_the_same_boxes_as_bgr(detector):  # noqa: ANN001
    image = photo("ultralytics", "zidane.jpg")
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert [r.box for r in detector.detect(grey)] == [r.box for r in detector.detect(cv2.merge([grey] * 3))]
    bgra = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    assert [r.box for r in detector.detect(bgra)] == [r.box for r in detector.detect(image)]


def test_thresholds_are_constructor_arguments():
    manager = ModelManager(MODELS_DIR)
    strict = object_detector(manager, "better", score_threshold=0.95)
    loose = object_detector(manager, "better", score_threshold=0.2)
    image = photo("ultralytics", "bus.jpg")
    assert 0 < len(strict.detect(image)) < len(loose.detect(image))
    assert all(r.score >= 0.95 for r in strict.detect(image))


def test_darknet_class_names_are_normalised_to_coco_spellings():
    names = read_names(ModelManager(MODELS_DIR).paths("yolo-fastest-1.1-xl")["coco.names"])
    assert names == COCO80
    assert normalise_label("tvmonitor") == "tv" and normalise_label("motorbike") == "motorcycle"
    assert normalise_label("person") == "person"
