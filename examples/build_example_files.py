"""Builds the binary example files that cannot be written by hand: a SQLite running log, an Excel
household budget (merged title cells, a total row of formulas with their saved values, as a
spreadsheet app leaves them), a scanned letter (a PDF of page pictures only, no text layer, as a
scanner app saves one), a PowerPoint deck, an OpenDocument spreadsheet (as LibreOffice lays it
out) and a mailbox. Deterministic; run from the repository root:

    .venv/bin/python examples/build_example_files.py
"""

from __future__ import annotations

import datetime as dt
import email.message
import email.utils
import mailbox
import re
import sqlite3
import time
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent

SHOES = [(1, "Asics", "Gel-Nimbus 25", "2024-09-14"), (2, "Hoka", "Clifton 9", "2025-03-02"),
         (3, "Saucony", "Peregrine 14", "2025-05-20")]
ROUTES = ["Maximapark loop", "Kromme Rijn", "Amelisweerd trails", "Singel circuit", "Rijnsweerd track"]


def runs() -> list[tuple]:
    """About three runs a week from January to June 2025, distances varying by route and season."""
    out, day, n = [], dt.date(2025, 1, 3), 0
    while day < dt.date(2025, 7, 1):
        n += 1
        route = ROUTES[(n * 7) % len(ROUTES)]
        km = round(5.0 + ((n * 37) % 23) / 2.5, 1)
        minutes = round(km * (5.6 - ((n * 13) % 9) / 20), 1)
        shoe = 1 if day < dt.date(2025, 3, 2) else (3 if "trails" in route and day >= dt.date(2025, 5, 20) else 2)
        out.append((n, day.isoformat(), km, minutes, route, shoe))
        day += dt.timedelta(days=2 if n % 3 else 3)
    return out


def build_running_log(path: Path) -> None:
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE shoes (shoe_id INTEGER PRIMARY KEY, brand TEXT NOT NULL, model TEXT NOT NULL, bought DATE);
        CREATE TABLE runs (run_id INTEGER PRIMARY KEY, run_date DATE NOT NULL, distance_km REAL NOT NULL,
                           minutes REAL NOT NULL, route TEXT, shoe_id INTEGER REFERENCES shoes(shoe_id));
    """)
    con.executemany("INSERT INTO shoes VALUES (?, ?, ?, ?)", SHOES)
    con.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?)", runs())
    con.commit()
    con.execute("VACUUM")
    con.close()


BUDGET = [("Rent", 1150.00, 1150.00), ("Groceries", 420.00, 447.35), ("Energy and water", 165.00, 151.20),
          ("Insurance", 96.50, 96.50), ("Transport", 80.00, 62.40), ("Eating out", 120.00, 171.85)]
SUBSCRIPTIONS = [("Spotify Duo", 16.99, "2021-06"), ("Netflix Standard", 13.99, "2022-01"),
                 ("NRC digital", 24.00, "2023-09"), ("Strava", 7.99, "2025-02"), ("iCloud 200 GB", 2.99, "2020-11")]


def build_budget(path: Path) -> None:
    """Formulas are saved with their values patched in, as Excel or LibreOffice would save them."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Budget"
    ws["A1"] = "Household budget 2025 (per month)"
    ws.merge_cells("A1:C1")
    ws.append(["Category", "Planned (EUR)", "Actual (EUR)"])
    for row in BUDGET:
        ws.append(list(row))
    last = 2 + len(BUDGET)
    ws.append(["Total", f"=SUM(B3:B{last})", f"=SUM(C3:C{last})"])
    subs = wb.create_sheet("Subscriptions")
    subs.append(["Service", "Monthly (EUR)", "Since"])
    for row in SUBSCRIPTIONS:
        subs.append(list(row))
    wb.save(path)
    totals = {f"B{last + 1}": round(sum(r[1] for r in BUDGET), 2), f"C{last + 1}": round(sum(r[2] for r in BUDGET), 2)}
    _save_formula_values(path, "xl/worksheets/sheet1.xml", totals)


LETTER = [
    ("Gemeente Utrecht", 44, True), ("Parkeren en vergunningen", 30, False), ("", 30, False),
    ("Maya Lindqvist", 30, False), ("Oudegracht 212-B", 30, False), ("3511 NS Utrecht", 30, False), ("", 30, False),
    ("Utrecht, 12 March 2025", 30, False), ("Subject: renewal of your residents' parking permit", 30, True),
    ("", 30, False), ("Dear Ms Lindqvist,", 30, False), ("", 30, False),
    ("Your residents' parking permit for zone C2 has been renewed. It is valid", 30, False),
    ("for the car with licence plate 84-KTN-3 until 31 March 2026.", 30, False), ("", 30, False),
    ("The yearly fee is EUR 118.20. It will be collected from your account", 30, False),
    ("ending in 4417 on 1 April 2025. Your permit number is UP-2025-08817.", 30, False), ("", 30, False),
    ("If you sell the car or move house, tell us within four weeks.", 30, False), ("", 30, False),
    ("Kind regards,", 30, False), ("", 30, False), ("R. de Boer", 30, False), ("Team Parkeervergunningen", 30, False),
]


def build_scanned_letter(path: Path) -> None:
    """A one-page letter as a scanner saves it: an A4 picture at 150 dpi, a little skewed and grey,
    in a PDF with no text layer (only OCR can read it)."""
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    page = Image.new("L", (1240, 1754), 246)
    draw = ImageDraw.Draw(page)
    y = 150
    for text, size, bold in LETTER:
        font = ImageFont.load_default(size)  # Aileron (CC0), bundled with Pillow: the same glyphs everywhere
        x = 150
        for word in text.split():  # a typewriter's wide word spaces: Aileron's own are narrow for OCR
            draw.text((x, y), word, font=font, fill=30, stroke_width=1 if bold else 0, stroke_fill=30)
            x += round(draw.textlength(word, font=font) + 0.42 * size)
        y += round(size * 1.55)
    scanned = page.rotate(0.6, resample=Image.Resampling.BICUBIC, fillcolor=246).filter(ImageFilter.GaussianBlur(0.6))
    scanned.convert("RGB").save(path, "PDF", resolution=150)


def _save_formula_values(path: Path, member: str, values: dict[str, float]) -> None:
    with zipfile.ZipFile(path) as zin:
        items = {name: zin.read(name) for name in zin.namelist()}
    xml = items[member].decode()
    for ref, value in values.items():
        xml = re.sub(rf'(<c r="{ref}"[^>]*>)(<f>[^<]*</f>)(<v\s*/>|<v></v>)?', rf"\1\2<v>{value}</v>", xml)
    items[member] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data in items.items():
            zout.writestr(name, data)


CONCERT = [
    ("Spring concert 2025", ["Saturday 17 May 2025, 20:00", "Jacobikerk, Utrecht", "Utrechts Vocaal Ensemble"],
     "Doors open at 19:30; the choir gathers in the side chapel at 18:45."),
    ("Programme", ["Fauré: Cantique de Jean Racine", "Pärt: Magnificat", "Rheinberger: Abendlied",
                   "Interval", "Duruflé: Four motets"], ""),
    ("Tickets", [], "Tickets are sold at the door and through the choir's website."),
    ("Rehearsals", ["Thursdays 19:45-22:00 in the Pieterskerk hall", "Dress rehearsal Friday 16 May, 19:00"], ""),
]
TICKETS = [("Ticket", "Price"), ("Adults", "EUR 18.00"), ("Students", "EUR 12.50"), ("Children under 12", "free")]


def build_concert_deck(path: Path) -> None:
    """A choir's concert deck: a title per slide, bullets, a ticket table and speaker notes."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = "Spring concert 2025"
    deck.core_properties.created = deck.core_properties.modified = dt.datetime(2025, 3, 20, 21, 0)
    for title, bullets, notes in CONCERT:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        body = slide.placeholders[1]
        if bullets:
            body.text = "\n".join(bullets)
        else:
            body._element.getparent().remove(body._element)
            table = slide.shapes.add_table(len(TICKETS), 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
            for r, row in enumerate(TICKETS):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))


KITCHEN = [("Cabinets and fitting", "Keukenhuis Zuilen", 6850.00, 6850.00),
           ("Worktop (quartz composite)", "Steenhouwerij Vos", 2340.00, 1170.00),
           ("Induction hob and oven", "Coolblue", 1489.00, 1489.00),
           ("Electrical work", "Elektro Dekker", 760.00, 0.00),
           ("Tiling", "Tegelwerk Amrani", 980.00, 0.00)]


def build_kitchen_budget(path: Path) -> None:
    """An OpenDocument spreadsheet as LibreOffice saves one: a merged title row, typed cells, the
    blank rows and columns after the table written as repeats."""
    rows = [_ods_row([("string", "Kitchen renovation 2025 (quotes and payments)")], spanned=4),
            _ods_row([("string", h) for h in ("Item", "Supplier", "Quote (EUR)", "Paid (EUR)")])]
    rows += [_ods_row([("string", item), ("string", who), ("float", quote), ("float", paid)])
             for item, who, quote, paid in KITCHEN]
    rows.append('<table:table-row table:number-rows-repeated="1048570"><table:table-cell '
                'table:number-columns-repeated="1024"/></table:table-row>')
    ns = {"office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
          "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
          "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0"}
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
               + " ".join(f'xmlns:{k}="{v}"' for k, v in ns.items())
               + ' office:version="1.3"><office:body><office:spreadsheet><table:table table:name="Kitchen">'
               + '<table:table-column table:number-columns-repeated="4"/>' + "".join(rows)
               + "</table:table></office:spreadsheet></office:body></office:document-content>")
    _odf_package(path, "application/vnd.oasis.opendocument.spreadsheet", content)


def _ods_row(cells: list[tuple[str, object]], spanned: int = 0) -> str:
    out = []
    for kind, value in cells:
        span = f' table:number-columns-spanned="{spanned}"' if spanned else ""
        typed = f' office:value-type="float" office:value="{value}"' if kind == "float" else ' office:value-type="string"'
        shown = f"{value:.2f}" if kind == "float" else escape(str(value))
        out.append(f"<table:table-cell{typed}{span}><text:p>{shown}</text:p></table:table-cell>")
        if spanned:
            out.append(f'<table:covered-table-cell table:number-columns-repeated="{spanned - 1}"/>')
    return "<table:table-row>" + "".join(out) + "</table:table-row>"


def _odf_package(path: Path, mimetype: str, content: str) -> None:
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
                '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
                "</manifest:manifest>")
    stamp = (2025, 3, 1, 12, 0, 0)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data, packing in (("mimetype", mimetype, zipfile.ZIP_STORED),
                                    ("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED),
                                    ("content.xml", content, zipfile.ZIP_DEFLATED)):
            zf.writestr(zipfile.ZipInfo(name, stamp), data, compress_type=packing)


MAIL = [
    ("Tandartspraktijk Oudegracht <afspraken@tandarts-oudegracht.example>", "Your check-up appointment",
     "Tue, 18 Mar 2025 09:05:00 +0100",
     "Dear Ms Lindqvist,\n\nThis confirms your check-up with Dr. Bakker on Tuesday 22 April 2025 at 14:30.\n"
     "Please arrive ten minutes early. To change the appointment, call 030 231 4470.\n\n"
     "Tandartspraktijk Oudegracht", ()),
    ("Jonas Eriksson <jonas.eriksson@example.se>", "Midsummer at ours",
     "Sat, 29 Mar 2025 20:41:00 +0100",
     "Hej Maya,\n\nWe would love to have you over for midsummer. Details are in the invitation.\n\nJonas",
     (("invitation.txt", "Midsummer lunch at Jonas and Elin's\n\nFriday 20 June 2025 from 13:00, "
       "Sommarvägen 4, Uppsala. Bring a dish for the table; herring and schnapps are on us.\n"),)),
    ("Utrechts Vocaal Ensemble <bestuur@uve.example>", "Concert volunteers",
     "Mon, 07 Apr 2025 19:12:00 +0200",
     "Dear singers,\n\nWe still need two people for the coat check at the spring concert. "
     "Reply to this mail if you can help.\n\nThe board", ()),
    ("Femke Jansen <penningmeester@uve.example>", "Choir fees so far",
     "Tue, 15 Apr 2025 21:03:00 +0200",
     "Hi Maya,\n\nAs asked at the rehearsal: the fees paid so far this year are in the attached sheet.\n\n"
     "Femke (treasurer)",
     (("choir-fees-2025.csv", "member,paid_on,amount_eur\nMaya Lindqvist,2025-01-14,120.00\n"
       "Joost de Vries,2025-01-20,120.00\nFemke Jansen,2025-02-03,60.00\nPieter Bos,2025-02-17,120.00\n"
       "Anna Smit,2025-03-02,60.00\n"),)),
]


def build_mailbox(path: Path) -> None:
    """A small mailbox as a mail program exports it: plain-text messages, one with a text attachment
    and one with a spreadsheet (CSV) attached."""
    path.unlink(missing_ok=True)
    box = mailbox.mbox(path)
    for number, (sender, subject, date, body, attachments) in enumerate(MAIL, start=1):
        message = email.message.EmailMessage()
        message["From"], message["To"], message["Subject"], message["Date"] = (
            sender, "Maya Lindqvist <maya.lindqvist@example.nl>", subject, date)
        message["Message-ID"] = f"<example-{number}@trove.example>"
        message.set_content(body)
        for name, text in attachments:
            message.add_attachment(text, filename=name)
            message.set_boundary(f"example-boundary-{number}")
        envelope = mailbox.mboxMessage(message)
        sent = time.gmtime(email.utils.mktime_tz(email.utils.parsedate_tz(date)))  # type: ignore[arg-type]
        envelope.set_from(email.utils.parseaddr(sender)[1], sent)  # the "From " line
        box.add(envelope)
    box.flush()
    box.close()


if __name__ == "__main__":
    built = {HERE / "health" / "running-log.sqlite": build_running_log,
             HERE / "finance" / "household-budget-2025.xlsx": build_budget,
             HERE / "documents" / "parking-permit-letter-2025-03.pdf": build_scanned_letter,
             HERE / "documents" / "choir-spring-concert-2025.pptx": build_concert_deck,
             HERE / "finance" / "kitchen-renovation-2025.ods": build_kitchen_budget,
             HERE / "mail" / "inbox-2025.mbox": build_mailbox}
    for target, build in built.items():
        target.parent.mkdir(exist_ok=True)
        build(target)
    print("built", *built)
