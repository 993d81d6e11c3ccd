"""A locator's place in words, said one way by the CLI, the model's evidence and the app."""

from __future__ import annotations

from pathlib import PurePath


def on_server(source: str) -> bool:
    """Whether a source is a server's URL (a connected source), not a file's path."""
    return "://" in source


def source_name(source: str, locator: dict) -> str:
    """What a citation's source is called: a file's name, or the name a source on a server was
    connected under (its URL's last part says little: `…/query`, `…?host=/srv/pg`)."""
    if on_server(source) and locator.get("source"):
        return str(locator["source"])
    return PurePath(source).name


def page_words(locator: dict) -> str | None:
    """"page 3", "pages 3–4", "slide 2" or "message 5" (what the locator's page counts), "page 1
    (read with OCR)" for a scanned page, None when it has no page."""
    if "page" not in locator:
        return None
    kind = locator.get("page_kind", "page")
    first, last = locator["page"], locator.get("last_page")
    where = f"{kind}s {first}–{last}" if last and last != first else f"{kind} {first}"
    return f"{where} (read with {locator['read_by']})" if locator.get("read_by") else where


def mail_words(locator: dict) -> str | None:
    """The cited e-mail, "from Ana <ana@…>, 2025-03-02 10:15, 'Flat viewing'", None when not one."""
    sent = str(locator.get("date", "")).replace("T", " ")[:16]  # ISO: the minute it was sent, as written
    parts = [f"from {locator['from']}" if locator.get("from") else "", sent,
             f"'{locator['subject']}'" if locator.get("subject") else ""]
    return ", ".join(p for p in parts if p) or None


def image_file(source: str, locator: dict) -> str:
    """The file a photo item's pixels are in: the photo itself, or the copy Trove kept of a picture
    inside a document (so the pictures of one document are told apart, and shown without it)."""
    return str(locator.get("picture_file") or source)


def picture_words(locator: dict) -> str | None:
    """"picture 2" for a picture inside a document, None for anything else."""
    return f"picture {locator['picture']}" if "picture" in locator else None
