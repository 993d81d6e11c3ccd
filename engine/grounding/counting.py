"""Counting things in a photo ("how many people are next to the bus?") from the object detector's
own regions, at the detector's threshold, instead of from a model reading "A person." lines: the
answer states the detector's count, cites its boxes, says how sure the detector was, and says what
a detector misses. A thing the detector has no class for is not counted here (the model answers,
and the support gate holds it to the evidence)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.generation.answer import Draft
from engine.generation.evidence import Evidence, PhotoEvidence, RegionEvidence
from engine.runtimes.vision.coco import COCO80, plural

_HOW_MANY = re.compile(r"\bhow many\s+((?:[a-z-]+\s+){0,3}?[a-z-]+?)(?=\s+(?:are|is|were|was|do|does|did|can|could|"
                       r"stand\w*|sit\w*|appear\w*|in|on|at|of|there|next|beside|near|around|by|with|and|or)\b|\s*[?.!,]|$)",
                       re.IGNORECASE)
_PEOPLE = frozenset("""people persons person men man women woman kids kid children child boys boy girls girl guys
players adults adult pedestrians humans figures teenagers""".split())
_IRREGULAR = {"knives": "knife", "mice": "mouse", "sheep": "sheep", "skis": "skis", "buses": "bus",
              "couches": "couch", "sandwiches": "sandwich", "benches": "bench", "glasses": "wine glass",
              "wine glasses": "wine glass", "tvs": "tv", "phones": "cell phone", "cell phones": "cell phone",
              "balls": "sports ball", "plants": "potted plant", "tables": "dining table"}
SURE = 0.5  # detector score from which a box is counted as clear


@dataclass(frozen=True)
class Count:
    label: str  # the detector's class
    photo: PhotoEvidence  # the photo counted in (its evidence, with the grounding decisions)
    scores: list[float]  # one per box found, best first
    shows_described: bool  # the photo shows something else the question describes ("with a dog")


def target(question: str) -> str | None:
    """The detector class a "how many …" question counts (people -> person, "traffic lights" ->
    traffic light), or None when the question counts something else (photos, years, euros)."""
    m = _HOW_MANY.search(question)
    return _counted(m.group(1)) if m else None


def targets(question: str) -> list[str]:
    """Every detector class the question counts, in its order ("how many people, and how many dogs?")."""
    labels = (_counted(m.group(1)) for m in _HOW_MANY.finditer(question))
    return list(dict.fromkeys(label for label in labels if label))


def _counted(phrase: str) -> str | None:
    words = phrase.lower().split()
    for n in (2, 1):
        if len(words) >= n and (label := detector_label(" ".join(words[-n:]))):
            return label
    return None


def detector_label(phrase: str) -> str | None:
    """The object detector's class a word or two name ("people" -> person, "buses" -> bus), or None."""
    if phrase in _PEOPLE:
        return "person"
    if phrase in _IRREGULAR:
        return _IRREGULAR[phrase]
    for form in (phrase, phrase[:-1], phrase[:-2]):
        if form in COCO80:
            return form
    return None


def count(question: str, evidence: list[Evidence]) -> Count | None:
    """What the detector found of the question's class in the photo of `evidence` that shows most of
    the other things the question describes ("people playing frisbee with a dog": a dog and a frisbee),
    among equals the one holding the best-scored photo or region, or in the next such photo that has
    some when it has none."""
    label = target(question)
    photos = [e for e in evidence if isinstance(e, PhotoEvidence) and "grounding" in e.locator]
    if label is None or not photos:
        return None
    seen = [e for e in evidence if isinstance(e, (PhotoEvidence, RegionEvidence))]
    best = max(seen, key=lambda e: e.score)  # the evidence is grouped by photo, not ordered by score
    described = described_things(question) - {label}
    ranked = sorted(photos, key=lambda e: (-len(described & _labels(e)), e.image != best.image))
    counts = [Count(label, photo, _scores(photo, label), bool(described & _labels(photo))) for photo in ranked]
    return next((c for c in counts if c.scores), counts[0])  # a photo that shows none is not the one meant


def described_things(question: str) -> set[str]:
    """The detector's classes a question names, one or two words at a time ("a dog and a frisbee")."""
    words = re.findall(r"[a-z-]+", question.lower())
    found = {detector_label(" ".join(words[i:i + 2])) for i in range(len(words) - 1)}
    found |= {detector_label(word) for word in words if len(word) > 2}
    return {label for label in found if label}


def _objects(photo: PhotoEvidence) -> list[dict]:
    """The detector's regions kept in the photo's grounding."""
    return [d["region"] for d in photo.locator.get("grounding", []) if d["region"]["kind"] == "object"]


def _labels(photo: PhotoEvidence) -> set[str]:
    return {region["label"] for region in _objects(photo)}


def _scores(photo: PhotoEvidence, label: str) -> list[float]:
    """The detector's scores of its boxes of `label` in the photo, best first."""
    return sorted((region["score"] for region in _objects(photo) if region["label"] == label), reverse=True)


def answer(question: str, evidence: list[Evidence]) -> Draft | None:
    """The count as the answer, citing the counted boxes (or the photo when there are none)."""
    found = count(question, evidence)
    if found is None:
        return None
    boxes = _boxes(found.label, found.photo, evidence)
    refs = "".join(f"[{n}]" for n in (boxes or [found.photo.n]))
    name, n = Path(found.photo.source).name, len(found.scores)
    if n == 0 and not (found.shows_described or name.lower() in question.lower()):  # not the photo meant
        return Draft(f"I could not find a photo of yours in which the object detector sees {plural(found.label, 2)} "
                     "or the rest of what the question describes.", [], False, [])
    if n == 0:
        text = (f"The object detector found no {plural(found.label, 2)} in {name} {refs}; it can miss small, "
                "hidden or unusual ones.")
    else:
        unsure = sum(s < SURE for s in found.scores)
        doubt = f", {_words(unsure)} of them less surely" if unsure else ""
        text = (f"The object detector found {n} {plural(found.label, n)} in {name} {refs}{doubt}; it can miss "
                f"{plural(found.label, 2)} that are small, hidden or cut off at the edge.")
    text += "".join(_also(label, found.photo, evidence) for label in targets(question) if label != found.label)
    cited = list(dict.fromkeys(int(x) for x in re.findall(r"\[(\d+)\]", text)))
    return Draft(text, cited, True, [])


def _also(label: str, photo: PhotoEvidence, evidence: list[Evidence]) -> str:
    """A sentence on another class the question counts, in the same photo ("and how many dogs?")."""
    n, boxes = len(_scores(photo, label)), _boxes(label, photo, evidence)
    refs = "".join(f"[{b}]" for b in (boxes or [photo.n]))
    return f" It found {n or 'no'} {plural(label, n or 2)} there {refs}."


def _boxes(label: str, photo: PhotoEvidence, evidence: list[Evidence]) -> list[int]:
    """The evidence numbers of the regions of `label` cited in the photo."""
    return [e.n for e in evidence if isinstance(e, RegionEvidence) and e.image == photo.image
            and e.locator.get("label") == label]


def _words(n: int) -> str:
    return ("one", "two", "three", "four", "five")[n - 1] if 1 <= n <= 5 else str(n)
