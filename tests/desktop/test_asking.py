"""One question of each kind asked through the Ask screen with the default LLM, as a person asks it:
typed, Enter, the answer read, the citation clicked, the viewer checked (the page and its highlighted
paragraph, the rows and their SQL, the drawn graph and its Cypher, the triples and their SPARQL, the
boxes in the photo). Slow: the default LLM writes each answer and query (about a minute each on two
busy cores)."""

from __future__ import annotations

import pytest

from tests.desktop.conftest import ask, click_citation

pytestmark = pytest.mark.slow
LLM = "default"


def _cited(result, kind: str, file: str):  # noqa: ANN001, ANN202
    found = [c for c in result.citations if c.kind == kind and c.source.endswith(file)]
    assert found, f"no {kind} citation of {file}: {result.answer!r} {[(c.kind, c.source) for c in result.citations]}"
    return found[0]


def test_a_document_question_opens_the_cited_page(qtbot, window):  # noqa: ANN001
    result = ask(qtbot, window, "How much is the excess on a theft claim under my bike insurance?", LLM)
    assert "65" in result.answer
    assert window.ask._streamed.strip()  # the answer came in token by token while it was written
    citation = _cited(result, "paragraph", "bike-insurance-policy.pdf")
    viewer = click_citation(qtbot, window, citation.n)
    assert viewer.shown_pages() == (2, 2) and "page 2" in viewer.header.place.text()
    assert " ".join(viewer.highlighted_text().split()) == " ".join(citation.text.split())
    assert "65" in viewer.highlighted_text()


def test_a_spending_question_opens_the_rows_and_their_sql(qtbot, window):  # noqa: ANN001
    result = ask(qtbot, window, "How much did I spend on groceries in March 2024?", LLM)
    assert "298.62" in result.answer
    citation = _cited(result, "table", "expenses-2024.csv")
    viewer = click_citation(qtbot, window, citation.n)
    assert viewer.sql() == citation.locator["sql"] and "SELECT" in viewer.sql().upper()
    assert viewer.grid.rows() == [["298.62"]]
    assert "expenses-2024.csv" in viewer.source_label.text()
    assert any(chip.startswith("table") for chip in window.ask.chip_texts())


def test_a_family_question_draws_the_graph(qtbot, window):  # noqa: ANN001
    result = ask(qtbot, window, "Who are the grandchildren of Astrid Lindqvist?", LLM)
    citation = _cited(result, "graph", "family-tree.cypher")
    viewer = click_citation(qtbot, window, citation.n)
    names = set(viewer.view.graph.node_names())
    assert {"Maya Lindqvist", "Lars de Vries", "Sofia Lindqvist"} <= names
    assert "MATCH" in viewer.query_box.query().upper()


def test_a_library_question_lists_the_triples(qtbot, window):  # noqa: ANN001
    result = ask(qtbot, window, "Which books in my library were written by Ursula K. Le Guin?", LLM)
    citation = _cited(result, "rdf", "my-books.ttl")
    viewer = click_citation(qtbot, window, citation.n)
    cells = " ".join(" ".join(row) for row in viewer.triple_rows())
    assert all(title in cells for title in ("Earthsea", "Dispossessed", "Lathe of Heaven"))
    assert "SELECT" in viewer.query_box.query().upper()


def test_a_photo_question_draws_the_cited_box(qtbot, window):  # noqa: ANN001
    result = ask(qtbot, window, "Is Chelsea in the window photo?", LLM)
    citation = _cited(result, "region", "chelsea-window.jpg")
    viewer = click_citation(qtbot, window, citation.n)
    boxes = {item.data(0): item.rect() for item in viewer.view.rect_items}
    r = boxes[citation.n]
    assert [round(v, 1) for v in (r.left(), r.top(), r.right(), r.bottom())] == citation.locator["box"]
