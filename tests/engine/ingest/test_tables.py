"""Table files indexed into DuckDB: every format, messy input, updates, deletions, kill repair."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from engine.pipeline import Trove
from tests.conftest import EXAMPLES


def _sources(trove: Trove) -> dict[str, dict]:
    return {s["name"]: s for s in trove.catalog.sources() if s["kind"] == "table"}


def test_each_table_format_becomes_a_table_with_a_descriptor(trove: Trove, tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "Kontoauszug März.csv").write_bytes(
        "Datum;Empfänger;Betrag\n01.03.2024;Bäckerei Müller;3,40\n02.03.2024;Café Zoë;12,10\n".encode("cp1252"))
    (folder / "runs.tsv").write_text("date\tkm\tminutes\n2024-05-01\t5.2\t28\n2024-05-03\t10.1\t57\n")
    (folder / "books.jsonl").write_text('{"title": "Dune", "year": 1965}\n{"title": "Emma", "year": 1815}\n')
    (folder / "plants.json").write_text('[{"name": "fern", "water_days": 3}, {"name": "cactus", "water_days": 21}]')
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 'bike' AS item, 2024 AS year) TO '{folder / 'assets.parquet'}' (FORMAT parquet)")
    con.close()
    report = trove.index([folder])
    assert report.indexed == 5 and report.failed == 0
    tables = _sources(trove)
    assert set(tables) == {"kontoauszug_marz", "runs", "books", "plants", "assets"}
    konto = tables["kontoauszug_marz"]["descriptor"]
    assert [c["name"] for c in konto["columns"]] == ["_row", "datum", "empfanger", "betrag"]
    assert konto["columns"][2]["label"] == "Empfänger" and "Bäckerei Müller" in konto["columns"][2]["samples"]
    assert trove.sql("SELECT empfanger FROM kontoauszug_marz WHERE _row = 2").rows == [("Café Zoë",)]
    assert trove.sql("SELECT sum(km) FROM runs").rows == [(15.3,)]
    assert trove.sql("SELECT title FROM books WHERE year < 1900").rows == [("Emma",)]
    assert trove.sql("SELECT water_days FROM plants WHERE name = 'cactus'").rows == [(21,)]
    assert trove.sql("SELECT item FROM assets").rows == [("bike",)]
    assert {t["name"] for t in trove.status()["tables"]} == set(tables)


def test_bad_table_files_are_recorded_and_the_rest_indexed(trove: Trove, tmp_path: Path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "ok.csv").write_text("a,b\n1,2\n")
    (folder / "header-only.csv").write_text("a,b\n")
    (folder / "broken.json").write_text('[{"not": "records", ')
    (folder / "package.json").write_text('{"name": "some-app", "version": "1.0.0"}')
    (folder / "fake.parquet").write_text("this is not parquet")
    (folder / "binary.csv").write_bytes(bytes(range(256)) * 10)
    trove.index([folder])
    problems = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert problems["header-only.csv"][0] == "skipped"
    assert problems["broken.json"][0] == "failed" and "JSON" in problems["broken.json"][1]
    assert problems["package.json"][0] == "skipped" and "not an array" in problems["package.json"][1]
    assert problems["fake.parquet"][0] == "failed" and "Parquet" in problems["fake.parquet"][1]
    assert problems["binary.csv"][0] == "failed" and "binary" in problems["binary.csv"][1]
    assert set(_sources(trove)) == {"ok"}


def test_changed_and_deleted_tables_and_same_names(trove: Trove, tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "expenses.csv").write_text("shop,amount\nHEMA,7.95\n")
    (b / "expenses.csv").write_text("shop,amount\nJumbo,3.10\n")
    trove.index([a, b])
    assert set(_sources(trove)) == {"expenses", "expenses_2"}
    (a / "expenses.csv").write_text("shop,amount\nHEMA,7.95\nAH,12.00\n")
    trove.index()
    assert trove.sql("SELECT count(*) FROM expenses").rows == [(2,)]  # same table, new content
    (b / "expenses.csv").unlink()
    trove.index()
    assert set(_sources(trove)) == {"expenses"} and trove.stores.tables.tables() == ["expenses"]


def test_a_table_left_by_a_killed_run_is_repaired(trove: Trove, tmp_path: Path):
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "trips.csv").write_text("city,nights\nLisbon,5\n")
    # a run killed after DuckDB was written and before the catalog was: the table exists, no source
    trove.stores.tables.load_csv("trips", folder / "trips.csv", "city,nights\nLisbon,5\n")
    trove.stores.tables.load_csv("gone", folder / "gone.csv", "x\n1\n")
    trove.index([folder])
    assert set(_sources(trove)) == {"trips"}
    assert trove.stores.tables.tables() == ["trips"]
    assert trove.sql("SELECT nights FROM trips").rows == [(5,)]


def test_workbook_sheets_with_title_rows_and_merged_cells(trove: Trove, tmp_path: Path):
    import datetime as dt

    import openpyxl

    folder = tmp_path / "xl"
    folder.mkdir()
    wb = openpyxl.Workbook()
    budget = wb.active
    budget.title = "Budget"
    budget["A1"] = "Household budget 2024"
    budget.merge_cells("A1:C1")
    budget.append([])
    budget.append(["Month", "Category", "Amount"])
    budget.append(["January", "Rent", 920])
    budget.append([None, "Food", 310.5])
    budget.merge_cells("A4:A5")
    budget.append(["February", "Rent", 920])
    notes = wb.create_sheet("Notes")
    notes["A1"] = "Remember to ask about the service charges."
    trips = wb.create_sheet("Trips")
    trips.append(["City", "Arrive", "Nights"])
    trips.append(["Lisbon", dt.datetime(2025, 5, 8), 5])
    wb.save(folder / "budget.xlsx")
    (folder / "locked.xlsx").write_bytes(b"PK\x03\x04 not a real workbook")
    trove.index([folder])
    tables = _sources(trove)
    assert set(tables) == {"budget_budget", "budget_trips"}
    assert tables["budget_budget"]["descriptor"]["sheet"] == "Budget"
    rows = trove.sql("SELECT _row, month, category, amount FROM budget_budget ORDER BY _row").rows
    assert rows == [(4, "January", "Rent", 920.0), (5, "January", "Food", 310.5), (6, "February", "Rent", 920.0)]
    assert trove.sql("SELECT typeof(arrive), nights FROM budget_trips").rows == [("DATE", 5)]
    problems = {Path(p["path"]).name: p for p in trove.status()["problems"]}
    assert problems["locked.xlsx"]["state"] == "failed" and "workbook" in problems["locked.xlsx"]["reason"]


def test_database_files_become_sources_read_in_place(trove: Trove, tmp_path: Path):
    import hashlib
    import shutil

    from tests.conftest import shared_path

    folder = tmp_path / "dbs"
    folder.mkdir()
    geo = folder / "geography.sqlite"
    shutil.copyfile(shared_path("eval", "sql", "geoquery", "geography-db.added-in-2020.sqlite"), geo)
    with duckdb.connect(str(folder / "finance.duckdb")) as con:
        con.execute("CREATE TABLE tx AS SELECT 'rent' AS what, 920 AS eur")
    (folder / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0" + b"\x00" * 600)
    before = hashlib.sha256(geo.read_bytes()).hexdigest()
    trove.index([folder])
    sources = {s["name"]: s for s in trove.catalog.sources() if s["kind"] == "database"}
    assert set(sources) == {"geography", "finance"}
    assert sources["geography"]["engine"] == "sqlite" and sources["finance"]["engine"] == "duckdb"
    assert "state" in {t["table"] for t in sources["geography"]["descriptor"]["tables"]}
    assert trove.sql("SELECT count(*) FROM state", source="geography").rows[0][0] > 40
    assert trove.sql("SELECT eur FROM tx", source="finance").rows == [(920,)]
    problems = {Path(p["path"]).name: p for p in trove.status()["problems"]}
    assert problems["Thumbs.db"]["state"] == "skipped" and "not a SQLite" in problems["Thumbs.db"]["reason"]
    assert hashlib.sha256(geo.read_bytes()).hexdigest() == before
    assert trove.stores.tables.tables() == []  # nothing copied into Trove's own table store
    geo.unlink()
    trove.index()
    assert {s["name"] for s in trove.catalog.sources() if s["kind"] == "database"} == {"finance"}


def test_formulas_give_their_saved_values_and_unsaved_ones_are_reported(trove: Trove, tmp_path: Path):
    import shutil

    import openpyxl

    folder = tmp_path / "xl"
    folder.mkdir()
    shutil.copy(EXAMPLES / "finance" / "household-budget-2025.xlsx", folder / "saved.xlsx")  # values saved
    wb = openpyxl.Workbook()
    wb.active.append(["Item", "Price", "With VAT"])
    wb.active.append(["Lamp", 40, "=B2*1.21"])
    wb.active.append(["Desk", 200, "=B3*1.21"])
    wb.save(folder / "unsaved.xlsx")  # written by a program: formulas without values
    trove.index([folder])
    assert trove.sql("SELECT actual_eur FROM saved_budget WHERE category = 'Total'").rows == []  # the totals row
    total = trove.sql("SELECT round(sum(actual_eur), 2) FROM saved_budget").rows  # its SUM formula's saved value
    assert total == [(2079.3,)]
    sources = _sources(trove)
    assert sources["saved_budget"]["descriptor"]["warnings"] == []
    [warning] = sources["unsaved_sheet"]["descriptor"]["warnings"]
    assert warning.startswith("2 formula cells have no saved value") and "C2, C3" in warning
    assert trove.sql("SELECT count(with_vat) FROM unsaved_sheet").rows == [(0,)]


def test_utf8_and_cp1252_lines_mixed_in_one_csv_are_each_read_and_warned_about(trove: Trove, tmp_path: Path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "payees.csv").write_bytes("name,amount\nBäckerei Müller,3.40\n".encode() +
                                        "Café Zoë,12.10\n".encode("cp1252") + "Straße,1.00\n".encode())
    trove.index([folder])
    source = next(iter(_sources(trove).values()))
    assert trove.sql(f'SELECT name FROM "{source["name"]}" ORDER BY _row').rows == [
        ("Bäckerei Müller",), ("Café Zoë",), ("Straße",)]
    assert any("1 lines are not UTF-8" in w for w in source["descriptor"]["warnings"])


def test_csv_and_workbook_readers_run_in_a_worker_that_a_time_limit_stops(tmp_path: Path):
    """The readers of a CSV or a workbook run in the reader worker: a limit too short to read even
    a small file stops them and names the reader (an in-process reader could not be stopped)."""
    import openpyxl

    from engine.errors import ParseError
    from engine.ingest import tables
    from local_stores.table_store import TableStore

    (tmp_path / "trips.csv").write_text("city,nights\nLisbon,5\nPorto,2\n", encoding="utf-8")
    wb = openpyxl.Workbook()
    wb.active.append(["City", "Nights"])
    wb.active.append(["Lisbon", 5])
    wb.active.append(["Porto", 2])
    wb.save(tmp_path / "trips.xlsx")
    store = TableStore(tmp_path / "tables.duckdb")
    for name, reader in (("trips.csv", "the CSV reader"), ("trips.xlsx", "the workbook reader")):
        with pytest.raises(ParseError, match=f"{reader} was stopped after"):
            tables.load(store, lambda sheet: "trips", tmp_path / name, timeout_s=0.001)
        [info] = tables.load(store, lambda sheet: "trips", tmp_path / name)
        assert info.file == str(tmp_path / name) and info.rows == 2
    assert store.tables() == ["trips"]


def test_spreadsheets_attached_to_mail_are_tables_cited_as_attachments_of_their_message(trove: Trove, tmp_path: Path):
    import openpyxl

    from engine.native.hits import locator
    from engine.native.querying import QueryOutcome
    from engine.result import citation_place
    from tests.office_files import mbox, message

    book = openpyxl.Workbook()
    book.active.title = "Q1"
    for row in (["month", "spent"], ["January", 310], ["February", 280]):
        book.active.append(row)
    book.save(tmp_path / "budget.xlsx")
    mail = tmp_path / "mail"
    mail.mkdir()
    sent = "Sat, 01 Mar 2025 10:00:00 +0100"
    mbox(mail / "inbox.mbox", [
        message("Hello", "Ana <ana@example.org>", sent, "No attachment here."),
        message("Budget so far", "Ana <ana@example.org>", sent, "Here it is.",
                attachments=(("budget.xlsx", (tmp_path / "budget.xlsx").read_bytes(), "application/octet-stream"),
                             ("broken.csv", bytes(range(256)) * 10, "text/csv")))])
    report = trove.index([mail])
    assert report.indexed == 1 and report.failed == 0
    (budget,) = _sources(trove).values()
    assert budget["location"] == str(mail / "inbox.mbox")
    assert {k: budget["descriptor"][k] for k in ("attachment", "message", "message_number", "sheet")} == {
        "attachment": "budget.xlsx", "message": "Budget so far", "message_number": 2, "sheet": "Q1"}
    assert trove.query(budget["name"], f"SELECT sum(spent) FROM {budget['name']}").rows == [(590,)]
    reason = {Path(p["path"]).name: p["reason"] for p in trove.status()["problems"]}.get("inbox.mbox", "")
    assert "attachment broken.csv not loaded" in reason and "binary" in reason  # the mail is indexed all the same
    (source,) = [s for s in trove.native.sources() if s.name == budget["name"]]
    assert source.shown == "budget.xlsx (attached to a message in inbox.mbox)"
    result = trove.query(source.name, f"SELECT _row, month FROM {source.name} WHERE spent > 300")
    place = citation_place(source.location, locator(QueryOutcome(source, "SELECT …", result, [])))
    assert place == "inbox.mbox, attachment budget.xlsx of message 2, 'Budget so far', sheet Q1, rows 2"
    (mail / "inbox.mbox").unlink()
    trove.index()
    assert _sources(trove) == {} and trove.stores.tables.tables() == []


def test_a_table_printed_in_a_pdf_is_a_table_cited_by_its_page(trove: Trove, tmp_path: Path):
    import shutil

    from engine.native.hits import locator
    from engine.native.querying import QueryOutcome
    from engine.result import citation_place
    from tests.conftest import shared_path

    folder = tmp_path / "reports"
    folder.mkdir()
    shutil.copy(shared_path("eval", "documents", "pdfs", "pdfplumber", "nics-background-checks-2015-11.pdf"),
                folder / "nics.pdf")
    report = trove.index([folder])
    assert report.indexed == 1 and report.failed == 0
    (nics,) = _sources(trove).values()
    assert nics["name"] == "nics_table_1_on_page_1" and nics["location"] == str(folder / "nics.pdf")
    assert {k: nics["descriptor"][k] for k in ("attachment", "message", "message_number", "printed")} == {
        "attachment": "table 1 on page 1", "message": "NICS Firearm Background Checks November - 2015",
        "message_number": 1, "printed": True}
    name = nics["name"]
    assert trove.query(name, f"SELECT sum(totals) FROM {name}").rows == [(2236457,)]  # the printed total
    (source,) = [s for s in trove.native.sources() if s.name == name]
    assert source.shown == "table 1 on page 1 of nics.pdf"
    result = trove.query(name, f"SELECT _row, permit FROM {name} WHERE state_territory = 'Illinois'")
    assert [row[1] for row in result.rows] == [87190]
    cited = locator(QueryOutcome(source, "SELECT …", result, []))
    assert cited["page"] == 1  # the PDF opens at the table
    place = citation_place(source.location, cited)
    title = "'NICS Firearm Background Checks November - 2015'"
    assert place == f"nics.pdf, table 1 on page 1, {title}, rows {result.rows[0][0]}"
    assert trove.index().unchanged == 1 and set(_sources(trove)) == {name}  # read once
    (folder / "nics.pdf").unlink()
    trove.index()
    assert _sources(trove) == {} and trove.stores.tables.tables() == []


def test_a_word_table_is_a_table_too_and_its_paragraphs_stay(trove: Trove, tmp_path: Path):
    import docx

    from engine.native.hits import locator
    from engine.native.querying import QueryOutcome
    from engine.result import citation_place

    document = docx.Document()
    document.add_heading("Spending this spring", level=1)
    document.add_paragraph("What the flat cost us each month.")
    grid = document.add_table(rows=6, cols=2)
    title = grid.cell(0, 0).merge(grid.cell(0, 1))
    title.text = "Flat costs 2025"
    for i, (month, spent) in enumerate([("Month", "Spent (EUR)"), ("January", "310"), ("February", "280"),
                                         ("March", "455.50"), ("Total", "1,045.50")], start=1):
        grid.cell(i, 0).text, grid.cell(i, 1).text = month, spent
    folder = tmp_path / "notes"
    folder.mkdir()
    document.save(folder / "spring.docx")
    assert trove.index([folder]).failed == 0
    (spring,) = _sources(trove).values()
    assert spring["name"] == "spring_table_1" and spring["descriptor"]["message"] == "Flat costs 2025"
    assert trove.query(spring["name"], f"SELECT sum(spent_eur) FROM {spring['name']}").rows == [(1045.5,)]
    (source,) = [s for s in trove.native.sources() if s.name == spring["name"]]
    result = trove.query(source.name, f"SELECT _row, month FROM {source.name} WHERE spent_eur > 300")
    cited = locator(QueryOutcome(source, "SELECT …", result, []))
    assert "page" not in cited and source.shown == "table 1 of spring.docx"
    rows = ", ".join(str(row[0]) for row in result.rows)
    assert citation_place(source.location, cited) == f"spring.docx, table 1, 'Flat costs 2025', rows {rows}"
    assert any("February | 280" in hit.item.text for hit in trove.search("February 280 flat", k=5))
