"""Each document kind read into blocks whose offsets point into the extracted text."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest.chunking import paragraph_chunks
from engine.ingest.parsers import kind_of, parser_for
from engine.ingest.parsers.pdf import running_lines, stitched, unglued, without_running
from tests.conftest import EXAMPLES, shared_path


def parse(path: Path):  # noqa: ANN201
    return parser_for(path)(path)


def _offsets_hold(doc) -> None:  # noqa: ANN001
    for block in doc.blocks:
        assert doc.text[block.start:block.end] == block.text


def test_every_example_file_parses_with_consistent_offsets():
    files = [p for p in EXAMPLES.rglob("*") if p.is_file() and kind_of(p)]
    assert {kind_of(p) for p in files} >= {"markdown", "text", "rst", "pdf", "docx", "html"}
    for path in files:
        doc = parse(path)
        assert doc.blocks or doc.meta.get("image_pages"), path  # a scan's text comes from OCR (see test_scans)
        _offsets_hold(doc)


def test_markdown_headings_front_matter_and_inline_markup(tmp_path: Path):
    p = tmp_path / "n.md"
    p.write_text("---\ntitle: Trip notes\ntags: [a, b]\n---\n# Lisbon\n\nWe stay at **Casa** "
                 "([site](http://x)).\n\n## Food\n- pastel de nata\n  with cinnamon\n- bifana\n\n```\ncode here\n```\n")
    doc = parse(p)
    assert doc.title == "Trip notes"
    texts = [(b.heading, b.text) for b in doc.blocks]
    assert (("Lisbon",), "We stay at Casa (site).") in texts
    assert (("Lisbon", "Food"), "pastel de nata with cinnamon") in texts
    assert (("Lisbon", "Food"), "code here") in texts
    _offsets_hold(doc)


def test_html_drops_scripts_navigation_and_cookie_banners(tmp_path: Path):
    p = tmp_path / "a.html"
    p.write_text("<html><head><title>T</title><script>var x='SECRET';</script></head><body>"
                 "<nav>Home | About</nav><div class='cookie-banner'>We use cookies</div>"
                 "<h1>Starter</h1><p>Feed it 1:5:5.</p><footer>(c) 2024</footer></body></html>")
    doc = parse(p)
    assert doc.title == "T"
    assert [b.text for b in doc.blocks] == ["Feed it 1:5:5."]
    assert "SECRET" not in doc.text and "cookies" not in doc.text and "About" not in doc.text


def test_html_table_rows_are_paragraphs_and_a_data_table_is_a_table(tmp_path: Path):
    import csv
    import io

    p = tmp_path / "trips.html"
    p.write_text("<html><body><h1>Trips</h1><table><tr><td><table><tr><td>logo</td><td>menu</td></tr></table></td>"
                 "<td>Layout cell</td></tr></table>"
                 "<table><caption>Trip costs</caption>"
                 "<thead><tr><th rowspan='2'>Trip</th><th colspan='2'>Cost</th></tr>"
                 "<tr><th>Planned</th><th>Actual</th></tr></thead><tbody>"
                 "<tr><td>Lisbon</td><td>800</td><td>912.50</td></tr><tr><td>Ghent</td><td>300</td><td>280</td></tr>"
                 "<tr><td>Oslo</td><td>1,200</td><td>1,350</td></tr></tbody>"
                 "<tfoot><tr><td>Total</td><td>2,300</td><td>2,542.50</td></tr></tfoot></table></body></html>")
    doc = parse(p)
    texts = [b.text for b in doc.blocks]
    assert "Lisbon | 800 | 912.50" in texts and "Trip costs" in texts  # a row reads as one paragraph
    (table,) = doc.attached_tables  # the layout table around a table is none
    header, *rows = list(csv.reader(io.StringIO(table.data.decode())))
    assert table.name == "table 1.csv" and header == ["Trip", "Cost Planned", "Cost Actual"]
    assert rows == [["Lisbon", "800", "912.50"], ["Ghent", "300", "280"], ["Oslo", "1,200", "1,350"]]
    _offsets_hold(doc)


def test_pdf_blocks_carry_their_page():
    doc = parse(EXAMPLES / "documents" / "bike-insurance-policy.pdf")
    pages = {b.page for b in doc.blocks}
    assert pages == {1, 2, 3}
    excess = [b for b in doc.blocks if "EUR 65" in b.text]
    assert excess and excess[0].page == 2


def test_a_number_the_text_layer_runs_into_the_next_cell_is_spaced():
    """pypdf gives a precinct bulletin's "NEEL KASHKARI 247REP" and a senate report's
    "37,499.96DISTRICT DIRECTOR": the votes and the amount are words of their own; identifiers stay."""
    pdfs = ("eval", "documents", "pdfs", "pdfplumber")
    bulletin = " ".join(b.text for b in parse(shared_path(*pdfs, "la-precinct-bulletin-2014-p1.pdf")).blocks)
    assert "NEEL KASHKARI 247 REP" in bulletin and "PRECINCT 0050003A ACTON" in bulletin
    senate = " ".join(c.text for c in paragraph_chunks(parse(shared_path(*pdfs, "senate-expenditures.pdf"))))
    assert "37,499.96 DISTRICT DIRECTOR" in senate and "96DISTRICT" not in senate
    assert unglued("H2SO4, the 2nd, 0050003A and 10AM") == "H2SO4, the 2nd, 0050003A and 10 AM"


def test_short_lines_no_paragraph_follows_are_a_paragraph_not_lost_headings():
    """A reportlab overlay's only lines, "Name: Foo Bar / Fingerprint: asdfSa2123 / Signed: …", were all
    taken for headings that head nothing: the file was skipped as "no text" (rest set). A precinct
    bulletin's last line of votes ("TOM LACKEY 249 REP") was lost the same way; a page number is not kept."""
    samples = ("eval", "documents", "pdfs", "py-pdf-sample-files")
    overlay = parse(shared_path(*samples, "013-reportlab-overlay", "reportlab-overlay.pdf"))
    assert [(b.text, b.page) for b in overlay.blocks] == [
        ("Name: Foo Bar\nFingerprint: asdfSa2123\nSigned: 12-34-2007T12:34:56", 1)]
    _offsets_hold(overlay)
    bulletin = parse(shared_path("eval", "documents", "pdfs", "pdfplumber", "la-precinct-bulletin-2014-p1.pdf"))
    assert bulletin.blocks[-1].text == "TOM LACKEY 249 REP"
    pages = parse(shared_path(*samples, "004-pdflatex-4-pages", "pdflatex-4-pages.pdf"))
    assert not [b for b in pages.blocks if b.text.strip().isdigit()]


def test_running_heads_and_slug_lines_are_not_glued_into_paragraphs():
    """The Federal Register's "47699 Federal Register / Vol. 85 …" head and the printer's "VerDate …
    Frm 00001 …" slug (numbers change each page) are taken out; a line printed the same on every
    page is kept once."""
    doc = parse(shared_path("eval", "documents", "pdfs", "pdfplumber", "federal-register-2020-17221.pdf"))
    texts = [b.text for b in doc.blocks]
    assert not [t for t in texts if "VerDate" in t or "Federal Register / Vol." in t]
    [lion_air] = [b for b in doc.blocks if b.text.endswith(
        "accident after takeoff from Soekarno-Hatta International Airport in Jakarta, Indonesia, resulting in 189 "
        "fatalities.")]  # across the page break, past footnotes
    assert (lion_air.page, lion_air.last_page) == (1, 2)
    assert any(c.page == 1 and c.last_page == 2 and "189 fatalities" in c.text for c in paragraph_chunks(doc))
    _offsets_hold(doc)
    policy = parse(EXAMPLES / "documents" / "bike-insurance-policy.pdf")
    assert not [b for b in policy.blocks if "Page 2 of 3" in b.text]
    assert sum("Velora Verzekeringen N.V." in b.text for b in policy.blocks) == 1


def test_a_sentence_running_on_to_the_next_page_is_one_paragraph_on_the_page_it_starts():
    """Past the footnotes at the foot of one page and the top of the next, a page number and a running
    head; never when the sentence ended, or the next page starts a new sentence. The paragraph says
    the page it ends on."""
    pages = [[("paragraph", "An airplane crashed after takeoff from Soekarno-", 0),
              ("paragraph", "1 Preliminary report.", 0)],
             [("heading", "2", 0), ("paragraph", "6 Flight data recorder data.", 0), ("heading", "Background", 0),
              ("paragraph", "Hatta International Airport, resulting in 189 fatalities.", 0),
              ("paragraph", "Next one.", 0)]]
    first, second = stitched(pages)
    assert first[0] == ("paragraph", "An airplane crashed after takeoff from Soekarno-Hatta International Airport, "
                                     "resulting in 189 fatalities.", 2)
    assert [text for _, text, _ in second] == ["2", "6 Flight data recorder data.", "Background", "Next one."]
    lower = [[("paragraph", "This text should contain all letters and it should be written", 0)],
             [("heading", "7", 0)], [("paragraph", "in the original lan- guage of the text.", 0)]]
    assert stitched(lower)[0] == [("paragraph", "This text should contain all letters and it should be written in "
                                                "the original language of the text.", 3)]
    ended = [[("paragraph", "The first sentence ends.", 0)], [("paragraph", "then a lower-case line.", 0)]]
    capital = [[("paragraph", "A list of things such as", 0)], [("paragraph", "Apples are on the next page.", 0)]]
    assert stitched(ended) == ended and stitched(capital) == capital


def test_edge_lines_of_most_pages_are_told_apart_by_their_spelling():
    topics = ["sales rose in the north", "costs fell after the merger", "staff grew to 40", "the plant reopened"]
    pages = [f"Annual report {n}\n" + "\n".join(f"{topic}, said part {k}." for k in "abcdefg")
             + "\nACME Corp confidential" for n, topic in enumerate(topics, start=1)]
    varying, same = running_lines(pages)
    assert varying == {"Annual report #"} and same == {"ACME Corp confidential"}
    kept = without_running(pages)
    assert "Annual report" not in "".join(kept) and "".join(kept).count("ACME Corp confidential") == 1
    assert "the plant reopened, said part a." in kept[3]
    assert running_lines(pages[:2]) == (set(), set())
    statements = [f"Statement page {n}\n" + "\n".join(f"{topic}, line {k}." for k in "abcdefg")
                  + f"\nBalance carried forward {n * 1000 + 234.56:,.2f}" for n, topic in enumerate(topics, start=1)]
    assert all("Balance carried forward" in page for page in without_running(statements))  # an amount: content


def test_docx_heading_styles_make_the_heading_path():
    doc = parse(EXAMPLES / "documents" / "letter-to-landlord-2025-02.docx")
    assert any(len(b.heading) >= 2 for b in doc.blocks)
    _offsets_hold(doc)


def test_eml_and_epub_and_odt(tmp_path: Path):
    eml = tmp_path / "m.eml"
    eml.write_text("From: a@b.c\nTo: d@e.f\nSubject: Keys\nDate: Mon, 3 Feb 2025 10:00:00 +0100\n"
                   "Content-Type: text/plain; charset=utf-8\n\nThe spare key is with Femke.\n\nBest, A\n")
    doc = parse(eml)
    assert doc.title == "Keys" and "spare key is with Femke" in doc.text

    epub = tmp_path / "b.epub"
    with zipfile.ZipFile(epub, "w") as zf:
        zf.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                    '<rootfiles><rootfile full-path="OEBPS/c.opf"/></rootfiles></container>')
        zf.writestr("OEBPS/c.opf", '<package xmlns="http://www.idpf.org/2007/opf" '
                    'xmlns:dc="http://purl.org/dc/elements/1.1/"><metadata><dc:title>Book</dc:title></metadata>'
                    '<manifest><item id="c1" href="ch1.xhtml"/></manifest><spine><itemref idref="c1"/></spine>'
                    '</package>')
        zf.writestr("OEBPS/ch1.xhtml", "<html><body><h1>One</h1><p>It was a dark night.</p></body></html>")
    doc = parse(epub)
    assert doc.title == "Book" and doc.blocks[0].heading == ("One",)

    odt = tmp_path / "d.odt"
    ns = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    with zipfile.ZipFile(odt, "w") as zf:
        zf.writestr("content.xml", f'<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:'
                    f'xmlns:office:1.0" xmlns:text="{ns}"><office:body><office:text>'
                    f'<text:h text:outline-level="1">Plan</text:h><text:p>Buy paint.</text:p>'
                    f'</office:text></office:body></office:document-content>')
    doc = parse(odt)
    assert [(b.heading, b.text) for b in doc.blocks] == [(("Plan",), "Buy paint.")]


def test_an_odt_table_with_merged_and_repeated_cells_is_a_table(tmp_path: Path):
    import csv
    import io

    from tests.office_files import odf_zip

    def row(*cells: str, repeated: int = 1) -> str:
        out = "".join(cell if cell.startswith("<") else f"<table:table-cell><text:p>{cell}</text:p></table:table-cell>"
                      for cell in cells)
        return f'<table:table-row table:number-rows-repeated="{repeated}">{out}</table:table-row>'

    spanned = '<table:table-cell table:number-columns-spanned="2"><text:p>Cost</text:p></table:table-cell>'
    covered = "<table:covered-table-cell/>"
    rows = (row("Trip", spanned, covered) + row("", "Planned", "Actual") + row("Lisbon", "800", "912.50")
            + row("Ghent", "300", "280") + row("Oslo", "1,200", "1,350") + row("", "", "", repeated=1000))
    content = ('<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
               'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
               'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body><office:text>'
               f'<text:p>Our trips.</text:p><table:table table:name="Trips">{rows}</table:table>'
               '</office:text></office:body></office:document-content>')
    doc = parse(odf_zip(tmp_path / "trips.odt", "application/vnd.oasis.opendocument.text", content))
    (table,) = doc.attached_tables
    header, *body = list(csv.reader(io.StringIO(table.data.decode())))
    assert header == ["Trip", "Cost Planned", "Cost Actual"] and [r[0] for r in body] == ["Lisbon", "Ghent", "Oslo"]
    assert "Lisbon" in doc.text  # its cells are read as text too


def test_legacy_encoding_is_detected_and_binary_is_refused(tmp_path: Path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Der Schlüssel liegt bei Frau Müller, gegenüber der Bäckerei. Grüße!".encode("cp1252"))
    assert "Schlüssel" in parse(latin).text
    binary = tmp_path / "photo.txt"
    binary.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ParseError, match="binary"):
        parse(binary)
    empty = tmp_path / "empty.md"
    empty.write_text("   \n\n")
    with pytest.raises(SkipFile, match="empty"):
        parse(empty)


def test_encrypted_and_corrupt_pdfs_give_reasons(tmp_path: Path):
    encrypted = shared_path("eval", "documents", "pdfs", "py-pdf-sample-files", "005-libreoffice-writer-password",
                            "libreoffice-writer-password.pdf")
    with pytest.raises(ParseError, match="encrypted PDF"):
        parse(encrypted)
    broken = shared_path("eval", "documents", "pdfs", "py-pdf-sample-files", "017-unreadable-meta-data",
                         "unreadablemetadata.pdf")
    with pytest.raises(ParseError, match="corrupt PDF"):
        parse(broken)
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes((EXAMPLES / "documents" / "bike-insurance-policy.pdf").read_bytes()[:700])
    with pytest.raises((ParseError, SkipFile)):
        parse(truncated)
    not_a_pdf = tmp_path / "fake.pdf"
    not_a_pdf.write_text("just text pretending")
    with pytest.raises(ParseError, match="corrupt PDF"):
        parse(not_a_pdf)


def test_corrupt_docx_is_a_parse_error(tmp_path: Path):
    fake = tmp_path / "fake.docx"
    fake.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ParseError, match="docx"):
        parse(fake)


def test_markdown_pipe_table_rows_read_on_their_own(tmp_path: Path):
    p = tmp_path / "t.md"
    p.write_text("# Actions\n\n| # | Action | Owner |\n|---|--------|-------|\n| 1 | Weight the survey | Priya |\n"
                 "| 2 | Clean the data | **Maya** |\n\nAfter the table.\n")
    doc = parse(p)
    assert [b.text for b in doc.blocks] == ["#: 1; Action: Weight the survey; Owner: Priya.",
                                            "#: 2; Action: Clean the data; Owner: Maya.", "After the table."]
