"""Tables printed on a PDF's pages, read with pdfplumber from the lines that rule them: each is
loaded as a table of its own (DuckDB, next to the document's paragraphs), so "how many employees
did the notices in San Jose affect?" is a SQL sum, cited as the table on its page, where the
paragraphs alone would give the model a few rows of it.

A table ruled on several pages (a report's rows going on page after page, the header printed once)
is one table; a header cell over several columns is split by where its words are printed. What
reads as a table, and how its grid is cleaned, is `grids`'s. Only pages whose lines carry numbers
and that draw rules are looked at (`tabular`, `ruled`): a table of words alone, or one aligned
without rules, stays text. pdfplumber is optional: without it a PDF is read as text alone."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from engine.ingest.parsed import AttachedTable
from engine.ingest.parsers import grids
from engine.ingest.parsers.grids import Grid, PrintedTable

if TYPE_CHECKING:
    import pypdfium2 as pdfium
    from pdfplumber.page import Page
    from pdfplumber.table import Table

MAX_PAGES_READ = 200  # pages a document's tables are looked for on (those that look tabular, first ones first)
BUDGET_S = 30.0  # seconds a document's tables may take to find (0.1-0.5 s a page); later pages are read as text only
TABULAR_LINES = 4  # a page is looked at when at least this many of its lines hold two numbers or more ...
TABULAR_SHARE = 0.15  # ... and they are at least this share of its lines
MIN_RULES = (4, 2)  # ... and it draws a grid: as many horizontal rules, each crossed by as many vertical ones
THIN = 2.5  # points: a path this thin is a rule when it is as long as a cell's side at least:
CELL = (15.0, 8.0)  # points: the least width and height of a table's cell (a formula's glyphs are smaller)
_NUMBER = re.compile(r"(?<!\w)[-$€£]?\d[\d,./]*(?!\w)")


def tabular(text: str) -> bool:
    """Whether a page's text looks like it holds a table: enough of its lines carry two numbers."""
    lines = [line for line in text.split("\n") if line.strip()]
    numbered = sum(len(_NUMBER.findall(line)) >= 2 for line in lines)
    return numbered >= TABULAR_LINES and numbered >= TABULAR_SHARE * len(lines)


def read(path: Path, pages: list[int]) -> list[AttachedTable]:
    """The tables printed on the given pages (1-based) of the PDF at `path`; none when pdfplumber
    is not installed or cannot read the file (its text is read all the same)."""
    try:
        import pdfplumber
    except ImportError:
        return []
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    found: list[PrintedTable] = []
    try:
        pages = ruled(path, pages)
        with pdfplumber.open(str(path)) as pdf:
            deadline = time.monotonic() + BUDGET_S
            for number in pages[:MAX_PAGES_READ]:
                if time.monotonic() > deadline:
                    break
                page = pdf.pages[number - 1]
                for table in page.find_tables():
                    grid = _with_spans_split(page, table, table.extract())
                    if not (found and grids.continues(found[-1], grid, number)) and (
                            printed := grids.table_of(grid, number)):
                        found.append(printed)
    except Exception:  # pdfium and pdfminer raise many kinds on files pypdf reads; the text is kept
        logging.getLogger(__name__).warning("tables of %s not read", path, exc_info=True)
    return grids.attached(found)


def ruled(path: Path, pages: list[int]) -> list[int]:
    """Those of the pages (1-based) that draw a grid of rules (pdfium lists a page's drawings in
    milliseconds): a table is found by its rules, and pdfplumber takes 0.1-0.5 s a page to look (a
    page of formulas and diagrams has numbers on every line too)."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return pages
    try:
        return [number for number in pages if _rules_drawn(document[number - 1])]
    finally:
        document.close()


Rule = tuple[float, float, float]  # a horizontal rule's y and x span, or a vertical one's x and y span


def _rules_drawn(page: pdfium.PdfPage) -> bool:
    """Whether the page draws a grid: MIN_RULES[0] horizontal rules at different heights, each
    crossed by MIN_RULES[1] vertical ones (a box's sides count as rules; a diagram's axes do not
    make a grid)."""
    import pypdfium2.raw as pdfium_c

    across: list[Rule] = []
    down: list[Rule] = []
    for drawn in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=2):
        left, bottom, right, top = drawn.get_bounds()
        wide, tall = right - left >= CELL[0], top - bottom >= CELL[1]
        if top - bottom < THIN and wide:
            across.append((bottom, left, right))
        elif right - left < THIN and tall:
            down.append((left, bottom, top))
        elif wide and tall and pdfium_c.FPDFPath_CountSegments(drawn.raw) <= 5:  # a box: its four sides
            across += [(bottom, left, right), (top, left, right)]
            down += [(left, bottom, top), (right, bottom, top)]
    crossed = {round(y) for y, x0, x1 in across
               if sum(1 for x, y0, y1 in down if x0 - THIN <= x <= x1 + THIN and y0 - THIN <= y <= y1 + THIN)
               >= MIN_RULES[1]}
    return len(crossed) >= MIN_RULES[0]


def _with_spans_split(page: Page, table: Table, grid: Grid) -> Grid:
    """The grid with each header cell that spans several columns ("Permit Handgun Long Gun" over
    three) split by where its words are printed: a word goes to the column under it; the lines above
    the lowest one over most columns ("Pre-Pawn" above "Handgun Long Gun *Other", a "Return to
    Seller - Private Sale" wide enough to reach over all three) head each of them."""
    spans = _column_spans(table)
    out = [list(row) for row in grid]
    for r, row in enumerate(table.rows):
        if r >= len(out) or grids.numbers_in([cell or "" for cell in out[r]]):
            break  # the header ends at the first row of numbers
        for c, box in enumerate(row.cells):
            covered = [i for i, (x0, x1) in enumerate(spans) if box and box[0] <= (x0 + x1) / 2 <= box[2]]
            if box is None or len(covered) < 2 or len(covered) == len(spans) or c + len(covered) > len(out[r]):
                continue
            names = _spread(page.crop(box).extract_words(), [spans[i] for i in covered])
            if names:
                out[r][c:c + len(covered)] = names
    return out


def _column_spans(table: Table) -> list[tuple[float, float]]:
    """Each column's left and right edge: where its cells start, and the nearest end of one."""
    width = max(len(row.cells) for row in table.rows)
    spans = []
    for c in range(width):
        boxes = [box for row in table.rows if c < len(row.cells) and (box := row.cells[c]) is not None]
        spans.append((min(b[0] for b in boxes), min(b[2] for b in boxes)) if boxes else (0.0, 0.0))
    return spans


def _spread(words: list[dict], spans: list[tuple[float, float]]) -> list[str] | None:
    """The words of a spanning cell as one name per column, None when some column gets none."""
    lines: dict[int, list[dict]] = {}
    for word in words:
        lines.setdefault(round(word["top"]), []).append(word)
    placed = [[(_column_of(word, spans), word["text"]) for word in sorted(lines[top], key=lambda w: w["x0"])]
              for top in sorted(lines)]
    if not placed:
        return None
    widest = max(range(len(placed)), key=lambda i: (len({c for c, _ in placed[i]}), i))  # the lowest of the widest
    heads = [text for line in placed[:widest] for _, text in line]
    names: list[list[str]] = [[] for _ in spans]
    for line in placed[widest:]:
        for c, text in line:
            names[c].append(text)
    if not all(names):
        return None
    return [" ".join(heads + column) for column in names]


def _column_of(word: dict, spans: list[tuple[float, float]]) -> int:
    middle = (word["x0"] + word["x1"]) / 2
    return min(range(len(spans)), key=lambda i: abs((spans[i][0] + spans[i][1]) / 2 - middle))


