"""bench.sampled: benchmark questions sampled with their gold values, and how an answer is judged."""

from __future__ import annotations

import random

import pytest

from bench import sampled
from bench.answers.disk import EVAL


def test_a_number_is_found_at_the_answers_precision_and_never_in_a_citation_marker():
    assert sampled.found(28.862318840579718, "The average is 28.86 [1].")
    assert sampled.found(28.862318840579718, "The average is 28.8623188406 [1].")
    assert not sampled.found(28.862318840579718, "The average is 28.7 or 27 [1].")
    assert not sampled.found(1, "American Motor Company created 0 car models [1].")
    assert sampled.found(5451331150, "5,451,331,150 people [2]")
    assert sampled.found("2016", "Love, released in 2016 [1]")


def test_a_text_is_found_as_whole_words_and_a_date_however_its_time_is_joined():
    assert sampled.found("CD / LP", "The formats are CD / LP, DVD and CD [1].")
    assert not sampled.found("CD", "Only CDs [1].")
    assert sampled.found("2013-06-30 13:01:40", "Transcript date is 2013-06-30T13:01:40 [1].")


def test_a_verdict_tells_a_wrong_cited_answer_from_no_answer():
    question = sampled.Sampled("spider", "How many?", (3,), "SELECT 3")
    assert sampled.judge(question, {"answer": "3 [1]", "citations": [{}]})["correct"]
    wrong = sampled.judge(question, {"answer": "4 [1]", "citations": [{}]})
    assert not wrong["correct"] and wrong["wrong_cited"] and not wrong["not_found"]
    none = sampled.judge(question, {"answer": "I could not find this in your files.", "citations": [],
                                    "answered": False})
    assert none["not_found"] and not none["wrong_cited"]


@pytest.mark.skipif(not EVAL.is_dir(), reason="../shared/eval is absent: the sampled questions are read from it")
@pytest.mark.parametrize("name", list(sampled.SETS))
def test_each_set_samples_the_same_small_gold_results_for_a_seed(name: str):
    first = sampled.SETS[name](random.Random(7), 4)
    assert len(first) == 4 and first == sampled.SETS[name](random.Random(7), 4)
    assert all(q.set == name and q.question and 0 < len(q.expect) <= sampled.MAX_ROWS * sampled.MAX_VALUES
               for q in first)
    assert all((EVAL / q.place).exists() for q in first)  # the bench's disk copies the eval data as it lies
