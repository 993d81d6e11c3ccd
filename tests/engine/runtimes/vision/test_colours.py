"""Objects' colours in words, read from real photos with the real detector's boxes; never a person's."""

import cv2
import numpy as np
import pytest

from engine.ingest.photos.analyse import VisionModels, analyse
from engine.models import ModelManager
from engine.runtimes.vision import object_detector
from engine.runtimes.vision.colours import colour_name
from engine.runtimes.vision.regions import Region
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module")
def models() -> VisionModels:
    return VisionModels(detector=object_detector(ModelManager(MODELS_DIR), "default", threads=2))


def _photo(*parts: str) -> np.ndarray:
    return cv2.imread(str(shared_path("eval", "images", *parts)), cv2.IMREAD_COLOR)


@pytest.mark.parametrize(("parts", "label", "colour"), [
    (("ultralytics", "bus.jpg"), "bus", "blue"),  # Madrid's electric minibus
    (("coco_mini", "train2017", "000000466547.jpg"), "bus", "red"),  # a London double-decker
    (("skimage", "chelsea.png"), "cat", "orange"),  # a ginger tabby
])
def test_the_detected_object_is_named_with_its_colour(models: VisionModels, parts: tuple[str, ...], label: str,
                                                      colour: str):
    found = analyse(_photo(*parts), models)
    objects = [r for r in found.regions if r.label == label]
    assert objects and objects[0].colour == colour and objects[0].called == f"{colour} {label}"
    assert Region.from_dict(objects[0].as_dict()).colour == colour  # kept in the locator's regions
    assert all(not r.colour for r in found.regions if r.label == "person")  # never a person's


def test_plain_patches_are_named_and_a_patchwork_is_not():
    image = np.zeros((100, 200, 3), dtype=np.uint8)
    image[:, :100] = (200, 60, 20)  # BGR: blue
    image[:, 100:] = (250, 250, 250)
    assert colour_name(image, (0, 0, 100, 100)) == "blue"
    assert colour_name(image, (100, 0, 200, 100)) == "white"
    stripes = np.zeros((100, 100, 3), dtype=np.uint8)
    for i, bgr in enumerate([(0, 0, 220), (0, 200, 0), (220, 0, 0), (0, 220, 220), (200, 0, 200)]):
        stripes[:, i * 20:(i + 1) * 20] = bgr
    assert colour_name(stripes, (0, 0, 100, 100)) is None
