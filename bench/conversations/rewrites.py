"""The rewrite alone, over every follow-up of every conversation: the turns before it as they should
have gone (each hand-written standalone question, answered with its expected values from its
expected file), and how often the rewrite says what the hand-written question says, per kind of
follow-up, under each rewrite policy in the same run ("refers back": only a question with a
referring word, an opening "and" or a few words is rewritten; "carries on": also one that goes on
about the last turn's subject; "names referents": and a question whose one reference is a single
thing, which the rewrite left as typed or glued onto the last question, is asked with its name in
place). The LLM is the only model loaded; no question is answered."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.conversations.sets import FOLLOWS, HOMES, Talk, Turn, rewrite_ok
from engine.conversations.rewriting import Policy

if TYPE_CHECKING:
    from engine.conversations.turns import Turn as AskedTurn
    from engine.runtimes.llm import ChatModel

POLICIES = {"refers back": Policy(carry_on=False, referents=False), "carries on": Policy(referents=False),
            "names referents": Policy()}


@dataclass
class Remembered:
    """A chat model whose replies are kept by prompt, so the policies that send the same prompt
    share one call (and one timing)."""

    llm: ChatModel
    replies: dict[str, tuple[str, float]] = field(default_factory=dict)
    last_seconds: float = 0.0

    def chat(self, messages: list[dict], max_tokens: int = 256, temperature: float = 0.0,
             stop: list[str] | None = None, on_token: Callable[[str], None] | None = None) -> str:
        key = json.dumps([messages, max_tokens, temperature, stop], sort_keys=True)
        if key not in self.replies:
            t0 = time.perf_counter()
            reply = self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature, stop=stop)
            self.replies[key] = (reply, time.perf_counter() - t0)
        reply, self.last_seconds = self.replies[key]
        return reply


def gold_turn(talk: Talk, turn: Turn) -> AskedTurn:
    """A turn as it should have gone: the hand-written question, its expected values as the answer,
    its expected file cited."""
    from engine.conversations.turns import Turn as AskedTurn
    from engine.result import AskResult, Citation

    sources = [turn.source] if isinstance(turn.source, str) else turn.source
    answer = "; ".join(value.split(" | ")[0] for value in turn.expect) + "."
    citations = [Citation(n, "paragraph", str(HOMES[talk.home] / source), {}, "")
                 for n, source in enumerate(sources, start=1)]
    return AskedTurn(AskResult(question=turn.standalone, answer=answer, citations=citations))


def run(llm: ChatModel, talks: list[Talk]) -> list[dict]:
    """One row per follow-up: its rewrite under each policy, whether it says what the hand-written
    question says, and the seconds of the model call it took (0 when none was made)."""
    from engine.conversations.rewriting import standalone
    from engine.generation.budget import Budget

    remembered, budget = Remembered(llm), Budget.of(llm)
    rows = []
    for talk in talks:
        before: list[AskedTurn] = []
        for n, turn in enumerate(talk.turns, start=1):
            if turn.follow:
                row: dict = {"id": talk.id, "turn": n, "follow": turn.follow, "text": turn.text,
                             "standalone": turn.standalone, "policies": {}}
                for name, policy in POLICIES.items():
                    remembered.last_seconds = 0.0
                    asked_as = standalone(remembered, turn.text, before, budget, policy)
                    row["policies"][name] = {"asked_as": asked_as, "ok": rewrite_ok(turn, asked_as),
                                             "rewritten": asked_as != turn.text,
                                             "seconds": remembered.last_seconds}
                rows.append(row)
            before.append(gold_turn(talk, turn))
    return rows


def summarise(rows: list[dict]) -> dict:
    """Per policy: the share of rewrites that say what the hand-written question says, overall and
    per kind of follow-up, the share rewritten, and the seconds of a call."""
    summary: dict = {}
    for name in POLICIES:
        got = [r["policies"][name] for r in rows]
        seconds = [g["seconds"] for g in got if g["seconds"] > 0]
        summary[name] = {
            "ok": _share(got, "ok"), "rewritten": _share(got, "rewritten"),
            "seconds_p50": statistics.median(seconds) if seconds else 0.0,
            "by_follow": {f: _share([r["policies"][name] for r in rows if r["follow"] == f], "ok")
                          for f in FOLLOWS},
        }
    return summary


def _share(got: list[dict], key: str) -> float:
    return sum(bool(g[key]) for g in got) / len(got) if got else 0.0


def render(summary: dict, rows: list[dict]) -> list[str]:
    names = list(POLICIES)
    lines = [f"Follow-ups: {len(rows)}, each rewritten after the turns before it as they should have gone.", "",
             "| rewrite says what the hand-written question says | " + " | ".join(names) + " |",
             "|---|" + "---:|" * len(names),
             "| all | " + " | ".join(f"{summary[n]['ok']:.0%}" for n in names) + " |"]
    for follow in FOLLOWS:
        n_rows = sum(r["follow"] == follow for r in rows)
        lines.append(f"| {follow} ({n_rows}) | " + " | ".join(f"{summary[n]['by_follow'][follow]:.0%}" for n in names)
                     + " |")
    lines += ["| rewritten | " + " | ".join(f"{summary[n]['rewritten']:.0%}" for n in names) + " |",
              "| seconds per call, p50 | " + " | ".join(f"{summary[n]['seconds_p50']:.1f}" for n in names) + " |",
              "", "## Where the policies differ", ""]
    for r in rows:
        got = [r["policies"][n] for n in names]
        if len({g["asked_as"] for g in got}) > 1:
            lines.append(f"- `{r['id']}` turn {r['turn']} ({r['follow']}): {r['text']!r} → "
                         + " / ".join(f"{g['asked_as']!r} {'✓' if g['ok'] else '✗'}" for g in got))
    return lines + [""]
