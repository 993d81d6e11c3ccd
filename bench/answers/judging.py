"""Scoring one answer against one question of the development set.

An answer is *correct* when it holds every expected value and cites every expected file (at the
expected page or moment, where the question gives one). It is *wrong with a citation* when it is
not correct yet cites something. A *claim is unsupported* when the answer states a number that
neither its cited text nor the question holds (checked here, independently of Trove's own check).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

_NUMBER = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-−]?\d+(?:\.\d+)?")
_CITE = re.compile(r"\[\d{1,3}\]")
NO_SOURCE = ("general", "unanswerable")


@dataclass(frozen=True)
class Verdict:
    correct: bool  # the expected values and the expected citation
    values_ok: bool  # the expected values, whatever is cited
    citation_ok: bool
    cited: bool  # the answer cites anything
    wrong_cited: bool  # not correct, yet cited
    said_not_found: bool  # the answer says the files do not hold it
    unsupported_claim: bool  # states a number no cited text (nor the question) holds

    def as_dict(self) -> dict:
        return asdict(self)


def numbers(text: str) -> list[float]:
    """Every number written in `text`, by value ("1,234.50" -> 1234.5)."""
    out = []
    for match in _NUMBER.findall(_CITE.sub(" ", text)):
        try:
            out.append(float(match.replace(",", "").replace("−", "-")))
        except ValueError:
            continue
    return out


def holds(answer: str, expected: str) -> bool:
    """`expected` ("a | b" = either) appears in `answer`: as text (case-insensitive), or, when it is
    a number, as a number of the same value."""
    return any(_holds_one(answer, option.strip()) for option in expected.split(" | "))


def _holds_one(answer: str, expected: str) -> bool:
    """A number is matched by value only (an expected "4" is not found inside "1945")."""
    if _NUMBER.fullmatch(expected):
        value = numbers(expected)[0]
        return any(abs(v - value) <= 1e-6 * max(1.0, abs(value)) + 0.005 for v in numbers(answer))
    return expected.lower() in answer.lower()


def sources(question: dict) -> list[str]:
    src = question.get("source") or []
    return [src] if isinstance(src, str) else list(src)


def cites(result: dict, source: str, question: dict) -> bool:
    """Some citation of `result` is of the file `source` (eval-relative), at the question's page or
    moment when it gives one."""
    for citation in result["citations"]:
        if not citation["source"].replace("\\", "/").endswith("/" + source):
            continue
        locator = citation.get("locator") or {}
        if "page" in question and not _on_page(locator, question["page"]):
            continue
        if "seconds" in question and not _overlaps(locator, question["seconds"]):
            continue
        return True
    return False


def _on_page(locator: dict, page: int | list[int]) -> bool:
    """The citation's pages hold the question's page (or one of its pages: a fact the file states twice)."""
    first = locator.get("page")
    if first is None:
        return False
    last = locator.get("last_page", first)
    return any(first <= p <= last for p in ([page] if isinstance(page, int) else page))


def _overlaps(locator: dict, span: list[float]) -> bool:
    if "start_s" not in locator:
        return False
    return locator["start_s"] <= span[1] and span[0] <= locator["end_s"]


def unsupported_claim(result: dict, question: str) -> bool:
    """A number stated in the answer that is in neither a cited text (nor its file's name: "Found
    000000358083.jpg [1]") nor the question."""
    if not result.get("answered") or result.get("general"):
        return False
    backing = " ".join([question, *(f"{c.get('text', '')} {_locator_text(c)} {Path(c.get('source', '')).name}"
                                    for c in result["citations"])])
    known = numbers(backing) + _boxes_per_photo(result["citations"])
    return any(all(abs(v - k) > 1e-9 for k in known) for v in numbers(result["answer"]))


def _boxes_per_photo(citations: list[dict]) -> list[float]:
    """A count the citations show: the number of cited boxes in each photo."""
    per: dict[str, int] = {}
    for c in citations:
        if "box" in (c.get("locator") or {}):
            per[c["source"]] = per.get(c["source"], 0) + 1
    return [float(n) for n in per.values()]


def _locator_text(citation: dict) -> str:
    """What a citation shows besides its text: a page number, a moment, a query's result."""
    locator = citation.get("locator") or {}
    return " ".join(str(v) for v in locator.values() if isinstance(v, (int, float, str, list)))


def judge(result: dict, question: dict) -> Verdict:
    kind = question["kind"]
    answer = result["answer"]
    not_found = not result.get("answered", True) and not result.get("general")
    cited = bool(result["citations"])
    claim = unsupported_claim(result, question["text"])
    if kind == "unanswerable":
        correct = not result.get("answered", True) and not cited
        return Verdict(correct, correct, correct, cited, cited and not correct, not_found, claim)
    values_ok = all(holds(answer, e) for e in question.get("expect", [])) and not not_found
    if kind == "general":
        return Verdict(values_ok, values_ok, True, cited, cited and not values_ok, not_found, claim)
    citation_ok = all(cites(result, s, question) for s in sources(question))
    correct = values_ok and citation_ok
    return Verdict(correct, values_ok, citation_ok, cited, cited and not correct, not_found, claim)
