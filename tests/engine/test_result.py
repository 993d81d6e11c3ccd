"""How a citation's place reads, the same in the CLI and the app."""

from __future__ import annotations

from engine.result import citation_place, clock


def test_clock_rounds_to_whole_seconds():
    assert clock(0) == "0:00" and clock(75.4) == "1:15" and clock(59.6) == "1:00"


def test_each_kind_of_locator_reads_as_a_place():
    assert citation_place("/notes/lease.pdf", {"page": 2, "start": 10, "end": 90}) == "lease.pdf, page 2, chars 10-90"
    query = {"query": "SELECT 1", "language": "sql", "sheet": "2024", "rows": list(range(1, 15))}
    twelve = ", ".join(str(n) for n in range(1, 13))
    assert citation_place("/x/budget.xlsx", query) == f"budget.xlsx, sheet 2024, rows {twelve}…"
    assert citation_place("/x/budget.xlsx", query, rows_shown=2) == "budget.xlsx, sheet 2024, rows 1, 2…"
    assert citation_place("/g/family.cypher", {"query": "MATCH (n) RETURN n", "language": "cypher"}) == \
        "family.cypher"
    region = {"box": [10.4, 20, 110, 220.6], "label": "dog", "width": 640, "height": 480}
    assert citation_place("/p/park.jpg", region) == "park.jpg, box (10, 20, 110, 221) of 640x480"
    assert citation_place("/p/park.jpg", {"width": 640, "height": 480}) == "park.jpg, whole photo"
    assert citation_place("/v/party.mp4", {"start_s": 6.0, "end_s": 71.5}) == "party.mp4, 0:06–1:12"
