"""The write-validate-repair loop's own rules: where looked-up values go in the prompt, and which
results count as empty (and so are worth a repair when a literal matched nothing)."""

from __future__ import annotations

from engine.native.querying import _empty, _with_hint
from local_stores.results import QueryResult


def test_the_hint_goes_just_before_the_question():
    user = "The user's tables:\nCREATE TABLE t (a TEXT);\n\nQuestion: which a?\nSQL:"
    assert _with_hint(user, "Values: 'x' in t.a") == \
        "The user's tables:\nCREATE TABLE t (a TEXT);\n\nValues: 'x' in t.a\n\nQuestion: which a?\nSQL:"
    assert _with_hint("no question here", "Values") == "Values\n\nno question here"


def test_no_rows_and_a_count_of_nothing_are_empty_but_real_answers_are_not():
    assert _empty(QueryResult(["a"], [], False))
    assert _empty(QueryResult(["n"], [(0,)], False)) and _empty(QueryResult(["s", "n"], [(None, 0)], False))
    assert not _empty(QueryResult(["n"], [(3,)], False))
    assert not _empty(QueryResult(["a"], [(0,), (0,)], False))
    assert not _empty(QueryResult(["name"], [("Kit",)], False))
