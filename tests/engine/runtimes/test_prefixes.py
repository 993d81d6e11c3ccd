"""Saved prefix states (runtimes/prefixes.py) and the call log, on the real small model."""

from __future__ import annotations

import pytest

from engine.runtimes.calls import during
from engine.runtimes.llm import LLM
from tests.conftest import MODELS_DIR


def _family(name: str, fact: str) -> dict:
    return {"role": "system", "content": f"You are the {name} helper. " + f"{fact} " * 40}


ROUTER = _family("routing", "Questions about money go to the table.")
ANSWER = _family("answering", "The boiler is in the attic and was serviced in May.")


def _ask(system: dict, question: str) -> list[dict]:
    return [system, {"role": "user", "content": question}]


def _prompts() -> list[list[dict]]:
    """Two prompt families taking turns, as the router and the answer do for each question."""
    return [_ask(family, q) for q in ("Where is the boiler?", "What did May cost?", "Who serviced it?")
            for family in (ROUTER, ANSWER)]


@pytest.fixture
def fresh_llm() -> LLM:
    from engine.models import ModelManager

    return LLM.from_manager(ModelManager(MODELS_DIR), "smoke", n_ctx=2048, threads=2)


def test_taking_turns_between_families_evaluates_each_system_prompt_once(fresh_llm: LLM):
    replies = [fresh_llm.chat(p, max_tokens=8) for p in _prompts()]
    calls = fresh_llm.calls.take()
    fixed = [fresh_llm._prompt(p, 8)[1] for p in _prompts()]  # noqa: SLF001
    assert [c.reused_tokens >= f for c, f in zip(calls, fixed, strict=True)] == [False, False] + [True] * 4
    fresh_llm.prefixes = None  # the same prompts without saved states: the same replies
    fresh_llm.llama.reset()
    assert [fresh_llm.chat(p, max_tokens=8) for p in _prompts()] == replies
    assert all(c.reused_tokens < f for c, f in zip(fresh_llm.calls.take()[1:], fixed[1:], strict=True))


def test_states_past_the_size_cap_are_dropped_oldest_first(fresh_llm: LLM):
    assert fresh_llm.prefixes is not None
    fresh_llm.chat(_ask(ROUTER, "Where is the boiler?"), max_tokens=2)
    one = fresh_llm.prefixes.size
    fresh_llm.prefixes.max_bytes = one + one // 2
    fresh_llm.chat(_ask(ANSWER, "Where is the boiler?"), max_tokens=2)
    assert len(fresh_llm.prefixes) == 1 and fresh_llm.prefixes.size > one  # the answer's (longer) state only
    fresh_llm.chat(_ask(ROUTER, "What did May cost?"), max_tokens=2)  # its state went: evaluated again
    assert fresh_llm.calls.take()[-1].reused_tokens < fresh_llm._prompt(_ask(ROUTER, ""), 2)[1]  # noqa: SLF001


def test_each_call_is_logged_with_its_stage_tokens_and_time_to_first_token(smoke_llm: LLM):
    smoke_llm.calls.take()
    with during("generate"):
        smoke_llm.chat(_ask(ANSWER, "Where is the boiler?"), max_tokens=6)
    smoke_llm.chat_json([{"role": "user", "content": "Pick one: text or table?"}],
                        {"type": "object", "properties": {"kind": {"enum": ["text", "table"]}},
                         "required": ["kind"]}, max_tokens=20)
    answer, choice = smoke_llm.calls.take()
    assert (answer.stage, choice.stage) == ("generate", "")
    assert answer.family.startswith("You are the answering helper")
    assert answer.prompt_tokens == len(smoke_llm.prompt_tokens(_ask(ANSWER, "Where is the boiler?"), 6))
    assert 0 < answer.generated_tokens <= 7 and 0 < choice.generated_tokens <= 21
    assert 0 < answer.first_token_s <= answer.total_s
