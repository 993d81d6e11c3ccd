"""Word 97–2003 documents (.doc, [MS-DOC]) with olefile: the main document's text, read through the
piece table (each piece 8-bit cp1252 or UTF-16), a paragraph per paragraph mark and a table row's
cells joined; field codes left out and their shown results kept; the title from the file's summary
information. A paragraph in a heading style (the built-in Heading 1–9, or a style named "Heading N")
is a heading, read from the paragraphs' style indexes (the PAPX FKPs) and the style sheet. Word 6/95
files and encrypted ones are refused with the reason."""

from __future__ import annotations

import bisect
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
FC_STSHF, FC_PLCF_BTE_PAPX = 1, 13  # the style sheet's and the paragraph properties' places in it
PAGE = 512  # an FKP page of the WordDocument stream
HEADING_STI = range(1, 10)  # the built-in styles Heading 1 to Heading 9
_HEADING_NAME = re.compile(r"^heading ([1-9])$", re.IGNORECASE)
COMPRESSED = 0x40000000  # FcCompressed.fCompressed: the piece is 8-bit text at fc / 2
# the characters that mark structure, not text: paragraph and cell ends, breaks, objects, hyphens
_CELL, _PARAGRAPH = "\x07", "\r"
_MARKS = str.maketrans({"\x0b": "\n", "\x0c": "\n", "\x0e": "\n", "\x1e": "-", "\x1f": "", "\xa0": " ",
                        "\x01": "", "\x02": "", "\x05": "", "\x08": ""})
_BEGIN, _SEPARATE, _END = "\x13", "\x14", "\x15"  # a field: begin, code, separator, shown result, end


@dataclass(frozen=True)
class Piece:
    """One run of the piece table: `chars` characters from character position `cp`, stored from
    byte `fc` of the WordDocument stream, 8-bit (`compressed`) or UTF-16."""

    cp: int
    chars: int
    fc: int
    compressed: bool

    def fc_of(self, cp: int) -> int:
        return self.fc + (cp - self.cp) * (1 if self.compressed else 2)


@dataclass(frozen=True)
class Paragraph:
    text: str
    level: int | None  # its heading level, None for body text

def parse(path: Path) -> ParsedDoc:
    with open_compound(path, "a Word 97–2003 document") as ole:
        paragraphs = read_paragraphs(ole)
        title = summary_title(ole)
    builder = DocBuilder()
    for paragraph in paragraphs:
        if paragraph.level is not None:
            builder.heading(paragraph.level, paragraph.text)
        else:
            for line in _rows(paragraph.text):
                builder.paragraph(line)
    return builder.build(title or path.stem)


def read_paragraphs(ole: OleFileIO) -> list[Paragraph]:
    """The main document's paragraphs (not headers, footnotes or comments), fields as shown, each
    with its heading level."""
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
    table_name = "1Table" if flags & TABLE_1 else "0Table"
    if not ole.exists(table_name):
        raise ParseError(f"corrupt .doc: its {table_name} stream is missing")
    table = ole.openstream(table_name).read()
    pieces = _pieces(_part(word, table, FC_CLX))
    text = "".join(_piece_text(word, piece) for piece in pieces)[:text_chars]
    levels = _heading_levels(word, table)
    return [Paragraph(shown, levels(_fc_at(pieces, cp))) for shown, cp in _shown_paragraphs(text)]


def _part(word: bytes, table: bytes, pair: int) -> bytes:
    """The bytes of the table stream that FibRgFcLcb97's `pair`-th (fc, lcb) points at."""
    fc, lcb = struct.unpack_from("<II", word, RG_FC_LCB + pair * 8)
    return table[fc:fc + lcb]


def _fib_long(word: bytes, index: int) -> int:
    """FibRgLw97's `index`-th 32-bit value (after FibBase, csw and FibRgW, cslw)."""
    csw = struct.unpack_from("<H", word, 32)[0]
    start = 32 + 2 + csw * 2 + 2
    return struct.unpack_from("<i", word, start + index * 4)[0]


def _pieces(clx: bytes) -> list[Piece]:
    """The piece table (the Clx's Pcdt), in document order."""
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
        compressed = bool(fc & COMPRESSED)
        out.append(Piece(cps[i], cps[i + 1] - cps[i], (fc & ~COMPRESSED) // 2 if compressed else fc, compressed))
    return out


def _piece_text(word: bytes, piece: Piece) -> str:
    if piece.compressed:
        return word[piece.fc:piece.fc + piece.chars].decode("cp1252", "replace")
    return word[piece.fc:piece.fc + 2 * piece.chars].decode("utf-16-le", "replace")


def _fc_at(pieces: list[Piece], cp: int) -> int | None:
    """Where the character at `cp` is stored in the WordDocument stream."""
    for piece in pieces:
        if piece.cp <= cp < piece.cp + piece.chars:
            return piece.fc_of(cp)
    return None


def _shown_paragraphs(text: str) -> Iterator[tuple[str, int]]:
    """Each paragraph as shown (field codes left out, their results kept, fields nested in fields
    too) with the character position of its paragraph mark."""
    shown: list[str] = []
    fields: list[bool] = []  # per open field: past its separator (its shown result)?
    for cp, char in enumerate(text):
        if char == _BEGIN:
            fields.append(False)
        elif char == _SEPARATE and fields:
            fields[-1] = True
        elif char == _END and fields:
            fields.pop()
        elif char == _PARAGRAPH:
            yield "".join(shown), cp
            shown = []
        elif all(fields):
            shown.append(char)
    if shown:
        yield "".join(shown), len(text)


def _heading_levels(word: bytes, table: bytes) -> Callable[[int | None], int | None]:
    """The heading level of the paragraph whose mark is stored at a byte of the WordDocument stream
    (None: body text, or no style information in the file)."""
    levels = _style_levels(_part(word, table, FC_STSHF))
    runs = sorted(_paragraph_styles(word, _part(word, table, FC_PLCF_BTE_PAPX))) if levels else []
    starts = [start for start, _, _ in runs]

    def level(fc: int | None) -> int | None:
        if fc is None:
            return None
        at = bisect.bisect_right(starts, fc) - 1  # the last run starting at or before fc
        return levels.get(runs[at][2]) if at >= 0 and fc < runs[at][1] else None
    return level


def _style_levels(stsh: bytes) -> dict[int, int]:
    """Heading level by style index, from the style sheet (STSH): the built-in heading styles by
    their sti, others by a name "Heading N"."""
    if len(stsh) < 6:
        return {}
    size = struct.unpack_from("<H", stsh, 0)[0]
    count, base = struct.unpack_from("<HH", stsh, 2)
    levels, at = {}, 2 + size
    for istd in range(count):
        if at + 2 > len(stsh):
            break
        length = struct.unpack_from("<H", stsh, at)[0]
        std = stsh[at + 2:at + 2 + length]
        at += 2 + length
        if len(std) < 2:
            continue
        sti = struct.unpack_from("<H", std, 0)[0] & 0x0FFF
        if sti in HEADING_STI:
            levels[istd] = sti
        elif (named := _HEADING_NAME.match(_style_name(std, base))) is not None:
            levels[istd] = int(named.group(1))
    return levels


def _style_name(std: bytes, base: int) -> str:
    """A style's name (its xstzName, after the StdfBase of `base` bytes)."""
    if len(std) < base + 2:
        return ""
    chars = struct.unpack_from("<H", std, base)[0]
    return std[base + 2:base + 2 + 2 * chars].decode("utf-16-le", "replace")


def _paragraph_styles(word: bytes, plc: bytes) -> list[tuple[int, int, int]]:
    """(first byte, byte after, style index) of every run of paragraph properties: the PlcBtePapx
    names the FKP pages, each page maps byte ranges of text to a PAPX that opens with its istd."""
    count = (len(plc) - 4) // 8
    if count <= 0:
        return []
    pages = struct.unpack_from(f"<{count}I", plc, (count + 1) * 4)
    runs = []
    for number in pages:
        page = word[(number & 0x3FFFFF) * PAGE:(number & 0x3FFFFF) * PAGE + PAGE]
        if len(page) < PAGE:
            continue
        crun = page[PAGE - 1]
        bounds = struct.unpack_from(f"<{crun + 1}I", page, 0)
        for i in range(crun):
            offset = page[4 * (crun + 1) + 13 * i] * 2
            if offset == 0:  # no properties: the Normal style
                runs.append((bounds[i], bounds[i + 1], 0))
                continue
            at = offset + (2 if page[offset] == 0 else 1)  # cb, or cb 0 and cb' after it
            if at + 2 <= PAGE:
                runs.append((bounds[i], bounds[i + 1], struct.unpack_from("<H", page, at)[0]))
    return runs


def _rows(paragraph: str) -> list[str]:
    """A paragraph's lines: a table row's cells joined with " | " (rows told apart by the row mark
    after their last cell: the cell and row layout itself is not read)."""
    out = []
    for row in paragraph.split(_CELL * 2):  # a row's last cell mark, then its row mark (an empty cell ends a row)
        cells = [" ".join(cell.translate(_MARKS).split()) for cell in row.split(_CELL)]
        if line := " | ".join(cell for cell in cells if cell):
            out.append(line)
    return out
