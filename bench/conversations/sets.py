"""The conversation sets (`*.toml` in this folder), checked as they are read, and how a follow-up's
rewrite is scored against the standalone question written by hand."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from bench.answers import disk

HERE = Path(__file__).resolve().parent
EXAMPLES = disk.ROOT / "examples"
HOMES = {"eval": disk.EVAL, "examples": EXAMPLES}  # where each home's `source` paths are relative to
FOLLOWS = ("ellipsis", "pronoun", "those", "refine", "switch", "alone")
KINDS = ("fact", "date", "number", "list", "aggregate", "find", "count", "moment")
_WORD = re.compile(r"[A-Za-zÀ-ÿ0-9]{3,}")
_STOP = frozenset("""the and for with that this from what which who whom whose how many much did does are was were has
have had not but all any can could would should will about into onto than then them they their there these those
its it's his her she him our your you me my mine also only more most other others some such same each very just
when where why one ones of in on at to by as an a is be been being do or if so no yes""".split())


@dataclass(frozen=True)
class Turn:
    """One turn: `text` as typed; `standalone` the same question by hand (a first turn's is its text)."""

    text: str
    standalone: str
    kind: str
    expect: list[str]
    source: str | list[str]
    follow: str = ""  # "" for a first turn
    page: int | None = None
    seconds: list[float] | None = None

    def question(self, text: str | None = None) -> dict:
        """The turn as bench.answers' judge reads a question (asked as `text`, by default as typed)."""
        q: dict = {"text": text or self.text, "kind": self.kind, "expect": self.expect, "source": self.source}
        if self.page is not None:
            q["page"] = self.page
        if self.seconds is not None:
            q["seconds"] = self.seconds
        return q


@dataclass(frozen=True)
class Talk:
    id: str
    home: str
    set: str
    turns: list[Turn] = field(default_factory=list)


def load(folder: Path = HERE) -> list[Talk]:
    """Every conversation of `folder`/*.toml; a SystemExit naming the file and conversation when one
    is malformed."""
    talks: list[Talk] = []
    seen: set[str] = set()
    for path in sorted(p for p in folder.glob("*.toml") if p.name != "scoped.toml"):  # scoped.py reads that one
        with path.open("rb") as fh:
            for raw in tomllib.load(fh).get("conversation", []):
                talk = _talk(raw, path.stem)
                if problem := _problem(talk, seen):
                    raise SystemExit(f"{path.name}: conversation {raw.get('id', '?')}: {problem}")
                seen.add(talk.id)
                talks.append(talk)
    return talks


def _talk(raw: dict, set_name: str) -> Talk:
    turns = [Turn(t["text"], t.get("standalone", t["text"]), t.get("kind", ""), list(t.get("expect", [])),
                  t.get("source", ""), t.get("follow", ""), t.get("page"), t.get("seconds"))
             for t in raw.get("turn", [])]
    return Talk(raw.get("id", ""), raw.get("home", ""), set_name, turns)


def _problem(talk: Talk, seen: set[str]) -> str | None:
    if not talk.id or talk.id in seen:
        return "no id, or an id used twice"
    if talk.home not in HOMES:
        return f"unknown home {talk.home!r} (known: {', '.join(HOMES)})"
    if not 2 <= len(talk.turns) <= 4:
        return f"{len(talk.turns)} turns (a conversation has 2 to 4)"
    if talk.turns[0].follow:
        return "the first turn is not a follow-up"
    for n, turn in enumerate(talk.turns, start=1):
        if n > 1 and turn.follow not in FOLLOWS:
            return f"turn {n}: follow must be one of {', '.join(FOLLOWS)}"
        if turn.kind not in KINDS or not turn.expect:
            return f"turn {n}: a kind of {', '.join(KINDS)} and expected values are needed"
        for source in [turn.source] if isinstance(turn.source, str) else turn.source:
            if not (HOMES[talk.home] / source).is_file() and not source.startswith("text/"):
                return f"turn {n}: no such file {source}"
    return None


def words(text: str) -> set[str]:
    """Content words by their first five letters ("directed" ~ "director")."""
    return {w.lower()[:5] for w in _WORD.findall(text)} - {w[:5] for w in _STOP}


def rewrite_ok(turn: Turn, asked_as: str) -> bool:
    """Whether a rewrite says what the hand-written standalone question says: it holds every content
    word the standalone question adds to the follow-up as typed, and (for a follow-up that needed
    no rewrite) adds nothing."""
    said = words(asked_as)
    if turn.follow == "alone":
        return said <= words(turn.text)
    return (words(turn.standalone) - words(turn.text)) <= said
