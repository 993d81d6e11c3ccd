"""Training the quantised router: the data recipe (`dataset`) and the trainer (`train`).

    .venv/bin/python -m engine.routing.training.train

Needs the `train` extra (onnx, for export and int8 quantisation); the router itself runs on
onnxruntime alone.
"""
