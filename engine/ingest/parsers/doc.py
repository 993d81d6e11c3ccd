"""Word 97–2003 documents (.doc, [MS-DOC]) with olefile: the main document's text, read through the
piece table (each piece 8-bit cp1252 or UTF-16), a paragraph per paragraph mark and a table row's
cells joined; field codes left out and their shown results kept; the title from the file's summary
information. Styles are not read, so a .doc has no headings; Word 6/95 files and encrypted ones are
refused with the reason."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import ParseError
from engine.ingest.archives import open_compound, summary_title
from engine.ingest.parsed import DocBuilder, ParsedDoc

if TYPE_CHECKING:
    from olefile import OleFileIO

KIND = "doc"
EXTENSIONS = (".doc", ".dot")
UNPACKS = False

WORD_IDENT, FIRST_WORD97_NFIB = 0xA5EC, 0x00C1  # [MS-DOC] FibBase.wIdent; nFib of Word 97 and later
ENCRYPTED, TABLE_1 = 0x0100, 0x0200  # FibBase flags: fEncrypted, fWhichTblStm
RG_FC_LCB, FC_CLX = 154, 33  # where FibRgFcLcb starts in a Word 97 FIB; fcClx's place in it (pairs)
COMPRESSED = 0x40000000  # FcCompressed.fCompressed: the piece is 8-bit text at fc / 2
# the characters that mark structure, not text: paragraph and cell ends, breaks, objects, hyphens
_CELL, _PARAGRAPH = "\x07", "\r"
_MARKS = str.maketrans({"\x0b": "\n", "\x0c": "\n", "\x0e": "\n", "\x1e": "-", "\x1f": "", "\xa0": " ",
                        "\x01": "", "\x02": "", "\x05": "", "\x08": ""})
_FIELD = re.compile("\x13[^\x13\x14\x15]*(?:\x14([^\x13\x14\x15]*))?\x15")  # code, then the shown result


def parse(path: Path) -> ParsedDoc:
    with open_compound(path, "a Word 97–2003 document") as ole:
        text = main_text(ole)
        title = summary_title(ole)
    builder = DocBuilder()
    for paragraph in _paragraphs(text):
        builder.paragraph(paragraph)
    return builder.build(title or path.stem)


def main_text(ole: OleFileIO) -> str:
    """The main document's characters (not headers, footnotes or comments), structure marks kept."""
    if not ole.exists("WordDocument"):
        raise ParseError("a Compound File, but not a Word document (it has no WordDocument stream)")
    word = ole.openstream("WordDocument").read()
    ident, n_fib = struct.unpack_from("<HH", word, 0)
    flags = struct.unpack_from("<H", word, 0x0A)[0]
    if ident != WORD_IDENT:
        raise ParseError("not a Word document (its WordDocument stream has no Word signature)")
    if flags & ENCRYPTED:
        raise ParseError("encrypted: the .doc is password-protected")
    if n_fib < FIRST_WORD97_NFIB:
        raise ParseError("a Word 6 or Word 95 document: only Word 97 and later .doc files are read")
    text_chars = _fib_long(word, 3)  # ccpText: the main document's length in characters
    fc_clx, lcb_clx = struct.unpack_from("<II", word, RG_FC_LCB + FC_CLX * 8)
    table_name = "1Table" if flags & TABLE_1 else "0Table"
    if not ole.exists(table_name):
        raise ParseError(f"corrupt .doc: its {table_name} stream is missing")
    clx = ole.openstream(table_name).read()[fc_clx:fc_clx + lcb_clx]
    return "".join(_pieces(word, clx))[:text_chars]


def _fib_long(word: bytes, index: int) -> int:
    """FibRgLw97's `index`-th 32-bit value (after FibBase, csw and FibRgW, cslw)."""
    csw = struct.unpack_from("<H", word, 32)[0]
    start = 32 + 2 + csw * 2 + 2
    return struct.unpack_from("<i", word, start + index * 4)[0]


def _pieces(word: bytes, clx: bytes) -> list[str]:
    """The text of each piece of the piece table (the Clx's Pcdt), in document order."""
    at = 0
    while at < len(clx) and clx[at] == 0x01:  # Prc: property modifiers, skipped
        at += 3 + struct.unpack_from("<h", clx, at + 1)[0]
    if at >= len(clx) or clx[at] != 0x02:
        raise ParseError("corrupt .doc: no piece table")
    size = struct.unpack_from("<I", clx, at + 1)[0]
    table = clx[at + 5:at + 5 + size]
    count = (len(table) - 4) // 12
    cps = struct.unpack_from(f"<{count + 1}I", table, 0)
    out = []
    for i in range(count):
        fc = struct.unpack_from("<I", table, (count + 1) * 4 + i * 8 + 2)[0]
        chars = cps[i + 1] - cps[i]
        if fc & COMPRESSED:
            start = (fc & ~COMPRESSED) // 2
            out.append(word[start:start + chars].decode("cp1252", "replace"))
        else:
            out.append(word[fc:fc + 2 * chars].decode("utf-16-le", "replace"))
    return out


def _paragraphs(text: str) -> list[str]:
    """Paragraphs at the paragraph marks; a table row's cells joined with " | " (rows told apart by the
    row mark after their last cell: the cell and row layout itself is not read); fields as shown."""
    while (shown := _FIELD.sub(lambda m: m.group(1) or "", text)) != text:  # innermost fields first
        text = shown
    out = []
    for raw in text.split(_PARAGRAPH):
        for row in raw.split(_CELL * 2):  # a row's last cell mark, then its row mark (so an empty cell ends a row too)
            cells = [" ".join(cell.translate(_MARKS).split()) for cell in row.split(_CELL)]
            if line := " | ".join(cell for cell in cells if cell):
                out.append(line)
    return out

