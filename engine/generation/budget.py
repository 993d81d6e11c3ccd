"""Prompts built to the model's context: token counts from the model's own tokenizer when the
builder has the model, a cautious estimate when it has not, and text cut to a number of tokens.

Every prompt builder reserves room for the reply and fits what it pastes (evidence, schemas, sample
values, the question) into the rest; `LLM.chat` trims anything that still does not fit as a last
line of defence, so no prompt ever overflows the context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_CONTEXT = 4096  # Settings.llm_context's default
TEMPLATE_TOKENS = 16  # the chat template's own markers around each message
QUESTION_SHARE = 4  # a question takes at most a quarter of the context
MAX_CHARS_PER_TOKEN = 12  # no tokenizer packs more into a token: longer texts are over budget uncounted
CUT_NOTE = " … [{cut:,} characters cut to fit the model's context] … "


def estimate_tokens(text: str) -> int:
    """A cautious token count without a tokenizer: one token per 3 UTF-8 bytes (English averages
    about 4 characters a token, code and tables about 3)."""
    return len(text.encode("utf-8")) // 3 + 1


@dataclass(frozen=True)
class Budget:
    """A context size and a way to count tokens: what a prompt builder fits its prompt into."""

    n_ctx: int = DEFAULT_CONTEXT
    count: Callable[[str], int] = estimate_tokens

    @classmethod
    def of(cls, llm: object | None) -> Budget:
        """The budget of a loaded LLM (its context and tokenizer); the estimate for anything else
        (a test double, a vision model, None)."""
        n_ctx = getattr(llm, "n_ctx", None)
        count = getattr(llm, "count_tokens", None)
        if not isinstance(n_ctx, int) or not callable(count):
            return cls()
        return cls(n_ctx, count)

    def room(self, reply_tokens: int, *fixed: str) -> int:
        """Tokens left for pasted content once the reply and the `fixed` texts are counted."""
        used = sum(self.count(text) + TEMPLATE_TOKENS for text in fixed)
        return max(0, self.n_ctx - reply_tokens - used)

    def fits(self, text: str, tokens: int) -> bool:
        """Whether `text` takes at most `tokens` tokens (a far too long text is not even counted)."""
        return len(text) <= tokens * MAX_CHARS_PER_TOKEN and self.count(text) <= tokens

    def question(self, text: str) -> str:
        """The question cut to its share of the context (the setting `max_question_chars` cuts it
        first, where the pipeline has it; this holds wherever a prompt is built)."""
        return self.cut(text, self.n_ctx // QUESTION_SHARE)

    def cut(self, text: str, tokens: int, middle: bool = False) -> str:
        """`text` within `tokens` tokens: kept whole when it fits, else cut at the end (or in the
        middle, keeping its start and end) with a note of how much was cut."""
        if tokens <= 0:
            return ""
        if self.fits(text, tokens):
            return text
        keep = min(len(text), tokens * MAX_CHARS_PER_TOKEN)
        keep = int(keep * min(1.0, tokens / self.count(_cut(text, keep, middle))) * 0.95)
        while keep > 0:
            shown = _cut(text, keep, middle)
            if self.count(shown) <= tokens:
                return shown
            keep = int(keep * 0.85)
        return ""


def _cut(text: str, keep: int, middle: bool) -> str:
    """`text` with only `keep` of its characters, and a note saying how many were cut."""
    note = CUT_NOTE.format(cut=len(text) - keep)
    if not middle:
        return text[:keep].rstrip() + note.rstrip()
    head = keep // 2
    return text[:head].rstrip() + note + text[len(text) - (keep - head):].lstrip()
