"""Passages that name what a question names, from the files its best hits come from.

A question about one row of a long table ("How many permit checks did Illinois have in the NICS
report?") finds the report by its other words: the notes that speak of permits and checks rank
first, and the row that names Illinois, mostly numbers, ranks far below them. The file is right;
the passage is not. So for each name the question gives that no hit holds, the passages of the
best hits' files that hold it are looked up by keyword, and the best one joins the hits right
after its file's first hit (where the evidence cap keeps it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.generation.answer import mentions, subject_names
from engine.retrieval.hybrid import Hit

if TYPE_CHECKING:
    from local_stores.corpus_store import CorpusStore

NAMED_FILES = 3  # the files of the best hits looked into


def with_named(store: CorpusStore, question: str, corpus: str, hits: list[Hit]) -> list[Hit]:
    """`hits` with, after the first hit of its file, the best passage of the first `NAMED_FILES`
    files that holds a name the question gives and no hit holds. Its relevance is its file's: the
    file was found for the question, the passage for the name."""
    missing = sorted(name for name in subject_names(question)
                     if not mentions({name}, [f"{h.item.title or ''} {h.item.text}" for h in hits]))
    if not missing or not hits:
        return hits
    first_of: dict[int, Hit] = {}
    for hit in hits:
        first_of.setdefault(hit.item.file_id, hit)
    files = list(first_of)[:NAMED_FILES]
    found = {hit.item.id for hit in hits}
    added: dict[int, list[Hit]] = {}
    for name in missing:
        best = next(((i, s) for i, s in store.bm25(corpus, name, 5, files) if i not in found), None)
        if best is None:
            continue
        item = store.items([best[0]])[best[0]]
        if not mentions({name}, [item.text]):  # a stem that matched another word
            continue
        found.add(item.id)
        owner = first_of[item.file_id]
        added.setdefault(owner.item.id, []).append(
            Hit(item, owner.score, {"bm25": best[1], "named": owner.relevance}))
    out: list[Hit] = []
    for hit in hits:
        out += [hit, *added.get(hit.item.id, [])]
    return out
