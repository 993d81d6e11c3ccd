"""A real-format vision-language model made at test time: a tiny LLaVA-style projector (mmproj) GGUF
with fixed-seed random weights, paired with the smoke LLM. llama.cpp's mtmd library loads it and
encodes pictures with it; what the pair says is meaningless. No weights are committed: `vlm_folder`
writes the pair (about 100 MB, the smoke LLM's copy) into a tmp folder in well under a second.

The projector is the simplest kind the mtmd of llama-cpp-python 0.3.36 reads: `clip.projector_type
= "mlp"` (LLaVA-1.5: a CLIP ViT, then Linear-GELU-Linear into the language model's embedding space;
clip.cpp builds it with `clip_graph_llava`). Its keys and tensor names are those of
`vendor/llama.cpp/tools/mtmd/clip-impl.h`, written with the `gguf` package (0.19.0, the version of
the gguf-py that this llama.cpp vendors):

  general.architecture = "clip", general.file_type = 0 (all F32), general.name
  clip.has_vision_encoder = true, clip.projector_type = "mlp", clip.use_gelu = false (quick GELU, as CLIP)
  clip.vision.image_size = 32, clip.vision.patch_size = 8      -> 4 x 4 = 16 patches = 16 image tokens
  clip.vision.embedding_length = 32, .feed_forward_length = 64, .block_count = 2,
  clip.vision.attention.head_count = 4, .attention.layer_norm_epsilon = 1e-5,
  clip.vision.projection_dim = 576 (read but unused by "mlp"), clip.vision.image_mean / image_std (CLIP's)

  v.patch_embd.weight (32, 3, 8, 8)  the patch convolution      v.class_embd (32)
  v.position_embd.weight (17, 32)    16 patches + the class token v.pre_ln.{weight,bias} (32)
  v.blk.{0,1}.ln1/ln2.{weight,bias}, attn_q/attn_k/attn_v/attn_out.{weight,bias} (32, 32),
              ffn_up (64, 32) / ffn_down (32, 64) .{weight,bias}
  mm.0.{weight,bias} (576, 32), mm.2.{weight,bias} (576, 576)    the MLP projector

Shapes are numpy's (out, in), as PyTorch's; GGUF stores them reversed. Why these sizes: the image is
the smallest that still makes several patches (mtmd pads it square and resizes it to 32 px); mm.2's 576
outputs must equal the language model's n_embd (SmolLM2-135M: 576), which mtmd checks at load; the
feed-forward length differs from the embedding length so that clip.cpp's fix-up for old LLaVA files
(up/down swapped) does not fire; LLaVA reads the second-to-last block's output, so two blocks make one
run. The file is about 1.5 MB.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np

SEED = 17
IMAGE_SIZE, PATCH_SIZE = 32, 8
N_EMBD, N_FF, N_HEAD, N_LAYER = 32, 64, 4, 2
TEXT_EMBD = 576  # the smoke LLM's n_embd (llama.embedding_length)
CLIP_MEAN, CLIP_STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]
# the smoke LLM under a name that chooses llama-cpp-python's handler (engine.runtimes.vlm.handler_name)
LLAVA_NAME = "tiny-llava-smollm2-135m.gguf"  # Llava15ChatHandler: its own LLaVA-1.5 prompt format
GENERIC_NAME = "tiny-vlm-smollm2-135m.gguf"  # MTMDChatHandler: the model's own chat template
PROJECTOR_NAME = "mmproj-tiny-clip-f32.gguf"
MODEL_NAME = "tiny-vlm-test"  # the language model's general.name in the pair (the smoke LLM's has as many bytes)


def tiny_projector(path: Path, seed: int = SEED, text_embd: int = TEXT_EMBD) -> Path:
    """Write the mmproj GGUF (see the module's doc) with random weights drawn from `seed`; its
    embeddings are `text_embd` wide (another width makes a projector that does not fit the model)."""
    import gguf  # a dev dependency only these tests need

    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def zeros(n: int) -> np.ndarray:
        return np.zeros(n, np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, np.float32)

    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_name("tiny random CLIP ViT + MLP projector (Trove tests)")
    writer.add_uint32("general.file_type", 0)  # all F32
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_string("clip.projector_type", "mlp")
    writer.add_bool("clip.use_gelu", False)
    writer.add_uint32("clip.vision.image_size", IMAGE_SIZE)
    writer.add_uint32("clip.vision.patch_size", PATCH_SIZE)
    writer.add_uint32("clip.vision.embedding_length", N_EMBD)
    writer.add_uint32("clip.vision.feed_forward_length", N_FF)
    writer.add_uint32("clip.vision.block_count", N_LAYER)
    writer.add_uint32("clip.vision.projection_dim", text_embd)
    writer.add_uint32("clip.vision.attention.head_count", N_HEAD)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    writer.add_array("clip.vision.image_mean", CLIP_MEAN)
    writer.add_array("clip.vision.image_std", CLIP_STD)

    n_pos = (IMAGE_SIZE // PATCH_SIZE) ** 2 + 1  # the patches and the class token
    tensors = {"v.patch_embd.weight": weight(N_EMBD, 3, PATCH_SIZE, PATCH_SIZE),
               "v.class_embd": weight(N_EMBD),
               "v.position_embd.weight": weight(n_pos, N_EMBD),
               "v.pre_ln.weight": ones(N_EMBD), "v.pre_ln.bias": zeros(N_EMBD)}
    for il in range(N_LAYER):
        blk = f"v.blk.{il}"
        for norm in ("ln1", "ln2"):
            tensors |= {f"{blk}.{norm}.weight": ones(N_EMBD), f"{blk}.{norm}.bias": zeros(N_EMBD)}
        for attn in ("attn_q", "attn_k", "attn_v", "attn_out"):
            tensors |= {f"{blk}.{attn}.weight": weight(N_EMBD, N_EMBD), f"{blk}.{attn}.bias": zeros(N_EMBD)}
        tensors |= {f"{blk}.ffn_up.weight": weight(N_FF, N_EMBD), f"{blk}.ffn_up.bias": zeros(N_FF),
                    f"{blk}.ffn_down.weight": weight(N_EMBD, N_FF), f"{blk}.ffn_down.bias": zeros(N_EMBD)}
    tensors |= {"mm.0.weight": weight(text_embd, N_EMBD), "mm.0.bias": zeros(text_embd),
                "mm.2.weight": weight(text_embd, text_embd), "mm.2.bias": zeros(text_embd)}
    for name, array in tensors.items():
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def renamed_gguf(source: Path, dest: Path, name: str) -> Path:
    """A copy of the GGUF `source` whose general.name is `name`, padded to the old name's length (the
    header is patched in place: every offset stays). A byte-for-byte copy of a catalog model would be
    imported as that catalog model (the import matches files by sha256), not as part of the VLM."""
    shutil.copyfile(source, dest)
    key = b"general.name"
    with dest.open("r+b") as fh:
        head = fh.read(1 << 16)
        at = head.find(struct.pack("<Q", len(key)) + key + struct.pack("<I", 8))  # key, then type 8: string
        if at < 0:
            raise ValueError(f"{source}: no general.name string in its GGUF header")
        start = at + 8 + len(key) + 4
        (length,) = struct.unpack_from("<Q", head, start)
        new = name.encode()
        if len(new) > length:
            raise ValueError(f"{name!r} is longer than the name it replaces ({length} bytes)")
        fh.seek(start + 8)
        fh.write(new.ljust(length))
    return dest


def vlm_folder(folder: Path, llm: Path, model_name: str = GENERIC_NAME) -> Path:
    """A folder ready for `trove models import FOLDER --role vlm`: the smoke LLM (renamed, see
    `renamed_gguf`) as `model_name`, and the tiny projector."""
    folder.mkdir(parents=True, exist_ok=True)
    renamed_gguf(llm, folder / model_name, MODEL_NAME)
    tiny_projector(folder / PROJECTOR_NAME)
    return folder
