"""Hostile or pathological files: each is indexed or refused with a reason, in bounded time and
memory, and never takes the indexing process down. Anything that could blow up memory on a
regression runs through run_isolated, whose address-space cap keeps the machine safe."""

from __future__ import annotations

import json
import sqlite3
import time
import zipfile
from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest import rdf, tables
from engine.ingest.graphs import graphml
from engine.ingest.isolation import run_isolated
from engine.ingest.parsers import docx, epub, odt, pptx
from engine.ingest.textio import decode
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore

LIMITS = {"timeout_s": 120, "memory_mb": 1536}  # a regression fails the test, not the machine


def _store(tmp_path: Path) -> TableStore:
    return TableStore(tmp_path / "tables.duckdb")


def _load_table(path: str, db: str) -> tuple[int, int]:
    """(In a worker.) tables.load of one file: its rows and columns."""
    info = tables.load(TableStore(Path(db)), lambda sheet: "t", Path(path))[0]
    return info.rows, len(info.columns)


# -- JSON -------------------------------------------------------------------------------------------
def test_200000_nested_brackets_are_refused_before_duckdb_reads_them(tmp_path: Path):
    for name, text in (("nested.json", "[" * 200_000), ("balanced.json", "[" * 200_000 + "]" * 200_000)):
        path = tmp_path / name
        path.write_text(text)
        t0 = time.perf_counter()
        with pytest.raises(SkipFile, match="JSON nested deeper than 64 levels"):
            tables.load(_store(tmp_path), lambda sheet: "nested", path)
        assert time.perf_counter() - t0 < 2


def test_a_duckdb_crash_on_json_is_contained_in_its_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Without the depth check, DuckDB 1.x's JSON reader segfaults on this file: only its worker dies."""
    monkeypatch.setattr(tables, "MAX_JSON_DEPTH", 10**9)
    path = tmp_path / "balanced.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ParseError, match=r"the JSON reader (crashed \(signal|used more than)"):
        tables.load(_store(tmp_path), lambda sheet: "nested", path)


def test_a_normal_json_array_of_records_loads_through_the_worker(tmp_path: Path):
    path = tmp_path / "plants.json"
    records = [{"name": "fern [indoor]", "water_days": 3, "tags": ["shade", "{humid}"]},
               {"name": 'cactus "the \\ spiky one" [[[', "water_days": 21, "tags": []}]
    path.write_text(json.dumps(records))
    store = _store(tmp_path)
    info = tables.load(store, lambda sheet: "plants", path)[0]
    assert info.file == str(path) and info.rows == 2  # the user's file, not the worker's Parquet
    assert [c["name"] for c in info.columns] == ["_row", "name", "water_days", "tags"]
    assert store.execute("SELECT water_days FROM plants WHERE name LIKE 'cactus%'").rows == [(21,)]
    assert tables.json_depth(path) == 3  # brackets inside strings do not count


def _reference_depth(data: bytes) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for ch in data.decode():
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 7, 1 << 20])
def test_json_depth_is_right_across_chunk_boundaries(tmp_path: Path, chunk_bytes: int):
    data = json.dumps([{"a": ['x\\"[[', {"b": [[["\\\\"]]]}], "c": "}}}\\\\\\\"[[["}, [[[[1]]]]]).encode()
    path = tmp_path / "tricky.json"
    path.write_bytes(data)
    assert tables.json_depth(path, stop_above=1000, chunk_bytes=chunk_bytes) == _reference_depth(data) == 7


def test_a_parquet_file_with_too_many_columns_is_refused_by_the_worker(tmp_path: Path):
    import duckdb

    path = tmp_path / "wide.parquet"
    with duckdb.connect() as con:
        columns = ", ".join(f"{i} AS c{i}" for i in range(1500))
        con.execute(f"COPY (SELECT {columns}) TO '{path}' (FORMAT parquet)")
    with pytest.raises(SkipFile, match="the table has 1500 columns, more than the 1000"):
        tables.load(_store(tmp_path), lambda sheet: "wide", path)


def test_parquet_loads_through_the_worker_and_a_fake_one_fails(tmp_path: Path):
    import duckdb

    path = tmp_path / "assets.parquet"
    with duckdb.connect() as con:
        con.execute(f"COPY (SELECT 'bike' AS item, 2024 AS year) TO '{path}' (FORMAT parquet)")
    store = _store(tmp_path)
    assert tables.load(store, lambda sheet: "assets", path)[0].file == str(path)
    assert store.execute("SELECT item, year FROM assets").rows == [("bike", 2024)]
    fake = tmp_path / "fake.parquet"
    fake.write_text("this is not parquet")
    with pytest.raises(ParseError, match="not a readable Parquet file"):
        tables.load(store, lambda sheet: "fake", fake)


def test_databases_are_described_in_a_worker(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE items (name TEXT, price REAL)")
        con.execute("INSERT INTO items VALUES ('tea', 3.5)")
    described = tables.describe_database(path)
    assert described["engine"] == "sqlite" and described["tables"][0]["table"] == "items"
    broken = tmp_path / "broken.duckdb"
    broken.write_bytes(b"\0" * 8 + b"DUCK" + b"\xff" * 8192)  # DuckDB's magic, then garbage
    with pytest.raises(ParseError, match="cannot read this duckdb database: IO Error: Corrupt database file"):
        tables.describe_database(broken)


# -- CSV ----------------------------------------------------------------------------------------------
def test_a_csv_with_a_50_mb_cell_is_refused_quickly_and_in_bounded_memory(tmp_path: Path):
    path = tmp_path / "cell.csv"
    path.write_text("id,note\n1," + "x" * (50 * 2**20) + "\n2,short\n")
    t0 = time.perf_counter()
    with pytest.raises(SkipFile, match=r"line 2 is 50.0 MB long, over the 2 MB a table row may have"):
        run_isolated(_load_table, str(path), str(tmp_path / "t.duckdb"), **LIMITS)
    assert time.perf_counter() - t0 < 10  # the table reader itself took 17 s to fail, with a 50 MB message


def test_a_12_mb_legacy_encoded_csv_is_decoded_from_a_sample_keeping_its_accents(tmp_path: Path):
    words = ["Bäckerei", "Müller", "Größe", "Straße", "Café", "Überweisung", "Gebühr", "Kündigung", "Öl"]
    lines = ["Datum;Empfänger;Zweck;Betrag"] + [
        f"{1 + i % 28:02d}.03.2024;{words[i % 9]} {words[i * 7 % 9]};{words[i * 5 % 9]} für {words[i * 3 % 9]};"
        f"{i % 997},{i % 100:02d} €" for i in range(200_000)]
    path = tmp_path / "konto.csv"
    path.write_bytes("\n".join(lines).encode("cp1252"))
    t0 = time.perf_counter()
    text = decode(path.read_bytes(), path)
    assert time.perf_counter() - t0 < 5  # detection on the whole file: up to 11 s for 46 MB
    assert text.splitlines()[1] == lines[1] and text.endswith(lines[-1])


def test_a_csv_with_10000_columns_is_refused_at_once(tmp_path: Path):
    path = tmp_path / "wide.csv"
    header = ",".join(f"col{i}" for i in range(10_000))
    path.write_text(header + "\n" + "\n".join(",".join(str(r * i) for i in range(10_000)) for r in range(3)))
    t0 = time.perf_counter()
    with pytest.raises(SkipFile, match="the table has 10000 columns, more than the 1000 a table may have"):
        run_isolated(_load_table, str(path), str(tmp_path / "t.duckdb"), **LIMITS)
    assert time.perf_counter() - t0 < 10  # loaded, it took 160 s and 2.1 GB in the table store


def test_a_wide_sheet_is_left_out_and_the_others_load(tmp_path: Path):
    import openpyxl

    path = tmp_path / "book.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "plants"
    for row in (["name", "water_days"], ["fern", 3]):
        wb.active.append(row)
    wide = wb.create_sheet("wide")
    for r in range(3):
        wide.append([f"c{i}" if r == 0 else i for i in range(1500)])
    wb.save(path)
    loaded = tables.load(_store(tmp_path), lambda sheet: sheet or "book", path)
    assert [i.sheet for i in loaded] == ["plants"]
    assert "not loaded: sheet 'wide' has 1500 columns" in loaded[0].warnings[-1]


# -- XML entity expansion (billion laughs) -------------------------------------------------------------------
def _laughs(root: str, levels: int = 10) -> str:
    """A DTD whose entity lol9 expands to 3 * 10**9 characters (3 GB)."""
    ents = ['<!ENTITY lol0 "lol">'] + [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, levels)]
    return f'<?xml version="1.0"?>\n<!DOCTYPE {root} [\n' + "\n".join(ents) + "\n]>\n"


def _zip(path: Path, parts: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return path


def _parse_text(module: str, path: str) -> int:
    """(In a worker.) The length of a parsed document's text."""
    parse = {"docx": docx.parse, "odt": odt.parse, "epub": epub.parse, "pptx": pptx.parse}[module]
    return len(parse(Path(path)).text)


def _graph_nodes(path: str) -> int:
    return len(graphml.read(Path(path)).nodes)


def _rdf_triples(path: str, root: str) -> int:
    """(In a worker.) rdf.load of one file: the triples it holds."""
    return rdf.load(RdfStore(Path(root)), "bomb", Path(path))["triples"]


def _bounded(fn, *args: object) -> object:  # noqa: ANN001
    """`fn(*args)` in a worker under LIMITS, within a minute."""
    t0 = time.perf_counter()
    try:
        return run_isolated(fn, *args, **LIMITS)
    finally:
        assert time.perf_counter() - t0 < 60


def test_billion_laughs_in_a_docx_is_a_parse_error(tmp_path: Path):
    from tests.engine.ingest.test_archives import _normal_docx

    normal = _normal_docx(tmp_path / "normal.docx")
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = f'<w:document xmlns:w="{w}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>'
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(normal) as zin, zipfile.ZipFile(bomb, "w") as zout:
        for item in zin.infolist():
            data = (_laughs("w:document") + body).encode() if item.filename == "word/document.xml" else zin.read(item)
            zout.writestr(item, data)
    with pytest.raises(ParseError, match="not valid XML inside the .docx: Maximum entity amplification"):
        _bounded(_parse_text, "docx", str(bomb))


def test_billion_laughs_in_a_pptx_slide_is_a_parse_error(tmp_path: Path):
    from tests.office_files import pptx_deck

    normal = pptx_deck(tmp_path / "normal.pptx", tmp_path)
    bomb = tmp_path / "bomb.pptx"
    with zipfile.ZipFile(normal) as zin, zipfile.ZipFile(bomb, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "ppt/slides/slide1.xml":
                data = (_laughs("p:sld") + data.decode().split("?>", 1)[1].replace("Spring sowing", "&lol9;")).encode()
            zout.writestr(item, data)
    with pytest.raises(ParseError, match="Maximum entity amplification|not valid XML inside the .pptx"):
        _bounded(_parse_text, "pptx", str(bomb))


def test_billion_laughs_in_an_odt_is_a_parse_error(tmp_path: Path):
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    content = _laughs("office:document-content") + (
        f'<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        f'xmlns:text="{text}"><text:p>&lol9;</text:p></office:document-content>')
    with pytest.raises(ParseError, match="corrupt .odt: Maximum entity amplification"):
        _bounded(_parse_text, "odt", str(_zip(tmp_path / "bomb.odt", {"content.xml": content})))


def _epub(path: Path, opf_dtd: str = "", title: str = "Laughs", chapter_dtd: str = "",
          chapter_text: str = "Chapter one.") -> Path:
    container = ('<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                 '<rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>')
    opf = (f'{opf_dtd}<package xmlns="http://www.idpf.org/2007/opf"><metadata>'
           f'<dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">{title}</dc:title></metadata>'
           '<manifest><item id="c1" href="c1.xhtml"/></manifest><spine><itemref idref="c1"/></spine></package>')
    chapter = f"{chapter_dtd}<html><body><p>{chapter_text}</p></body></html>"
    return _zip(path, {"META-INF/container.xml": container, "OEBPS/content.opf": opf, "OEBPS/c1.xhtml": chapter})


def test_billion_laughs_in_an_epub_is_refused_or_left_unexpanded(tmp_path: Path):
    normal = _bounded(_parse_text, "epub", str(_epub(tmp_path / "normal.epub")))
    assert normal == len("Chapter one.")
    package = _epub(tmp_path / "package.epub", opf_dtd=_laughs("package"), title="&lol9;")
    with pytest.raises(ParseError, match="corrupt EPUB: Maximum entity amplification"):
        _bounded(_parse_text, "epub", str(package))
    chapter = _epub(tmp_path / "chapter.epub", chapter_dtd=_laughs("html"), chapter_text="Before &lol9; after.")
    assert _bounded(_parse_text, "epub", str(chapter)) < 100  # the HTML parser ignores the DTD's entities


def test_billion_laughs_in_graphml_is_a_parse_error(tmp_path: Path):
    path = tmp_path / "bomb.graphml"
    path.write_text(_laughs("graphml") + '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
                    '<key id="d0" for="node" attr.name="name"/><graph edgedefault="directed">'
                    '<node id="a"><data key="d0">&lol9;</data></node></graph></graphml>')
    with pytest.raises(ParseError, match="not valid GraphML: Maximum entity amplification"):
        _bounded(_graph_nodes, str(path))


def test_deeply_nested_graphml_is_a_parse_error_at_once(tmp_path: Path):
    path = tmp_path / "deep.graphml"
    path.write_text('<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph>'
                    + "<node id='n'>" * 200_000 + "</node>" * 200_000 + "</graph></graphml>")
    t0 = time.perf_counter()
    with pytest.raises(ParseError, match="not valid GraphML: Excessive depth in document: 256"):
        graphml.read(path)
    assert time.perf_counter() - t0 < 2


_RDF = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">'
        '<rdf:Description rdf:about="http://example.org/a"><ex:says>{}</ex:says></rdf:Description></rdf:RDF>')
_THING = '<rdf:Description rdf:about="http://example.org/a"><ex:says>{}</ex:says></rdf:Description>'


@pytest.mark.parametrize("suffix", [".rdf", ".owl"])
def test_billion_laughs_in_rdf_xml_is_refused_before_oxigraph(tmp_path: Path, suffix: str):
    """Oxigraph expands the entities without a limit (it asks for 4.8 GB): libxml2 refuses first."""
    path = tmp_path / f"bomb{suffix}"
    path.write_text(_laughs("rdf:RDF") + _RDF.format("&lol9;"))
    with pytest.raises(SkipFile, match="XML entities expand to far more than the file"):
        _bounded(_rdf_triples, str(path), str(tmp_path / "rdf"))


def test_rdf_xml_with_namespace_entities_still_loads(tmp_path: Path):
    """Ontologies (Protégé's among them) abbreviate namespaces with entities: those pass."""
    path = tmp_path / "onto.owl"
    dtd = '<?xml version="1.0"?><!DOCTYPE rdf:RDF [<!ENTITY ex "http://example.org/onto#">]>'
    things = "".join(f'<rdf:Description rdf:about="&ex;C{i}"><ex:says>class {i}</ex:says></rdf:Description>'
                     for i in range(2000))
    path.write_text(dtd + _RDF.replace(_THING, things))
    assert rdf.load(RdfStore(tmp_path / "rdf"), "onto", path)["triples"] == 2000


def test_deeply_nested_rdf_xml_is_refused_at_once(tmp_path: Path):
    """Oxigraph slows with the square of the depth: 200,000 levels would take hours."""
    path = tmp_path / "deep.rdf"
    nest = "<ex:p><rdf:Description>" * 200_000 + "</rdf:Description></ex:p>" * 200_000
    path.write_text(_RDF.replace("<ex:says>{}</ex:says>", nest))
    t0 = time.perf_counter()
    with pytest.raises(SkipFile, match="XML nested deeper than 256 levels"):
        rdf.load(RdfStore(tmp_path / "rdf"), "deep", path)
    assert time.perf_counter() - t0 < 2
    early_error = tmp_path / "early-error.rdf"  # libxml2 stops at a duplicate attribute: the depth still counts
    early_error.write_text(_RDF.replace('rdf:about="http://example.org/a"', 'rdf:about="a" rdf:about="b"')
                           .replace("<ex:says>{}</ex:says>", nest))
    with pytest.raises(SkipFile, match="XML nested deeper than 256 levels"):
        rdf.load(RdfStore(tmp_path / "rdf"), "deep", early_error)


def test_billion_laughs_in_an_xlsx_is_a_parse_error(tmp_path: Path):
    import openpyxl

    normal = tmp_path / "normal.xlsx"
    wb = openpyxl.Workbook()
    wb.active.append(["name", "note"])
    wb.active.append(["fern", "water"])
    wb.save(normal)
    sheet = _laughs("worksheet") + (
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
        '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>note</t></is></c>'
        '</row><row r="2"><c r="A2" t="inlineStr"><is><t>x</t></is></c><c r="B2" t="inlineStr"><is><t>&lol9;</t>'
        "</is></c></row></sheetData></worksheet>")
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(normal) as zin, zipfile.ZipFile(bomb, "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, sheet if item.filename == "xl/worksheets/sheet1.xml" else zin.read(item))
    with pytest.raises(ParseError, match="not valid XML inside the workbook"):
        _bounded(_load_table, str(bomb), str(tmp_path / "t.duckdb"))
