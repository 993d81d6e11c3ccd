"""Zip-based files (docx, odt, epub, xlsx) whose parts would unpack to too much are refused before
they are parsed, from the zip's directory alone; normal ones parse as before."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest import archives, documents, spreadsheet, tables
from engine.ingest.parsers import docx, epub, odt
from local_stores.table_store import TableStore

_PARA = b"<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>" * 1000
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _normal_docx(path: Path) -> Path:
    import docx as python_docx

    document = python_docx.Document()
    document.add_heading("Boiler", level=1)
    document.add_paragraph("The boiler was serviced on 12 March 2024.")
    document.save(str(path))
    return path


def _with_part(source: Path, target: Path, name: str, mb: int) -> Path:
    """A copy of zip `source` whose part `name` is replaced by `mb` MB of repeated XML, streamed."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for item in zin.infolist():
            if item.filename != name:
                zout.writestr(item, zin.read(item))
        with zout.open(name, "w", force_zip64=True) as fh:
            fh.write(f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body>'.encode())
            for _ in range(mb * 2**20 // len(_PARA) + 1):
                fh.write(_PARA)
            fh.write(b"</w:body></w:document>")
    return target


def _zip(path: Path, parts: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return path


def test_a_docx_unpacking_to_250_mb_is_refused_in_a_blink(tmp_path: Path):
    bomb = _with_part(_normal_docx(tmp_path / "normal.docx"), tmp_path / "bomb.docx", "word/document.xml", 250)
    assert bomb.stat().st_size < 5 * 2**20  # a few MB on disk
    t0 = time.perf_counter()
    with pytest.raises(SkipFile, match=r"unpacks to 25\d MB, over the 200 MB limit \(setting max_unpacked_mb\)"):
        docx.parse(bomb)
    assert time.perf_counter() - t0 < 1.0  # the central directory only: nothing is unpacked


def test_a_normal_docx_still_parses(tmp_path: Path):
    doc = docx.parse(_normal_docx(tmp_path / "normal.docx"))
    assert "serviced on 12 March 2024" in doc.text


def test_the_limit_comes_through_cut_document(tmp_path: Path):
    path = _with_part(_normal_docx(tmp_path / "normal.docx"), tmp_path / "big.docx", "word/document.xml", 1)
    t0 = time.perf_counter()
    assert len(documents.cut_document(path, 100, 4000).items) > 100  # 1 MB is under the default
    assert time.perf_counter() - t0 < 10  # 14,000 paragraphs: python-docx's own style lookup took 25 s
    with pytest.raises(SkipFile, match=r"over the 0.5 MB limit"):
        documents.cut_document(path, 100, 4000, max_unpacked_mb=0.5)


def test_a_large_document_is_parsed_in_a_worker_held_to_the_time_limit(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch):
    path = _with_part(_normal_docx(tmp_path / "normal.docx"), tmp_path / "large.docx", "word/document.xml", 20)
    t0 = time.perf_counter()
    with pytest.raises(ParseError, match=r"the .docx reader was stopped after 1 s \(setting parse_timeout_s\)"):
        documents.cut_document(path, 100, 4000, timeout_s=1)  # in-process, this parse takes about 25 s
    assert time.perf_counter() - t0 < 5
    normal = tmp_path / "normal.docx"
    in_process = [(i.text, i.locator) for i in documents.cut_document(normal, 100, 4000).items]
    monkeypatch.setattr(documents, "ISOLATE_FROM_MB", 0)  # a small one through the worker: the same items
    assert [(i.text, i.locator) for i in documents.cut_document(normal, 100, 4000).items] == in_process


def test_a_part_packed_too_tight_is_refused_under_the_total(tmp_path: Path):
    path = _zip(tmp_path / "zeros.odt", {"content.xml": b"<a>" + b" " * (20 * 2**20) + b"</a>"})
    with pytest.raises(SkipFile, match=r"its part content.xml unpacks \d+ times its packed size .*a zip bomb"):
        odt.parse(path)


def test_too_many_parts_are_refused(tmp_path: Path):
    path = _zip(tmp_path / "many.epub", {f"OEBPS/{i}.xhtml": b"" for i in range(archives.MAX_MEMBERS + 1)})
    with pytest.raises(SkipFile, match=r"a zip of 10001 parts"):
        epub.parse(path)


def test_not_a_zip_passes_the_check_and_its_parser_says_why(tmp_path: Path):
    path = tmp_path / "fake.docx"
    path.write_text("not a zip")
    archives.check_zip(path)  # nothing to say: the parser reports it
    with pytest.raises(Exception, match="corrupt .docx"):
        docx.parse(path)


def test_odt_epub_and_xlsx_readers_check_before_parsing(tmp_path: Path):
    big = b"<a>" + b"<p>word</p>" * (3 * 2**20 // 11) + b"</a>"  # 3 MB of XML
    with pytest.raises(SkipFile, match="over the 1 MB limit"):
        odt.parse(_zip(tmp_path / "a.odt", {"content.xml": big}), max_unpacked_mb=1)
    with pytest.raises(SkipFile, match="over the 1 MB limit"):
        epub.parse(_zip(tmp_path / "a.epub", {"META-INF/container.xml": big}), max_unpacked_mb=1)
    workbook = _workbook(tmp_path / "a.xlsx")
    assert spreadsheet.read_sheets(workbook)[0].columns == 2
    with pytest.raises(SkipFile, match="over the 0.001 MB limit"):
        spreadsheet.read_sheets(workbook, max_unpacked_mb=0.001)
    store = TableStore(tmp_path / "tables.duckdb")
    with pytest.raises(SkipFile, match="over the 0.001 MB limit"):
        tables.load(store, lambda sheet: "t", workbook, max_unpacked_mb=0.001)
    assert tables.load(store, lambda sheet: "t", workbook)[0].rows == 2


def _workbook(path: Path) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["name", "water_days"], ["fern", 3], ["cactus", 21]):
        ws.append(row)
    wb.save(path)
    return path
