"""A scripted stand-in for the LLM in unit tests of control flow (in the spirit of llm's MockModel):
it records every prompt it is sent (with the call's options) and replies from a script. Tests with
the real small models sit beside the tests that use it."""

from __future__ import annotations

from collections.abc import Callable

from engine.generation.budget import Budget


class ScriptedLLM:
    """`replies` answer `chat` in order; `json_reply(messages, schema)` answers `chat_json`."""

    name = "scripted"

    def __init__(self, replies: list[str] | None = None, n_ctx: int = 4096,
                 json_reply: Callable[[list[dict], dict], dict] | None = None) -> None:
        self.replies, self.n_ctx, self.json_reply = list(replies or []), n_ctx, json_reply
        self.sent: list[list[dict]] = []
        self.options: list[dict] = []  # the keyword options of each call (max_tokens, temperature)

    def count_tokens(self, text: str) -> int:
        return Budget().count(text)

    def chat(self, messages: list[dict], **options: object) -> str:
        self.sent.append(messages)
        self.options.append(options)
        if not self.replies:
            raise AssertionError(f"the script has no reply left for call {len(self.sent)}")
        return self.replies.pop(0)

    def chat_json(self, messages: list[dict], schema: dict, **options: object) -> dict:
        self.sent.append(messages)
        self.options.append(options)
        if self.json_reply is None:
            raise AssertionError("the script has no JSON replies")
        return self.json_reply(messages, schema)
