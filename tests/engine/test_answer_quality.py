"""The example questions answered by the default model (Qwen2.5-Coder-1.5B): right facts, cited from
the right file (a paragraph, a page, the rows and SQL of a table, a box in a photo, the seconds of a
video), and "not found" when the files do not say. Slow: about five minutes."""

from __future__ import annotations

import tomllib

import pytest

from engine.generation.answer import NOT_FOUND
from engine.pipeline import Trove
from engine.settings import Settings
from tests.conftest import EXAMPLES


@pytest.mark.slow
@pytest.mark.timeout(1800)  # ~5 minutes alone on 2 cores; several times that when the cores are shared
def test_default_model_answers_the_example_questions_with_citations(settings: Settings, embedder):  # noqa: ANN001
    trove = Trove(settings.with_(llm="default"))
    trove.models.embedder = embedder
    trove.index([EXAMPLES])
    with (EXAMPLES / "questions.toml").open("rb") as fh:
        questions = tomllib.load(fh)["question"]
    correct, report = 0, []
    for q in questions:
        result = trove.ask(q["text"])
        if q["expect"]:
            ok = all(e.lower() in result.answer.lower() for e in q["expect"]) and any(
                c.source.endswith(q["source"]) and c.kind == q.get("kind", c.kind) for c in result.citations)
        else:
            ok = result.answer == NOT_FOUND and not result.citations
        correct += ok
        cited = "; ".join(f"{c.kind} {c.source.rsplit('/', 1)[-1]} {c.locator.get('query', '')}".strip()
                          for c in result.citations)
        report.append(f"{'ok' if ok else 'XX'} {q['text']} -> {result.answer} (cites: {cited or 'nothing'})")
    assert correct >= len(questions) - 1, "\n".join(report)
