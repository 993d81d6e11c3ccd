"""Tables ruled on PDF pages, read from the real reports in ../shared/eval as CSV tables."""

from __future__ import annotations

import csv
import io

from engine.ingest.parsed import AttachedTable
from engine.ingest.parsers import parser_for
from engine.ingest.parsers.pdf_tables import ruled, tabular
from tests.conftest import shared_path


def _pdf(name: str):  # noqa: ANN202
    path = shared_path("eval", "documents", "pdfs", "pdfplumber", name)
    return path, parser_for(path)(path)


def _rows(table: AttachedTable) -> list[list[str]]:
    return list(csv.reader(io.StringIO(table.data.decode("utf-8"))))


def test_a_header_over_column_groups_is_split_by_where_its_words_are_printed():
    _, doc = _pdf("nics-background-checks-2015-11.pdf")
    (table,) = doc.attached_tables
    assert (table.name, table.page, table.printed) == ("table 1 on page 1.csv", 1, True)
    assert table.message == "NICS Firearm Background Checks November - 2015"  # its title line
    header, *rows = _rows(table)
    assert header[:8] == ["State / Territory", "Permit", "Handgun", "Long Gun", "*Other", "**Multiple", "Admin",
                          "Pre-Pawn Handgun"]
    assert {"Rentals Handgun", "Rentals Long Gun", "Totals"} <= set(header) and len(set(header)) == len(header)
    assert "Return to Seller - Private Sale Long Gun" in header  # a group's name over two lines, as wide
    states = {row[0]: row for row in rows}
    assert len(rows) == 55 and states["Illinois"][1] == "87,190"  # five states a ruled cell, split again
    assert "Totals" not in states  # the printed totals row: a sum over the rows would count it twice
    assert not any(row[0].startswith("*Refers") for row in rows)  # the notes under it are not a row


def test_a_table_ruled_page_after_page_is_one_table_with_its_dates_joined():
    _, doc = _pdf("WARN-Report-for-7-1-2015-to-03-25-2016.pdf")
    (table,) = doc.attached_tables  # the summary by month on the last pages has no header: not a table
    assert table.name == "table 1 on pages 1-15.csv"
    header, *rows = _rows(table)
    assert header == ["Notice Date", "Effective", "Received", "Company", "City", "No. Of", "Layoff/Closure"]
    assert rows[0] == ["06/22/2015", "03/25/2016", "07/01/2015", "Maxim Integrated Product", "San Jose", "150",
                       "Closure Permanent"]  # "0 3 / 2 5 / 2 0 16", printed a glyph at a time, joined
    assert len(rows) == 633 and all(row[5].replace(",", "").isdigit() for row in rows)
    assert rows[-1][3:6] == ["Rockwell Collins, Inc.", "Poway", "2"]
    starts = dict(table.page_starts)  # each page with its first row, as `_row` numbers them (from 1)
    assert list(starts) == list(range(1, 16)) and starts[1] == 1
    molycorp = next(n for n, row in enumerate(rows, start=1) if row[3].startswith("Molycorp"))
    assert max(page for page, first in starts.items() if first <= molycorp) == 2  # printed on page 2


def test_boxes_of_running_text_and_pages_of_prose_are_not_tables():
    for name in ("la-precinct-bulletin-2014-p1.pdf", "scotus-transcript-p1.pdf", "senate-expenditures.pdf"):
        _, doc = _pdf(name)
        assert doc.attached_tables == [], name
        assert doc.blocks  # the text is read all the same
    path, _ = _pdf("scotus-transcript-p1.pdf")
    from pypdf import PdfReader

    assert not tabular(PdfReader(path).pages[0].extract_text())
    assert ruled(path, [1]) == []  # one rule drawn: not looked at with pdfplumber
    warn, _ = _pdf("WARN-Report-for-7-1-2015-to-03-25-2016.pdf")
    assert ruled(warn, [1, 2, 16]) == [1, 2, 16]


def test_a_table_reader_failure_loses_the_tables_only(monkeypatch, caplog):  # noqa: ANN001
    import pdfplumber

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a stream pdfminer cannot read")

    monkeypatch.setattr(pdfplumber, "open", broken)
    _, doc = _pdf("nics-background-checks-2015-11.pdf")
    assert doc.attached_tables == [] and any("Illinois" in block.text for block in doc.blocks)
    assert "tables of" in caplog.text and "not read" in caplog.text
