"""bench.latency's bookkeeping: kinds of question, the same-run limit, the tables."""

from __future__ import annotations

from bench.latency import Asked, add_limits, kind_of, kind_table, modes_table
from engine.runtimes.llm import LLM


def test_a_question_is_of_its_sources_kind_or_llm_routed():
    assert kind_of({"source": "finance/expenses-2024.csv"}, {"trained"}) == "table"
    assert kind_of({"source": "library/my-books.ttl"}, {"rule"}) == "rdf"
    assert kind_of({"source": "notes/a.md"}, {"ensemble"}) == "text"
    assert kind_of({"source": "media:photos"}, set()) == "photo"
    assert kind_of({"source": "family/family-tree.cypher"}, {"llm", "trained"}) == "llm-routed"
    assert kind_of({"source": ""}, set()) == "none"


def _call(stage: str, prompt: int, reused: int, generated: int) -> dict:
    return {"stage": stage, "family": "", "prompt_tokens": prompt, "reused_tokens": reused,
            "generated_tokens": generated, "first_token_s": 0.1, "total_s": 0.2}


def test_the_limit_grows_with_the_tokens_a_question_evaluates_and_ends_its_first_words_at_the_answer(
        smoke_llm: LLM):
    small = Asked("q", "text", "prefix states", True, "a", {"total": 1000.0}, [_call("generate", 40, 0, 4)])
    large = Asked("q", "table", "prefix states", True, "a", {"total": 3000.0, "first_token": 2500.0},
                  [_call("route", 300, 0, 3), _call("generate", 400, 0, 30)])
    add_limits(smoke_llm, [small, large])
    assert 0 < small.limit_ms < large.limit_ms
    assert 0 < small.limit_first_ms <= small.limit_ms and large.limit_first_ms < large.limit_ms
    table = kind_table([small, large])
    assert "| table | 1 |" in table and "| text | 1 |" in table
    assert "| prefix states | 2/2 |" in modes_table({"prefix states": [small, large]})
