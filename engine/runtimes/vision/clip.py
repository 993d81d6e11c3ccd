"""Text-image embedders (CLIP, SigLIP, MobileCLIP exported to ONNX): photos and text in one vector space.

No such model can be installed from the catalog: a user exports one and imports the folder
(`trove models import FOLDER --role image-text-embedder --name NAME`; docs/image-text-models.md).
The folder holds
- the image tower: `image.onnx`, `visual.onnx` or `vision_model.onnx` (or one file named like them),
- the text tower: `text.onnx`, `textual.onnx` or `text_model.onnx` (or one file named like them);
  one ONNX file holding both towers (what `optimum-cli export onnx` writes for CLIP) also works,
  but every call then runs a dummy input through the other tower,
- `tokenizer.json` (Hugging Face tokenizers format),
- optionally `config.json`, `preprocessor_config.json`, `tokenizer_config.json` (Hugging Face) or
  `open_clip_config.json` (open_clip): image size, mean/std, crop or squash, context length, pad token.
Trove's own keys, at the top of `config.json` or in the model's entry of `user-models.toml`, win
over all of these: image_size, mean, std, resize ("crop" | "squash"), context_length,
pad ("zeros" | "eot" | "pad" | a token | an id), pad_to_context, image_file, text_file.

Input names, dtypes, layouts (NCHW/NHWC), fixed sizes and fixed batch sizes are read from the ONNX
sessions; the embedding output is the 2-D one named like `*embed*`/`*feature*`/`pooler_output`.
Both towers are run once at load on a grey image and a short text, so an export that does not run,
or whose towers disagree on the vector size, is refused then, with the file and the fix named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import cv2
import numpy as np

from engine.errors import ModelError
from engine.models import ModelManager, ModelSpec
from engine.runtimes.vision.common import as_bgr, ort_session, resize

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

ROLE = "image-text-embedder"
IMAGE_FILES = ("image.onnx", "visual.onnx", "vision_model.onnx", "image_encoder.onnx", "vision_encoder.onnx")
TEXT_FILES = ("text.onnx", "textual.onnx", "text_model.onnx", "text_encoder.onnx")
_IMAGE_WORDS, _TEXT_WORDS = ("image", "visual", "vision"), ("text",)
CONFIG_FILES = ("config.json", "preprocessor_config.json", "tokenizer_config.json", "open_clip_config.json")
OPTION_KEYS = ("image_size", "mean", "std", "resize", "context_length", "pad", "pad_to_context", "image_file",
               "text_file")
OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
VISUAL_WEIGHT = 0.8  # UniversalRAG: a photo's vector is 0.8 its looks + 0.2 its text (captions, OCR)
IMPORT_HINT = ("export both towers to ONNX next to tokenizer.json and import the folder: trove models import "
               "FOLDER --role image-text-embedder --name NAME (docs/image-text-models.md)")
_INT_TYPES = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}
_EOT_TOKENS = ("<|endoftext|>", "</s>", "[SEP]", "<eos>", "<|eot|>")
_PAD_TOKENS = ("<pad>", "[PAD]", "<|pad|>", "<|endoftext|>")


class ImageTextEmbedder:
    """Unit vectors of photos (image tower) and texts (text tower) that are compared by dot product.

    `model` is a folder, or a mapping of file name -> path (what `ModelManager.paths` gives);
    `options` are Trove's keys (see the module docstring) and win over the model's own config files."""

    role = ROLE

    def __init__(self, model: Path | str | Mapping[str, Path], name: str | None = None, threads: int = 1,
                 batch_size: int = 16, **options: Any) -> None:
        if isinstance(model, Mapping):
            files = {str(k): Path(v) for k, v in model.items()}
            self.name = name or "image-text-embedder"
        else:
            folder = Path(model)
            if not folder.is_dir():
                raise ModelError(ROLE, str(folder), "no such folder", IMPORT_HINT)
            files = _folder_files(folder)
            self.name = name or folder.name
        unknown = sorted(set(options) - set(OPTION_KEYS))
        if unknown:
            raise TypeError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(OPTION_KEYS)}")
        self.batch_size = max(1, int(batch_size))
        config = _gather(files, self.name)
        config.update({k: v for k, v in options.items() if v is not None})

        image_path, text_path = _tower_files(files, config, self.name)
        self._image_file, self._text_file = f"{self.name}/{image_path.name}", f"{self.name}/{text_path.name}"
        self.tokenizer = _tokenizer(files, self.name)
        self.combined = image_path == text_path
        self._image_session = _session(image_path, self._image_file, threads)
        self._text_session = self._image_session if self.combined else _session(text_path, self._text_file, threads)
        self._image_inputs = _inputs(self._image_session, self._image_file)
        self._text_inputs = self._image_inputs if self.combined else _inputs(self._text_session, self._text_file)
        if "pixels" not in self._image_inputs:
            raise ModelError(ROLE, self._image_file, "has no image input (a float tensor of 4 dimensions)",
                             "is it the text tower? name the image tower image.onnx, the text tower text.onnx")
        if "ids" not in self._text_inputs:
            raise ModelError(ROLE, self._text_file, "has no token-id input (an integer tensor of 2 dimensions)",
                             "is it the image tower? name the image tower image.onnx, the text tower text.onnx")
        if not self.combined and "ids" in self._image_inputs:
            raise ModelError(ROLE, self._image_file, "takes token ids as well as pixels",
                             "export the image tower alone (e.g. model.encode_image / get_image_features)")

        pixels = self._image_inputs["pixels"]
        shape = list(pixels.shape)
        self.channels_last = shape[3] == 3 and shape[1] != 3
        fixed_hw = shape[1:3] if self.channels_last else shape[2:4]
        self.image_size = _image_size(fixed_hw, config.get("image_size"))  # (height, width)
        self.resize_mode = str(config.get("resize", "crop"))
        if self.resize_mode not in ("crop", "squash"):
            raise ModelError(ROLE, f"{self.name}/config", f"resize = {self.resize_mode!r} is not crop or squash",
                             "set resize to \"crop\" (shorter side, centre crop) or \"squash\"")
        self.mean = _triple(config.get("mean", OPENAI_MEAN), "mean", self.name)
        self.std = _triple(config.get("std", OPENAI_STD), "std", self.name)
        self._image_batch = shape[0] if isinstance(shape[0], int) and shape[0] > 0 else None

        ids = self._text_inputs["ids"]
        id_shape = list(ids.shape)
        fixed_len = id_shape[1] if len(id_shape) > 1 and isinstance(id_shape[1], int) and id_shape[1] > 0 else None
        self.context_length = int(fixed_len or config.get("context_length") or 77)
        self.pad_to_context = bool(fixed_len) or bool(config.get("pad_to_context", "mask" not in self._text_inputs))
        self.pad_id = _pad_id(self.tokenizer, config.get("pad"), self.name)
        self._ids_dtype = _INT_TYPES[ids.type]
        self._text_batch = id_shape[0] if isinstance(id_shape[0], int) and id_shape[0] > 0 else None
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.context_length)

        self._image_output, self._text_output = "", ""
        self.dim = self._probe()

    # -- loading ---------------------------------------------------------------------------------
    @classmethod
    def from_manager(cls, manager: ModelManager, choice: str = "default", threads: int = 1,
                     batch_size: int = 16) -> ImageTextEmbedder:
        """The imported model of the role named `choice`, or carrying the tag `choice`."""
        spec = manager.model_for(ROLE, choice)
        options = {k: v for k, v in spec.extra.items() if k in OPTION_KEYS}
        return cls(manager.paths(spec.name), name=spec.name, threads=threads, batch_size=batch_size, **options)

    def _probe(self) -> int:
        """Run both towers once: pick their outputs, check they run and agree on the vector size."""
        grey = np.full((self.image_size[0], self.image_size[1], 3), 128, np.uint8)
        image_batch = self._image_batch or 1
        feeds = {self._image_inputs["pixels"].name: self.preprocess([grey] * image_batch)}
        if self.combined:
            feeds.update(self.tokenize(["a photo"] * (self._text_batch or 1)))
        image_out = _run_all(self._image_session, feeds, self._image_file, "a grey test image")
        self._image_output = _pick_output(image_out, image_batch, _IMAGE_WORDS if self.combined else (),
                                          self._image_file)
        text_batch = self._text_batch or 1
        if self.combined:
            text_out = image_out
        else:
            text_out = _run_all(self._text_session, self.tokenize(["a photo"] * text_batch), self._text_file,
                                "the text 'a photo'")
        self._text_output = _pick_output(text_out, text_batch, _TEXT_WORDS if self.combined else (),
                                         self._text_file)
        image_dim, text_dim = image_out[self._image_output].shape[1], text_out[self._text_output].shape[1]
        if image_dim != text_dim:
            raise ModelError(ROLE, self._text_file,
                             f"text vectors have {text_dim} dimensions but image vectors ({self._image_file}) "
                             f"have {image_dim}", "the two towers must come from the same model and both include "
                             "the projection (CLIPTextModelWithProjection / CLIPVisionModelWithProjection, "
                             "open_clip encode_text / encode_image)")
        return int(image_dim)

    # -- photos ------------------------------------------------------------------------------------
    def preprocess(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """The image tower's input for BGR photos: RGB, centre crop (or squash), resize, /255, mean/std."""
        height, width = self.image_size
        out = np.empty((len(images), height, width, 3), np.float32)
        mean, std = np.asarray(self.mean, np.float32), np.asarray(self.std, np.float32)
        for row, image in enumerate(images):
            bgr = as_bgr(image)
            if self.resize_mode == "crop":
                bgr = _centre_crop(bgr, width / height)
            rgb = cv2.cvtColor(resize(bgr, (width, height)), cv2.COLOR_BGR2RGB)
            out[row] = (rgb.astype(np.float32) / 255.0 - mean) / std
        return out if self.channels_last else np.ascontiguousarray(out.transpose(0, 3, 1, 2))

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """An (n, dim) float32 array of unit vectors, in the order of `images` (cv2 BGR uint8)."""
        images = list(images)
        out = np.zeros((len(images), self.dim), np.float32)
        step = self._image_batch or self.batch_size
        for start in range(0, len(images), step):
            chunk = images[start:start + step]
            pixels = _fill(self.preprocess(chunk), self._image_batch)
            feeds = {self._image_inputs["pixels"].name: pixels}
            if self.combined:
                feeds.update(self.tokenize([""] * (self._text_batch or 1)))
            out[start:start + len(chunk)] = self._image_session.run([self._image_output], feeds)[0][:len(chunk)]
        return _unit(out)

    def embed_image(self, image: np.ndarray) -> np.ndarray:
        """A (dim,) unit vector of one photo."""
        return self.embed_images([image])[0]

    run = embed_image  # the name every vision runtime answers to

    # -- texts -------------------------------------------------------------------------------------
    def tokenize(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The text tower's feeds: token ids truncated to the context length (end-of-text kept) and
        padded with `pad_id` to the context length (or to the longest text, when the tower takes an
        attention mask and a free length), plus the mask / token types / positions it asks for."""
        encodings = self.tokenizer.encode_batch([str(t) for t in texts])
        lengths = [min(len(e.ids), self.context_length) for e in encodings]
        width = self.context_length if self.pad_to_context else max([1, *lengths])
        ids = np.full((len(encodings), width), self.pad_id, self._ids_dtype)
        mask = np.zeros((len(encodings), width), self._ids_dtype)
        for row, (encoding, length) in enumerate(zip(encodings, lengths, strict=True)):
            ids[row, :length] = encoding.ids[:length]
            mask[row, :max(1, length)] = 1
        feeds = {self._text_inputs["ids"].name: ids}
        if arg := self._text_inputs.get("mask"):
            feeds[arg.name] = mask.astype(_INT_TYPES[arg.type])
        if arg := self._text_inputs.get("token_type"):
            feeds[arg.name] = np.zeros(ids.shape, _INT_TYPES[arg.type])
        if arg := self._text_inputs.get("position"):
            feeds[arg.name] = np.broadcast_to(np.arange(width, dtype=_INT_TYPES[arg.type]), ids.shape).copy()
        return feeds

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dim) float32 array of unit vectors, in the order of `texts` (queries, captions)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), np.float32)
        step = self._text_batch or self.batch_size * 4
        for start in range(0, len(texts), step):
            chunk = texts[start:start + step]
            feeds = {k: _fill(v, self._text_batch) for k, v in self.tokenize(chunk).items()}
            if self.combined:
                grey = np.full((self.image_size[0], self.image_size[1], 3), 128, np.uint8)
                feeds[self._image_inputs["pixels"].name] = self.preprocess([grey] * (self._image_batch or 1))
            out[start:start + len(chunk)] = self._text_session.run([self._text_output], feeds)[0][:len(chunk)]
        return _unit(out)

    def embed_text(self, text: str) -> np.ndarray:
        """A (dim,) unit vector of one text (a question is embedded this way)."""
        return self.embed_texts([text])[0]

    # -- both --------------------------------------------------------------------------------------
    def photo_vectors(self, images: Sequence[np.ndarray], texts: Sequence[str] | None = None,
                      visual_weight: float = VISUAL_WEIGHT) -> np.ndarray:
        """Photo vectors for the index: each photo's looks blended with its text (captions, OCR)."""
        visual = self.embed_images(images)
        if texts is None:
            return visual
        texts = list(texts)
        if len(texts) != len(visual):
            raise ValueError(f"{len(visual)} photos but {len(texts)} texts")
        return blend(visual, self.embed_texts(texts), visual_weight, has_text=[bool(t.strip()) for t in texts])

    def __repr__(self) -> str:
        return (f"ImageTextEmbedder({self.name!r}, dim={self.dim}, image_size={self.image_size}, "
                f"context_length={self.context_length}, combined={self.combined})")


IMAGE_TEXT_EMBEDDERS: dict[str, type[ImageTextEmbedder]] = {"onnx-clip": ImageTextEmbedder}
DEFAULT_RUNTIME = "onnx-clip"
_Runtime = TypeVar("_Runtime")


def image_text_runtime(registry: Mapping[str, _Runtime], spec: ModelSpec) -> _Runtime:
    """The runtime class of a catalog model: its `runtime = "..."` entry, else its name, else the generic
    ONNX CLIP runtime (imported models have names of the user's choosing)."""
    key = spec.extra.get("runtime")
    if key is None:
        return registry.get(spec.name) or registry[DEFAULT_RUNTIME]
    if key not in registry:
        raise ModelError(spec.role, spec.name, f"no runtime in Trove is called {key!r}",
                         f"runtimes exist for: {', '.join(registry)} (or drop the runtime line)")
    return registry[key]


def blend(visual: np.ndarray, text: np.ndarray, visual_weight: float = VISUAL_WEIGHT,
          has_text: Sequence[bool] | None = None) -> np.ndarray:
    """Unit vectors `visual_weight * visual + (1 - visual_weight) * text`, row by row; rows whose
    `has_text` is false keep their visual vector alone."""
    visual, text = np.atleast_2d(visual).astype(np.float32), np.atleast_2d(text).astype(np.float32)
    mixed = visual_weight * visual + (1.0 - visual_weight) * text
    if has_text is not None:
        keep = ~np.asarray(has_text, bool)
        mixed[keep] = visual[keep]
    return _unit(mixed)


# -- helpers -------------------------------------------------------------------------------------
def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)


def _fill(array: np.ndarray, batch: int | None) -> np.ndarray:
    """`array` padded to a model's fixed batch size by repeating its last row."""
    if not batch or len(array) >= batch:
        return array
    return np.concatenate([array, np.repeat(array[-1:], batch - len(array), axis=0)])


def _folder_files(folder: Path) -> dict[str, Path]:
    """File name -> path under `folder`, shallowest first (an export's `onnx/` subfolder included)."""
    files: dict[str, Path] = {}
    for path in sorted(folder.rglob("*"), key=lambda p: (len(p.parts), str(p))):
        if path.is_file():
            files.setdefault(path.name, path)
    return files


def _read_json(path: Path, model: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(ROLE, f"{model}/{path.name}", f"is not readable JSON ({exc})",
                         "fix or remove the file, then import the folder again") from exc
    return data if isinstance(data, dict) else {}


def _gather(files: Mapping[str, Path], model: str) -> dict[str, Any]:
    """Trove's options from the model's own config files (Hugging Face, open_clip, then flat keys)."""
    raw = {name: _read_json(files[name], model) for name in CONFIG_FILES if name in files}
    out: dict[str, Any] = {}
    tok = raw.get("tokenizer_config.json", {})
    if isinstance(tok.get("model_max_length"), int) and 0 < tok["model_max_length"] <= 4096:
        out["context_length"] = tok["model_max_length"]
    if tok.get("pad_token"):
        pad = tok["pad_token"]
        out["pad"] = pad.get("content") if isinstance(pad, dict) else pad
    hf = raw.get("config.json", {})
    model_type = str(hf.get("model_type", "")).lower()
    if "siglip" in model_type:
        out.update(mean=[0.5] * 3, std=[0.5] * 3, resize="squash", pad_to_context=True)
    # a CLIPModel config nests both towers; a tower saved alone (clip_vision_model, ...) is flat
    vision = hf.get("vision_config") or (hf if "vision" in model_type else {})
    text = hf.get("text_config") or (hf if "text" in model_type else {})
    if isinstance(vision.get("image_size"), int):
        out["image_size"] = vision["image_size"]
    if isinstance(text.get("max_position_embeddings"), int):
        out["context_length"] = text["max_position_embeddings"]
    oc = raw.get("open_clip_config.json", {})
    model_cfg, pre = oc.get("model_cfg") or {}, oc.get("preprocess_cfg") or {}
    if (size := (model_cfg.get("vision_cfg") or {}).get("image_size")) is not None:
        out["image_size"] = size
    if (length := (model_cfg.get("text_cfg") or {}).get("context_length")) is not None:
        out["context_length"] = length
    out.update({k: pre[k] for k in ("mean", "std") if k in pre})
    if pre.get("resize_mode") in ("shortest", "squash"):
        out["resize"] = "crop" if pre["resize_mode"] == "shortest" else "squash"
    pp = raw.get("preprocessor_config.json", {})
    out.update({k: pp[f"image_{k}"] for k in ("mean", "std") if f"image_{k}" in pp})
    size, crop = pp.get("size"), pp.get("crop_size")
    if pp.get("do_center_crop") and crop:
        out["resize"], out["image_size"] = "crop", _hf_size(crop)
    elif isinstance(size, dict) and "height" in size and "width" in size:
        out["resize"], out["image_size"] = "squash", _hf_size(size)
    elif size:
        out["image_size"] = _hf_size(size)
    out.update({k: hf[k] for k in OPTION_KEYS if k in hf})
    return out


def _hf_size(size: Any) -> Any:
    if isinstance(size, dict):
        if "height" in size and "width" in size:
            return [size["height"], size["width"]]
        return size.get("shortest_edge") or size.get("longest_edge")
    return size


def _image_size(fixed: Sequence[Any], configured: Any) -> tuple[int, int]:
    if all(isinstance(d, int) and d > 0 for d in fixed):
        return int(fixed[0]), int(fixed[1])
    if isinstance(configured, int | float):
        return int(configured), int(configured)
    if isinstance(configured, Sequence) and len(configured) == 2:
        return int(configured[0]), int(configured[1])
    return 224, 224


def _triple(value: Any, key: str, model: str) -> tuple[float, float, float]:
    values = [value] * 3 if isinstance(value, int | float) else list(value)
    if len(values) != 3 or (key == "std" and not all(float(v) > 0 for v in values)):
        raise ModelError(ROLE, f"{model}/config", f"{key} = {value!r} is not three numbers"
                         + (" above zero" if key == "std" else ""), f"set {key} to the model's per-channel RGB {key}")
    return float(values[0]), float(values[1]), float(values[2])


def _tower_files(files: Mapping[str, Path], config: Mapping[str, Any], model: str) -> tuple[Path, Path]:
    onnx = sorted(name for name in files if name.lower().endswith(".onnx"))
    image = _find(files, onnx, config.get("image_file"), IMAGE_FILES, _IMAGE_WORDS, "image", model)
    text = _find(files, onnx, config.get("text_file"), TEXT_FILES, _TEXT_WORDS, "text", model)
    if image is None and text is None and len(onnx) == 1:
        return files[onnx[0]], files[onnx[0]]  # one file with both towers (optimum's CLIP export)
    for tower, found, names in (("image", image, IMAGE_FILES), ("text", text, TEXT_FILES)):
        if found is None:
            seen = ", ".join(sorted(files)) or "nothing"
            raise ModelError(ROLE, f"{model}/{names[0]}", f"no {tower} tower: expected one of {', '.join(names)} "
                             f"(found: {seen})", IMPORT_HINT)
    assert image is not None and text is not None  # the loop above raised for a missing tower
    return image, text


def _find(files: Mapping[str, Path], onnx: list[str], chosen: Any, names: Sequence[str], words: Sequence[str],
          tower: str, model: str) -> Path | None:
    if chosen:
        if str(chosen) not in files:
            raise ModelError(ROLE, f"{model}/{chosen}", f"named as the {tower} tower ({tower}_file) but not in the "
                             "model", f"files there: {', '.join(sorted(files))}")
        return files[str(chosen)]
    for name in names:
        if name in files:
            return files[name]
    loose = [n for n in onnx if any(w in n.lower() for w in words)]
    if tower == "image":  # "vision_text_model.onnx" and the like are not image towers
        loose = [n for n in loose if "text" not in n.lower()]
    if len(loose) > 1:
        raise ModelError(ROLE, f"{model}/{loose[0]}", f"several files could be the {tower} tower: {', '.join(loose)}",
                         f"import only one, or add {tower}_file = \"NAME.onnx\" to the model in user-models.toml")
    return files[loose[0]] if loose else None


def _tokenizer(files: Mapping[str, Path], model: str) -> Tokenizer:
    from tokenizers import Tokenizer

    if "tokenizer.json" not in files:
        raise ModelError(ROLE, f"{model}/tokenizer.json", "missing: the text tower needs its tokenizer",
                         "save it beside the towers (tokenizer.save_pretrained(FOLDER) writes tokenizer.json) "
                         "and import the folder again")
    try:
        return Tokenizer.from_file(str(files["tokenizer.json"]))
    except Exception as exc:  # tokenizers raises its own Exception type
        raise ModelError(ROLE, f"{model}/tokenizer.json", f"is not a Hugging Face tokenizers file ({exc})",
                         "save the model's fast tokenizer with tokenizer.save_pretrained(FOLDER)") from exc


def _session(path: Path, label: str, threads: int) -> InferenceSession:
    try:
        return ort_session(path, threads)
    except Exception as exc:  # onnxruntime raises InvalidProtobuf, Fail, NoSuchFile, ...
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(ROLE, label, f"not a readable ONNX model ({reason[:200]})",
                         "export it again (torch.onnx.export or optimum-cli export onnx) and re-import: "
                         "trove models import FOLDER --role image-text-embedder") from exc


def _inputs(session: InferenceSession, label: str) -> dict[str, Any]:
    """The session's inputs by what they are: pixels, ids, mask, token_type, position."""
    found: dict[str, Any] = {}
    for arg in session.get_inputs():
        lower = arg.name.lower()
        if arg.type.startswith("tensor(float") and len(arg.shape) == 4:
            kind = "pixels"
        elif arg.type in _INT_TYPES and len(arg.shape) == 2:
            kind = ("mask" if "mask" in lower else "token_type" if "type" in lower
                    else "position" if "position" in lower else "ids")
        else:
            raise ModelError(ROLE, label, f"input {arg.name!r} ({arg.type}, shape {arg.shape}) is neither an image "
                             "nor token ids", "export the tower with only pixel_values, or input_ids (and "
                             "attention_mask), as inputs")
        if kind in found:
            raise ModelError(ROLE, label, f"inputs {found[kind].name!r} and {arg.name!r} both look like {kind}",
                             "export the tower with one image input or one token-id input")
        if kind == "pixels" and arg.type != "tensor(float)":
            raise ModelError(ROLE, label, f"image input {arg.name!r} is {arg.type}, not float32",
                             "export in float32 (fp16 exports are not supported)")
        found[kind] = arg
    return found


def _run_all(session: InferenceSession, feeds: dict[str, np.ndarray], label: str, what: str) -> dict[str, np.ndarray]:
    try:
        names = [o.name for o in session.get_outputs()]
        return dict(zip(names, session.run(None, feeds), strict=True))
    except Exception as exc:  # onnxruntime's errors carry the node that failed
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        shapes = ", ".join(f"{k} {tuple(v.shape)}" for k, v in feeds.items())
        raise ModelError(ROLE, label, f"does not run on {what} ({shapes}): {reason[:300]}",
                         "set image_size / context_length for this model, or export it again") from exc


def _pick_output(outputs: Mapping[str, np.ndarray], batch: int, words: Sequence[str], label: str) -> str:
    """The embedding among a tower's outputs: 2-D (batch, dim), named embed/feature/pooler if several."""
    names = [n for n, a in outputs.items() if np.ndim(a) == 2 and a.shape[0] == batch and "logit" not in n.lower()]
    if words:
        names = [n for n in names if any(w in n.lower() for w in words)]
    for key in ("embed", "feature", "pooler"):
        if hit := [n for n in names if key in n.lower()]:
            return hit[0]
    if names:
        return names[0]
    shapes = ", ".join(f"{n} {tuple(np.shape(a))}" for n, a in outputs.items())
    raise ModelError(ROLE, label, f"no output is one vector per input (outputs: {shapes})",
                     "export the model with its projection, whose output is (batch, dim): image_embeds / "
                     "text_embeds, or open_clip's encode_image / encode_text")


def _centre_crop(image: np.ndarray, aspect: float) -> np.ndarray:
    """The largest centred part of `image` with width / height = `aspect`."""
    height, width = image.shape[:2]
    if width / height > aspect:
        new_width = max(1, round(height * aspect))
        left = (width - new_width) // 2
        return image[:, left:left + new_width]
    new_height = max(1, round(width / aspect))
    top = (height - new_height) // 2
    return image[top:top + new_height]


def _pad_id(tokenizer: Tokenizer, pad: Any, model: str) -> int:
    """The id texts are padded with: "zeros" (open_clip), "eot", "pad", a token, or an id."""
    if pad is None:
        padding = tokenizer.padding
        return int(padding["pad_id"]) if padding else 0
    if isinstance(pad, bool):
        raise ModelError(ROLE, f"{model}/config", f"pad = {pad!r}", "set pad to \"zeros\", \"eot\", \"pad\" or an id")
    if isinstance(pad, int):
        return pad
    if pad == "zeros":
        return 0
    if pad == "eot":
        ids = tokenizer.encode("").ids  # the post-processor's [start, end] tokens, when it adds them
        if ids:
            return int(ids[-1])
        for token in _EOT_TOKENS:
            if (found := tokenizer.token_to_id(token)) is not None:
                return int(found)
        raise ModelError(ROLE, f"{model}/tokenizer.json", "pad = \"eot\" but the tokenizer has no end-of-text token",
                         "set pad to \"zeros\" or to the token's id")
    if pad == "pad":
        if tokenizer.padding:
            return int(tokenizer.padding["pad_id"])
        return next((int(i) for t in _PAD_TOKENS if (i := tokenizer.token_to_id(t)) is not None), 0)
    found = tokenizer.token_to_id(str(pad))
    if found is None:
        raise ModelError(ROLE, f"{model}/tokenizer.json", f"the pad token {pad!r} is not in the vocabulary",
                         "set pad to \"zeros\", \"eot\" or an id in this model's config.json")
    return int(found)
