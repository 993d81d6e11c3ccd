"""Train the router: a small multi-label classifier on the question's text embedding (sigmoid per
label, class-weighted binary cross-entropy), exported to ONNX and int8-quantised into
`models/router/`. CPU, numpy only; a few minutes on 2 cores, most of it embedding the questions.

    .venv/bin/python -m engine.routing.training.train [--epochs 60] [--hidden 256]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

from engine.routing.labels import ORDER
from engine.routing.training import dataset

OUT = dataset.ROOT / "models" / "router"
SEED = 7


def targets(examples: list[dataset.Example]) -> np.ndarray:
    y = np.zeros((len(examples), len(ORDER)), dtype=np.float32)
    for i, e in enumerate(examples):
        for label in e.labels:
            y[i, ORDER.index(label)] = 1.0
    return y


class MLP:
    """embedding -> hidden (ReLU) -> one logit per label."""

    def __init__(self, dim: int, hidden: int, labels: int, rng: np.random.Generator) -> None:
        self.w1 = (rng.standard_normal((dim, hidden)) * np.sqrt(2 / dim)).astype(np.float32)
        self.b1 = np.zeros(hidden, dtype=np.float32)
        self.w2 = (rng.standard_normal((hidden, labels)) * np.sqrt(1 / hidden)).astype(np.float32)
        self.b2 = np.zeros(labels, dtype=np.float32)

    @property
    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2, self.b2]

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.maximum(x @ self.w1 + self.b1, 0)
        return h, h @ self.w2 + self.b2

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-self.forward(x)[1]))


def fit(x: np.ndarray, y: np.ndarray, x_val: np.ndarray, y_val: np.ndarray, hidden: int, epochs: int,
        lr: float = 2e-3, decay: float = 1e-4, batch: int = 64) -> tuple[MLP, list[dict]]:
    """Adam on class-weighted BCE; keeps the epoch with the lowest validation loss."""
    rng = np.random.default_rng(SEED)
    model = MLP(x.shape[1], hidden, y.shape[1], rng)
    positives = y.sum(0)
    pos_weight = np.where(positives > 0, np.sqrt((len(y) - positives) / np.maximum(positives, 1)), 1.0)
    m = [np.zeros_like(p) for p in model.params]
    v = [np.zeros_like(p) for p in model.params]
    best: tuple[float, list[np.ndarray] | None] = (np.inf, None)
    history: list[dict] = []
    step = 0

    def loss(xb: np.ndarray, yb: np.ndarray) -> float:
        p = np.clip(model.probabilities(xb), 1e-6, 1 - 1e-6)
        return float(-(pos_weight * yb * np.log(p) + (1 - yb) * np.log(1 - p)).mean())

    for epoch in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            xb, yb = x[idx], y[idx]
            h, logits = model.forward(xb)
            p = 1 / (1 + np.exp(-logits))
            grad = (p * (1 - yb) - pos_weight * yb * (1 - p)) / (len(idx) * y.shape[1])
            gw2, gb2 = h.T @ grad, grad.sum(0)
            gh = grad @ model.w2.T * (h > 0)
            gw1, gb1 = xb.T @ gh, gh.sum(0)
            step += 1
            for i, (param, g) in enumerate(zip(model.params, (gw1, gb1, gw2, gb2), strict=True)):
                if param.ndim == 2:
                    g = g + decay * param
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                param -= lr * (m[i] / (1 - 0.9**step)) / (np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8)
        val = loss(x_val, y_val)
        history.append({"epoch": epoch + 1, "train_loss": round(loss(x, y), 4), "val_loss": round(val, 4)})
        if val < best[0]:
            best = (val, [p.copy() for p in model.params])
    if best[1] is None:
        raise ValueError(f"no model to keep: {'no epoch ran' if not epochs else 'every validation loss was NaN'}")
    model.w1, model.b1, model.w2, model.b2 = best[1]
    return model, history


def export(model: MLP, path: Path) -> Path:
    """ONNX graph `embedding [n, dim] -> probabilities [n, labels]`, then int8 dynamic quantisation."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    nodes = [helper.make_node("MatMul", ["embedding", "w1"], ["h1"]), helper.make_node("Add", ["h1", "b1"], ["h2"]),
             helper.make_node("Relu", ["h2"], ["h3"]), helper.make_node("MatMul", ["h3", "w2"], ["l1"]),
             helper.make_node("Add", ["l1", "b2"], ["logits"]), helper.make_node("Sigmoid", ["logits"],
                                                                                ["probabilities"])]
    inits = [numpy_helper.from_array(a, n) for a, n in zip(model.params, ("w1", "b1", "w2", "b2"), strict=True)]
    graph = helper.make_graph(nodes, "trove_router", [helper.make_tensor_value_info(
        "embedding", TensorProto.FLOAT, ["n", model.w1.shape[0]])], [helper.make_tensor_value_info(
            "probabilities", TensorProto.FLOAT, ["n", model.w2.shape[1]])], inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="trove")
    proto.ir_version = 8
    onnx.checker.check_model(proto)
    float_path = path.with_suffix(".float.onnx")
    onnx.save(proto, float_path)
    quantize_dynamic(str(float_path), str(path), weight_type=QuantType.QInt8)
    float_path.unlink()
    return path


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=_positive, default=60)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if not dataset.EVAL.exists():
        print(f"{dataset.EVAL} is absent: the router is trained on the shared development sets", file=sys.stderr)
        return 1
    from engine.models import ModelManager
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import default_home, default_models_dir

    t0 = time.perf_counter()
    train, held, mix = dataset.splits()
    embedder = TextEmbedder.from_manager(ModelManager(default_models_dir(default_home())), threads=2)
    x = embedder.embed([e.question for e in train])
    embed_s = time.perf_counter() - t0
    y = targets(train)
    val = np.array([dataset.held_out(e.question + " #validation") for e in train])  # a split of train
    model, history = fit(x[~val], y[~val], x[val], y[val], args.hidden, args.epochs)
    args.out.mkdir(parents=True, exist_ok=True)
    export(model, args.out / "router.int8.onnx")
    counts: dict[str, int] = {}
    for e in train:
        counts[e.dataset] = counts.get(e.dataset, 0) + 1
    meta = {"labels": list(ORDER), "embedder": "all-minilm-l6-v2-int8", "hidden": args.hidden,
            "epochs": args.epochs, "best_epoch": min(history, key=lambda h: h["val_loss"])["epoch"],
            "trained": datetime.now().isoformat(timespec="seconds"), "train_questions": len(train),
            "train_by_set": counts, "held_out_questions": len(held), "router_mix_questions": len(mix),
            "seconds": {"embed": round(embed_s, 1), "total": round(time.perf_counter() - t0, 1)}}
    (args.out / "router.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
