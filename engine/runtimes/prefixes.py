"""Saved KV-cache states of prompts' fixed beginnings, so a question pays only for its own tokens.

llama.cpp keeps the KV cache of the last prompt and llama-cpp-python resumes from the longest common
prefix, which helps only while one kind of prompt follows itself. A question goes through several
(router, query writing, result phrasing, answer), each starting with its own fixed instructions, so
each would evaluate its instructions again. Here the state of a sequence right after a prompt's
fixed part is saved (only its KV cells: llama-cpp-python's `save_state` also copies a logits buffer
of n_batch x vocabulary floats, ~300 MB for Qwen, which made its `LlamaRAMCache` cost 1 s a call),
and put back when a later prompt shares more of its beginning with it than the context does.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llama_cpp import Llama

MIN_FIXED = 64  # fixed parts shorter than this cost less to evaluate than to keep
MIN_GAIN = 32  # a saved state is put back only when it holds this many more prompt tokens


@dataclass
class _State:
    tokens: tuple[int, ...]
    data: ctypes.Array[ctypes.c_uint8]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens `a` and `b` share from their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def held_tokens(llama: Llama) -> list[int]:
    """The tokens the context holds now (evaluated, in its KV cache)."""
    return llama.input_ids[: llama.n_tokens].tolist()


class PrefixStates:
    """States of sequence 0 after fixed prompt beginnings, least recently used dropped past `max_bytes`."""

    def __init__(self, llama: Llama, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.llama, self.max_bytes = llama, max_bytes
        self._states: OrderedDict[tuple[int, ...], _State] = OrderedDict()

    def __len__(self) -> int:
        return len(self._states)

    @property
    def size(self) -> int:
        """Bytes held."""
        return sum(len(s.data) for s in self._states.values())

    def resume(self, tokens: list[int], fixed: int) -> int:
        """Put the context at the longest beginning of `tokens` it or a saved state holds, and
        save the state after the first `fixed` tokens when it is not saved yet. Returns how many
        of the prompt's tokens are already evaluated (the rest is evaluated by the completion)."""
        held = common_prefix(held_tokens(self.llama), tokens)
        shared, best = max(((common_prefix(s.tokens, tokens), s) for s in self._states.values()),
                           key=lambda pair: pair[0], default=(0, None))
        if best is not None and shared > held + MIN_GAIN:
            self._restore(best)
            held = shared
        reused = held
        key = tuple(tokens[:fixed])
        if fixed >= MIN_FIXED and fixed < len(tokens) and key not in self._states and held <= fixed:
            self.llama.n_tokens = held
            self.llama.eval(tokens[held:fixed])
            self._save(key)
        return reused

    def _save(self, key: tuple[int, ...]) -> None:
        from llama_cpp import llama_cpp

        ctx = self.llama._ctx.ctx  # noqa: SLF001 - the low-level context; llama-cpp-python exposes no other
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        data = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, data, size, 0)
        if written != size:
            return
        self._states[key] = _State(key, data)
        while self.size > self.max_bytes and len(self._states) > 1:
            self._states.popitem(last=False)

    def _restore(self, state: _State) -> None:
        from llama_cpp import llama_cpp

        ctx = self.llama._ctx.ctx  # noqa: SLF001
        if not llama_cpp.llama_state_seq_set_data(ctx, state.data, len(state.data), 0):
            self.llama.n_tokens = 0  # the context no longer holds what it did: evaluate the prompt anew
            self.llama._ctx.kv_cache_seq_rm(-1, 0, -1)  # noqa: SLF001
            return
        self._states.move_to_end(state.tokens)
        self.llama.input_ids[: len(state.tokens)] = state.tokens
        self.llama.n_tokens = len(state.tokens)
        self.llama._requires_eval = True  # noqa: SLF001 - its logits are not this state's: sample after an eval
