"""A vision-language model the user imports (a GGUF and its `mmproj` projector), run by
llama-cpp-python's multimodal chat handlers. None is obtainable on this machine (the tests run a
tiny real-format one made at test time: tests/vlm_model.py); Trove works without one, and with
one it (a) confirms each grounded region with a yes/no look at its crop and (b) lets the answer see
the photo with the cited boxes drawn and numbered (GranuRAG).

    trove models import ~/models/qwen2.5-vl-3b/ --role vlm   # the .gguf and the mmproj-*.gguf
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import weakref
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes.calls import Call, CallLog, current_stage, family
from engine.runtimes.special_tokens import as_text, control_texts

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateChatCompletionResponse

    from engine.grounding.inventory import Element

# model family (a word in the file name) -> llama_cpp.llama_chat_format handler class; the generic
# MTMD handler reads any projector llama.cpp's mtmd library knows
HANDLERS = {"qwen2.5-vl": "Qwen25VLChatHandler", "qwen2_5_vl": "Qwen25VLChatHandler",
            "qwen25vl": "Qwen25VLChatHandler", "moondream": "MoondreamChatHandler",
            "minicpm": "MiniCPMv26ChatHandler", "llava-v1.6": "Llava16ChatHandler",
            "llava-1.6": "Llava16ChatHandler", "nanollava": "NanoLlavaChatHandler", "llava": "Llava15ChatHandler"}
GENERIC_HANDLER = "MTMDChatHandler"


def pair(files: dict[str, Path]) -> tuple[Path, Path]:
    """(language model, projector) among a VLM's files: the projector's name says mmproj (or clip)."""
    ggufs = {name: path for name, path in files.items() if name.lower().endswith(".gguf")}
    projectors = [p for n, p in ggufs.items() if "mmproj" in n.lower() or "clip" in n.lower()]
    models = [p for n, p in ggufs.items() if p not in projectors]
    if len(projectors) != 1 or len(models) != 1:
        found = ", ".join(sorted(ggufs)) or "no .gguf file"
        raise ModelError("vlm", found, "a vision-language model is one language-model .gguf and one projector "
                         "whose name contains 'mmproj'", "trove models import FOLDER --role vlm with both files")
    return models[0], projectors[0]


def handler_name(model: Path) -> str:
    name = model.name.lower()
    return next((handler for family, handler in HANDLERS.items() if family in name), GENERIC_HANDLER)


def data_uri(image: np.ndarray, max_side: int = 896) -> str:
    """A BGR picture as a JPEG data URI, scaled down to what VLM encoders take anyway."""
    import cv2

    scale = min(1.0, max_side / max(image.shape[:2]))
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return "data:image/jpeg;base64," + base64.b64encode(data.tobytes()).decode("ascii")


def _quiet_mtmd() -> None:
    """libmtmd logs each prompt, image and encoding to stderr by default (its handlers' verbose=False
    does not reach it): its log goes through llama-cpp-python's, which prints errors only unless verbose."""
    import ctypes

    from llama_cpp import _logger, mtmd_cpp

    mtmd_cpp.mtmd_helper_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))  # sets libmtmd's log too


@cache
def _generic_handler() -> type:
    """The generic MTMD handler, with each message's parts given to the model's own chat template as
    one string (the image as mtmd's marker, then the text): the handler renders them as a list of
    parts, which templates written for text only (SmolLM2's, many LLaVA-style ones) cannot join."""
    from llama_cpp.llama_chat_format import MTMDChatHandler

    class OneStringHandler(MTMDChatHandler):
        @classmethod
        def _convert_message_for_template(cls, message: ChatCompletionRequestMessage,
                                          media_marker: str) -> dict[str, Any]:
            out = super()._convert_message_for_template(message, media_marker)
            parts = out.get("content")
            if isinstance(parts, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in parts):
                out["content"] = "".join(p["text"] for p in parts)
            return out

    return OneStringHandler


class VisionLanguageModel:
    """A multimodal GGUF: `look(image, prompt)` answers about one picture; calls are serialised."""

    role = "vlm"

    def __init__(self, model: Path, projector: Path, n_ctx: int = 4096, threads: int = 2, name: str = "") -> None:
        from llama_cpp import Llama, llama_chat_format

        _quiet_mtmd()
        chosen = handler_name(model)
        handler_cls = getattr(llama_chat_format, chosen, None) if chosen != GENERIC_HANDLER else None
        handler_cls = handler_cls or _generic_handler()
        try:
            handler = handler_cls(clip_model_path=str(projector), verbose=False)
            self.llama = Llama(model_path=str(model), chat_handler=handler, n_ctx=n_ctx, n_threads=threads,
                               n_threads_batch=threads, verbose=False)
            # the handlers load the projector on their first chat: loaded now, one that does not fit
            # the model (its embedding size, an unknown projector type) is refused here, not mid-answer
            handler._init_mtmd_context(self.llama)
        except (ValueError, RuntimeError) as exc:
            raise ModelError("vlm", model.name, f"llama.cpp cannot load it with {projector.name}: {exc}",
                             "import a model and its matching mmproj file") from exc
        # closed at exit at the latest: llama-cpp-python's own finaliser, run as the interpreter tears
        # down, frees the projector through a closed stream and prints a traceback
        weakref.finalize(self, self.llama.close)
        self.name = name or model.stem
        self._controls = control_texts(self.llama)  # the handlers tokenize the prompt with special tokens parsed
        self._lock = threading.Lock()

    @cached_property
    def calls(self) -> CallLog:
        """What each look cost (its stage, prompt tokens with the image's, time), as the LLM logs its calls."""
        return CallLog()

    @classmethod
    def from_manager(cls, manager: ModelManager, choice: str = "vlm", n_ctx: int = 4096,
                     threads: int = 2) -> VisionLanguageModel:
        model, projector = pair(manager.paths(choice))
        return cls(model, projector, n_ctx=n_ctx, threads=threads, name=manager.spec(choice).name)

    def look(self, image: np.ndarray, prompt: str, max_tokens: int = 256, system: str = "") -> str:
        """The model's reply about `image`. The prompt's text holds file content (evidence), and the
        chat handler tokenizes it with special tokens parsed: control tokens in it are made text."""
        system, prompt = as_text(system, self._controls), as_text(prompt, self._controls)
        messages: list[ChatCompletionRequestMessage] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_uri(image)}},
                                                     {"type": "text", "text": prompt}]})
        with self._lock:
            start = time.perf_counter()
            out = cast("CreateChatCompletionResponse",  # not streamed: one response
                       self.llama.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0))
            total = time.perf_counter() - start
        usage = out.get("usage") or {"prompt_tokens": 0, "completion_tokens": 0}
        self.calls.add(Call(current_stage(), family([{"content": system or prompt}]),  # prompt tokens: the image's too
                            usage["prompt_tokens"], 0, usage["completion_tokens"], total, total))
        return (out["choices"][0]["message"]["content"] or "").strip()

    def shows(self, crop: np.ndarray, element: Element) -> bool | None:
        """GranuRAG's yes/no check: does this crop show the element? None when the model could not
        look (llama.cpp refuses a picture and prompt longer than its context)."""
        what = element.title + (f" ({element.description})" if element.description else "")
        try:
            reply = self.look(crop, f"Does this picture show {what}? Answer yes or no.", max_tokens=4)
        except (ValueError, RuntimeError) as exc:
            log.warning("the VLM could not look at a region: %s", exc)
            return None
        return reply.lower().lstrip(" .\"'").startswith("yes")
