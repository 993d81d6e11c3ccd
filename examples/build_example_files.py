"""Builds the binary example files that cannot be written by hand: a SQLite running log, an Excel
household budget (merged title cells, a total row of formulas with their saved values, as a
spreadsheet app leaves them) and a scanned letter (a PDF of page pictures only, no text layer, as a
scanner app saves one). Deterministic; run from the repository root:

    .venv/bin/python examples/build_example_files.py
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import zipfile
from pathlib import Path

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


if __name__ == "__main__":
    build_running_log(HERE / "health" / "running-log.sqlite")
    build_budget(HERE / "finance" / "household-budget-2025.xlsx")
    build_scanned_letter(HERE / "documents" / "parking-permit-letter-2025-03.pdf")
    print("built", HERE / "health" / "running-log.sqlite", HERE / "finance" / "household-budget-2025.xlsx",
          HERE / "documents" / "parking-permit-letter-2025-03.pdf")
