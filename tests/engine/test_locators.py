"""A locator's place in words: pages, slides and messages, and the e-mail it cites."""

from __future__ import annotations

from engine.locators import mail_words, page_words, source_name
from engine.result import citation_place


def test_pages_slides_and_messages_are_named_by_what_they_count():
    assert page_words({"start": 0, "end": 5}) is None
    assert page_words({"page": 3}) == "page 3"
    assert page_words({"page": 3, "last_page": 4}) == "pages 3–4"
    assert page_words({"page": 2, "page_kind": "slide"}) == "slide 2"
    assert page_words({"page": 7, "last_page": 7, "page_kind": "message"}) == "message 7"


def test_a_cited_email_is_named_by_sender_date_and_subject():
    assert mail_words({"page": 1}) is None
    locator = {"page": 2, "page_kind": "message", "from": "Marta <marta@example.org>",
               "date": "2025-03-07T18:40:00+01:00", "subject": "Choir rehearsal moved", "start": 10, "end": 50}
    assert mail_words(locator) == "from Marta <marta@example.org>, 2025-03-07 18:40, 'Choir rehearsal moved'"
    assert citation_place("/home/me/mail/home.mbox", locator) == (
        "home.mbox, message 2, from Marta <marta@example.org>, 2025-03-07 18:40, 'Choir rehearsal moved', chars 10-50")


def test_a_source_on_a_server_is_called_by_its_connection_name_and_a_file_by_its_own():
    server = {"source": "health", "query": "SELECT 1"}
    assert source_name("postgresql://reader@/health?host=/srv/pg", server) == "health"
    assert source_name("http://kg.lan:7878/query", {"source": "library"}) == "library"
    assert source_name("/home/me/finance/expenses-2024.csv", {"source": "expenses_2024"}) == "expenses-2024.csv"
    assert citation_place("postgresql://reader@/health?host=/srv/pg", server) == (
        "health at postgresql://reader@/health?host=/srv/pg")
