"""Find/show requests ("find my photo of a cat", "show me the video where…", "which files mention…")
are answered by the ranked items themselves, one per file, with a one-line summary of each, not by a
yes/no the model writes: search already knows the answer, and a small model's "not found" over a
photo it was shown is the failure this path removes. A photo or a moment is listed only when its
description names what is asked ("a bus": the detector's "bus", a label, a caption's word): the
nearest photo of something else is not a find, and the answer then says no photo shows it."""

from __future__ import annotations

import re
from pathlib import Path

from engine.generation.answer import Draft
from engine.generation.evidence import Evidence, MomentEvidence
from engine.generation.untrusted import inline
from engine.generation.words import stem, stems
from engine.grounding.counting import detector_label
from engine.locators import page_words
from engine.result import clock
from engine.runtimes.vision.coco import plural

_NOUN = (r"(?:photo|picture|image|pic|snapshot|video|clip|recording|footage|file|document|doc|paper|note|"
         r"article|report|pdf|letter|scan|abstract|transcript|spreadsheet|table)s?")
_FIND = re.compile(
    r"^\s*(?:please\s+|can you\s+|could you\s+)?(?:find|show|locate|look for|search for|bring up|pull up|get)"
    rf"\b(?:\s+me)?\s+(?:(?:my|the|a|an|all|any|some|every|that|those)\s+)?(?:[\w-]+\s+){{0,2}}?{_NOUN}\b"
    rf"|^\s*(?:do|did) i have (?:a|an|any)\s+(?:[\w-]+\s+){{0,2}}?{_NOUN}\b"
    rf"|^\s*(?:which|what) (?:of my )?(?:[\w-]+\s+)?{_NOUN}\b(?! (?:says?|states?|gives?|shows how many)\b)"
    rf"|^\s*where (?:is|are) (?:my|the) (?:[\w-]+\s+)?{_NOUN}\b",
    re.IGNORECASE)
_WORD = re.compile(r"[a-zà-ÿ0-9]+(?:-[a-zà-ÿ0-9]+)*")
_NOT_SUBJECT = frozenset(f"""find show locate look search bring pull get please can could you me my mine our the a an
all any some every that those this these do did have has i of with in on at from by for to and or where which what
when who is are was were there it its them their about mention mentions mentioning showing shows taken saved kept
one ones study studies studied discuss discusses describe describes cover covers explain explains deal deals
talk talks {_NOUN.replace("(?:", "").replace(")s?", "").replace("|", " ")}""".split())
_SUBJECT = re.compile(r"\b(?:of|with|showing|where|that shows?|in which)\s+(.+?)[\s?.!]*$", re.IGNORECASE)
VISUAL_KINDS = ("image", "region", "clip", "video")  # items described by labels, not by their own words
LISTED = 3  # files named in a find answer
CLOSE = 0.85  # ... each at least this share of the best one's relevance
KINDS = ("image", "region", "clip", "video", "paragraph", "document")  # what a find answer can list


def is_find(question: str) -> bool:
    """The question asks for items (a photo, a video, the files about something), not a fact."""
    return bool(_FIND.search(question))


def subject(question: str) -> set[str]:
    """The words of what a find request asks for ("find my photo of a cat" -> {"cat"})."""
    return {w for w in _WORD.findall(question.lower())
            if len(w) > 1 and w not in _NOT_SUBJECT and w.removesuffix("s") not in _NOT_SUBJECT}


def main_thing(question: str) -> str | None:
    """The first thing a find request names that the object detector knows ("find my photo of a cat
    sitting on the toilet tank" -> "cat"; "… of a stop sign next to a bush" -> "stop sign"): a photo must
    show it to be listed, not the toilet alone."""
    words = _WORD.findall(question.lower())
    for at, word in enumerate(words):
        if word in _NOT_SUBJECT or word.removesuffix("s") in _NOT_SUBJECT:
            continue
        if at + 1 < len(words) and (pair := detector_label(f"{word} {words[at + 1]}")):
            return pair  # "stop sign", "fire hydrant": one class of two words
        if detector_label(word):
            return word
    return None


def names(e: Evidence, wanted: set[str] | frozenset[str]) -> bool:
    """The item's description (or its file's name) names one of the `wanted` words, in a plural or
    singular form or as the detector's class for it (people -> person), or the photo classifier is
    sure it shows one (see `classified_as`)."""
    labels = e.locator.get("labels")
    return names_in(e.text, e.source, wanted) or (isinstance(labels, list) and classified_as(labels, wanted))


CLASSIFIER_SURE = 0.5  # a photo's whole-image label this sure names what the photo shows


def classified_as(labels: list, wanted: set[str] | frozenset[str]) -> bool:
    """Whether a sure label of the photo classifier ("giant panda, panda, panda bear, …", 0.96) has a
    wanted word as one of its names, in a plural or singular form: the detector knows no pandas and
    calls it a bear. A word inside a name ("tiger" of "tiger cat") is not the name."""
    names_given = {name.strip().lower() for label, score in labels if float(score) >= CLASSIFIER_SURE
                   for name in str(label).split(",")}
    return any({word, word[:-1], word[:-2], word + "s"} & names_given for word in wanted)


def names_in(text: str, source: str, wanted: set[str] | frozenset[str]) -> bool:
    """Whether a description (or its file's name) names one of the `wanted` words (see `names`)."""
    text = (text + " " + Path(source).stem.replace("_", " ").replace("-", " ")).lower()
    words = set(_WORD.findall(text))
    for word in wanted:
        forms = {word, word[:-1], word[:-2], word + "s"}
        label = detector_label(word)
        if forms & words or (label is not None and (label in text or plural(label, 2) in text)):
            return True
    return False


def found(evidence: list[Evidence], wanted: set[str] | frozenset[str] = frozenset(),
          several: str | None = None) -> list[Evidence]:
    """The evidence to list: the best item of each file (a photo's best region, a video's best
    moment), most relevant first, those close to the best one; a photo or a moment only when it
    names one of the `wanted` words (when there are any); with `several` (a detector's class), only
    the files an item of which counts more than one of it, when there are any (see `most_seen`)."""
    items = [e for e in evidence if e.kind in KINDS and (not wanted or (
        names(e, wanted) if e.kind in VISUAL_KINDS else about(e, wanted)))]
    if several is not None:
        seen = most_seen(items, several)
        if any(n > 1 for n in seen.values()):
            items = [e for e in items if seen.get(e.source, 0) > 1]
    if not items:
        return []
    best: dict[str, Evidence] = {}
    for e in items:
        if e.source not in best or _rank(e) > _rank(best[e.source]):
            best[e.source] = e
    ranked = sorted(best.values(), key=lambda e: -e.score)
    top = ranked[0].score
    return [e for e in ranked if e.score >= CLOSE * top][:LISTED]


_SHOWN = re.compile(r"\b(\d+)\s+([a-z]+(?:\s[a-z]+)?)")  # "Shows 5 people, 2 cars": a description's counts


def most_seen(items: list[Evidence], label: str) -> dict[str, int]:
    """The most of the detector's class `label` any item of a file counts ("Shows 8 people" of a
    video's clip), by file; a file none of whose items counts it is left out."""
    most: dict[str, int] = {}
    for e in items:
        for m in _SHOWN.finditer(e.text.lower()):
            if label in {detector_label(m.group(2)), detector_label(m.group(2).split()[0])}:
                most[e.source] = max(most.get(e.source, 0), int(m.group(1)))
    return most


def several_asked(question: str, thing: str) -> bool:
    """Whether a request for one photo or video asks for several of the thing ("the video of people
    walking", "a photo of two dogs"): a single photo of "dogs" shows more than one. "My photos of dogs"
    asks for photos that may show one each."""
    noun = re.search(rf"\b{_NOUN}\b", question, re.IGNORECASE)
    if noun is None or noun.group(0).lower().endswith("s"):
        return False
    return thing in ("people", "men", "women", "children") or (thing.endswith("s") and
                                                               detector_label(thing) not in (None, thing))


TEXT_SHARE = 0.5  # of a find request's words a passage (with its title and file name) must hold more than


def about(e: Evidence, wanted: set[str] | frozenset[str]) -> bool:
    """Whether a passage is about what a find request asks for: it (its title, its file's name) holds
    more than half the request's words, by stem ("Which of my papers studies ice accretion on wings?"
    is not answered by a paper on cruciform wings)."""
    held = _stems_of(e)
    return sum(1 for word in wanted if stem(word) in held) > TEXT_SHARE * len(wanted)


def _stems_of(e: Evidence) -> set[str]:
    return stems(set(_WORD.findall(f"{e.text} {e.title} {Path(e.source).stem}".lower())))


def _rank(e: Evidence) -> tuple[float, int]:
    # of one file: the higher score, and a region (a box) or a moment before the whole photo or video
    return e.score, int(e.kind in ("region", "clip"))


def answer(evidence: list[Evidence], question: str = "") -> Draft | None:
    """"Found: chelsea.png [1] — a cat (Egyptian cat, tiger cat)." for the items of `evidence` that
    show what `question` asks for; "No photo … shows a bus" (nothing cited, the closest named) when
    only photos or moments of other things came back; None when there is nothing to list."""
    wanted = subject(question)
    thing = main_thing(question)
    several = detector_label(thing) if thing and several_asked(question, thing) else None
    listed = found(evidence, {thing} if thing else wanted, several)
    if not listed:
        near = found(evidence)
        return _none_shows(question, wanted, near) if near else None
    parts = [f"{Path(e.source).name} [{e.n}]" + (f" — {summary}" if (summary := describe(e).rstrip(".")) else "")
             for e in listed]
    text = ("Found " + parts[0] + "." if len(parts) == 1
            else "Found " + parts[0] + ". Also: " + "; ".join(parts[1:]) + ".")
    return Draft(text, [e.n for e in listed], True, [])


def _none_shows(question: str, wanted: set[str], near: list[Evidence]) -> Draft:
    m = _SUBJECT.search(question)
    asked = inline(m.group(1) if m else " ".join(sorted(wanted)), 80)
    if all(e.kind not in VISUAL_KINDS for e in near):
        held = set().union(*(_stems_of(e) for e in near))
        unheld = [w for w in dict.fromkeys(_WORD.findall(question.lower())) if w in wanted and stem(w) not in held]
        closest = ", ".join(Path(e.source).name for e in near)
        verb = "does" if len(near) == 1 else "do"
        return Draft(f"None of your files is about that: the closest ({closest}) {verb} not mention "
                     f"{inline(', '.join(unheld), 80)}.", [], False, [])
    what = "video" if all(e.kind in ("clip", "video") for e in near) else "photo"
    closest = "; ".join(f"{Path(e.source).name} ({summary})" if (summary := describe(e).rstrip(".")) else
                        Path(e.source).name for e in near)
    return Draft(f"No {what} in your files shows {asked}. The closest: {closest}.", [], False, [])


def describe(e: Evidence) -> str:
    """One line on what the item holds: the region's label, the moment's span and what is seen or
    said there, the passage's opening words."""
    lines = [line.strip() for line in e.text.splitlines() if line.strip()]
    if isinstance(e, MomentEvidence) and e.kind == "clip":
        span = f"{clock(e.start_s)}–{clock(e.end_s)}"
        return f"{span}: {inline(lines[0], 120)}" if lines else span
    if e.kind in ("region", "image", "video"):
        return inline("; ".join(lines[:2]), 140)
    where = f"{page}: " if (page := page_words(e.locator)) else ""
    return where + inline(" ".join(lines), 140)
