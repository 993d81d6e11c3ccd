"""Image evidence with the real Coral image embedder: reference crops from a pack vs region crops."""

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from engine.grounding import Inventory, crop, ground, load_image, load_pack, reference_vectors
from engine.runtimes.vision.regions import Region
from tests.conftest import MODELS_DIR, shared_path


@pytest.fixture(scope="module")
def image_embedder():  # noqa: ANN201
    from engine.models import ModelManager
    from engine.runtimes.vision.coral import ImageEmbedder

    return ImageEmbedder.from_manager(ModelManager(MODELS_DIR))


def _scene(chelsea: np.ndarray, coffee: np.ndarray) -> tuple[np.ndarray, Region, Region]:
    """Chelsea flipped and shrunk at the left, the coffee cup at the right, on a grey wall; both
    regions labelled "cat", as a weak detector might."""
    canvas = np.full((500, 800, 3), 200, dtype=np.uint8)
    canvas[20:220, 20:320] = cv2.resize(cv2.flip(chelsea, 1), (300, 200), interpolation=cv2.INTER_AREA)
    canvas[240:480, 450:750] = cv2.resize(coffee, (300, 240), interpolation=cv2.INTER_AREA)
    return canvas, Region("object", "cat", (20, 20, 320, 220), 0.8), Region("object", "cat", (450, 240, 750, 480), 0.6)


def test_reference_crops_tell_chelsea_from_a_coffee_cup(tmp_path: Path, embedder, image_embedder):  # noqa: ANN001
    images = shared_path("eval", "images", "skimage")
    pack_file = tmp_path / "trove-pack.yaml"
    pack_file.write_text(yaml.safe_dump({"entities": [
        {"name": "Chelsea", "kind": "pet", "reference_photos": [str(images / "chelsea.png")],
         "elements": [{"name": "tabby fur", "description": "orange-brown tabby fur with dark stripes",
                       "labels": ["cat"], "box": [100, 20, 400, 300]}]},
        {"name": "Morning coffee", "kind": "thing", "reference_photos": [str(images / "coffee.png")],
         "elements": [{"name": "espresso cup", "description": "a white cup of espresso on a saucer",
                       "labels": ["cup"]}]},
    ]}))
    inventory = Inventory.from_packs([load_pack(pack_file)])
    refs = reference_vectors(inventory, image_embedder)
    assert set(refs) == {"Chelsea/tabby fur", "Morning coffee/espresso cup"}
    assert refs["Chelsea/tabby fur"].shape == (1, 1024)

    scene, cat, cup = _scene(load_image(images / "chelsea.png"), load_image(images / "coffee.png"))
    cat_vec, cup_vec = (image_embedder.embed(crop(scene, r.box)) for r in (cat, cup))
    chelsea_ref = refs["Chelsea/tabby fur"][0]
    assert float(chelsea_ref @ cat_vec) > 0.8 > 0.6 > float(chelsea_ref @ cup_vec)

    # text alone trusts the label: both "cat" regions become Chelsea
    text_only = ground(scene, [cat, cup], inventory, embedder)
    assert [d.element.id for d in text_only.decisions] == ["Chelsea/tabby fur"] * 2

    # with image evidence the mislabelled cup is recognised as the cup; the reason shows both parts
    result = ground(scene, [cat, cup], inventory, embedder, image_embedder=image_embedder, references=refs)
    first, second = result.decisions
    assert first.element.id == "Chelsea/tabby fur" and first.image_score > 0.8
    assert first.reason.startswith("matched 'tabby fur' of Chelsea (score ") and ", image ." in first.reason
    assert second.element.id == "Morning coffee/espresso cup" and second.image_score > 0.8
    assert [e.id for e in result.visible] == ["Chelsea/tabby fur", "Morning coffee/espresso cup"]
