"""The local LLM through llama-cpp-python: chat template, streaming, grammar-constrained JSON.

Content is text, never control tokens: llama-cpp-python's `create_chat_completion` renders the chat
template to one string and tokenizes all of it with `special=True`, so an `<|im_start|>system` inside
a file's text would become a real turn marker. Here the template is rendered with a placeholder per
message; its own markers are tokenized as special tokens and every message's content as plain text
(`special=False`), and the model generates from that token list (`create_completion`).

Prompts always fit: one that would leave less than `max_tokens` of the context for the reply has its
longest user content trimmed in the middle (the builders fit their prompts first; this is the last
line of defence), or a clear `ModelError` when trimming cannot make it fit.

Prompt prefix reuse: llama.cpp keeps the KV cache of the last prompt, and llama-cpp-python resumes
from the longest common prefix of tokens, so prompts that start with the same fixed instructions (the
system prompt comes first) only evaluate what is new. The state after each prompt family's system
prompt is also saved (`prefixes.PrefixStates`), so switching between families (router, query, answer)
does not evaluate their instructions again. Every call is logged with its token counts and time to
first token (`calls.CallLog`)."""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict, cast

from engine.errors import ModelError
from engine.models import ModelManager
from engine.runtimes.calls import Call, CallLog, current_stage, family
from engine.runtimes.prefixes import PrefixStates, common_prefix, held_tokens

if TYPE_CHECKING:
    from llama_cpp import Llama, LlamaGrammar
    from llama_cpp.llama_types import ChatCompletionRequestMessage, CreateCompletionResponse

_TAGS = {"default": "llm", "fast": "llm:fast", "smoke": "llm:smoke"}


class _Sampling(TypedDict):
    top_p: float
    top_k: int
    min_p: float
    repeat_penalty: float


# Sampling as llama-cpp-python's chat completion used it (greedy at temperature 0).
_SAMPLING: _Sampling = {"top_p": 0.95, "top_k": 40, "min_p": 0.05, "repeat_penalty": 1.0}
_CUT = " … [{cut:,} tokens cut to fit the model's context] … "
_MIN_KEPT = 32  # tokens of a trimmed content kept at least, else the prompt is refused


class ChatModel(Protocol):
    """What writing a reply needs of an LLM: `LLM`, or a scripted double in tests."""

    def chat(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str: ...


class JsonChatModel(Protocol):
    """What a JSON answer (a routing or selection choice) needs of an LLM."""

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int = 256) -> dict: ...


def resolve_llm_choice(choice: str) -> str:
    """Settings' `llm` value -> a catalog reference: 'default'/'fast'/'smoke', a role or a name."""
    return _TAGS.get(choice, choice)


class LLM:
    """One loaded GGUF model. Calls are serialised: llama.cpp contexts are not thread-safe."""

    def __init__(self, model_path: Path, n_ctx: int = 4096, threads: int = 2, seed: int = 0,
                 name: str = "", prefix_bytes: int = 256 * 1024 * 1024) -> None:
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
        self._grammars: dict[str, LlamaGrammar] = {}
        self._formatter, self._eos = _formatter(self.llama)
        self.prefixes = PrefixStates(self.llama, prefix_bytes) if prefix_bytes > 0 else None
        self.calls = CallLog()

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
        return len(self._text_tokens(text))

    def prompt_tokens(self, messages: list[dict], max_tokens: int = 0) -> list[int]:
        """The prompt as tokens: the template's markers special, each content plain text; trimmed
        so that `max_tokens` of reply still fit the context."""
        return self._prompt(messages, max_tokens)[0]

    def chat(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str:
        """The assistant's reply; with `on_token`, each piece is passed on as it is generated."""
        with self._lock:
            pieces = []
            for piece in self._stream(messages, max_tokens, temperature, stop):
                pieces.append(piece)
                if on_token is not None:
                    on_token(piece)
            return "".join(pieces)

    def chat_json(self, messages: list[dict], schema: dict, max_tokens: int = 256) -> dict:
        """A JSON object that matches `schema`, decoding constrained by a grammar built from it."""
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            self._grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
        with self._lock:
            text = "".join(self._stream(messages, max_tokens, 0.0, None, grammar=self._grammars[key]))
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            # only possible when max_tokens cut the object short
            raise ValueError(f"{self.name}: JSON output cut short after {max_tokens} tokens: {text[:200]!r}") from exc

    def _stream(self, messages: list[dict], max_tokens: int, temperature: float, stop: list[str] | None,
                grammar: LlamaGrammar | None = None) -> Iterator[str]:
        """The reply's pieces, from llama-cpp-python's completion of the prompt's tokens, resumed from
        the longest prefix held; the call is logged when it ends."""
        from llama_cpp import StoppingCriteriaList

        start = time.perf_counter()
        tokens, fixed = self._prompt(messages, max_tokens)
        reused = (self.prefixes.resume(tokens, fixed) if self.prefixes is not None
                  else common_prefix(held_tokens(self.llama), tokens))
        eos, first = self._eos, 0.0
        chunks = cast("Iterator[CreateCompletionResponse]", self.llama.create_completion(
            prompt=tokens, max_tokens=max_tokens, temperature=temperature,
            stop=[*(stop or []), *self._formatter.stop], stream=True, grammar=grammar,
            stopping_criteria=StoppingCriteriaList([lambda ids, _logits: ids[-1] == eos]), **_SAMPLING))
        try:
            for chunk in chunks:
                piece = chunk["choices"][0].get("text") or ""
                if piece:
                    first = first or time.perf_counter() - start
                    yield piece
        finally:
            total = time.perf_counter() - start
            self.calls.add(Call(current_stage(), family(messages), len(tokens), min(reused, len(tokens)),
                                max(0, self.llama.n_tokens - len(tokens) + 1), first or total, total))

    def _prompt(self, messages: list[dict], max_tokens: int) -> tuple[list[int], int]:
        """The prompt's tokens and how many of them are its fixed part: the template up to the end
        of the system prompt and the markers that close it (0 when there is no system prompt)."""
        segments = self._segments(messages)
        _trim(segments, messages, self.n_ctx - max_tokens - 1, self._text_tokens, self.name)
        tokens: list[int] = []
        fixed = 0
        system = bool(messages) and messages[0].get("role") == "system"
        for k, (piece, index) in enumerate(segments):
            tokens += piece
            if system and (index == 0 or (k and segments[k - 1][1] == 0 and index is None)):
                fixed = len(tokens)
        return tokens, fixed

    def _text_tokens(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False) if text else []

    def _segments(self, messages: list[dict]) -> list[tuple[list[int], int | None]]:
        """(tokens, message index) pieces of the prompt; the index is None for the template's own text."""
        nonce = secrets.token_hex(8)
        marks = [{**m, "content": f"\x1e{nonce}:{i}\x1e"} for i, m in enumerate(messages)]
        rendered = self._formatter.render(marks)
        pieces = re.split(f"\x1e{nonce}:(\\d+)\x1e", rendered)
        found = [int(i) for i in pieces[1::2]]
        if sorted(found) != list(range(len(messages))):
            raise ModelError("llm", self.name, "its chat template does not place each message's text once, "
                                               "as given", "use a model with a ChatML-like template")
        segments: list[tuple[list[int], int | None]] = []
        for k, piece in enumerate(pieces):
            if k % 2:
                content = messages[int(piece)]["content"]
                segments.append((self._text_tokens(content if isinstance(content, str) else str(content)),
                                 int(piece)))
            elif piece:
                segments.append((self.llama.tokenize(piece.encode("utf-8"), add_bos=False, special=True), None))
        return segments


class _Formatter:
    """The model's chat template (llama-cpp-python's Jinja2 renderer) and its stop strings."""

    def __init__(self, template: str, eos_text: str, bos_text: str) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._jinja = Jinja2ChatFormatter(template=template, eos_token=eos_text, bos_token=bos_text)
        self.stop = [eos_text] if eos_text else []

    def render(self, messages: list[dict]) -> str:
        # role and content dicts, as the template reads them (llama-cpp-python types them as TypedDicts)
        return self._jinja(messages=cast("list[ChatCompletionRequestMessage]", messages)).prompt


def _formatter(llama: Llama) -> tuple[_Formatter, int]:
    """The GGUF's own chat template (ChatML when it has none) and the end-of-turn token id."""
    from llama_cpp.llama_chat_format import CHATML_CHAT_TEMPLATE

    eos, bos = llama.token_eos(), llama.token_bos()
    text = {t: llama.detokenize([t], special=True).decode("utf-8", "replace") if t >= 0 else "" for t in (eos, bos)}
    template = llama.metadata.get("tokenizer.chat_template") or CHATML_CHAT_TEMPLATE
    return _Formatter(template, text[eos], text[bos]), eos


def _trim(segments: list[tuple[list[int], int | None]], messages: list[dict], limit: int,
          tokenize: Callable[[str], list[int]], name: str) -> None:
    """Cut user contents in the middle, the longest first, until the prompt is at most `limit` tokens."""
    total = sum(len(tokens) for tokens, _ in segments)
    users = [k for k, (_, i) in enumerate(segments) if i is not None and messages[i].get("role") == "user"]
    for k in sorted(users, key=lambda j: -len(segments[j][0])):
        if total <= limit:
            return
        tokens, i = segments[k]
        note = tokenize(_CUT.format(cut=total - limit))
        keep = max(_MIN_KEPT, len(tokens) - (total - limit) - len(note))
        if keep + len(note) >= len(tokens):
            continue
        note = tokenize(_CUT.format(cut=len(tokens) - keep))
        segments[k] = (tokens[:keep // 2] + note + tokens[len(tokens) - (keep - keep // 2):], i)
        total = sum(len(t) for t, _ in segments)
    if total > limit:
        raise ModelError("llm", name, f"the prompt needs {total:,} tokens, more than the {limit:,} the context "
                                      "leaves beside the reply", "ask a shorter question or raise llm_context")
