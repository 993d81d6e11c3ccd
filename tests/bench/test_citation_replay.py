"""bench.citation_replay: an earlier commit's answer rules load beside this tree's, and a reply is
judged by the files its cleaned answer cites."""

from __future__ import annotations

import subprocess

import pytest

from bench.citation_replay import ROOT, Reply, cites_expected, rules_at
from engine.generation.answer import finalise
from engine.generation.evidence import Evidence, evidence_of


def _ev(n: int, source: str, text: str) -> Evidence:
    return evidence_of(n, "paragraph", source, f"T{n}", {"start": 0, "end": len(text)}, text, 0.1)


def test_the_rules_of_a_commit_and_of_this_tree_judge_the_same_reply():
    evidence = [_ev(1, "/disk/documents/note.md", "Questions about the roof go to Daan Smit."),
                _ev(2, "/disk/documents/minutes.md", "Inspect the gutters; Owner: Daan Smit; Deadline: 7 March.")]
    reply = Reply({"source": "documents/minutes.md"},
                  'Daan Smit will inspect the gutters. This is stated in the evidence [1], where it says '
                  '"Owner: Daan Smit; Deadline: 7 March."', evidence, "Who will inspect the gutters?")
    if subprocess.run(["git", "cat-file", "-e", "6c1ca47^{commit}"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("commit 6c1ca47 is not in this clone's history (a shallow clone?)")
    before = rules_at("6c1ca47")  # before the citation of a quoted item
    assert before is not finalise
    assert not cites_expected(before(reply.raw, reply.evidence, reply.asked), reply)
    assert cites_expected(finalise(reply.raw, reply.evidence, reply.asked), reply)
