"""Reading the text in a photo ("what is written on the side of the bus?", "what route number is on
the front?") from the OCR's own regions, instead of from a small model that often answers "not
found" beside a line that says it: the answer quotes what was read in the best photo, cited to each
box, the largest lettering first when the question asks for it, numbers first when it asks for one.
Used when no vision-language model is installed: one reads the photo itself, in context."""

from __future__ import annotations

import re
from pathlib import Path

from engine.generation.answer import Draft
from engine.generation.evidence import Evidence, PhotoEvidence, RegionEvidence
from engine.generation.untrusted import inline

_READING = re.compile(r"\b(?:written|writing|say|says|said|read|reads|text|sign|signs|slogan|lettering|letters|"
                      r"caption|heading|headline|title|label)\b|\b(?:number|numbers|name)\s+(?:is\s+|are\s+)?"
                      r"(?:shown|displayed|printed|painted)\b", re.IGNORECASE)
_ASKS = re.compile(r"^\s*(?:(?:in|on)\b[^,?]{0,120},\s*)?(?:what|which)\b", re.IGNORECASE)
_LARGEST = re.compile(r"\b(?:large|larger|largest|big|bigger|biggest|heading|headline|title)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\b(?:number|numbers|route|year|date|price|code)\b", re.IGNORECASE)
QUOTED = 4  # texts quoted at most


def asks_to_read(question: str) -> bool:
    """"What is written on …", "What does the sign say?", "What route number is shown on …"."""
    return bool(_ASKS.match(question)) and bool(_READING.search(question))


def answer(question: str, evidence: list[Evidence]) -> Draft | None:
    """The texts read in the photo of the best item of `evidence`, quoted and cited; None when the
    question does not ask to read, the best item is no photo, or it has no text that was read."""
    if not asks_to_read(question):
        return None
    best = evidence[0] if evidence else None  # the question is about a photo when the best item is one
    if not isinstance(best, (PhotoEvidence, RegionEvidence)):
        return None
    texts = [e for e in evidence if isinstance(e, RegionEvidence) and e.image == best.image
             and e.locator.get("kind") == "text" and e.locator.get("text")]
    if not texts:
        return None
    ordered = _ordered(question, texts)[:QUOTED]
    quoted = [f'"{inline(" ".join(str(e.locator.get("text", "")).replace(" / ", " ").split()), 200)}" [{e.n}]'
              for e in ordered]
    size = " (the largest lettering first)" if _LARGEST.search(question) else ""
    text = f"The text read in {Path(best.source).name}{size}: {quoted[0]}"
    if len(quoted) > 1:
        text += "; also " + ", ".join(quoted[1:])
    return Draft(text + ".", [e.n for e in ordered], True, [])


def _ordered(question: str, texts: list[RegionEvidence]) -> list[RegionEvidence]:
    """Largest lettering first (the box's height per line) when the question asks for large letters
    or a heading, texts with digits first when it asks for a number; else as ranked."""
    if _NUMBER.search(question):
        texts = sorted(texts, key=lambda e: not re.search(r"\d", str(e.locator.get("text", ""))))
    if _LARGEST.search(question):
        texts = sorted(texts, key=lambda e: -_letter_height(e))
    return texts


def _letter_height(e: RegionEvidence) -> float:
    box = e.box
    if box is None:
        return 0.0
    lines = max(1, len(e.locator.get("lines", [])) or str(e.locator.get("text", "")).count(" / ") + 1)
    return (box[3] - box[1]) / lines
