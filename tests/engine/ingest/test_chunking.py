from engine.ingest.chunking import document_chunks, paragraph_chunks, sentence_spans, words
from engine.ingest.parsed import DocBuilder


def _doc(paragraphs: list[str], heading: str = "H"):  # noqa: ANN202
    b = DocBuilder()
    b.heading(1, heading)
    for p in paragraphs:
        b.paragraph(p)
    return b.build("t")


def test_sentences_respect_abbreviations():
    text = "Dr. Okafor called at 9. He said the boiler is fine! Next visit e.g. in March."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Dr. Okafor called at 9.", "He said the boiler is fine!", "Next visit e.g. in March."]


def test_long_paragraph_is_cut_at_sentences_within_the_word_limit():
    sentence = "The quick brown fox jumps over the lazy dog near the river bank today. "
    doc = _doc([sentence * 30])
    chunks = paragraph_chunks(doc, max_words=100)
    assert len(chunks) > 1
    for c in chunks:
        assert words(c.text) <= 100
        assert doc.text[c.start:c.end] == c.text
        assert c.text.endswith(".") and c.heading == ("H",)


def test_short_list_items_are_merged_under_one_heading():
    doc = _doc(["eggs", "milk", "flour", "sugar"])
    chunks = paragraph_chunks(doc, max_words=100)
    assert len(chunks) == 1 and all(w in chunks[0].text for w in ("eggs", "sugar"))


def test_a_sentence_longer_than_the_limit_is_cut_at_words():
    doc = _doc([" ".join(["word"] * 250)])
    chunks = paragraph_chunks(doc, max_words=100)
    assert [words(c.text) for c in chunks] == [101, 100, 50]  # the heading "H" starts the first
    assert chunks[0].text.startswith("H\n\nword")


def test_lines_taken_for_headings_stay_in_the_text_of_the_block_after_them():
    b = DocBuilder()
    b.heading(1, "KNOWLES v. MIRZAYANCE")
    b.heading(1, "Tuesday, January 13, 2009")
    b.paragraph("The above-entitled matter came on for oral argument.")
    b.paragraph("APPEARANCES: Steven E. Mercer for the petitioner.")
    doc = b.build("t")
    chunks = paragraph_chunks(doc, max_words=100)
    assert chunks[0].text.startswith("KNOWLES v. MIRZAYANCE\n\nTuesday, January 13, 2009\n\nThe above-entitled")
    assert doc.text[chunks[0].start:chunks[0].end] == chunks[0].text
    assert chunks[0].heading == ("Tuesday, January 13, 2009",)


def test_document_granularity_is_whole_file_or_sections_within_the_token_budget():
    short = _doc(["one two three."] * 3)
    assert len(document_chunks(short, paragraph_chunks(short), max_tokens=4000)) == 1
    long = _doc([("lorem ipsum dolor sit amet. " * 18).strip()] * 100)  # ~9000 words
    paras = paragraph_chunks(long)
    docs = document_chunks(long, paras, max_tokens=4000)
    assert len(docs) >= 3
    assert all(words(d.text) * 1.35 <= 4000 + 135 for d in docs)
    assert docs[0].start == paras[0].start and docs[-1].end == paras[-1].end
