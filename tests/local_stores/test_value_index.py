"""The value index: values kept per source under their lower-cased text, replaced, looked up, dropped."""

from __future__ import annotations

from pathlib import Path

from local_stores.sqlite_db import Database
from local_stores.value_index import ValueIndex


def test_values_are_replaced_looked_up_by_lower_case_and_dropped(tmp_path: Path):
    index = ValueIndex(Database(tmp_path / "catalog.sqlite"))
    assert index.replace("trips", "s1", [("Aberdeen ", "trips.city"), ("ABERDEEN", "trips.city"), ("", "trips.x"),
                                         ("Oslo", "trips.city")]) == 2
    index.replace("people", "s1", [("aberdeen", "person.home")])
    assert index.lookup(["aberdeen", "bergen"]) == [("aberdeen", "people", "person.home", "aberdeen"),
                                                    ("aberdeen", "trips", "trips.city", "ABERDEEN")]
    assert index.stamps() == {"trips": "s1", "people": "s1"} and index.sources() == 2
    index.replace("trips", "s2", [("Bergen", "trips.city")])
    index.drop("people")
    assert index.lookup(["aberdeen", "bergen"]) == [("bergen", "trips", "trips.city", "Bergen")]
    assert index.stamps() == {"trips": "s2"} and index.lookup([]) == []
    again = ValueIndex(Database(tmp_path / "catalog.sqlite"))  # kept across restarts
    assert again.stamps() == {"trips": "s2"}
