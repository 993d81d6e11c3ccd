"""The text-image embedder slot (CLIP / SigLIP / MobileCLIP exported to ONNX, imported by the user).

No such model is obtainable here, so each test builds a tiny one in the real formats: ONNX towers
written with onnx_proto (image: conv, ReLU, global average pool, projection; text: token embedding,
mean, projection; random but fixed weights), a `tokenizer.json` built with the tokenizers library,
and the config files Hugging Face and open_clip exports carry. The weights mean nothing, so the
tests check what the loader reads, shapes, norms, batching, padding and errors, never semantics.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes import vision
from engine.runtimes.vision import clip, onnx_proto
from engine.runtimes.vision.clip import ImageTextEmbedder

ROLE = "image-text-embedder"
WORDS = "a photo of the red green blue cat dog tram bike house tree sky sea on in with under".split()
VOCAB = {"<pad>": 0, "<unk>": 1, "<|startoftext|>": 2, "<|endoftext|>": 3} | {w: i + 4 for i, w in enumerate(WORDS)}
HIDDEN, CHANNELS = 8, 8


# -- building tiny real-format models ----------------------------------------------------------
def _weights(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def image_tower(dim: int = 16, pixel: str = "pixel_values", shape: tuple = ("batch", 3, "height", "width"),
                out: str = "image_embeds", hidden: bool = True, nhwc: bool = False, prefix: str = "v"):
    """(nodes, initialisers, inputs, outputs): conv 3x3 -> ReLU -> global average pool -> projection."""
    x = pixel
    nodes = []
    if nhwc:
        nodes.append(onnx_proto.node("Transpose", [pixel], [f"{prefix}_nchw"], perm=[0, 3, 1, 2]))
        x = f"{prefix}_nchw"
    nodes += [
        onnx_proto.node("Conv", [x, f"{prefix}_w", f"{prefix}_b"], [f"{prefix}_conv"], kernel_shape=[3, 3],
                        pads=[1, 1, 1, 1]),
        onnx_proto.node("Relu", [f"{prefix}_conv"], [f"{prefix}_act"]),
        onnx_proto.node("GlobalAveragePool", [f"{prefix}_act"], [f"{prefix}_pool"]),
        onnx_proto.node("Flatten", [f"{prefix}_pool"], [f"{prefix}_flat"], axis=1),
        onnx_proto.node("MatMul", [f"{prefix}_flat", f"{prefix}_proj"], [out]),
    ]
    inits = [onnx_proto.tensor(f"{prefix}_w", _weights(1, CHANNELS, 3, 3, 3)),
             onnx_proto.tensor(f"{prefix}_b", _weights(2, CHANNELS) * 0.1),
             onnx_proto.tensor(f"{prefix}_proj", _weights(3, CHANNELS, dim))]
    outputs = []
    if hidden:  # a 3-D output listed first: the loader must pick the 2-D embedding, not the first output
        nodes.append(onnx_proto.node("Reshape", [f"{prefix}_act", f"{prefix}_hshape"], ["last_hidden_state"]))
        inits.append(onnx_proto.tensor(f"{prefix}_hshape", np.array([0, CHANNELS, -1], np.int64)))
        outputs.append(onnx_proto.value_info("last_hidden_state", [shape[0], CHANNELS, None]))
    outputs.append(onnx_proto.value_info(out, [shape[0], dim]))
    return nodes, inits, [onnx_proto.value_info(pixel, list(shape))], outputs


def text_tower(dim: int = 16, ids: str = "input_ids", shape: tuple = ("batch", "sequence"), mask: str | None =
               "attention_mask", out: str = "text_embeds", id_type: int = onnx_proto.INT64, prefix: str = "t"):
    """Token embedding -> mean over the tokens (masked when there is a mask) -> projection."""
    emb = _weights(4, len(VOCAB), HIDDEN)
    emb[0] = 0.0  # "<pad>": zero padding does not move the mean's direction
    inits = [onnx_proto.tensor(f"{prefix}_emb", emb), onnx_proto.tensor(f"{prefix}_proj", _weights(5, HIDDEN, dim))]
    nodes = [onnx_proto.node("Gather", [f"{prefix}_emb", ids], [f"{prefix}_tok"], axis=0)]
    inputs = [onnx_proto.value_info(ids, list(shape), id_type)]
    if mask:
        inits += [onnx_proto.tensor(f"{prefix}_ax1", np.array([1], np.int64)),
                  onnx_proto.tensor(f"{prefix}_ax2", np.array([2], np.int64))]
        nodes += [
            onnx_proto.node("Cast", [mask], [f"{prefix}_maskf"], to=onnx_proto.FLOAT),
            onnx_proto.node("Unsqueeze", [f"{prefix}_maskf", f"{prefix}_ax2"], [f"{prefix}_mask3"]),
            onnx_proto.node("Mul", [f"{prefix}_tok", f"{prefix}_mask3"], [f"{prefix}_masked"]),
            onnx_proto.node("ReduceSum", [f"{prefix}_masked", f"{prefix}_ax1"], [f"{prefix}_sum"], keepdims=0),
            onnx_proto.node("ReduceSum", [f"{prefix}_mask3", f"{prefix}_ax1"], [f"{prefix}_count"], keepdims=0),
            onnx_proto.node("Div", [f"{prefix}_sum", f"{prefix}_count"], [f"{prefix}_mean"]),
        ]
        inputs.append(onnx_proto.value_info(mask, list(shape), id_type))
    else:
        nodes.append(onnx_proto.node("ReduceMean", [f"{prefix}_tok"], [f"{prefix}_mean"], axes=[1], keepdims=0))
    nodes.append(onnx_proto.node("MatMul", [f"{prefix}_mean", f"{prefix}_proj"], [out]))
    return nodes, inits, inputs, [onnx_proto.value_info(out, [shape[0], dim])]


def graph(*towers, extra_nodes=(), extra_outputs=(), name: str = "tower") -> bytes:
    parts = [sum((list(t[i]) for t in towers), []) for i in range(4)]
    return onnx_proto.model(parts[0] + list(extra_nodes), parts[1], parts[2], list(extra_outputs) + parts[3],
                            name=name)


def write_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tok = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="<|startoftext|> $A <|endoftext|>", special_tokens=[("<|startoftext|>", 2), ("<|endoftext|>", 3)])
    tok.save(str(path))


def hf_export(folder: Path, image_dim: int = 16, text_dim: int = 16) -> Path:
    """Like a transformers.js / optimum per-tower export: onnx/vision_model.onnx, onnx/text_model.onnx
    with free batch and sizes, HF config files, the tokenizer padding with its end-of-text token."""
    (folder / "onnx").mkdir(parents=True)
    (folder / "onnx" / "vision_model.onnx").write_bytes(graph(image_tower(image_dim)))
    (folder / "onnx" / "text_model.onnx").write_bytes(graph(text_tower(text_dim)))
    write_tokenizer(folder / "tokenizer.json")
    (folder / "config.json").write_text(json.dumps({
        "model_type": "clip", "projection_dim": image_dim,
        "text_config": {"max_position_embeddings": 12}, "vision_config": {"image_size": 40}}))
    (folder / "preprocessor_config.json").write_text(json.dumps({
        "crop_size": {"height": 40, "width": 40}, "do_center_crop": True, "do_normalize": True,
        "image_mean": [0.5, 0.4, 0.3], "image_std": [0.25, 0.2, 0.1], "size": {"shortest_edge": 40}}))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "pad_token": {"content": "<|endoftext|>"}, "model_max_length": 12}))
    return folder


def open_clip_export(folder: Path) -> Path:
    """Like a torch.onnx.export of open_clip's encode_image / encode_text: fixed shapes (batch 1 for
    the image), names of the exporter's choosing, no attention mask, padding with zeros."""
    folder.mkdir(parents=True)
    (folder / "visual.onnx").write_bytes(graph(image_tower(pixel="image", shape=(1, 3, 32, 32),
                                                           out="image_features", hidden=False)))
    (folder / "textual.onnx").write_bytes(graph(text_tower(ids="text", shape=("batch", 8), mask=None,
                                                           out="text_features")))
    write_tokenizer(folder / "tokenizer.json")
    (folder / "open_clip_config.json").write_text(json.dumps({  # MobileCLIP-style: no mean/std, squash
        "model_cfg": {"embed_dim": 16, "vision_cfg": {"image_size": 32}, "text_cfg": {"context_length": 8}},
        "preprocess_cfg": {"mean": [0, 0, 0], "std": [1, 1, 1], "resize_mode": "squash"}}))
    return folder


def photo(seed: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    """A BGR uint8 picture: smooth colour blobs, different for every seed."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, size=(4, 4, 3), dtype=np.uint8)
    return cv2.resize(small, (size[1], size[0]), interpolation=cv2.INTER_CUBIC)


@pytest.fixture
def hf(tmp_path: Path) -> ImageTextEmbedder:
    return ImageTextEmbedder(hf_export(tmp_path / "clip-hf"), threads=1)


@pytest.fixture
def oc(tmp_path: Path) -> ImageTextEmbedder:
    return ImageTextEmbedder(open_clip_export(tmp_path / "mobileclip-oc"), threads=1)


# -- what the loader reads -----------------------------------------------------------------------
def test_a_hugging_face_export_is_read_from_its_sessions_and_config_files(hf: ImageTextEmbedder):
    assert (hf.name, hf.role, hf.dim, hf.combined) == ("clip-hf", ROLE, 16, False)
    assert hf.image_size == (40, 40) and hf.resize_mode == "crop" and not hf.channels_last  # free H, W: config
    assert hf.mean == pytest.approx((0.5, 0.4, 0.3)) and hf.std == pytest.approx((0.25, 0.2, 0.1))
    assert hf.context_length == 12 and hf.pad_id == VOCAB["<|endoftext|>"]  # tokenizer_config's pad token
    assert not hf.pad_to_context  # an attention mask and a free length: pad to the longest text only


def test_an_open_clip_export_is_read_from_its_fixed_shapes(oc: ImageTextEmbedder):
    assert (oc.name, oc.dim) == ("mobileclip-oc", 16)
    assert oc.image_size == (32, 32) and oc.resize_mode == "squash"
    assert oc.mean == (0.0, 0.0, 0.0) and oc.std == (1.0, 1.0, 1.0)
    assert oc.context_length == 8 and oc.pad_to_context and oc.pad_id == 0


def test_photos_become_rgb_normalised_centre_crops(hf: ImageTextEmbedder, oc: ImageTextEmbedder):
    bgr = np.zeros((30, 50, 3), np.uint8)
    bgr[:] = (0, 128, 255)  # B, G, R
    pixels = hf.preprocess([bgr])
    assert pixels.shape == (1, 3, 40, 40) and pixels.dtype == np.float32
    expected = (np.array([255, 128, 0]) / 255.0 - np.array([0.5, 0.4, 0.3])) / np.array([0.25, 0.2, 0.1])
    assert np.allclose(pixels[0].mean(axis=(1, 2)), expected, atol=1e-5)
    assert np.allclose(pixels.std(axis=(2, 3)), 0, atol=1e-5)  # a flat colour stays flat
    framed = np.zeros((40, 80, 3), np.uint8)
    framed[:, 20:60] = 255  # black sides around a white centre square
    assert np.allclose(hf.preprocess([framed])[0], ((1.0 - np.array(hf.mean)) / np.array(hf.std))[:, None, None])
    squashed = oc.preprocess([framed])[0]  # squash keeps the black sides; mean 0, std 1: just /255
    assert squashed.shape == (3, 32, 32) and squashed[:, :, 0].max() == 0.0 and squashed[:, :, 16].min() == 1.0
    grey, bgra = np.full((20, 20), 200, np.uint8), np.dstack([bgr, np.full((30, 50), 255, np.uint8)])
    assert hf.preprocess([grey, bgra]).shape == (2, 3, 40, 40)


# -- photo vectors -------------------------------------------------------------------------------
@pytest.mark.parametrize("style", ["hf", "oc"])
def test_photo_vectors_are_unit_deterministic_and_batched(style: str, request: pytest.FixtureRequest):
    emb: ImageTextEmbedder = request.getfixturevalue(style)
    emb.batch_size = 2  # five photos: batches of 2, 2, 1 (the open_clip export takes batches of 1)
    photos = [photo(i, (40 + 9 * i, 70 - 5 * i)) for i in range(5)]
    vectors = emb.embed_images(photos)
    assert vectors.shape == (5, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors, emb.embed_images(photos))
    one_by_one = np.stack([emb.embed_image(p) for p in photos])
    assert np.allclose(vectors, one_by_one, atol=1e-5)
    same = emb.embed_images([photos[0], photos[0].copy()])
    assert float(same[0] @ same[1]) == pytest.approx(1.0, abs=1e-5)
    cosines = vectors @ vectors.T
    assert all(cosines[i, j] < 0.999 for i in range(5) for j in range(5) if i != j)
    assert np.array_equal(emb.run(photos[0]), vectors[0])
    assert emb.embed_images([]).shape == (0, 16)


def test_a_channels_last_export_gives_the_same_vectors(tmp_path: Path, hf: ImageTextEmbedder):
    folder = hf_export(tmp_path / "nhwc")
    (folder / "onnx" / "vision_model.onnx").write_bytes(graph(image_tower(shape=("batch", "h", "w", 3), nhwc=True)))
    nhwc = ImageTextEmbedder(folder)
    assert nhwc.channels_last and nhwc.preprocess([photo(1)]).shape == (1, 40, 40, 3)
    photos = [photo(1), photo(2)]
    assert np.allclose(nhwc.embed_images(photos), hf.embed_images(photos), atol=1e-5)


# -- text vectors --------------------------------------------------------------------------------
def test_texts_are_padded_to_the_longest_and_truncated_to_the_context(hf: ImageTextEmbedder):
    eot = VOCAB["<|endoftext|>"]
    feeds = hf.tokenize(["a red cat", "a photo of the blue dog"])
    ids, mask = feeds["input_ids"], feeds["attention_mask"]
    assert ids.dtype == np.int64 and ids.shape == (2, 8)  # 6 words + start + end
    assert ids[0].tolist() == [2, VOCAB["a"], VOCAB["red"], VOCAB["cat"], eot, eot, eot, eot]
    assert mask[0].tolist() == [1] * 5 + [0] * 3 and mask[1].tolist() == [1] * 8
    long = " ".join(WORDS)  # 20 words > context 12
    row = hf.tokenize([long])["input_ids"][0]
    assert row.shape == (12,) and row[0] == 2 and row[-1] == eot  # truncated, end-of-text kept
    assert row[1:-1].tolist() == [VOCAB[w] for w in WORDS[:10]]
    assert np.allclose(hf.embed_text(long), hf.embed_text(" ".join(WORDS[:10])), atol=1e-6)


def test_a_fixed_length_export_is_padded_with_zeros(oc: ImageTextEmbedder):
    ids = oc.tokenize(["red cat", "a photo of the blue dog on the sea"])["text"]
    assert ids.shape == (2, 8) and ids[0].tolist() == [2, VOCAB["red"], VOCAB["cat"], 3, 0, 0, 0, 0]
    assert ids[1, -1] == 3 and ids[1, 0] == 2
    assert set(oc.tokenize(["x"])) == {"text"}  # no mask input: none fed


@pytest.mark.parametrize("style", ["hf", "oc"])
def test_text_vectors_are_unit_deterministic_and_batched(style: str, request: pytest.FixtureRequest):
    emb: ImageTextEmbedder = request.getfixturevalue(style)
    emb.batch_size = 1  # texts go in batches of 4
    texts = ["a red cat", "the blue sea", "a photo of a dog under a tree", "tram", "", "bike in the house"]
    vectors = emb.embed_texts(texts)
    assert vectors.shape == (6, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors, emb.embed_texts(texts))
    assert np.allclose(vectors, np.stack([emb.embed_text(t) for t in texts]), atol=1e-5)
    assert float(emb.embed_text("a red cat") @ emb.embed_text("A RED CAT")) == pytest.approx(1.0, abs=1e-6)
    assert float(vectors[0] @ vectors[1]) < 0.999
    assert emb.embed_texts([]).shape == (0, 16)


def test_pad_can_be_set_to_zeros_eot_or_a_token(tmp_path: Path):
    folder = hf_export(tmp_path / "m")
    assert ImageTextEmbedder(folder, pad="zeros").pad_id == 0
    assert ImageTextEmbedder(folder, pad="eot").pad_id == 3
    assert ImageTextEmbedder(folder, pad="<pad>", pad_to_context=True).tokenize(["cat"])["input_ids"].tolist() == [
        [2, VOCAB["cat"], 3] + [0] * 9]
    with pytest.raises(ModelError, match="pad token 'nope' is not in the vocabulary"):
        ImageTextEmbedder(folder, pad="nope")


def test_a_siglip_config_means_squash_half_grey_and_full_length_texts(tmp_path: Path):
    folder = hf_export(tmp_path / "siglip")
    (folder / "preprocessor_config.json").unlink()
    (folder / "tokenizer_config.json").unlink()
    (folder / "onnx" / "text_model.onnx").write_bytes(graph(text_tower(mask=None)))  # input_ids only
    (folder / "config.json").write_text(json.dumps({"model_type": "siglip", "pad": "eot",  # a Trove key wins
                                                    "text_config": {"max_position_embeddings": 12},
                                                    "vision_config": {"image_size": 40}}))
    siglip = ImageTextEmbedder(folder)
    assert siglip.mean == siglip.std == (0.5, 0.5, 0.5) and siglip.resize_mode == "squash"
    assert siglip.image_size == (40, 40) and siglip.context_length == 12 and siglip.pad_to_context
    assert siglip.tokenize(["cat"])["input_ids"].tolist() == [[2, VOCAB["cat"]] + [3] * 10]


# -- one file with both towers (optimum-cli export onnx) ----------------------------------------
def test_one_file_with_both_towers_gives_the_same_vectors(tmp_path: Path, hf: ImageTextEmbedder):
    folder = hf_export(tmp_path / "optimum")
    for name in ("vision_model.onnx", "text_model.onnx"):
        (folder / "onnx" / name).unlink()
    logits = [onnx_proto.node("Transpose", ["text_embeds"], ["text_t"], perm=[1, 0]),
              onnx_proto.node("MatMul", ["image_embeds", "text_t"], ["logits_per_image"])]
    (folder / "onnx" / "model.onnx").write_bytes(graph(
        text_tower(), image_tower(hidden=False), extra_nodes=logits,
        extra_outputs=[onnx_proto.value_info("logits_per_image", ["batch", "texts"])], name="clip"))
    both = ImageTextEmbedder(folder)
    assert both.combined and both.dim == 16
    photos, texts = [photo(3), photo(4), photo(5)], ["a red cat", "blue sea"]
    assert np.allclose(both.embed_images(photos), hf.embed_images(photos), atol=1e-5)
    assert np.allclose(both.embed_texts(texts), hf.embed_texts(texts), atol=1e-5)


# -- blending (UniversalRAG: 0.8 looks, 0.2 text) ------------------------------------------------
def test_photo_vectors_blend_looks_and_text(hf: ImageTextEmbedder):
    photos, texts = [photo(6), photo(7)], ["a cat on the house", "  "]
    visual, text = hf.embed_images(photos), hf.embed_texts(texts)
    blended = hf.photo_vectors(photos, texts)
    expected = 0.8 * visual[0] + 0.2 * text[0]
    assert np.allclose(blended[0], expected / np.linalg.norm(expected), atol=1e-5)
    assert np.allclose(blended[1], visual[1], atol=1e-6)  # no text: the looks alone
    assert np.allclose(np.linalg.norm(blended, axis=1), 1.0, atol=1e-5)
    assert np.allclose(hf.photo_vectors(photos), visual)
    with pytest.raises(ValueError, match="2 photos but 1 texts"):
        hf.photo_vectors(photos, ["x"])


# -- errors naming the file and the fix ----------------------------------------------------------
def test_a_missing_tower_or_tokenizer_is_named(tmp_path: Path):
    folder = hf_export(tmp_path / "no-text")
    (folder / "onnx" / "text_model.onnx").unlink()
    with pytest.raises(ModelError, match=r"no-text/text.onnx: no text tower: expected one of text.onnx, textual.onnx"
                                         r".*trove models import FOLDER --role image-text-embedder") as err:
        ImageTextEmbedder(folder)
    assert err.value.role == ROLE and "vision_model.onnx" in str(err.value)  # what was found
    folder = hf_export(tmp_path / "no-tok")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=r"no-tok/tokenizer.json: missing.*save_pretrained"):
        ImageTextEmbedder(folder)
    with pytest.raises(ModelError, match="no such folder"):
        ImageTextEmbedder(tmp_path / "nowhere")


def test_towers_that_disagree_on_the_vector_size_are_refused(tmp_path: Path):
    with pytest.raises(ModelError, match=r"text_model.onnx: text vectors have 12 dimensions but image vectors "
                                         r"\(mismatch/vision_model.onnx\) have 16.*same model"):
        ImageTextEmbedder(hf_export(tmp_path / "mismatch", image_dim=16, text_dim=12))


def test_an_unreadable_onnx_file_is_named(tmp_path: Path):
    folder = hf_export(tmp_path / "corrupt")
    (folder / "onnx" / "vision_model.onnx").write_bytes(b"\x08\x07 this is not a protobuf" * 10)
    with pytest.raises(ModelError, match=r"corrupt/vision_model.onnx: not a readable ONNX model.*export it again"):
        ImageTextEmbedder(folder)


def test_towers_in_each_others_place_or_ambiguous_are_refused(tmp_path: Path):
    folder = hf_export(tmp_path / "swapped")
    onnx = folder / "onnx"
    vision_bytes = (onnx / "vision_model.onnx").read_bytes()
    (onnx / "vision_model.onnx").write_bytes((onnx / "text_model.onnx").read_bytes())
    (onnx / "text_model.onnx").write_bytes(vision_bytes)
    with pytest.raises(ModelError, match="vision_model.onnx: has no image input.*is it the text tower"):
        ImageTextEmbedder(folder)
    folder = hf_export(tmp_path / "two")
    os.rename(folder / "onnx" / "vision_model.onnx", folder / "onnx" / "vision_model_fp32.onnx")
    (folder / "onnx" / "vision_model_quantized.onnx").write_bytes(graph(image_tower()))
    with pytest.raises(ModelError, match="several files could be the image tower.*image_file"):
        ImageTextEmbedder(folder)
    assert ImageTextEmbedder(folder, image_file="vision_model_quantized.onnx").dim == 16


def test_a_tower_that_does_not_run_is_refused_at_load(tmp_path: Path):
    folder = hf_export(tmp_path / "bad-size")  # a tower that only runs on 40x40 inputs, with a free input shape
    flat = CHANNELS * 40 * 40
    (folder / "onnx" / "vision_model.onnx").write_bytes(onnx_proto.model(
        [onnx_proto.node("Conv", ["pixel_values", "w"], ["conv"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         onnx_proto.node("Reshape", ["conv", "flat"], ["rows"]),
         onnx_proto.node("MatMul", ["rows", "proj"], ["image_embeds"])],
        [onnx_proto.tensor("w", _weights(1, CHANNELS, 3, 3, 3)), onnx_proto.tensor("flat", np.array([-1, flat])),
         onnx_proto.tensor("proj", _weights(3, flat, 16))],
        [onnx_proto.value_info("pixel_values", ["batch", 3, "h", "w"])],
        [onnx_proto.value_info("image_embeds", ["batch", 16])], name="fixed-size"))
    assert ImageTextEmbedder(folder).dim == 16
    with pytest.raises(ModelError, match=r"bad-size/vision_model.onnx: does not run on a grey test image "
                                         r"\(pixel_values \(1, 3, 24, 24\)\).*set image_size"):
        ImageTextEmbedder(folder, image_size=24)
    nodes, inits, inputs, outputs = image_tower()
    (folder / "onnx" / "vision_model.onnx").write_bytes(graph((nodes, inits, inputs, outputs[:1])))
    with pytest.raises(ModelError, match=r"vision_model.onnx: no output is one vector per input \(outputs: "
                                         r"last_hidden_state \(1, 8, 1600\)\).*with its projection"):
        ImageTextEmbedder(folder)  # only the hidden states were exported
    (folder / "onnx" / "vision_model.onnx").write_bytes(graph((nodes[:-2], inits[:2], inputs, [
        onnx_proto.value_info("v_flat", ["batch", CHANNELS])])))
    with pytest.raises(ModelError, match="text vectors have 16 dimensions but image vectors .* have 8"):
        ImageTextEmbedder(folder)  # the image tower stops before its projection


@pytest.mark.parametrize("builder", ["hf", "oc"])
def test_the_built_towers_are_valid_onnx(tmp_path: Path, builder: str):
    onnx = pytest.importorskip("onnx")  # the `train` extra: checks the test models, not needed to run them
    folder = hf_export(tmp_path / "m") if builder == "hf" else open_clip_export(tmp_path / "m")
    for path in folder.rglob("*.onnx"):
        onnx.checker.check_model(onnx.load(str(path)), full_check=True)


# -- through the model manager (a user import) ---------------------------------------------------
def test_an_imported_folder_is_found_through_the_catalog_and_checked(tmp_path: Path):
    manager = ModelManager(tmp_path / "models")
    with pytest.raises(ModelError, match="model role 'image-text-embedder'.*trove models import PATH --role "
                                         "image-text-embedder"):
        ImageTextEmbedder.from_manager(manager)
    source = hf_export(tmp_path / "usb" / "clip-vit-b32")
    assert manager.import_path(source, role=ROLE, name="tiny-clip") == ["tiny-clip"]
    spec = manager.catalog.pick(ROLE)
    assert spec is not None and spec.name == "tiny-clip" and spec.user_imported
    loaded = ImageTextEmbedder.from_manager(manager, threads=1)
    assert (loaded.name, loaded.dim, loaded.image_size, loaded.context_length) == ("tiny-clip", 16, (40, 40), 12)
    direct = ImageTextEmbedder(source)
    assert np.allclose(loaded.embed_images([photo(8)]), direct.embed_images([photo(8)]))
    assert ImageTextEmbedder.from_manager(ModelManager(tmp_path / "models"), "tiny-clip").name == "tiny-clip"

    imported = manager.models_dir / "tiny-clip" / "text_model.onnx"
    data = bytearray(imported.read_bytes())
    data[-5] ^= 0xFF  # same size, other bytes: a disk error, a tampered file
    imported.write_bytes(bytes(data))
    os.utime(imported, ns=(imported.stat().st_atime_ns, imported.stat().st_mtime_ns + 10**9))
    with pytest.raises(ModelError, match=r"tiny-clip/text_model.onnx: sha256 .* does not match.*re-import it"):
        ImageTextEmbedder.from_manager(ModelManager(tmp_path / "models"))


def test_the_registry_picks_the_onnx_runtime_for_imported_models(tmp_path: Path):
    manager = ModelManager(tmp_path / "models")
    manager.import_path(hf_export(tmp_path / "usb"), role=ROLE, name="my-siglip")
    spec = manager.catalog.by_name("my-siglip")
    assert clip.IMAGE_TEXT_EMBEDDERS["onnx-clip"] is ImageTextEmbedder
    assert clip.image_text_runtime(clip.IMAGE_TEXT_EMBEDDERS, spec) is ImageTextEmbedder
    odd = type(spec)(spec.name, spec.role, spec.files, extra={"runtime": "coreml"})
    with pytest.raises(ModelError, match="no runtime in Trove is called 'coreml'"):
        clip.image_text_runtime(clip.IMAGE_TEXT_EMBEDDERS, odd)


def test_the_vision_package_has_a_factory_for_the_role(tmp_path: Path):
    manager = ModelManager(tmp_path / "models")
    with pytest.raises(ModelError, match="trove models import PATH --role image-text-embedder"):
        vision.image_text_embedder(manager)
    manager.import_path(hf_export(tmp_path / "usb"), role=ROLE, name="my-siglip")
    embedder = vision.image_text_embedder(manager)  # like every other vision role
    assert isinstance(embedder, ImageTextEmbedder) and embedder.name == "my-siglip"
    with pytest.raises(ModelError, match="is a detector model, not a image-text-embedder"):
        vision.image_text_embedder(manager, "fastestdet")
