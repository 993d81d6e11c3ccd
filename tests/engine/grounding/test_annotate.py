"""Pictures of grounding: loading upright, crops with a margin, thumbnails, numbered boxes."""

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.errors import ParseError
from engine.grounding import annotate, crop, load_image, thumbnail_jpeg
from engine.grounding.citations import ElementCitation, annotate_evidence
from engine.grounding.inventory import Element
from engine.runtimes.vision.regions import Region
from tests.conftest import shared_path


def test_load_image_is_bgr_and_upright(tmp_path: Path):
    chelsea = load_image(shared_path("eval", "images", "skimage", "chelsea.png"))
    assert chelsea.shape == (300, 451, 3) and chelsea.dtype == np.uint8

    stored = np.zeros((20, 40, 3), dtype=np.uint8)
    stored[:, :, 0] = 255  # red in RGB
    exif = Image.Exif()
    exif[0x0112] = 6  # displayed rotated by 90 degrees
    Image.fromarray(stored).save(tmp_path / "r.jpg", exif=exif, quality=95)
    upright = load_image(tmp_path / "r.jpg")
    assert upright.shape == (40, 20, 3)
    assert upright[20, 10, 2] > 200 and upright[20, 10, 0] < 60  # BGR: red is the last channel

    (tmp_path / "bad.jpg").write_bytes(b"not a photo")
    with pytest.raises(ParseError, match=r"bad.jpg: cannot read the image"):
        load_image(tmp_path / "bad.jpg")


def test_crop_adds_a_margin_and_stays_inside_the_image():
    image = np.arange(100 * 200 * 3, dtype=np.uint32).reshape(100, 200, 3).astype(np.uint8)
    assert crop(image, (50, 20, 150, 70), margin=0.1).shape == (60, 120, 3)
    assert crop(image, (0, 0, 200, 100), margin=0.1).shape == (100, 200, 3)
    assert crop(image, (190, 95, 260, 140), margin=0).shape == (5, 10, 3)
    assert np.array_equal(crop(image, (10, 10, 20, 30), margin=0), image[10:30, 10:20])


def test_thumbnail_is_a_small_jpeg():
    photo = load_image(shared_path("eval", "images", "skimage", "chelsea.png"))
    data = thumbnail_jpeg(crop(photo, (100, 20, 400, 290)), max_side=96)
    assert data[:2] == b"\xff\xd8"
    with Image.open(io.BytesIO(data)) as thumb:
        assert max(thumb.size) == 96
    with Image.open(io.BytesIO(thumbnail_jpeg(photo[:40, :30]))) as small:
        assert small.size == (30, 40)  # never upscaled
    assert thumbnail_jpeg(photo[:, :, 0])[:2] == b"\xff\xd8"  # grey crops too


def test_annotate_draws_numbered_boxes_on_a_copy():
    image = np.full((200, 300, 3), 255, dtype=np.uint8)
    out = annotate(image, [((20, 40, 120, 150), "Chelsea \u2014 tabby fur"), ((150, 10, 290, 190), "a cup")], start=3)
    assert out is not image and out.shape == image.shape and (image == 255).all()
    assert (out[100, 20] != 255).any() and (out[100, 150] != 255).any()  # left edges of both boxes
    assert (out[100, 70] == 255).all()  # inside is left alone

    element = Element("generic/object/cup", "a cup", generic=True)
    items = [ElementCitation(7, element, "[7] a cup", Region("object", "cup", (150, 10, 290, 190), 0.9)),
             ElementCitation(8, element, "[8] a cup")]  # no region: nothing to draw
    drawn = annotate_evidence(image, items)
    assert (drawn[100, 150] != 255).any() and (drawn[100, 20] == 255).all()
