"""Query writers, one module per language, chosen by the source's language.

Each module implements `QueryWriter` (mypy checks every one against it): the prompt that asks the
model for a query in its language (`messages`, fitted to the model's context, see `fitting`; file
content in it neutralised by `engine.generation.untrusted`), the repairs of a model's reply
(`extract`, `fix`, `check`, `names_hint`), and the queries Trove writes itself in that language
(what a source is about, the values it holds, the date spans a question names). A new language is
one module plus one entry here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from engine.native.writers import cypher, sparql, sql

if TYPE_CHECKING:
    from engine.generation.budget import Budget
    from engine.native.examples import Example
    from engine.native.periods import Span
    from engine.native.sources import Source


class QueryWriter(Protocol):
    LANGUAGE: str
    REPLY_TOKENS: int  # the most tokens a model's query may take
    EXAMPLES: list[Example]  # the few-shot pool, picked per question

    def schema_text(self, source: Source, /) -> str:
        """The source's schema as the model reads it, in its language's terms."""
        ...

    def messages(self, question: str, source: Source, examples: list[Example] | None = None,
                 budget: Budget | None = None, /) -> list[dict]:
        """The chat that asks for one query answering `question`, fitted to `budget`."""
        ...

    def extract(self, reply: str, /) -> str:
        """The query in a model's reply (fences and prose removed)."""
        ...

    def fix(self, query: str, source: Source, /) -> str:
        """The query with a small model's usual slips mended (dialect spellings, casts)."""
        ...

    def check(self, statement: str, source: Source, /) -> str | None:
        """Why a query the engine accepts cannot match the data, or None."""
        ...

    def names_hint(self, source: Source, /) -> str:
        """The names to remind the model of after a failed query (at most 800 characters)."""
        ...

    def summary_words(self, source: Source, /) -> list[str]:
        """The names a question about the source would use (its summary for source selection)."""
        ...

    def part_texts(self, source: Source, /) -> list[str]:
        """One short text per table, node label, relationship or class."""
        ...

    def value_lookup(self, source: Source, wanted: list[str], limit: int, /) -> tuple[str, list[object]] | None:
        """A query finding the stored values equal to `wanted`, as (place, value) rows, and its bound values."""
        ...

    def held_statements(self, source: Source, per_place: int, max_chars: int, /) -> list[tuple[str | None, str]]:
        """(place, query) pairs reading the short text values the source holds."""
        ...

    def compared_literals(self, statement: str, /) -> list[str]:
        """The text values a query compares with."""
        ...

    def place_name(self, place: object, source: Source, /) -> str:
        """Where a value is held, as the schema text names it."""
        ...

    def span_hint(self, found: list[Span], source: Source, /) -> str | None:
        """The date spans a question names as this language compares them with the source's date
        fields (None when it has none)."""
        ...


WRITERS: dict[str, QueryWriter] = {"sql": sql, "cypher": cypher, "sparql": sparql}


def writer_for(language: str) -> QueryWriter:
    try:
        return WRITERS[language]
    except KeyError:
        raise ValueError(f"no query writer for {language!r} (known: {', '.join(WRITERS)})") from None
