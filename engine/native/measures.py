"""One measure a table keeps in several columns: a diving table's preliminary and final points, a
budget's planned and actual amounts. "How many points did Ann Fargher have?" read `final_points`,
empty for a diver who never reached the final, and the answer was "not found" although the table
gives her 421.65 preliminary points. Where the column the query returns is empty for every row it
matched, and the question names neither what sets it apart ("final") nor what sets another apart,
the one other column of that measure that holds a value for those rows is read instead."""

from __future__ import annotations

import re

from engine.native.literals import PLAIN_NAME, SQL_SELECT
from engine.native.numeric_text import NUMBER_TYPE
from engine.native.sources import Source

_WORDS = re.compile(r"[a-z]+")


def others(statement: str, question: str, source: Source) -> list[str]:
    """The statement with each number column its SELECT clause reads replaced by the one other column
    of the same measure (sharing a word of its name, the words that tell them apart unasked; where
    several share it, as a year's twelve monthly columns do, none is the other), one statement per
    such column; [] when it reads none or the source is not SQL."""
    if source.language != "sql" or (select := SQL_SELECT.match(statement)) is None:
        return []
    asked = set(_WORDS.findall(question.lower()))
    numbers = [str(c["name"]) for c in source.columns if NUMBER_TYPE.match(str(c.get("type", "")))
               and PLAIN_NAME.fullmatch(str(c["name"]))]  # written into the query as it is: a plain name only
    out = []
    for column in numbers:
        named = re.compile(rf"(?<![\w.\"]){re.escape(column)}(?![\w\"])")
        if named.search(select.group(2)) and len(siblings := _siblings(column, numbers, asked)) == 1:
            clause = named.sub(siblings[0], select.group(2))
            out.append(select.group(1) + clause + statement[select.start(3):])
    return list(dict.fromkeys(out))


def _siblings(column: str, numbers: list[str], asked: set[str]) -> list[str]:
    """The number columns sharing a word with `column` whose telling words the question does not say."""
    words = set(_WORDS.findall(column.lower()))
    found = []
    for other in numbers:
        theirs = set(_WORDS.findall(other.lower()))
        if other == column or not words & theirs or (words ^ theirs) & asked:
            continue
        found.append(other)
    return found

