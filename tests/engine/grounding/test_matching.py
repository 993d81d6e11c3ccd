"""Matching regions to elements with the real MiniLM text embedder, on hand-built regions."""

import json
from pathlib import Path

import numpy as np

from engine.grounding import (
    Entity,
    GroundingSettings,
    Inventory,
    KnowledgePack,
    PackElement,
    ground,
    grounded_evidence,
    inventory_evidence,
    render,
)
from engine.runtimes.vision.regions import Region

PHOTO = np.full((400, 600, 3), 90, dtype=np.uint8)


def _inventory() -> Inventory:
    chelsea = Entity("Chelsea", "pet", "Our tabby cat.", elements=(
        PackElement("tabby fur", "orange-brown tabby fur with dark stripes", labels=("cat",)),
        PackElement("red collar", "a thin red leather collar with a brass bell"),
    ))
    tram = Entity("Tram 28", "vehicle", elements=(
        PackElement("route sign", "yellow destination sign above the windscreen", text=("28 Martim Moniz",)),
    ))
    return Inventory.from_packs([KnowledgePack(Path("trove-pack.yaml"), "home", (chelsea, tram))])


def test_a_cat_region_matches_chelsea_and_a_car_matches_nothing(embedder):  # noqa: ANN001
    cat, car = Region("object", "cat", (20, 30, 220, 260), 0.82), Region("object", "car", (300, 40, 560, 220), 0.77)
    result = ground(PHOTO, [cat, car], _inventory(), embedder, settings=GroundingSettings(generic=False))

    first, second = result.decisions
    assert first.status == "matched" and first.element.id == "Chelsea/tabby fur" and first.score > 0.8
    assert first.reason.startswith("matched 'tabby fur' of Chelsea (score ") and "text ." in first.reason
    assert first.image_score is None  # no image embedder: text only
    assert second.status == "no-match" and second.element is None and second.score < 0.5
    assert second.reason.startswith("no element above 0.50 (best: '")
    assert [e.id for e in result.visible] == ["Chelsea/tabby fur"]
    assert result.rejected == [second]


def test_by_default_an_unmatched_region_is_kept_as_a_generic_element(embedder):  # noqa: ANN001
    car = Region("object", "car", (300, 40, 560, 220), 0.77)
    (decision,) = ground(PHOTO, [car], _inventory(), embedder).decisions
    assert decision.status == "generic" and decision.element.name == "a car" and decision.element.generic
    assert decision.score == 0.77
    assert "no element above 0.50" in decision.reason and decision.reason.endswith("kept as a car (detector .77)")


def test_low_score_tiny_and_covering_regions_are_rejected_with_a_reason(embedder):  # noqa: ANN001
    regions = [
        Region("object", "dog", (10, 10, 100, 100), 0.31),
        Region("face", "face", (300, 50, 360, 120), 0.55),
        Region("object", "cat", (120, 100, 125, 180), 0.9),  # 5 px wide
        Region("object", "cat", (200, 150, 380, 330), 0.8),
        Region("object", "cat", (190, 140, 390, 340), 0.7),  # the same cat, a looser box
    ]
    result = ground(PHOTO, regions, _inventory(), embedder)
    reasons = [(d.status, d.reason) for d in result.decisions]
    assert reasons[0] == ("low-score", "below detector score 0.31 < 0.40")
    assert reasons[1] == ("low-score", "below detector score 0.55 < 0.60")  # faces need more
    assert reasons[2] == ("too-small", "too small (5x80 px < 8)")
    assert result.decisions[3].status == "matched"
    assert reasons[4] == ("overlap", "overlaps region 4 (cat) by >= 80%: kept the finer box")
    assert [d.region for d in result.kept] == [regions[3]]


def test_overlap_rule_compares_boxes_of_one_label_unless_told_otherwise(embedder):  # noqa: ANN001
    person, cat = Region("object", "person", (0, 0, 400, 400), 0.9), Region("object", "cat", (50, 50, 300, 300), 0.9)
    assert [d.status for d in ground(PHOTO, [person, cat], _inventory(), embedder).decisions] == ["generic", "matched"]
    settings = GroundingSettings(overlap_same_label=False)  # GranuRAG's rule across labels
    result = ground(PHOTO, [person, cat], _inventory(), embedder, settings=settings)
    assert [d.status for d in result.decisions] == ["overlap", "matched"]
    assert result.decisions[0].reason == "overlaps region 2 (cat) by >= 80%: kept the finer box"


def test_ocr_words_identify_an_element(embedder):  # noqa: ANN001
    sign = Region("text", "text", (40, 300, 260, 340), 0.93, text="28 MARTIM MONIZ")
    other = Region("text", "text", (300, 300, 560, 340), 0.91, text="Pastelaria Aloma")
    result = ground(PHOTO, [sign, other], _inventory(), embedder)
    assert result.decisions[0].element.id == "Tram 28/route sign" and result.decisions[0].score > 0.8
    assert result.decisions[1].status == "generic" and result.decisions[1].element.name == "text 'Pastelaria Aloma'"


def test_grounding_works_with_no_pack_at_all(embedder):  # noqa: ANN001
    regions = [Region("object", "person", (10, 10, 200, 390), 0.88), Region("face", "face", (60, 20, 120, 90), 0.95),
               Region("text", "text", (300, 20, 500, 60), 0.9, text="TRAM 28"),
               Region("object", "person", (400, 100, 590, 390), 0.7)]
    result = ground(PHOTO, regions, Inventory(), embedder)
    assert [d.status for d in result.decisions] == ["generic"] * 4
    assert result.decisions[0].reason == "no element in the inventory; kept as a person (detector .88)"
    assert [e.name for e in result.visible] == ["a person", "a face", "text 'TRAM 28'"]  # each element once
    assert "VLM" not in " ".join(d.reason for d in result.decisions)  # no VLM check without a hook
    json.dumps(result.as_dict())


def test_evidence_lines_for_grounded_and_whole_inventory_settings(embedder):  # noqa: ANN001
    regions = [Region("object", "cat", (20.4, 30, 220, 260.6), 0.82), Region("object", "car", (300, 40, 560, 220), 0.2),
               Region("object", "bicycle", (300, 240, 560, 390), 0.66)]
    inventory = _inventory()
    items = grounded_evidence(ground(PHOTO, regions, inventory, embedder), start=3)
    lines = render(items).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[3] Chelsea \u2014 tabby fur (cat, score .")
    assert lines[0].endswith(") at box (20,30,220,261): orange-brown tabby fur with dark stripes")
    assert lines[1] == "[4] a bicycle (bicycle, score .66) at box (300,240,560,390)"
    assert items[0].locator == {"element": "Chelsea/tabby fur", "entity": "Chelsea", "name": "tabby fur",
                                "box": [20.4, 30.0, 220.0, 260.6], "kind": "object", "label": "cat"}

    baseline = inventory_evidence(inventory)
    assert render(baseline).splitlines() == [
        "[1] Chelsea \u2014 tabby fur (cat): orange-brown tabby fur with dark stripes",
        "[2] Chelsea \u2014 red collar (pet): a thin red leather collar with a brass bell",
        "[3] Tram 28 \u2014 route sign (vehicle): yellow destination sign above the windscreen",
    ]
    assert all(item.region is None and "box" not in item.locator for item in baseline)
