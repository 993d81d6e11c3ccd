"""Citation rules before and after a change, on the same model replies: asks bench.answers' questions
of one set, keeps every reply the model wrote with its numbered evidence, and runs the answer
clean-up (`engine.generation.answer.finalise`) of an earlier commit and of this tree on each. The
model is asked once, so the two differ only by their rules. A reply counts as rightly cited when
its cleaned answer cites the question's file.

    python -m bench.citation_replay --before 6c1ca47 [--set documents] [--limit N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.answers.__main__ import load_questions, open_home
from bench.answers.judging import sources

if TYPE_CHECKING:
    from engine.generation.answer import Draft
    from engine.generation.evidence import Evidence

ROOT = Path(__file__).resolve().parent.parent
TEXT_KINDS = ("fact", "date", "number", "list")


@dataclass
class Reply:
    question: dict
    raw: str
    evidence: list
    asked: str


def rules_at(commit: str) -> Callable:
    """`finalise` as the commit had it (its module loaded from git, beside this tree's imports)."""
    text = subprocess.run(["git", "show", f"{commit}:engine/generation/answer.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    module = types.ModuleType(f"answer_at_{commit}")
    module.__file__ = f"{commit}:engine/generation/answer.py"
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(text, module.__file__, "exec"), module.__dict__)  # noqa: S102 - the project's own file
    return module.finalise


def collect(trove, questions: list[dict]) -> list[Reply]:  # noqa: ANN001 (engine.pipeline.Trove)
    """Every reply `finalise` is given while the questions are asked."""
    from engine.generation import answer

    replies: list[Reply] = []
    current: dict = {}
    kept = answer.finalise

    def recording(raw: str, evidence: list[Evidence], question: str = "") -> Draft:
        replies.append(Reply(current["q"], raw, list(evidence), question))
        return kept(raw, evidence, question)

    answer.finalise = recording
    try:
        for i, q in enumerate(questions, start=1):
            current["q"] = q
            result = trove.ask(q["text"])
            print(f"[{i}/{len(questions)}] {q['id']}: {result.answer[:100]!r}", file=sys.stderr, flush=True)
    finally:
        answer.finalise = kept
    return replies


def cites_expected(draft: object, reply: Reply) -> bool:
    by_n = {e.n: e.source.replace("\\", "/") for e in reply.evidence}
    wanted = sources(reply.question)
    return any(by_n.get(n, "").endswith("/" + s) for n in draft.cited for s in wanted)  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit whose rules are compared")
    parser.add_argument("--set", default="documents", help="a bench.answers question file (its stem)")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--llm", default="llm")
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "trove" / "bench-answers")
    args = parser.parse_args(argv)
    from engine.generation.answer import finalise

    every = load_questions()
    questions = [q for q in every if q["set"] == args.set and q["kind"] in TEXT_KINDS and sources(q)]
    questions = questions[:args.limit] if args.limit else questions
    trove = open_home(args.work, args.llm, False, every)
    replies = collect(trove, questions)
    before = rules_at(args.before)
    rows = [(r, cites_expected(before(r.raw, r.evidence, r.asked), r), cites_expected(finalise(r.raw, r.evidence,
                                                                                               r.asked), r))
            for r in replies]
    changed = [(r, b, a) for r, b, a in rows if b != a]
    print(f"\n{len(questions)} questions ({args.set}, kinds {', '.join(TEXT_KINDS)}), {len(replies)} model replies, "
          f"rules at {args.before} against this tree\n")
    print("| rules | replies citing the question's file |\n|---|---:|")
    print(f"| before ({args.before}) | {sum(b for _, b, _ in rows)} / {len(rows)} |")
    print(f"| after (this tree) | {sum(a for _, _, a in rows)} / {len(rows)} |")
    for r, b, a in changed:
        print(f"- {r.question['id']}: {'cited' if b else 'not cited'} -> {'cited' if a else 'not cited'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
