"""YuNet faces on real photos: boxes and landmarks in the original pixels, whatever the photo size."""

import cv2
import numpy as np
import pytest

from engine.models import ModelManager
from engine.runtimes.vision import face_detector
from engine.runtimes.vision.regions import FACE
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module")
def faces():  # noqa: ANN201
    return face_detector(ModelManager(MODELS_DIR), threads=2)


def inside(point: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def test_astronaut_has_one_face_on_her_face(faces):  # noqa: ANN001
    image = cv2.imread(str(shared_path("eval", "images", "skimage", "astronaut.png")))
    regions = faces.detect(image)
    assert len(regions) == 1
    face = regions[0]
    assert face.kind == FACE and face.label == "face" and face.score > 0.8
    x1, y1, x2, y2 = face.box  # her face is around x 180-270, y 60-180 of the 512x512 photo
    assert 160 < x1 < 200 and 240 < x2 < 290 and 40 < y1 < 90 and 150 < y2 < 200
    marks = face.extra["landmarks"]
    assert set(marks) == {"right_eye", "left_eye", "nose", "mouth_right", "mouth_left"}
    assert all(inside(p, face.box) for p in marks.values())
    assert marks["right_eye"][1] < marks["nose"][1] < marks["mouth_left"][1]  # eyes above nose above mouth


def test_boxes_map_back_to_the_original_size(faces):  # noqa: ANN001
    image = cv2.imread(str(shared_path("eval", "images", "skimage", "astronaut.png")))
    small = faces.detect(image)[0].box
    big = faces.detect(cv2.resize(image, (1536, 1536)))[0].box  # shrunk to 640 inside, boxes scaled back
    assert np.allclose(np.array(big) / 3, small, atol=8)


def test_two_faces_in_zidane_and_none_on_a_cat(faces):  # noqa: ANN001
    assert len(faces.detect(cv2.imread(str(shared_path("eval", "images", "ultralytics", "zidane.jpg"))))) == 2
    assert faces.detect(cv2.imread(str(shared_path("eval", "images", "skimage", "chelsea.png")))) == []


def test_grey_photo_works(faces):  # noqa: ANN001
    grey = cv2.imread(str(shared_path("eval", "images", "skimage", "camera.png")), cv2.IMREAD_GRAYSCALE)
    assert grey.ndim == 2 and len(faces.detect(grey)) == 1
