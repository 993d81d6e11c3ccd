"""Real files of the newer document kinds, written as the programs that make them would: a
PowerPoint deck (python-pptx), an OpenDocument presentation (its zip written part by part, as
LibreOffice lays it out), an RTF letter and mailboxes (Python's mailbox module)."""

from __future__ import annotations

import datetime as dt
import email.message
import io
import mailbox
import struct
import zipfile
from pathlib import Path

from PIL import Image

ODF = {"office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
       "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
       "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
       "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
       "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
       "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
       "xlink": "http://www.w3.org/1999/xlink"}


def pptx_deck(path: Path, picture_dir: Path) -> Path:
    """Two slides: a title with bullets, a picture with alt text and speaker notes; a table."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.title = "Allotment plans 2026"
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Spring sowing"
    first.placeholders[1].text = "Broad beans in March\nEarly potatoes after Easter"
    picture = picture_dir / "shed.png"
    Image.new("RGB", (160, 120), (120, 90, 60)).save(picture)
    shape = first.shapes.add_picture(str(picture), Inches(6), Inches(5), Inches(1), Inches(1))
    shape._element.nvPicPr.cNvPr.set("descr", "the green tool shed by the gate")
    first.notes_slide.notes_text_frame.text = "Ask Joost for the seed potatoes."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Plot costs"
    table = second.shapes.add_table(4, 2, Inches(1), Inches(2), Inches(4), Inches(1.5)).table
    for r, row in enumerate([("Item", "Cost"), ("Rent", "EUR 38 a year"), ("Water", "EUR 12 a year"),
                             ("Compost", "EUR 5 a year")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    deck.save(str(path))
    return path


def legacy_xls(path: Path, text: str = "secret") -> Path:
    """An Excel 97 workbook (a Compound File) as xlwt writes one, `text` in its first cell."""
    import xlwt

    book = xlwt.Workbook()
    book.add_sheet("Notes").write(0, 0, text)
    book.save(str(path))
    return path


def encrypted_office(path: Path) -> Path:
    """How Office saves a .docx/.pptx/.xlsx with a password: a Compound File whose stream
    EncryptedPackage holds the encrypted zip (here an .xls's Workbook stream renamed so)."""
    data = bytearray(legacy_xls(path).read_bytes())
    entry = data.index("Workbook".encode("utf-16-le"))
    name = "EncryptedPackage\0".encode("utf-16-le")
    data[entry:entry + 64] = name.ljust(64, b"\0")
    data[entry + 64:entry + 66] = len(name).to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


def odp_deck(path: Path) -> Path:
    """Two slides; on the first, the frame lower on the slide comes first in the file."""
    ns = " ".join(f'xmlns:{k}="{v}"' for k, v in ODF.items())
    content = f"""<?xml version="1.0" encoding="UTF-8"?>
<office:document-content {ns} office:version="1.3"><office:body><office:presentation>
<draw:page draw:name="page1">
  <draw:frame presentation:class="outline" svg:x="2cm" svg:y="9cm"><draw:text-box>
    <text:list><text:list-item><text:p>Second point, lower down</text:p></text:list-item></text:list>
  </draw:text-box></draw:frame>
  <draw:frame presentation:class="title" svg:x="2cm" svg:y="1cm"><draw:text-box>
    <text:p>Quarterly review</text:p></draw:text-box></draw:frame>
  <draw:frame presentation:class="outline" svg:x="2cm" svg:y="4cm"><draw:text-box>
    <text:p>Sales rose <text:span>12 percent</text:span> in the third quarter</text:p></draw:text-box></draw:frame>
  <draw:frame svg:x="14cm" svg:y="4cm"><draw:image xlink:href="Pictures/chart.png"/>
    <svg:title>Sales chart</svg:title><svg:desc>bars per quarter</svg:desc></draw:frame>
  <presentation:notes><draw:frame><draw:text-box><text:p>Mention the new shop in Delft.</text:p>
  </draw:text-box></draw:frame></presentation:notes>
</draw:page>
<draw:page draw:name="page2">
  <draw:frame svg:y="3cm"><table:table>
    <table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell>
      <table:table-cell><text:p>Sales</text:p></table:table-cell></table:table-row>
    <table:table-row><table:table-cell><text:p>North</text:p></table:table-cell>
      <table:table-cell><text:p>410</text:p></table:table-cell></table:table-row>
  </table:table></draw:frame>
</draw:page>
</office:presentation></office:body></office:document-content>"""
    chart = io.BytesIO()
    Image.new("RGB", (200, 150), (40, 90, 160)).save(chart, "PNG")
    return odf_zip(path, "application/vnd.oasis.opendocument.presentation", content,
                   parts={"Pictures/chart.png": chart.getvalue()})


def odf_zip(path: Path, mimetype: str, content: str, manifest_extra: str = "",
            parts: dict[str, bytes] | None = None) -> Path:
    """An OpenDocument package: the mimetype first and stored, a manifest, the content and `parts`."""
    manifest = ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
                'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mimetype}"/>'
                f'<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">{manifest_extra}'
                '</manifest:file-entry></manifest:manifest>')
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        zf.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        for name, data in (parts or {}).items():
            zf.writestr(name, data)
    return path


RTF_LETTER = (r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}{\info{\title Letter to the "
              r"caf\'e9}}\f0\fs24 Dear Mr Jansen,\par\par The caf\'e9 on the corner will open at "
              r"{\b 7:30} from 1 May.\par Kind regards,\line Ana\par}")


def message(subject: str, sender: str, date: str, body: str, html: bool = False,
            attachments: tuple[tuple[str, bytes, str], ...] = ()) -> email.message.EmailMessage:
    """One message; `attachments` as (file name, bytes, MIME type)."""
    msg = email.message.EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Date"] = sender, "me@example.org", subject, date
    if html:
        msg.set_content(f"<html><body><h1>{subject}</h1><p>{body}</p></body></html>", subtype="html")
    else:
        msg.set_content(body)
    for name, data, mime in attachments:
        maintype, subtype = mime.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg


def mbox(path: Path, messages: list[email.message.EmailMessage]) -> Path:
    box = mailbox.mbox(path)
    box.lock()
    try:
        for msg in messages:
            box.add(msg)
        box.flush()
    finally:
        box.unlock()
        box.close()
    return path


def household_mail(path: Path) -> Path:
    """Three messages: plain text, HTML, and one with a readable and an unreadable attachment."""
    return mbox(path, [
        message("Boiler service", "Henk Verhoeven <henk@example.nl>", "Tue, 04 Mar 2025 09:12:00 +0100",
                "I can come on Thursday 13 March at 8:00 to service the boiler."),
        message("Choir rehearsal moved", "Marta <marta@example.org>", "Fri, 07 Mar 2025 18:40:00 +0100",
                "Rehearsal is in the Pieterskerk this week.", html=True),
        message("Your quote", "Dakwerk Jansen <info@dakwerk.example>", "Mon, 10 Mar 2025 14:05:00 +0100",
                "Please find the quote attached.",
                attachments=(("quote.txt", b"Roof repair quote\n\nReplacing 14 tiles: EUR 640 incl. VAT.\n",
                              "text/plain"), ("roof.jpg", b"\xff\xd8\xff\xe0 not really", "image/jpeg"))),
    ])


def outlook_msg(path: Path, subject: str, sender: tuple[str, str], to: str, sent: dt.datetime, body: str,
                attachments: tuple[tuple[str, bytes], ...] = (), attached_mail: str = "") -> Path:
    """An Outlook .msg as Outlook saves one (MS-OXMSG): Unicode string streams, the submit time in the
    properties stream, each attachment a storage with its file name and data (or, for
    `attached_mail`, an embedded message storage instead of data)."""
    from tests import compound_file

    def text(prop: int) -> str:
        return f"__substg1.0_{prop:04X}001F"

    def utf16(value: str) -> bytes:
        return value.encode("utf-16-le")

    filetime = int((sent - dt.datetime(1601, 1, 1, tzinfo=dt.UTC)).total_seconds() * 10_000_000)
    properties = bytes(8) + struct.pack("<IIII", 0, len(attachments), 0, len(attachments)) + bytes(8)
    properties += struct.pack("<IIQ", (0x0039 << 16) | 0x0040, 6, filetime)  # PR_CLIENT_SUBMIT_TIME
    tree: compound_file.Tree = {"__properties_version1.0": properties, text(0x0037): utf16(subject),
                                text(0x0C1A): utf16(sender[0]), text(0x5D01): utf16(sender[1]),
                                text(0x0E04): utf16(to), text(0x1000): utf16(body)}
    for number, (name, data) in enumerate(attachments):
        tree[f"__attach_version1.0_#{number:08X}"] = {"__properties_version1.0": bytes(8),
                                                      text(0x3707): utf16(name), "__substg1.0_37010102": data}
    if attached_mail:
        tree[f"__attach_version1.0_#{len(attachments):08X}"] = {
            "__properties_version1.0": bytes(8), text(0x3707): utf16(attached_mail),
            "__substg1.0_3701000D": {"__properties_version1.0": bytes(24), text(0x0037): utf16("Fwd")}}
    return compound_file.write(path, tree)


def word_with_pictures(path: Path, photo: Path, alt: str, icon_dir: Path) -> Path:
    """A letter with a photo (twice: a second copy is the same picture) and a 16-pixel icon."""
    import docx
    from docx.shared import Inches

    document = docx.Document()
    document.add_heading("Our cat", level=1)
    document.add_paragraph("Here is the photo I promised of Chelsea at the window.")
    document.add_picture(str(photo), width=Inches(3))
    document.inline_shapes[0]._inline.docPr.set("descr", alt)
    icon = icon_dir / "icon.png"
    Image.new("RGB", (16, 16), (200, 30, 30)).save(icon)
    document.add_picture(str(icon))
    document.add_paragraph("And again, smaller.")
    document.add_picture(str(photo), width=Inches(1))
    document.save(str(path))
    return path


def epub_with_picture(path: Path, photo: Path, alt: str) -> Path:
    """A one-chapter e-book whose chapter shows a picture (in a folder beside the chapter's)."""
    opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata '
           'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Cats I have known</dc:title></metadata>'
           '<manifest><item id="c1" href="text/c1.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="p1" href="images/cat%20one.jpg" media-type="image/jpeg"/></manifest>'
           '<spine><itemref idref="c1"/></spine></package>')
    chapter = ('<html><body><h1>Chelsea</h1><p>She sat at the window all winter.</p>'
               f'<img src="../images/cat%20one.jpg" alt="{alt}"/></body></html>')
    container = ('<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                 'version="1.0"><rootfiles><rootfile full-path="OEBPS/content.opf" '
                 'media-type="application/oebps-package+xml"/></rootfiles></container>')
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", container)
        zf.writestr("OEBPS/content.opf", opf)
        zf.writestr("OEBPS/text/c1.xhtml", chapter)
        zf.writestr("OEBPS/images/cat one.jpg", photo.read_bytes())
    return path


def word97_doc(path: Path, pieces: list[tuple[str, bool]], flags: int = 0x0200, n_fib: int = 0x00C1,
               headings: dict[int, int] | None = None, named_styles: bool = False) -> Path:
    """A Word 97 .doc ([MS-DOC]): a FIB, and the main document's text in `pieces`, each (text,
    8-bit?) — 8-bit pieces in cp1252, the others UTF-16 — found through a piece table in the table
    stream. Text marks as Word writes them: \\r ends a paragraph, \\x07 a cell (and a row), a field is
    \\x13code\\x14shown\\x15. `flags`: FibBase's (0x0200: the table stream is 1Table; 0x0100: encrypted).
    `headings`: paragraph number (from 0) -> heading level, written as Word does: a style sheet whose
    styles 1-9 are Heading 1-9 (built-in, or user styles named so with `named_styles`) and a PAPX FKP
    page giving each paragraph mark its style index."""
    from tests.compound_file import write

    fib = bytearray(154 + 93 * 8 + 2)  # FibBase, csw + FibRgW97, cslw + FibRgLw97, FibRgFcLcb97, cswNew = 0
    text = "".join(piece for piece, _ in pieces)
    struct.pack_into("<HHH", fib, 0, 0xA5EC, n_fib, 0)
    struct.pack_into("<H", fib, 0x0A, flags)
    struct.pack_into("<H", fib, 32, 14)
    struct.pack_into("<H", fib, 62, 22)
    struct.pack_into("<i", fib, 64 + 3 * 4, len(text))  # ccpText
    struct.pack_into("<H", fib, 152, 93)
    word, cps, descriptors, marks = bytearray(fib), [0], b"", []
    for piece, eight_bit in pieces:
        fc = len(word)
        word += piece.encode("cp1252") if eight_bit else piece.encode("utf-16-le")
        descriptors += struct.pack("<HIH", 0, (fc * 2) | 0x40000000 if eight_bit else fc, 0)
        width = 1 if eight_bit else 2
        marks += [(fc + i * width, width) for i, char in enumerate(piece) if char == "\r"]
        cps.append(cps[-1] + len(piece))
    plc = struct.pack(f"<{len(cps)}I", *cps) + descriptors
    clx = b"\x01" + struct.pack("<h", 2) + b"\x00\x00" + b"\x02" + struct.pack("<I", len(plc)) + plc  # a Prc first
    table = bytearray(clx)
    struct.pack_into("<II", word, 154 + 33 * 8, 0, len(clx))  # fcClx, lcbClx
    if headings:
        styles = _word_style_sheet(named_styles)
        struct.pack_into("<II", word, 154 + 1 * 8, len(table), len(styles))  # fcStshf, lcbStshf
        table += styles
        word += bytes(-len(word) % 512)
        page_number = len(word) // 512
        levels = [(fc, width, headings.get(n)) for n, (fc, width) in enumerate(marks)]
        first, after = levels[0][0], levels[-1][0] + levels[-1][1]
        word += _papx_page(levels)
        bte = struct.pack("<III", first, after, page_number)
        struct.pack_into("<II", word, 154 + 13 * 8, len(table), len(bte))  # fcPlcfBtePapx, lcbPlcfBtePapx
        table += bte
    return write(path, {"WordDocument": bytes(word), "1Table" if flags & 0x0200 else "0Table": bytes(table)})


def _word_style_sheet(named: bool) -> bytes:
    """An STSH: Normal (style 0), then Heading 1-9 as styles 1-9."""
    stshi = struct.pack("<HH", 10, 10) + bytes(14)  # cstd, cbSTDBaseInFile, the rest of the Stshi
    out = struct.pack("<H", len(stshi)) + stshi
    for istd, name in enumerate(["Normal"] + [f"heading {n}" for n in range(1, 10)]):
        sti = 0x0FFE if named and istd else istd  # a user style, known by its name only
        std = struct.pack("<H", sti) + bytes(8) + struct.pack("<H", len(name)) + name.encode("utf-16-le") + b"\0\0"
        out += struct.pack("<H", len(std)) + std
    return out


def _papx_page(levels: list[tuple[int, int, int | None]]) -> bytes:
    """A PAPX FKP page: each paragraph mark (its byte, its width) a run of its own with its style
    index (the heading level: styles 1-9 are the headings), body text between them in style 0."""
    runs, at = [], levels[0][0]
    for fc, width, level in levels:
        if fc > at:
            runs.append((at, fc, 0))
        runs.append((fc, fc + width, level or 0))
        at = fc + width
    page = bytearray(512)
    page[511] = len(runs)
    struct.pack_into(f"<{len(runs) + 1}I", page, 0, *[r[0] for r in runs], runs[-1][1])
    free = 510
    for i, (_, _, istd) in enumerate(runs):
        free -= 4
        page[free:free + 4] = b"\x00\x01" + struct.pack("<H", istd)  # cb 0, cb' 1: the istd alone
        page[4 * (len(runs) + 1) + 13 * i] = free // 2
    return bytes(page)


def _ppt_record(kind: int, body: bytes, version: int = 0, instance: int = 0) -> bytes:
    return struct.pack("<HHI", version | instance << 4, kind, len(body)) + body


def _ppt_text(text: str, text_type: int) -> bytes:
    """A TextHeaderAtom, then the text as a TextBytesAtom (cp1252 will do) or else a TextCharsAtom."""
    try:
        run = _ppt_record(0x0FA8, text.encode("cp1252"))
    except UnicodeEncodeError:
        run = _ppt_record(0x0FA0, text.encode("utf-16-le"))
    return _ppt_record(0x0F9F, struct.pack("<I", text_type)) + run


def ppt_deck(path: Path, slides: list[tuple[str, list[str], str]], in_slide_list: bool = False,
             edited: tuple[int, str] | None = None) -> Path:
    """A PowerPoint 97–2003 .ppt ([MS-PPT]): slides of (title, body lines, notes) in slide containers
    found through the persist directory (or, `in_slide_list`, the text in the slide list as
    PowerPoint 97 kept it). `edited`: (slide index, new title) saved as a second edit, its slide
    written again after the first edit's records, as an incremental save does."""
    from tests.compound_file import write

    stream, offsets = bytearray(), {}

    def place(persist_id: int, record: bytes) -> None:
        offsets[persist_id] = len(stream)
        stream.extend(record)

    def slide_record(title: str, body: list[str], notes_id: int) -> bytes:
        atom = _ppt_record(0x03EF, bytes(16) + struct.pack("<IHH", notes_id, 0, 0), version=2)
        texts = b"" if in_slide_list else _ppt_text(title, 0) + _ppt_text("\r".join(body), 1)
        return _ppt_record(0x03EE, atom + texts, version=0xF)

    listed = b""
    for i, (title, body, notes) in enumerate(slides):
        slide_id, notes_id = 2 + 2 * i, 3 + 2 * i
        listed += _ppt_record(0x03F3, struct.pack("<IIIII", slide_id, 0, 2, 256 + i, 0))
        listed += _ppt_text(title, 0) + _ppt_text("\r".join(body), 1) if in_slide_list else b""
        place(slide_id, slide_record(title, body, notes_id if notes else 0))
        if notes:
            place(notes_id, _ppt_record(0x03F0, _ppt_text(notes, 2) + _ppt_text(str(i + 1), 4), version=0xF))
    place(1, _ppt_record(0x03E8, _ppt_record(0x0FF0, listed, version=0xF), version=0xF))

    def save(ids: dict[int, int], last_edit: int) -> int:
        directory = len(stream)
        entries = b"".join(struct.pack("<I", pid | 1 << 20) + struct.pack("<I", at) for pid, at in sorted(ids.items()))
        stream.extend(_ppt_record(0x1772, entries))
        edit = len(stream)
        stream.extend(_ppt_record(0x0FF5, struct.pack("<IHBBIIIIHH", 0, 0, 0, 3, last_edit, directory, 1,
                                                         2 + 2 * len(slides), 1, 0)))
        return edit

    edit = save(dict(offsets), 0)
    if edited is not None:
        index, title = edited
        slide_id = 2 + 2 * index
        place(slide_id, slide_record(title, slides[index][1], 0))
        edit = save({slide_id: offsets[slide_id]}, edit)
    user = struct.pack("<IIIHHBBH", 0x14, 0xE391C05F, edit, 0, 0, 3, 0, 0)
    return write(path, {"PowerPoint Document": bytes(stream), "Current User": _ppt_record(0x0FF6, user)})
