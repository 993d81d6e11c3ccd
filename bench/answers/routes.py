"""Routing alone on the development set (no answers, seconds for the whole set): does each question
reach the kind of source that holds its answer? The gold kinds come from where the answer is."""

from __future__ import annotations

import sys
import time
from collections import Counter

from bench.answers.judging import sources

GOLD = {"documents/": {"paragraph", "document"}, "text/": {"paragraph", "document"},
        "tables/": {"table"}, "sql/": {"table"}, "cypher/": {"graph"}, "sparql/": {"rdf"},
        "images/": {"image", "region"}, "videos/": {"clip", "video"}}


def gold(question: dict) -> set[str] | None:
    """The route labels that reach the question's answer (None: any, the answer is in no file)."""
    if question["kind"] == "general":
        return {"none"}
    found = [labels for s in sources(question) for prefix, labels in GOLD.items() if s.startswith(prefix)]
    return set().union(*found) if found else None


def run(trove, questions: list[dict]) -> str:  # noqa: ANN001 (engine.pipeline.Trove)
    """Each question routed; a table of the share whose routes include a gold label, per set."""
    per_set: dict[str, Counter] = {}
    lines = []
    t0 = time.perf_counter()
    for q in questions:
        wanted = gold(q)
        if wanted is None:
            continue
        routes = trove.route(q["text"])
        labels = [r.label for r in routes]
        ok = bool(wanted & set(labels))
        tally = per_set.setdefault(q["set"], Counter())
        tally["n"] += 1
        tally["ok"] += ok
        tally["extra"] += len(set(labels) - wanted) > 0
        if not ok:
            lines.append(f"- `{q['id']}` wants {'/'.join(sorted(wanted))}, got "
                         + ", ".join(f"{r.label} {r.confidence:.2f} ({r.router})" for r in routes))
        print(f"{'ok' if ok else 'XX'} {q['id']}: {labels}", file=sys.stderr, flush=True)
    table = ["| set | n | routed to the answer's kind | with an extra kind |", "|---|---:|---:|---:|"]
    for name, t in sorted(per_set.items()):
        table.append(f"| {name} | {t['n']} | {t['ok'] / t['n']:.0%} | {t['extra'] / t['n']:.0%} |")
    total = sum((t for t in per_set.values()), Counter())
    table.append(f"| all | {total['n']} | {total['ok'] / total['n']:.0%} | {total['extra'] / total['n']:.0%} |")
    return "\n".join([*table, "", f"{time.perf_counter() - t0:.0f} s", "", "Misrouted:", *lines]) + "\n"
