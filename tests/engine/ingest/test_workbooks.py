"""Old Excel workbooks (.xls) and OpenDocument spreadsheets (.ods) become tables exactly as .xlsx
does: one table per sheet with a table, merged cells filled, title rows skipped, `_row` the sheet's
row number, dates as dates. Bad files are refused with a reason. The files are real: .xls written
with xlwt, .ods written here as LibreOffice lays them out (blank runs as repeated rows and cells)."""

from __future__ import annotations

import datetime as dt
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest import tables
from engine.pipeline import Trove
from local_stores.table_store import TableStore
from tests.office_files import encrypted_office, legacy_xls

BUDGET = [  # (month, paid, amount) from the sheet's row 4; "January" is merged over rows 4-5
    (4, "January", dt.date(2024, 1, 3), 920),
    (5, "January", dt.date(2024, 1, 15), 310.5),
    (6, "February", dt.date(2024, 2, 3), 920),
    (9, "March", dt.date(2024, 3, 3), 99.9),  # after two blank rows
]
ARRIVE = dt.datetime(2025, 5, 8, 14, 30)


# -- writing the workbooks -----------------------------------------------------------------------------------
def _xls(path: Path) -> Path:
    """The budget workbook as an .xls: a merged title over A1:C1, a blank row, the header in row 3,
    "January" merged over A4:A5, dates formatted as dates, an empty sheet and a sheet of trips."""
    import xlwt

    day, moment = xlwt.easyxf(num_format_str="YYYY-MM-DD"), xlwt.easyxf(num_format_str="YYYY-MM-DD HH:MM")
    wb = xlwt.Workbook()
    budget = wb.add_sheet("Budget")
    budget.write_merge(0, 0, 0, 2, "Household budget 2024")
    for col, label in enumerate(["Month", "Paid", "Amount"]):
        budget.write(2, col, label)
    budget.write_merge(3, 4, 0, 0, "January")
    for row, month, paid, amount in BUDGET:
        if row not in (4, 5):  # January: the merged A4:A5
            budget.write(row - 1, 0, month)
        budget.write(row - 1, 1, paid, day)
        budget.write(row - 1, 2, amount)
    wb.add_sheet("Empty")
    trips = wb.add_sheet("Trips")  # the table starts at B2
    for col, label in enumerate(["City", "Arrive", "Nights"], start=1):
        trips.write(1, col, label)
    trips.write(2, 1, "Lisbon")
    trips.write(2, 2, ARRIVE, moment)
    trips.write(2, 3, 5)
    wb.save(str(path))
    return path


ODS_MIMETYPE = "application/vnd.oasis.opendocument.spreadsheet"
ODS_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
WIDTH, HEIGHT = 1024, 1048576  # LibreOffice writes the blank rest of a sheet as repeated cells and rows


def _cell(value: object = None, across: int = 1, down: int = 1, repeat: int = 1) -> str:
    """A table:table-cell: a string, float or date value (or blank), spanning `across` x `down`."""
    attrs = "".join(f' table:{name}="{n}"' for name, n in (("number-columns-spanned", across),
                    ("number-rows-spanned", down), ("number-columns-repeated", repeat)) if n > 1)
    if value is None:
        return f"<table:table-cell{attrs}/>"
    if isinstance(value, (dt.date, dt.datetime)):
        attrs += f' office:value-type="date" office:date-value="{value.isoformat()}"'
    elif isinstance(value, (int, float)):
        attrs += f' office:value-type="float" office:value="{value}"'
    else:
        attrs += ' office:value-type="string"'
    return f"<table:table-cell{attrs}><text:p>{escape(str(value))}</text:p></table:table-cell>"


def _row(*cells: str, repeat: int = 1, used: int = 0) -> str:
    """A table:table-row of `cells` (covering `used` columns), the rest blank to column WIDTH."""
    rest = _cell(repeat=WIDTH - used) if used < WIDTH else ""
    repeated = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{repeated}>{''.join(cells)}{rest}</table:table-row>"


def _sheet(name: str, *rows: str, used_rows: int = 0) -> str:
    blank = _row(repeat=HEIGHT - used_rows) if used_rows < HEIGHT else ""
    return (f'<table:table table:name="{escape(name)}"><table:table-column table:number-columns-repeated='
            f'"{WIDTH}"/>{"".join(rows)}{blank}</table:table>')


def _ods(path: Path, *sheets: str, encrypted: bool = False) -> Path:
    """An OpenDocument spreadsheet: `mimetype` first and stored, the manifest, content.xml; an
    encrypted one has encryption-data in its manifest and content.xml unreadable without the key."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODS_NS} office:version="1.3">'
               f'<office:body><office:spreadsheet>{"".join(sheets)}</office:spreadsheet></office:body>'
               "</office:document-content>")
    encryption = ('<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA">'
                  '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/>'
                  "</manifest:encryption-data>") if encrypted else ""
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
                '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{ODS_MIMETYPE}"/>'
                f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{encryption}'
                "</manifest:file-entry></manifest:manifest>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), ODS_MIMETYPE, compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/manifest.xml", manifest)
        zf.writestr("content.xml", bytes(range(256)) * 8 if encrypted else content.encode())
    return path


def _ods_budget(path: Path) -> Path:
    """The budget workbook as an .ods, laid out as LibreOffice saves it."""
    budget = [
        _row(_cell("Household budget 2024", across=3), '<table:covered-table-cell table:number-columns-repeated="2"/>',
             used=3),
        _row(),
        _row(_cell("Month"), _cell("Paid"), _cell("Amount"), used=3),
        _row(_cell("January", down=2), _cell(BUDGET[0][2]), _cell(BUDGET[0][3]), used=3),
        _row("<table:covered-table-cell/>", _cell(BUDGET[1][2]), _cell(BUDGET[1][3]), used=3),
        _row(_cell("February"), _cell(BUDGET[2][2]), _cell(BUDGET[2][3]), used=3),
        _row(repeat=2),
        _row(_cell("March"), _cell(BUDGET[3][2]), _cell(BUDGET[3][3]), used=3),
    ]
    trips = [_row(), _row(_cell(), _cell("City"), _cell("Arrive"), _cell("Nights"), used=4),
             _row(_cell(), _cell("Lisbon"), _cell(ARRIVE), _cell(5), used=4)]
    return _ods(path, _sheet("Budget", *budget, used_rows=9), _sheet("Empty"), _sheet("Trips", *trips, used_rows=3))


def _xlsx(path: Path) -> Path:
    """The budget workbook as an .xlsx (openpyxl), the reference the other formats must match."""
    import openpyxl

    wb = openpyxl.Workbook()
    budget = wb.active
    budget.title = "Budget"
    budget["A1"] = "Household budget 2024"
    budget.merge_cells("A1:C1")
    budget.append([])
    budget.append(["Month", "Paid", "Amount"])
    for row, month, paid, amount in BUDGET:
        budget.cell(row, 1, month if row != 5 else None)
        budget.cell(row, 2, paid).number_format = "YYYY-MM-DD"
        budget.cell(row, 3, amount)
    budget.merge_cells("A4:A5")
    wb.create_sheet("Empty")
    trips = wb.create_sheet("Trips")
    trips.append([])
    trips.append([None, "City", "Arrive", "Nights"])
    trips.append([None, "Lisbon", ARRIVE, 5])
    wb.save(path)
    return path


WRITERS: dict[str, Callable[[Path], Path]] = {".xls": _xls, ".ods": _ods_budget, ".xlsx": _xlsx}


def _load(path: Path, store: TableStore | None = None, **limits: float) -> list:
    store = store or TableStore(path.parent / "tables.duckdb")
    return tables.load(store, lambda sheet: f"{path.stem}_{sheet}".lower(), path, **limits)


# -- good workbooks ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".xls", ".ods", ".xlsx"])
def test_each_workbook_format_gives_the_same_tables(tmp_path: Path, suffix: str):
    path = WRITERS[suffix](tmp_path / f"budget{suffix}")
    store = TableStore(tmp_path / "tables.duckdb")
    loaded = _load(path, store)
    assert [(info.name, info.sheet) for info in loaded] == [("budget_budget", "Budget"), ("budget_trips", "Trips")]
    assert tables.kind_of(path) == "workbook"
    rows = store.execute("SELECT _row, month, paid, amount FROM budget_budget ORDER BY _row").rows
    assert rows == [(row, month, paid.isoformat(), float(amount)) for row, month, paid, amount in BUDGET]
    assert store.execute("SELECT typeof(paid), typeof(amount) FROM budget_budget LIMIT 1").rows == [("DATE", "DOUBLE")]
    trips = store.execute("SELECT _row, city, arrive, typeof(arrive), nights, typeof(nights) FROM budget_trips").rows
    assert trips == [(3, "Lisbon", str(ARRIVE), "TIMESTAMP", 5, "BIGINT")]
    assert [c["name"] for c in loaded[0].columns] == ["_row", "month", "paid", "amount"]
    assert all(info.warnings == [] for info in loaded)


def test_a_merged_block_in_an_ods_is_filled_across_and_down(tmp_path: Path):
    """calamine gives no merged ranges for .ods: they are read from content.xml, counting repeated
    rows and cells, so a block after blank runs lands on the right cells."""
    rows = [_row(_cell(repeat=2), _cell("Region"), _cell("Shop"), _cell("Q1"), _cell("Q2"), used=6),  # from C1
            _row(repeat=3),  # blank rows 2-4
            _row(_cell(repeat=3), _cell("North", across=2, down=2), "<table:covered-table-cell/>", _cell(7), used=6),
            _row(_cell(repeat=3), '<table:covered-table-cell table:number-columns-repeated="2"/>', _cell(8), used=6),
            _row(_cell(repeat=2), _cell("South"), _cell("Corner"), _cell(2), _cell(3), used=6)]
    path = _ods(tmp_path / "shops.ods", _sheet("Sales", *rows, used_rows=7))
    store = TableStore(tmp_path / "tables.duckdb")
    _load(path, store)
    got = store.execute("SELECT _row, region, shop, q1, q2 FROM shops_sales ORDER BY _row").rows
    assert got == [(5, None, "North", "North", 7), (6, None, "North", "North", 8), (7, "South", "Corner", "2", 3)]


# -- bad workbooks -------------------------------------------------------------------------------------------
def _truncated_xls(path: Path) -> Path:
    good = _xls(path).read_bytes()
    path.write_bytes(good[: len(good) // 2])
    return path


def _password_xls(path: Path) -> Path:
    """Excel marks an encrypted .xls with a FILEPASS record (0x002F) right after the workbook's BOF."""
    data = bytearray(_xls(path).read_bytes())
    after_bof = data.index(b"\x09\x08\x10\x00") + 4 + 16  # BIFF8 BOF: type 0x0809, 16 bytes
    data[after_bof:after_bof + 2] = b"\x2f\x00"
    path.write_bytes(bytes(data))
    return path


def _notes_only_xls(path: Path) -> Path:
    return legacy_xls(path, "Remember to ask about the service charges.")


def _xml_bomb_ods(path: Path) -> Path:
    """Entities that would expand to 10**9 copies of "lol" in content.xml (billion laughs)."""
    dtd = '<!DOCTYPE d [<!ENTITY l0 "lol">' + "".join(
        f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10)) + "]>"
    _ods(path, _sheet("S", _row(_cell("name"), _cell("note"), used=2), _row(_cell("x"), _cell("BOMB"), used=2)))
    with zipfile.ZipFile(path) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    content = parts["content.xml"].decode().replace("?>", "?>" + dtd, 1).replace("BOMB", "&l9;")
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, content if name == "content.xml" else data)
    return path


def _bytes(data: bytes) -> Callable[[Path], Path]:
    def write(path: Path) -> Path:
        path.write_bytes(data)
        return path
    return write


def _zip_of_photos(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("holiday/beach.jpg", b"\xff\xd8\xff not really a photo")
    return path


BAD: list[tuple[str, Callable[[Path], Path], type[Exception], str]] = [
    ("truncated.xls", _truncated_xls, ParseError, r"^corrupt \.xls workbook: "),
    ("password.xls", _password_xls, ParseError, "^password-protected workbook"),
    ("encrypted.xlsx", encrypted_office, ParseError, "^password-protected workbook"),
    ("encrypted.xls", encrypted_office, ParseError, "^password-protected workbook"),
    ("encrypted.ods", lambda p: _ods(p, _sheet("S"), encrypted=True), ParseError, "^password-protected workbook"),
    ("empty.xls", _bytes(b""), SkipFile, "^empty file$"),
    ("empty.ods", _bytes(b""), SkipFile, "^empty file$"),
    ("export.xls", _bytes(b"date,amount\n2024-01-03,920\n"), ParseError, r"^a text file .* named \.xls"),
    ("photos.ods", _zip_of_photos, ParseError, r"^a zip archive that holds no workbook, not an \.ods file"),
    ("saved-as.xls", _xlsx, ParseError, r"^a \.xlsx workbook named \.xls: rename it to \.xlsx"),
    ("budget.ods", _xls, ParseError, r"^a \.xls workbook named \.ods: rename it to \.xls"),
    ("notes.xls", _notes_only_xls, SkipFile, "^no table found in any sheet"),
    ("blank.ods", lambda p: _ods(p, _sheet("Empty"), _sheet("Title", _row(_cell("Just a title"), used=1),
                                                             used_rows=1)), SkipFile, "^no table found in any sheet"),
    ("laughs.ods", _xml_bomb_ods, ParseError, "^not valid XML inside the workbook"),
]


@pytest.mark.parametrize(("name", "write", "error", "reason"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_workbook_is_refused_with_its_reason(tmp_path: Path, name: str, write: Callable[[Path], Path],
                                                   error: type[Exception], reason: str):
    path = write(tmp_path / name)
    with pytest.raises(error, match=reason):
        _load(path)


def test_an_ods_is_checked_against_max_unpacked_mb_before_it_is_read(tmp_path: Path):
    padding = _row(_cell("x" * 1000), _cell(1), used=2) * 2000  # 2 MB of XML, packed to a few KB
    path = _ods(tmp_path / "padded.ods", _sheet("S", _row(_cell("a"), _cell("b"), used=2), padding, used_rows=2001))
    with pytest.raises(SkipFile, match="over the 1 MB limit"):
        _load(path, max_unpacked_mb=1)
    assert [info.rows for info in _load(path, max_unpacked_mb=10)] == [2000]


# -- through the indexer ---------------------------------------------------------------------------------------
def test_indexing_a_folder_loads_xls_and_ods_and_records_the_bad_ones(trove: Trove, tmp_path: Path):
    folder = tmp_path / "spreadsheets"
    folder.mkdir()
    _xls(folder / "household.xls")
    _ods_budget(folder / "travel.ods")
    _truncated_xls(folder / "broken.xls")
    (folder / "bank export.xls").write_text("date,amount\n2024-01-03,920\n")
    report = trove.index([folder])
    assert (report.indexed, report.failed) == (2, 2)
    sources = {s["name"]: s for s in trove.catalog.sources() if s["kind"] == "table"}
    assert set(sources) == {"household_budget", "household_trips", "travel_budget", "travel_trips"}
    assert sources["travel_budget"]["descriptor"]["sheet"] == "Budget"
    assert trove.sql("SELECT sum(amount) FROM household_budget WHERE paid < DATE '2024-02-01'").rows == [(1230.5,)]
    assert trove.sql("SELECT month FROM travel_budget WHERE _row = 5").rows == [("January",)]
    assert trove.catalog.counts()["workbook"] == {"indexed": 2, "failed": 2}
    problems = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert set(problems) == {"broken.xls", "bank export.xls"}
    assert problems["broken.xls"][0] == "failed" and problems["broken.xls"][1].startswith("corrupt .xls workbook")
    assert problems["bank export.xls"][0] == "failed" and "a text file" in problems["bank export.xls"][1]
