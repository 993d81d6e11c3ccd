"""Coral MobileNets: ImageNet labels of whole photos, and photo vectors for photo-to-photo search."""

import cv2
import numpy as np
import pytest

from engine.models import ModelManager
from engine.runtimes.vision import classifier, image_embedder
from tests.conftest import MODELS_DIR, shared_path


def photo(*parts: str) -> np.ndarray:
    return cv2.imread(str(shared_path("eval", "images", *parts)), cv2.IMREAD_COLOR)


@pytest.fixture(scope="module")
def labels():  # noqa: ANN201
    return classifier(ModelManager(MODELS_DIR), threads=2)


@pytest.fixture(scope="module")
def embedder():  # noqa: ANN201
    return image_embedder(ModelManager(MODELS_DIR), threads=2)


def test_chelsea_is_a_cat(labels):  # noqa: ANN001
    top = labels.classify(photo("skimage", "chelsea.png"), top_k=3)
    assert any(name in label for label, _ in top for name in ("tabby", "tiger cat", "Egyptian cat")), top
    assert [s for _, s in top] == sorted((s for _, s in top), reverse=True) and all(0 < s <= 1 for _, s in top)


def test_coffee_is_an_espresso_or_a_cup(labels):  # noqa: ANN001
    label, score = labels.classify(photo("skimage", "coffee.png"), top_k=1)[0]
    assert ("espresso" in label or "cup" in label) and score > 0.5


def test_min_score_and_top_k_limit_the_answer(labels):  # noqa: ANN001
    image = photo("skimage", "chelsea.png")
    assert len(labels.classify(image, top_k=2, min_score=0.0)) == 2
    assert all(s >= 0.5 for _, s in labels.classify(image, top_k=5, min_score=0.5))
    assert all(label != "background" for label, _ in labels.classify(image, top_k=50, min_score=0.0))


def test_a_flipped_crop_is_near_its_original_and_far_from_other_photos(embedder):  # noqa: ANN001
    files = [("skimage", "chelsea.png"), ("skimage", "coffee.png"), ("skimage", "astronaut.png"),
             ("ultralytics", "bus.jpg"), ("skimage", "rocket.jpg")]
    originals = [photo(*f) for f in files]
    edited = []
    for image in originals:
        h, w = image.shape[:2]
        edited.append(cv2.flip(image, 1)[int(h * 0.1):int(h * 0.95), int(w * 0.05):int(w * 0.9)])
    a, b = embedder.embed_many(originals), embedder.embed_many(edited)
    assert a.shape == (5, 1024) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    same = np.diag(a @ b.T)
    assert (same > 0.9).all(), same
    others = (a @ a.T)[~np.eye(len(files), dtype=bool)]
    assert others.max() < 0.75 and others.max() < same.min() - 0.2
    assert np.allclose(embedder.embed(originals[0]), a[0])  # one at a time or many: the same vector


def test_a_real_panda_photo_is_classified_sure_enough(labels):  # noqa: ANN001
    from engine.generation.finding import CLASSIFIER_SURE, classified_as

    top = labels.classify(photo("coco_mini", "train2017", "000000249346.jpg"), top_k=1)
    assert classified_as([list(pair) for pair in top], {"panda"}) and top[0][1] >= CLASSIFIER_SURE, top
