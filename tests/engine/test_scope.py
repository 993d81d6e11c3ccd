"""Questions kept to part of the disk: two similar folders (two years of bills), searched and asked
with and without a scope; what is out of scope is never found, what is wrong is said first."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from engine.errors import TroveError
from engine.pipeline import Trove
from engine.scope import Scope
from tests.scripted import ScriptedLLM

YEARS = {"2023": ("95", "Bakker"), "2024": ("120", "Visser")}


@pytest.fixture
def bills(tmp_path: Path) -> Path:
    top = tmp_path / "bills"
    for year, (cost, fitter) in YEARS.items():
        folder = top / f"bills-{year}"
        folder.mkdir(parents=True)
        (folder / "boiler.md").write_text(f"# Boiler {year}\n\nThe boiler service in {year} cost {cost} EUR; "
                                          f"the fitter was {fitter}.\n", encoding="utf-8")
        (folder / f"energy_{year}.csv").write_text("month,kwh\n" + "".join(f"{year}-{m:02d}-01,{100 + m}\n"
                                                                             for m in range(1, 13)))
        stamp = time.mktime((int(year), 6, 1, 12, 0, 0, 0, 0, -1))
        for path in folder.iterdir():
            os.utime(path, (stamp, stamp))
    return top


def test_a_search_in_one_folder_finds_only_its_files(trove: Trove, bills: Path):
    trove.index([bills])
    everywhere = trove.search("boiler service cost fitter", k=4)
    assert {Path(h.item.source).parent.name for h in everywhere} == {"bills-2023", "bills-2024"}
    scoped = trove.search("boiler service cost fitter", k=4, scope=Scope(paths=(str(bills / "bills-2023"),)))
    assert scoped and {Path(h.item.source).parent.name for h in scoped} == {"bills-2023"}
    by_time = trove.search("boiler service cost fitter", k=4, scope=Scope(since="2024-01-01"))
    assert by_time and {Path(h.item.source).parent.name for h in by_time} == {"bills-2024"}


def test_the_scope_limits_routes_and_sources(trove: Trove, bills: Path):
    trove.index([bills])
    within = trove.within(Scope(paths=(str(bills / "bills-2024"),)))
    assert within.sources is not None and len(within.sources) == 1 and "2024" in next(iter(within.sources))
    assert within.labels == {"paragraph", "document", "table"}
    assert trove.within(Scope(kinds=("paragraph",))).labels == {"paragraph"}
    assert trove.within(None).files is None


def test_a_scoped_question_never_cites_outside_its_scope(trove: Trove, bills: Path):
    trove.index([bills])
    scope = Scope(paths=(str(bills / "bills-2023"),))
    trove.models.llm = ScriptedLLM(["The boiler service cost 95 EUR [1]."])
    result = trove.ask("How much did the boiler service cost?", labels=["paragraph"], scope=scope)
    assert result.citations and all("bills-2023" in c.source for c in result.citations)
    assert result.scope == {"paths": [str((bills / "bills-2023").resolve())]}
    conversation = trove.conversation(title="boiler", scope=scope)
    trove.models.llm = ScriptedLLM(["The fitter was Bakker [1]."])
    follow = trove.ask("Who was the fitter for the boiler service?", labels=["paragraph"], conversation=conversation)
    assert follow.citations and all("bills-2023" in c.source for c in follow.citations)
    assert trove.conversations.get(conversation.id or 0).scope == scope


def test_a_scope_that_holds_nothing_is_said_before_anything_is_asked(trove: Trove, bills: Path, tmp_path: Path):
    trove.index([bills])
    trove.models.llm = ScriptedLLM([])  # asking the model would fail the test
    for scope, said in ((Scope(paths=(str(tmp_path / "elsewhere"),)), "not in a folder Trove follows"),
                        (Scope(sources=("no_such_source",)), "no_such_source: no source of that name"),
                        (Scope(since="2031-01-01"), "nothing indexed is in the scope (since 2031-01-01)"),
                        (Scope(paths=(str(bills / "bills-2023"),), kinds=("image",)), "nothing indexed is in")):
        with pytest.raises(TroveError, match=re.escape(said)):
            trove.ask("How much did the boiler service cost?", scope=scope)
    with pytest.raises(TroveError, match="unknown kind 'photo'"):
        Scope(kinds=("photo",))
    with pytest.raises(TroveError, match="not a date"):
        Scope(since="last week")


def test_mail_is_in_a_time_span_by_the_date_it_was_sent_not_its_file_time(trove: Trove, tmp_path: Path):
    from tests.office_files import household_mail, message

    folder = tmp_path / "mail"
    folder.mkdir()
    household_mail(folder / "home.mbox")  # messages of 4, 7 and 10 March 2025
    note = message("Boiler service booked", "Henk Verhoeven <henk@example.nl>", "Wed, 12 Feb 2025 08:00:00 +0100",
                   "The boiler service is booked; Henk brings a new pressure valve.")
    (folder / "henk.eml").write_bytes(bytes(note))  # both files were modified today
    trove.index([folder])
    query = "boiler service Henk Verhoeven"
    february = trove.search(query, k=5, scope=Scope(since="2025-02-01", until="2025-02-28"))
    assert february and {Path(h.item.source).name for h in february} == {"henk.eml"}
    march = trove.search(query, k=5, scope=Scope(since="2025-03-05", until="2025-03-31"))
    assert march and {Path(h.item.source).name for h in march} == {"home.mbox"}  # two of its messages are
    assert {h.item.locator["date"][:10] for h in march} <= {"2025-03-07", "2025-03-10"}  # not the boiler's mail
    everything = trove.search(query, k=5)
    assert any(h.item.locator.get("date", "").startswith("2025-03-04") for h in everything)  # which is found unscoped
    with pytest.raises(TroveError, match="nothing indexed is in the scope"):
        trove.search(query, k=5, scope=Scope(since="2025-04-01"))


def test_a_scoped_question_the_files_do_not_answer_is_not_answered_from_general_knowledge(trove: Trove, bills: Path):
    """Unscoped, "What is the boiling point of water?" is the model's general knowledge (said so);
    asked of chosen files, only those files answer, and they do not say."""
    trove.index([bills])
    question = "What is the boiling point of water?"
    trove.models.llm = ScriptedLLM(["Water boils at 100 degrees Celsius at sea level."])
    assert trove.ask(question, labels=["none"]).general
    trove.models.llm = ScriptedLLM([])  # asking the model would fail the test
    scoped = trove.ask(question, labels=["none"], scope=Scope(paths=(str(bills / "bills-2023"),)))
    assert not scoped.general and not scoped.answered and not scoped.citations


class _NoneRouter:
    """A trained router that reads every question as general knowledge (control flow only)."""

    name = "trained"

    def route(self, request):  # noqa: ANN001, ANN201, ARG002
        from engine.routing.base import Route

        return [Route("none", 0.9, "trained")]


def test_a_scoped_question_read_as_general_knowledge_goes_to_what_the_scope_holds(trove: Trove, bills: Path):
    """"What are is the total number of points earned by kelly mcormick?" asked of one table was read
    as general knowledge: asked of chosen files, it is about what they hold."""
    trove.index([bills])
    trove.routing.router = _NoneRouter()
    question = "What was the reading in March?"
    assert [r.label for r in trove.routing.route(question)] == ["none"]
    within = trove.within(Scope(paths=(str(bills / "bills-2024" / "energy_2024.csv"),)))
    assert [r.label for r in trove.routing.route(question, allowed=within.labels)] == ["table"]


def test_a_scoped_source_is_queried_however_far_its_description_reads(trove: Trove, bills: Path):
    """"What are is the total number of points earned by kelly mcormick?" asked of the one table that
    holds her: its description read too far from the question for a source to be chosen unscoped."""
    trove.index([bills])
    question = "What is the total for Visser?"
    within = trove.within(Scope(paths=(str(bills / "bills-2024" / "energy_2024.csv"),)))
    (source,) = within.sources or ()
    vector = trove.models.embedder.embed_one(question)
    assert trove.native.reachable(question, vector)["table"] < trove.settings.source_min_similarity
    trove.models.llm = ScriptedLLM([])  # unscoped, no source is near enough to write a query for
    assert trove.native.answer(question, vector, {"table"}) == ([], [])
    trove.models.llm = ScriptedLLM([f"SELECT sum(kwh) FROM {source}"])
    hits, runs = trove.native.answer(question, vector, {"table"}, among=within.sources)
    assert [run.source for run in runs] == [source] and runs[0].ok and hits
