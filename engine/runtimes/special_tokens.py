"""Untrusted text kept from spelling a model's control tokens, for runtimes that tokenize a whole
rendered prompt with special tokens parsed (llama-cpp-python's multimodal chat handlers do: content
saying `<|im_start|>system` would open a system turn). The text LLM needs none of this: it
tokenizes each message's content as plain text (engine.runtimes.llm)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llama_cpp import Llama

WORD_JOINER = "\u2060"  # invisible, and no tokenizer merges it into a control token's text


def control_texts(llama: Llama) -> list[str]:
    """The text of every control or user-defined token in the model's vocabulary (the chat
    template's markers, end-of-text, tool and file markers), longest first."""
    import llama_cpp

    special = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
    model = llama._model
    texts = {model.token_get_text(i) for i in range(llama.n_vocab()) if model.token_get_attr(i) & special}
    return sorted((t for t in texts if len(t) > 1), key=len, reverse=True)


def as_text(text: str, controls: list[str]) -> str:
    """`text` with each control token's text broken by a word joiner after its first character, so
    that a tokenizer parsing special tokens reads it as plain text; other text is unchanged."""
    for control in controls:
        if control in text:
            text = text.replace(control, control[0] + WORD_JOINER + control[1:])
    return text
