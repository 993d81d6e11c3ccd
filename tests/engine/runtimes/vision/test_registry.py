"""Choosing vision models through the catalog, and what happens when one is missing."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes import vision
from engine.runtimes.vision import darknet, onnx_proto
from tests.conftest import MODELS_DIR, shared_path


def test_tags_and_names_pick_the_detector_class():
    manager = ModelManager(MODELS_DIR)
    assert manager.model_for("detector").name == "fastestdet"
    assert manager.model_for("detector", "fast").name == "fastestdet"
    assert manager.model_for("detector", "better").name == "yolo-fastest-1.1-xl"
    assert manager.model_for("detector", "yolo-fastest-1.1-xl").name == "yolo-fastest-1.1-xl"
    assert manager.model_for("ocr").name == "rapidocr-ppocrv4"
    with pytest.raises(ModelError, match="choose one of: better, default, fast"):
        manager.model_for("detector", "huge")
    with pytest.raises(ModelError, match="is a face-detector model, not a detector"):
        vision.object_detector(manager, "yunet-s-640")


@pytest.mark.parametrize(("factory", "role"), [
    (vision.object_detector, "detector"), (vision.face_detector, "face-detector"),
    (vision.classifier, "classifier"), (vision.image_embedder, "image-embedder"), (vision.ocr, "ocr"),
])
def test_a_missing_model_is_a_model_error_naming_its_role(tmp_path: Path, factory, role: str):  # noqa: ANN001
    with pytest.raises(ModelError) as err:
        factory(ModelManager(tmp_path))
    assert err.value.role == role and f"model role '{role}'" in str(err.value)
    assert "not installed" in str(err.value) and "trove models install" in str(err.value)


def test_darknet_weights_that_do_not_match_the_cfg_are_refused(tmp_path: Path):
    paths = ModelManager(MODELS_DIR).paths("yolo-fastest-1.1-xl")
    short = tmp_path / "short.weights"
    short.write_bytes(paths["yf11xl.weights"].read_bytes()[:-4000])
    with pytest.raises(ValueError, match="shorter than its cfg"):
        darknet.load(paths["yf11xl.cfg"], short)
    long = tmp_path / "long.weights"
    long.write_bytes(paths["yf11xl.weights"].read_bytes() + bytes(400))
    with pytest.raises(ValueError, match="weights left over"):
        darknet.load(paths["yf11xl.cfg"], long)


def test_the_converted_darknet_graph_is_valid_onnx():
    onnx = pytest.importorskip("onnx")  # the `train` extra; not needed to run the graph
    paths = ModelManager(MODELS_DIR).paths("yolo-fastest-1.1-xl")
    model = darknet.load(paths["yf11xl.cfg"], paths["yf11xl.weights"])
    proto = onnx.load_from_string(model.onnx)
    onnx.checker.check_model(proto, full_check=True)
    assert [o.name for o in proto.graph.output] == [h.output for h in model.heads]
    assert (model.width, model.height) == (320, 320) and [len(h.anchors) for h in model.heads] == [3, 3]


def test_the_onnx_writer_builds_a_graph_onnxruntime_runs():
    from engine.runtimes.vision.common import ort_session

    weight = np.array([[[[2.0]]]], dtype=np.float32)
    graph = onnx_proto.model(
        [onnx_proto.node("Conv", ["x", "w"], ["c"], kernel_shape=[1, 1]),
         onnx_proto.node("LeakyRelu", ["c"], ["y"], alpha=0.1)],
        [onnx_proto.tensor("w", weight)],
        [onnx_proto.value_info("x", [1, 1, 2, 2])], [onnx_proto.value_info("y", [1, 1, None, None])], name="t")
    x = np.array([[[[1.0, -1.0], [3.0, -5.0]]]], dtype=np.float32)
    (y,) = ort_session(graph).run(None, {"x": x})
    assert np.allclose(y, [[[[2.0, -0.2], [6.0, -1.0]]]])


def test_every_runtime_answers_to_run():
    manager = ModelManager(MODELS_DIR)
    image = cv2.imread(str(shared_path("eval", "images", "skimage", "astronaut.png")))
    assert [r.label for r in vision.face_detector(manager).run(image)] == ["face"]
    assert "person" in [r.label for r in vision.object_detector(manager).run(image)]
    assert vision.classifier(manager).run(image)[0][1] > 0
    assert vision.image_embedder(manager).run(image).shape == (1024,)
    assert vision.ocr(manager).run(np.full((64, 64, 3), 255, np.uint8)) == []


def test_an_imported_yolo_world_detector_says_how_to_install_its_runtime(tmp_path):  # noqa: ANN001
    import importlib.util

    import pytest

    from engine.errors import ModelError
    from engine.models import ModelManager
    from engine.runtimes import vision

    if importlib.util.find_spec("ultralytics") is not None:
        pytest.skip("ultralytics is installed here: this test is about its absence")
    weights = tmp_path / "yolov8s-worldv2.pt"
    weights.write_bytes(b"\x80\x02 not really torch" * 10)
    manager = ModelManager(tmp_path / "models")
    name = manager.import_path(weights, role="detector")[0]
    with pytest.raises(ModelError, match=r"yolov8s-worldv2\.pt.*pip install ultralytics"):
        vision.object_detector(manager, name)
