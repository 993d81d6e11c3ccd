"""Query prompts fitted to the model's context: what a schema may take once the rules, the examples,
the question, the query to write and the repair turns are counted, and the schema's first rendering
(most detailed first) that fits.

`querying.write_and_run` adds up to two repair turns to the conversation (the failed query, the
engine's error, the writer's `names_hint` and the question again) and a line of the values the
question names; their room is kept free here, so the whole conversation fits."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from engine.generation.budget import Budget

QUERY_TOKENS = 220  # the query the model writes (querying's max_tokens)
REPAIRS = 2  # repair turns after the first write (Settings.query_tries' default is 3 writes)
TURN_TOKENS = 200  # a repair turn's error (400 characters) and fixed words
REPAIR_SHARE = 4  # the repair turns' reserve is at most a quarter of the context
HINT_TOKENS = 150  # the line of values the question names (engine.native.values.hint)
MAX_HINT_CHARS = 800  # a names hint longer than this is cut
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("the and for with that this from what which who how many much did does are was were has "
                  "have all any each per list show tell give".split())


def schema_room(budget: Budget, question: str, hint: str, *fixed: str) -> int:
    """Tokens left for the schema beside the `fixed` texts (rules, examples, question) and the
    reserve for the query and the repair turns. The repairs get at most a quarter of the context,
    so a small context still shows a schema (a last repair that does not fit is trimmed by `LLM`)."""
    turn = QUERY_TOKENS + TURN_TOKENS + budget.count(hint) + budget.count(question)
    repairs = min(REPAIRS * turn, budget.n_ctx // REPAIR_SHARE)
    return budget.room(QUERY_TOKENS + HINT_TOKENS + repairs, *fixed)


def fit(budget: Budget, room: int, renderings: Iterable[Callable[[], str]]) -> str:
    """The first rendering that fits `room` tokens; the last one cut to fit when none does."""
    text = ""
    for render in renderings:
        text = render()
        if budget.fits(text, room):
            return text
    return budget.cut(text, room)


def words(text: str) -> set[str]:
    """The words of a question that can name a column, a property or a class (stems of 5 letters)."""
    return {w[:5] for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOP}


def mentioned(name: str, wanted: set[str]) -> int:
    """How many of the `wanted` word stems a name (snake_case, camelCase, "a label") holds."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return len({w[:5] for w in _WORD.findall(spaced.lower()) if len(w) >= 3} & wanted)


def preferred(names: list[str], question: str, keep: int) -> set[int]:
    """The indices of the `keep` names to show: those the question's words name first, then the
    others in order."""
    wanted = words(question)
    order = sorted(range(len(names)), key=lambda i: (-mentioned(names[i], wanted), i))
    return set(order[:keep])


def capped(text: str, max_chars: int = MAX_HINT_CHARS) -> str:
    return text if len(text) <= max_chars else text[:max_chars - 3].rstrip(", ") + "..."
