"""UniversalRAG's decision rules on router probabilities."""

from __future__ import annotations

from engine.routing.decision import decide

ALL = {"paragraph", "document", "table", "graph", "rdf", "image", "region", "clip", "video"}


def labels(probs: dict[str, float], available: set[str] = ALL) -> list[str]:
    return [r.label for r in decide(probs, available, 0.8)]


def test_labels_over_the_threshold_best_first():
    assert labels({"table": 0.85, "paragraph": 0.95, "image": 0.3}) == ["paragraph", "table"]


def test_none_is_dropped_when_another_label_passes():
    assert labels({"none": 0.99, "paragraph": 0.81}) == ["paragraph"]
    assert labels({"none": 0.99, "paragraph": 0.2}) == ["none"]


def test_only_the_likelier_granularity_of_a_corpus_is_kept():
    assert labels({"paragraph": 0.85, "document": 0.9}) == ["document"]
    assert labels({"clip": 0.95, "video": 0.9, "image": 0.88}) == ["clip", "image"]


def test_top_label_when_nothing_passes_and_only_corpora_that_exist():
    assert labels({"graph": 0.5, "rdf": 0.6, "paragraph": 0.4}) == ["rdf"]
    assert labels({"graph": 0.5, "rdf": 0.6, "paragraph": 0.4}, {"paragraph", "graph"}) == ["graph"]
    assert labels({"image": 0.99}, {"paragraph"}) == ["none"]
    assert [r.confidence for r in decide({"table": 0.9}, ALL, 0.8)] == [0.9]
