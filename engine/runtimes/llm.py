"""The local LLM through llama-cpp-python: chat template, streaming, grammar-constrained JSON.

Prompt prefix reuse: llama.cpp keeps the KV cache of the last prompt, and llama-cpp-python resumes
from the longest common prefix, so prompts that start with the same fixed instructions (the system
prompt comes first) only evaluate what is new. Measured in bench/RESULTS.md: a second question over
the same evidence takes 0.6 s instead of 20 s. (A `LlamaRAMCache` of saved states was tried: it cost
1 GB of RAM and ~1 s a call for no gain here.)"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.errors import ModelError
from engine.models import ModelManager

_TAGS = {"default": "llm", "fast": "llm:fast", "smoke": "llm:smoke"}


def resolve_llm_choice(choice: str) -> str:
    """Settings' `llm` value -> a catalog reference: 'default'/'fast'/'smoke', a role or a name."""
    return _TAGS.get(choice, choice)


class LLM:
    """One loaded GGUF model. Calls are serialised: llama.cpp contexts are not thread-safe."""

    def __init__(self, model_path: Path, n_ctx: int = 4096, threads: int = 2, seed: int = 0,
                 name: str = "") -> None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:  # pragma: no cover - the base install has it
            raise ModelError("llm", str(model_path), "llama-cpp-python is not installed",
                             "pip install llama-cpp-python==0.3.36") from exc
        self.name = name or Path(model_path).stem
        self.llama = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                           seed=seed, verbose=False, n_batch=512)
        self.n_ctx = n_ctx
        self._lock = threading.Lock()
        self._grammars: dict[str, object] = {}

    @classmethod
    def from_manager(cls, manager: ModelManager, choice: str = "default", n_ctx: int = 4096,
                     threads: int = 2) -> LLM:
        ref = resolve_llm_choice(choice)
        spec = manager.spec(ref)
        if spec.role != "llm":
            raise ModelError("llm", ref, f"'{ref}' is a {spec.role} model, not an LLM")
        paths = manager.paths(ref)
        gguf = next(p for n, p in paths.items() if n.endswith(".gguf"))
        return cls(gguf, n_ctx=n_ctx, threads=threads, name=spec.name)

    def count_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def chat(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str:
        """The assistant's reply; with `on_token`, each piece is passed on as it is generated."""
        with self._lock:
            if on_token is None:
                out = self.llama.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                        temperature=temperature, stop=stop)
                return out["choices"][0]["message"]["content"] or ""
            pieces = []
            stream: Iterator = self.llama.create_chat_completion(messages=messages, max_tokens=max_tokens,
                                                                 temperature=temperature, stop=stop, stream=True)
            for chunk in stream:
                piece = chunk["choices"][0]["delta"].get("content") or ""
                if piece:
                    pieces.append(piece)
                    on_token(piece)
            return "".join(pieces)

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int = 256) -> dict:
        """A JSON object that matches `schema`, decoding constrained by a grammar built from it."""
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        with self._lock:
            out = self.llama.create_chat_completion(messages=messages, max_tokens=max_tokens, temperature=0.0,
                                                    grammar=self._grammars[key])
        text = out["choices"][0]["message"]["content"] or ""
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            # only possible when max_tokens cut the object short
            raise ValueError(f"{self.name}: JSON output cut short after {max_tokens} tokens: {text[:200]!r}") from exc
