"""E-mail (.eml): headers as the first block, then the plain-text body (or the HTML one)."""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

from engine.ingest.parsed import DocBuilder, ParsedDoc
from engine.ingest.parsers.html import add_html
from engine.ingest.parsers.plain import paragraphs

KIND = "email"
EXTENSIONS = (".eml",)
UNPACKS = False


def parse(path: Path) -> ParsedDoc:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    subject = str(message.get("subject", "") or "").strip()
    builder = DocBuilder()
    builder.heading(1, subject or path.stem)
    header = "; ".join(f"{h}: {message[h]}" for h in ("From", "To", "Date") if message.get(h))
    builder.paragraph(header)
    body = message.get_body(preferencelist=("plain", "html"))
    if body is not None:
        content = body.get_content()
        if body.get_content_subtype() == "html":
            add_html(builder, content)
        else:
            for para in paragraphs(content):
                builder.paragraph(para)
    return builder.build(subject or path.stem, {"from": str(message.get("from", ""))})
