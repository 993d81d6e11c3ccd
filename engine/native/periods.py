"""Time spans a question names ("in May 2025", "on 9 May 2025", "in 2024", "2025-05-09"), as the
half-open date ranges a query filters with.

A small model asked "how many photos did I take in May 2025?" sometimes filters on a folder name
that happens to hold "2025-05", or ends a month on its 30th. Naming the span's first day and the
first day after it, beside the source's date fields, is what grounds the filter; each query writer
says how its language compares dates (`QueryWriter.span_hint`)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

MAX_FIELDS = 6  # date fields named in a hint
MONTHS = {name: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
    ("november", "nov"), ("december", "dec")), start=1) for name in names}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_PATTERNS = (  # longest spans first: a day inside a month is the day's span, not the month's
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)\b(?!-)"),
    re.compile(r"\b(?:in|during|of|for|throughout)\s+(?:the\s+year\s+)?(?P<year>(?:19|20)\d\d)\b(?![-/.]\d)",
               re.IGNORECASE),
)


@dataclass(frozen=True)
class Span:
    phrase: str  # as the question says it
    start: dt.date
    end: dt.date  # the first day after the span

    def __str__(self) -> str:
        return f"{self.phrase!r}: from {self.start.isoformat()} up to (not including) {self.end.isoformat()}"


def spans(question: str) -> list[Span]:
    """Every span the question names, in the order it names them; parts of a longer span (the
    month of "9 May 2025") and impossible dates ("31 April 2025") are left out."""
    found: list[tuple[int, Span]] = []
    taken: list[range] = []
    for pattern in _PATTERNS:
        for m in pattern.finditer(question):
            where = range(m.start(), m.end())
            if any(where.start < t.stop and t.start < where.stop for t in taken):
                continue
            taken.append(where)
            if (span := _span(m)) is not None:
                found.append((m.start(), span))
    return [span for _, span in sorted(found, key=lambda f: f[0])]


def _span(m: re.Match) -> Span | None:
    parts = m.groupdict()
    year = int(parts["year"])
    month = parts.get("month")
    phrase = re.sub(r"^(?:in|during|of|for|throughout)\s+(?:the\s+year\s+)?", "", m.group(0), flags=re.IGNORECASE)
    if month is None:
        return Span(phrase, dt.date(year, 1, 1), dt.date(year + 1, 1, 1))
    number = int(month) if month.isdigit() else MONTHS[month.lower().rstrip(".")]
    if not 1 <= number <= 12:
        return None
    if parts.get("day") is None:
        return Span(phrase, dt.date(year, number, 1), _next_month(year, number))
    try:
        day = dt.date(year, number, int(parts["day"]))
    except ValueError:
        return None
    return Span(phrase, day, day + dt.timedelta(days=1))


def _next_month(year: int, month: int) -> dt.date:
    return dt.date(year + month // 12, month % 12 + 1, 1)


def hint(found: list[Span], fields: list[str], literal: Callable[[dt.date], str]) -> str | None:
    """The spans as a line a model reads before the question, each day written as `literal` gives
    it in the query's language; None when the question names no span or the source has no date
    field to filter."""
    if not found or not fields:
        return None
    named = "; ".join(f"{s.phrase!r} is from {literal(s.start)} up to (not including) {literal(s.end)}"
                      for s in found)
    more = len(fields) - MAX_FIELDS
    shown = ", ".join(fields[:MAX_FIELDS]) + (f" and {more} more" if more > 0 else "")
    return (f"Dates the question names, as spans (filter a date field with >= the first day and < the day "
            f"after): {named}. Date fields: {shown}.")
