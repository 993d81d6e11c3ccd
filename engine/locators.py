"""Locators: where an item is in its source, one shape per kind of item, and that place in words,
said one way by the CLI, the model's evidence and the app.

A locator is stored and shown as JSON (the index keeps it; `trove ask --json` prints it as it is), so
each shape is a TypedDict over the same keys, not a class: mypy checks the keys where locators are
made and read, and the JSON contract does not move. Every key is optional because older indexes and
other kinds of file have fewer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, TypedDict, cast, final

# An e-mail's fields, in the locators of its message's items ("from" is a keyword, hence the call form).
_MailFields = TypedDict("_MailFields", {"from": str, "to": str, "subject": str, "date": str}, total=False)


@final
class PassageLocator(_MailFields, total=False):
    """A paragraph or a segment of a document: its characters, its page (slide, message), what read
    the page, and the boxes of a scanned page's lines."""

    start: int
    end: int
    page: int
    last_page: int
    page_kind: str  # page | slide | message
    read_by: str  # "OCR" for a scanned page
    lines: list[list[float]]


@final
class QueryLocator(TypedDict, total=False):
    """A native query's answer: the query, the source it ran on, and what came back."""

    source: str  # the source's name (a connection's name for a server)
    query: str
    language: str  # sql | cypher | sparql
    sql: str  # the same query, kept under its older key for SQL
    tables: list[str]
    sheet: str
    attachment: str  # a table attached to an e-mail: the attachment's file name
    message: str  # ... its message's subject
    message_number: int  # ... and number in a mailbox
    printed: bool  # the "attachment" is a table printed in the document ("table 1 on page 3"), titled by "message"
    page: int  # ... the page of the cited rows (or that it starts on: the document opens there)
    last_page: int  # ... the last page of those rows (or of the table) when not `page`
    columns: list[str]
    result_rows: list[list[Any]]  # the first rows, as JSON values
    rows: list[int]  # the cited rows (`_row`) of a table
    values: list[Any]  # a single row's values: an aggregate's answer
    result: str  # that row as "column = value" facts
    listing: list[str]  # each row in words, for a short list


class PictureFields(TypedDict, total=False):
    """What every item of a photo (or of a picture inside a document) keeps."""

    width: int
    height: int
    thumbnail: str
    taken_at: str
    latitude: float
    longitude: float
    page: int  # a picture inside a document: its page (slide) and number there,
    page_kind: str
    picture: int
    picture_file: str  # and the copy of its pixels Trove kept


@final
class PhotoLocator(PictureFields, total=False):
    """A whole photo: its regions as indexed, its labels; at answer time what grounding decided."""

    regions: list[dict[str, Any]]
    labels: list[list[Any]]  # [label, score]
    grounding: list[dict[str, Any]]  # engine.grounding.matching.Decision.as_dict per region
    note: str


@final
class RegionLocator(PictureFields, total=False):
    """A box in a photo: what the detector, OCR or grounding saw there."""

    box: list[float]  # x0, y0, x1, y1 in the photo's pixels
    kind: str  # object | text | face
    label: str
    score: float
    text: str
    colour: str  # an object's colour in words ("blue")
    region: int
    crop: str
    detector_score: float
    match_score: float
    element: str
    entity: str
    name: str
    reason: str
    lines: list[dict[str, Any]]  # {"text", "box"}: the text lines a block is made of


@final
class MomentLocator(TypedDict, total=False):
    """A clip of a video (or the whole video): its seconds and what its keyframes showed."""

    width: int
    height: int
    duration_s: float
    start_s: float
    end_s: float
    clip: int
    clips: int
    keyframe_s: float | None
    thumbnail: str | None
    regions: list[dict[str, Any]]


Locator = PassageLocator | QueryLocator | PhotoLocator | RegionLocator | MomentLocator


PICTURE_KEYS = tuple(PictureFields.__annotations__)


def picture_fields(locator: Mapping[str, Any]) -> PictureFields:
    """The fields of a photo's locator that every item of the photo keeps (a region found at answer time)."""
    return cast(PictureFields, {key: locator[key] for key in PICTURE_KEYS if key in locator})


def as_locator(stored: Mapping[str, Any]) -> Locator:
    """A locator read back from the index or from a stored answer (JSON): its shape is the kind's."""
    return cast(Locator, stored)


def on_server(source: str) -> bool:
    """Whether a source is a server's URL (a connected source), not a file's path."""
    return "://" in source


def source_name(source: str, locator: Locator | None = None) -> str:
    """What a citation's source is called: a file's name, or the name a source on a server was
    connected under (its URL's last part says little: `…/query`, `…?host=/srv/pg`)."""
    name = locator.get("source") if locator is not None and on_server(source) else None
    return str(name) if name else PurePath(source).name


def page_words(locator: Locator) -> str | None:
    """"page 3", "pages 3–4", "slide 2" or "message 5" (what the locator's page counts), "page 1
    (read with OCR)" for a scanned page, None when it has no page."""
    if "page" not in locator:
        return None
    kind = locator.get("page_kind", "page")
    first, last = locator["page"], locator.get("last_page")
    where = f"{kind}s {first}–{last}" if last and last != first else f"{kind} {first}"
    read_by = locator.get("read_by")
    return f"{where} (read with {read_by})" if read_by else where


def mail_words(locator: Locator) -> str | None:
    """The cited e-mail, "from Ana <ana@…>, 2025-03-02 10:15, 'Flat viewing'", None when not one."""
    sent = str(locator.get("date", "")).replace("T", " ")[:16]  # ISO: the minute it was sent, as written
    sender, subject = locator.get("from"), locator.get("subject")
    parts = [f"from {sender}" if sender else "", sent, f"'{subject}'" if subject else ""]
    return ", ".join(p for p in parts if p) or None


_SPANNED = re.compile(r"\bon \w+s \d+-\d+$")  # "table 1 on pages 1-15": printed on several pages


def attachment_words(locator: Locator) -> str | None:
    """A table attached to an e-mail: "attachment budget.xlsx of message 3, 'Q3 figures'"; one printed
    in a document: "table 1 on page 3, 'NICS Firearm Background Checks'" ("table 1 on pages 1-15,
    'WARN Report', page 2" with the page of the rows read); None when neither."""
    name = locator.get("attachment")
    if not name:
        return None
    number, subject = locator.get("message_number"), locator.get("message")
    if locator.get("printed"):  # a table on several pages: the page of the rows read, when they are known
        place = page_words(locator) if locator.get("rows") and _SPANNED.search(str(name)) else None
        return ", ".join(p for p in (str(name), f"'{subject}'" if subject else "", place) if p)
    parts = [f"attachment {name} of {f'message {number}' if number else 'the message'}",
             f"'{subject}'" if subject else ""]
    return ", ".join(p for p in parts if p)


def image_file(source: str, locator: Locator) -> str:
    """The file a photo item's pixels are in: the photo itself, or the copy Trove kept of a picture
    inside a document (so the pictures of one document are told apart, and shown without it)."""
    return str(locator.get("picture_file") or source)


def picture_words(locator: Locator) -> str | None:
    """"picture 2" for a picture inside a document, None for anything else."""
    return f"picture {locator['picture']}" if "picture" in locator else None
