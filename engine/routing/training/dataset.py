"""The router's data recipe: benchmark development questions labelled with the corpus their
benchmark needs, plus questions written for the labels no benchmark here covers.

Held out of training: all of `router/router_mix.jsonl`, every question that appears in it, and a
fixed 20 % of every other set (chosen by a hash of the question, so the split never moves). Spider's
SQL questions are left out: Spider4SPARQL asks the very same questions of the same databases as
RDF, so the text alone cannot tell them apart (source selection does, among the sources a user has).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EVAL = ROOT.parent / "shared" / "eval"
WRITTEN = ROOT / "models" / "router" / "data" / "written.jsonl"
MIX_ROUTES = {"paragraph": "paragraph", "image": "image", "property_graph": "graph", "rdf_graph": "rdf",
              "relational_db": "table", "table": "table"}
HELD_OUT_SHARE = 0.2


@dataclass(frozen=True)
class Example:
    question: str
    labels: tuple[str, ...]
    dataset: str


def held_out(question: str) -> bool:
    """The fixed held-out share of a set, by a hash of the normalised question."""
    digest = hashlib.sha256(" ".join(question.lower().split()).encode()).digest()
    return digest[0] < 256 * HELD_OUT_SHARE


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def router_mix() -> list[Example]:
    path = EVAL / "router" / "router_mix.jsonl"
    return [Example(r["question"], (MIX_ROUTES[r["gold_route"]],), "router_mix") for r in _jsonl(path)]


def benchmark_sets() -> list[Example]:
    """Every development question of the benchmarks here, with its benchmark's label."""
    out: list[Example] = []
    for name in ("cranfield", "cisi"):
        out += [Example(q["text"], ("paragraph",), name) for q in _jsonl(EVAL / "text" / name / "queries.jsonl")]
    geo = json.loads((EVAL / "sql" / "geoquery" / "geography.json").read_text())
    for entry in geo:
        for s in entry["sentences"]:
            text = s["text"]
            for var, value in sorted(s["variables"].items(), key=lambda kv: -len(kv[0])):
                text = text.replace(var, value)
            out.append(Example(text, ("table",), "geoquery"))
    wtq = json.loads((EVAL / "tables" / "wtq" / "questions.json").read_text())
    out += [Example(q["utterance"], ("table",), "wtq") for q in wtq]
    movies = json.loads((EVAL / "cypher" / "movies" / "movies_eval.json").read_text())
    out += [Example(q["question"], ("graph",), "movies") for q in movies]
    sparql = json.loads((EVAL / "sparql" / "spider4sparql" / "dev.json").read_text())
    out += [Example(q["question"], ("rdf",), "spider4sparql") for q in sparql]
    for split in ("train2017", "val2017"):
        captions = json.loads((EVAL / "images" / "coco_mini" / "annotations" / f"captions_{split}.json").read_text())
        out += [Example(a["caption"].strip(), ("image",), "coco_captions") for a in captions["annotations"]]
    with (EVAL / "images" / "coco_mini" / "text2image_queries.tsv").open(encoding="utf-8") as fh:
        out += [Example(r["caption"].strip(), ("image",), "coco_queries") for r in csv.DictReader(fh, delimiter="\t")]
    return out


def written() -> list[Example]:
    return [Example(r["question"], tuple(r["labels"]), "written") for r in _jsonl(WRITTEN)] if WRITTEN.exists() else []


def splits() -> tuple[list[Example], list[Example], list[Example]]:
    """(train, held-out split of every set, router mix); duplicates removed, mix questions kept out."""
    mix = router_mix()
    blocked = {" ".join(e.question.lower().split()) for e in mix}
    train: list[Example] = []
    held: list[Example] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for example in [*benchmark_sets(), *written()]:
        key = (" ".join(example.question.lower().split()), example.labels)
        if key in seen or key[0] in blocked:
            continue
        seen.add(key)
        (held if held_out(example.question) else train).append(example)
    return train, held, mix
