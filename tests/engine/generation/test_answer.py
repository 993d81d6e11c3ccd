"""Turning the model's raw text into a cited answer: citations resolve, "not found" is detected,
and sentences whose citations do not back them are listed."""

from engine.generation.answer import (
    NOT_BACKED,
    NOT_FOUND,
    build_messages,
    finalise,
    gate,
    renumber,
    state_result,
    state_rows,
)
from engine.generation.evidence import Evidence, evidence_of
from tests.scripted import ScriptedLLM


def _ev(n: int, text: str) -> Evidence:
    return evidence_of(n, "paragraph", f"/f/{n}.md", f"T{n}", {"start": 0, "end": len(text)}, text, 0.1)


EVIDENCE = [_ev(1, "The theft excess is EUR 65 per claim."), _ev(2, "The plumber Verhoeven fixed the tap.")]


def test_valid_citations_are_kept_and_invalid_ones_dropped():
    draft = finalise("The theft excess is EUR 65 [1][7].", EVIDENCE)
    assert draft.answered and draft.cited == [1]
    assert "[7]" not in draft.text and draft.unsupported == []


def test_missing_citation_is_added_when_one_evidence_backs_the_sentence():
    draft = finalise("Verhoeven fixed the tap.", EVIDENCE)
    assert draft.text == "Verhoeven fixed the tap [2]." and draft.cited == [2]


def test_a_citation_moves_to_the_item_that_states_the_claim():
    note = _ev(1, "Roof repair. Quotes for the roof go to Daan Smit; part of the house project.")
    minutes = _ev(2, "Action items for the house: inspect the roof gutters before winter. Owner: Daan Smit.")
    question = "Who will inspect the roof gutters for the house project?"
    draft = finalise("Daan Smit will inspect the roof gutters for the house project [1].", [note, minutes], question)
    assert draft.text == "Daan Smit will inspect the roof gutters for the house project [2]." and draft.cited == [2]
    kept = finalise("Quotes for the roof go to Daan Smit [1].", [note, minutes], question)
    assert kept.cited == [1]  # the cited note says it best: left alone


def test_a_claim_gets_the_citation_of_the_item_its_note_quotes():
    note = _ev(1, "Roof repair. Questions about the roof go to Daan Smit.")
    minutes = _ev(2, "Action items. Inspect the gutters; Owner: Daan Smit; Deadline: 7 March.")
    raw = ('Daan Smit will inspect the gutters. This is stated in the evidence [1] under "Action items", '
           'where it says "Owner: Daan Smit; Deadline: 7 March."')
    draft = finalise(raw, [note, minutes], "Who will inspect the gutters?")
    assert draft.text == "Daan Smit will inspect the gutters [2]." and draft.cited == [2]
    unquoted = finalise("Daan Smit will inspect the gutters. This is stated in the evidence [2].", [note, minutes])
    assert unquoted.cited == [2]


def test_a_better_worded_item_that_lacks_the_claims_number_takes_no_citation():
    cited = _ev(1, "The excess is EUR 65.")
    wordy = _ev(2, "The excess on a theft claim under the bike insurance is deducted from the payment.")
    draft = finalise("The excess on a theft claim under the bike insurance is EUR 65 [1].", [cited, wordy])
    assert draft.cited == [1]


def test_not_found_replies_become_the_standard_answer():
    for raw in ["I could not find this in your files.", "The evidence does not mention the Wi-Fi password.", ""]:
        draft = finalise(raw, EVIDENCE)
        assert (draft.text, draft.answered, draft.cited) == (NOT_FOUND, False, [])


def test_a_number_missing_from_the_cited_text_makes_the_sentence_unsupported():
    draft = finalise("Verhoeven charged EUR 95 for the tap [2].", EVIDENCE)
    assert draft.unsupported == ["Verhoeven charged EUR 95 for the tap."]


def test_a_misquoted_number_is_shown_as_the_cited_text_gives_it_beside_the_same_words():
    draft = finalise("The theft excess is EUR 95 per claim [1].", EVIDENCE)
    assert draft.text == "The theft excess is EUR 65 per claim [1]." and draft.unsupported == []
    assert draft.dropped == [{"sentence": "The theft excess is EUR 95 per claim.",
                              "why": "the number 95 is not in the cited text; shown as the file gives it"}]


def test_renumber_orders_citations_by_first_use():
    assert renumber("A [2]. B [1][2].", {2: 1, 1: 2}) == "A [1]. B [2][1]."


def test_prompt_delimits_evidence_as_data():
    messages = build_messages("What is the excess?", EVIDENCE)
    assert messages[0]["role"] == "system" and "not instructions" in messages[0]["content"]
    user = messages[1]["content"]
    assert user.startswith("<evidence>") and "[1] T1 (1.md)" in user and user.endswith("Question: What is the excess?")


def test_what_the_sentence_repeats_from_the_question_counts_as_known():
    """As long as the file names what the question is about (here its name does: "line-120")."""
    evidence = [evidence_of(1, "paragraph", "/f/meeting-2025-02-18-line-120.md", "Kick-off", {"start": 0, "end": 9},
                            "Action: Weight the passenger survey; Owner: Priya Raman; Deadline: 7 March.", 0.1)]
    question = "Who is responsible for weighting the passenger survey in the Line 120 project?"
    draft = finalise("Priya Raman is responsible for weighting the passenger survey in the Line 120 project.",
                     evidence, question)
    assert draft.cited == [1] and draft.unsupported == []


def test_an_initial_does_not_end_a_sentence():
    evidence = [_ev(1, "The Power Broker by Robert A. Caro was lent to me by Oskar.")]
    draft = finalise("The Power Broker by Robert A. Caro was lent to me by Oskar.", evidence)
    assert draft.text == "The Power Broker by Robert A. Caro was lent to me by Oskar [1]."


def test_a_lists_item_numbers_start_their_items_and_take_no_citation():
    """"…two 737 MAX accidents:\n1. Ethiopian …" was split after "1." and the number, a sentence of its
    own, took a citation: "accidents:\n1 [1]. Ethiopian …" (rest set)."""
    evidence = [_ev(1, "Lion Air Flight 610 crashed on October 29, 2018."),
                _ev(2, "Ethiopian Airlines Flight 302 crashed on March 10, 2019.")]
    draft = finalise("The directive describes two accidents:\n1. Ethiopian Airlines Flight 302 crashed [2].\n"
                     "2. Lion Air Flight 610 crashed [1].", evidence, "Which two accidents does it describe?")
    assert draft.text.endswith("\n1. Ethiopian Airlines Flight 302 crashed [2].\n2. Lion Air Flight 610 crashed [1].")
    assert draft.unsupported == []  # an item's number is no number the sentence states


def test_citations_after_the_full_stop_move_before_it():
    draft = finalise("The theft excess is EUR 65. [1] Verhoeven fixed the tap.[2]", EVIDENCE)
    assert draft.text == "The theft excess is EUR 65 [1]. Verhoeven fixed the tap [2]."


def test_a_citation_after_an_abbreviation_inside_a_name_moves_to_the_sentence_end():
    evidence = [_ev(1, "KNOWLES v. MIRZAYANCE. Tuesday, January 13, 2009. The matter came on for oral argument.")]
    draft = finalise("The Knowles v. [1] Mirzayance case was argued on January 13, 2009.", evidence,
                     "When was Knowles v. Mirzayance argued?")
    assert draft.text == "The Knowles v. Mirzayance case was argued on January 13, 2009 [1]."


def test_a_sentence_on_where_the_information_is_found_is_dropped():
    draft = finalise("Verhoeven fixed the tap [2]. This information is found in the Abstract section.", EVIDENCE)
    assert draft.text == "Verhoeven fixed the tap [2]."


def test_the_citation_of_a_dropped_sentence_on_where_a_claim_is_found_goes_to_the_claim():
    draft = finalise("Verhoeven fixed the tap. This information is found in the note on the tap [2].", EVIDENCE)
    assert draft.text == "Verhoeven fixed the tap [2]."


def test_sentences_about_the_evidence_are_dropped():
    draft = finalise("Verhoeven fixed the tap [2]. This is stated in the evidence [2] under the section Home.",
                     EVIDENCE, "Who fixed the tap?")
    assert draft.text == "Verhoeven fixed the tap [2]."
    assert draft.dropped == [{"sentence": "This is stated in the evidence under the section Home.",
                              "why": "about the evidence, not the question"}]


def test_a_name_missing_from_the_cited_text_makes_the_sentence_unsupported():
    draft = finalise("Jansen fixed the tap [2].", EVIDENCE, "Who fixed the tap?")
    assert draft.unsupported == ["Jansen fixed the tap."]
    assert draft.reasons["Jansen fixed the tap."] == "the name Jansen is not in the cited text"


def test_the_gate_writes_an_unsupported_answer_again_once_and_keeps_the_backed_one():
    first = finalise("The theft excess is EUR 65, says Jansen [1].", EVIDENCE, "What is the theft excess?")
    calls = []

    def rewrite():  # noqa: ANN202
        calls.append(1)
        return finalise("The theft excess is EUR 65 per claim [1].", EVIDENCE, "What is the theft excess?")

    draft = gate(first, rewrite)
    assert calls == [1] and draft.text == "The theft excess is EUR 65 per claim [1]." and draft.unsupported == []
    assert draft.dropped[0]["sentence"] == "The theft excess is EUR 65, says Jansen." and \
        "Jansen" in draft.dropped[0]["why"]


def test_what_stays_unsupported_is_not_shown_and_an_answer_left_empty_says_so():
    question = "When was the boiler serviced?"
    made_up = finalise("The boiler was serviced on 1 January 2007 [1].", EVIDENCE, question)
    draft = gate(made_up, lambda: finalise("It was serviced in 2007 [1].", EVIDENCE, question))
    assert (draft.text, draft.answered, draft.cited) == (NOT_BACKED, False, [])
    assert [d["sentence"] for d in draft.dropped] == ["The boiler was serviced on 1 January 2007."]


def test_a_supported_sentence_stays_when_another_is_dropped():
    question = "What is the theft excess and who fixed the tap?"
    mixed = finalise("The theft excess is EUR 65 [1]. It was raised to EUR 80 in 2024 [1].", EVIDENCE, question)
    draft = gate(mixed, lambda: mixed)
    assert draft.text == "The theft excess is EUR 65 [1]." and draft.answered and draft.cited == [1]


def test_a_sentence_citing_the_wrong_item_is_cited_to_the_one_that_backs_it():
    draft = finalise("Verhoeven fixed the tap [1].", EVIDENCE, "Who fixed the tap?")
    assert draft.text == "Verhoeven fixed the tap [2]." and draft.unsupported == []


def test_a_hyphenated_name_the_evidence_holds_is_backed():
    evidence = [_ev(1, "Hotel Lisboa Plaza. Check-in from 15:00, check-out by 11:00.")]
    draft = finalise("Check-in from 15:00 [1].", evidence, "When can I check in?")
    assert draft.text == "Check-in from 15:00 [1]." and draft.unsupported == []


def test_a_claim_about_a_name_the_cited_file_never_mentions_is_not_backed():
    """"The capital of Japan is Jakarta [1]" from a list of capitals without Japan: the question's
    name in the sentence counts as known only where the cited file names it too."""
    capitals = _ev(1, "Country Indonesia Germany Austria. Capital Jakarta Berlin Vienna.")
    draft = finalise("The capital of Japan is Jakarta [1].", [capitals], "What is the capital of Japan?")
    assert draft.unsupported == ["The capital of Japan is Jakarta."]
    assert draft.reasons[draft.unsupported[0]] == "the cited text does not mention Japan"
    backed = finalise("The capital of Indonesia is Jakarta [1].", [capitals], "What is the capital of Indonesia?")
    assert backed.answered and backed.unsupported == []


def test_the_name_may_be_in_another_passage_of_the_cited_file_and_a_month_is_no_name():
    heading = evidence_of(1, "paragraph", "/f/scotus.pdf", "scotus", {"start": 0, "end": 40},
                          "KNOWLES, WARDEN, Petitioner v. MIRZAYANCE. No. 07-1315", 0.2)
    date = evidence_of(2, "paragraph", "/f/scotus.pdf", "scotus", {"start": 41, "end": 90},
                       "Washington, D.C. Tuesday, January 13, 2009", 0.2)
    draft = finalise("Knowles v. Mirzayance was argued on Tuesday, January 13, 2009 [2].", [heading, date],
                     "On what date was Knowles v. Mirzayance argued?")
    assert draft.answered and draft.unsupported == [] and draft.cited == [2]
    photos = _ev(1, "count = 4. Photos taken from 2025-05-01 to 2025-06-01.")
    may = finalise("You took 4 photos in May 2025 [1].", [photos], "How many photos did I take in May 2025?")
    assert may.unsupported == []


def test_a_number_the_cited_text_spells_out_is_backed():
    """CISI abstract 182: "Four hundred sixty-eight medical societies … Seventy-eight libraries"."""
    abstract = _ev(1, "Four hundred sixty-eight medical societies in the United States were surveyed. "
                      "Seventy-eight libraries were identified.")
    draft = finalise("468 medical societies were surveyed and 78 libraries were identified [1].", [abstract])
    assert draft.answered and draft.unsupported == []
    wrong = finalise("486 medical societies were surveyed [1].", [abstract])
    assert wrong.unsupported == ["486 medical societies were surveyed."]


def test_numbers_in_words_read_as_their_values():
    from engine.generation.number_words import spelled_numbers

    assert spelled_numbers("four hundred and sixty-eight, twenty one, one thousand two hundred five") == \
        [468, 21, 1205]
    assert spelled_numbers("a trip of two days, none of them") == [2]


def test_a_query_result_that_never_names_what_is_asked_does_not_back_a_sentence_naming_it():
    """The result's text repeats the question; the name must be in the result or its query."""
    top = evidence_of(1, "table", "/t/films.csv", "films.csv: SQL result",
                      {"query": "SELECT box_office FROM films WHERE rank = 1", "sql": "SELECT box_office FROM films "
                       "WHERE rank = 1"}, "For the question 'How much did Top Gun earn at the box office?', computed "
                      "from films.csv: box office is $10.8 billion.", 1.0)
    draft = finalise("Top Gun earned $10.8 billion at the box office [1].", [top],
                     "How much did Top Gun earn at the box office?")
    assert draft.unsupported == ["Top Gun earned $10.8 billion at the box office."]


def test_a_phrased_query_result_that_adds_names_or_numbers_is_stated_plainly():
    """The model phrasing a list of directors gave each a film the result never named: that
    sentence is not shown; the rows are, as the query returned them."""
    question = "In my movie collection, who directed each of the movies Jack Nicholson acted in?"
    invented = ScriptedLLM(['Rob Reiner directed "The Shining" and James L. Brooks directed "The Godfather".'])
    draft = state_rows(invented, question, ["Rob Reiner", "James L. Brooks"], "movies", 1)
    assert draft.text == "From movies: Rob Reiner; James L. Brooks [1]."
    faithful = ScriptedLLM(["Rob Reiner and James L. Brooks directed the movies Jack Nicholson acted in."])
    phrased = state_rows(faithful, question, ["Rob Reiner", "James L. Brooks"], "movies", 1)
    assert phrased.text.startswith("Rob Reiner and")
    counted = ScriptedLLM(["There are 4 churches in Levanger built in the 1800s, 2 of them after 1850."])
    question = "In my table of churches in Levanger, how many of the churches were built in the 1800s?"
    assert state_result(counted, question, "count = 4", ["4"], 1).text == "Count = 4 [1]"


def test_a_phrased_result_may_write_its_number_as_people_do():
    """87190 stated as "87,190" and 30.0 as "30" are the computed values: the sentence is kept."""
    question = "How many permit checks does my NICS report show for Illinois?"
    separated = ScriptedLLM(["Illinois had 87,190 permit checks."])
    assert state_result(separated, question, "permit is 87190.", ["87190"], 1).text == \
        "Illinois had 87,190 permit checks [1]."
    question = "What is the average age of the French singers?"
    rounded = ScriptedLLM(["The average age of the French singers is 30."])
    assert state_result(rounded, question, "avg(age) is 30.0.", ["30.0"], 1).text.startswith("The average age")
    other = ScriptedLLM(["The average age of the French singers is 31."])
    assert state_result(other, question, "avg(age) is 30.0.", ["30.0"], 1).text == "Avg(age) is 30.0 [1]."


def test_a_reply_that_only_repeats_the_evidence_headers_answers_nothing():
    """"[1] 161 (161.txt) [2] 231 (231.txt)" for a question about Cranfield's paper 161: its numbers
    are in the headers, yet it says nothing; it is dropped, not shown as an answer."""
    evidence = [evidence_of(1, "paragraph", "/c/161.txt", "161", {}, "some 100 numerical computations", 0.5),
                evidence_of(2, "paragraph", "/c/231.txt", "231", {}, "blunt bodies at supersonic speed", 0.4)]
    draft = finalise("[1] 161 (161.txt) [2] 231 (231.txt)", evidence, "How many numerical computations?")
    assert draft.unsupported == ["161 (161.txt) 231 (231.txt)"]
    assert draft.reasons[draft.unsupported[0]] == "it names the evidence instead of answering"
    gated = gate(draft, lambda: finalise("I could not find this in your files.", evidence))
    assert gated.text == NOT_BACKED and not gated.answered
    named = finalise("[1] 161.txt [2] 231.txt", evidence, "How many numerical computations?")  # headed "[1] 161.txt"
    assert named.reasons[named.unsupported[0]] == "it names the evidence instead of answering"
    said = finalise("Some 100 numerical computations were carried out [1].", evidence, "How many?")
    assert said.answered and said.cited == [1]


def test_a_header_line_above_a_copied_passage_and_a_leading_citation_are_no_part_of_the_answer():
    """The rest set's Cranfield and CISI answers: "[1] 161.txt" on a line of its own above the sentence
    the model copied from that item, and "[1] 41 of 55 laureates were interviewed"."""
    evidence = [evidence_of(1, "paragraph", "/c/161.txt", "161", {}, "some 100 numerical computations have been "
                            "carried out", 0.5)]
    copied = finalise("[1] 161.txt\nsome 100 numerical computations have been carried out [1].", evidence,
                      "How many numerical computations were carried out?")
    assert copied.text == "some 100 numerical computations have been carried out [1]." and not copied.unsupported
    cisi = [evidence_of(1, "paragraph", "/c/41.txt", "41", {}, "41 of 55 laureates were interviewed", 0.5)]
    led = finalise("[1] 41 of 55 laureates were interviewed.", cisi, "How many laureates were interviewed?")
    assert led.text == "41 of 55 laureates were interviewed [1]." and led.cited == [1]


def test_a_place_in_a_series_or_number_the_question_asks_about_must_be_in_the_cited_file():
    """"When was the nineteenth edition of the Dewey Decimal Classification published?" answered "in
    1971" from CISI's abstract 1, which gives 1971 for the eighteenth (unseen set): the question's
    19th is in no cited text, so the sentence is about something the file does not say."""
    import json

    from tests.conftest import shared_path

    lines = shared_path("eval", "text", "cisi", "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    abstract = next(json.loads(line) for line in lines if "eighteenth edition in 1971" in line)
    evidence = [evidence_of(1, "paragraph", "/cisi/1.txt", abstract.get("title", ""), {"start": 0, "end": 9},
                            abstract["text"], 0.1)]
    asked = "When was the nineteenth edition of the Dewey Decimal Classification published, according to my papers?"
    draft = finalise("The nineteenth edition of the Dewey Decimal Classification was published in 1971 [1].",
                     evidence, asked)
    assert draft.unsupported and "does not mention 19" in draft.reasons[draft.unsupported[0]]
    held = finalise("The eighteenth edition of the Dewey Decimal Classification was published in 1971 [1].",
                    evidence, asked.replace("nineteenth", "eighteenth"))
    assert held.unsupported == []
    others = finalise("The first edition of the DDC was published in 1876, the eighteenth in 1971 [1].",
                      evidence, asked)  # the rest set's answer: the editions the file gives, not the one asked
    assert others.unsupported and others.reasons[others.unsupported[0]] == (
        "it does not say the 19th the question asks about, and the cited text does not mention it")


def test_a_number_the_question_asks_about_must_be_in_the_cited_item_not_only_elsewhere_in_its_file():
    """"How much does a printed A5 copy of my geometry and topology script cost?" answered "$6,205"
    from the Federal Register's table of costs (unseen set); another passage of that file held a 5."""
    costs = _ev(1, "ESTIMATED COSTS Action Labor cost Parts cost Cost per product FCC OPS installation 1 work-hour "
                   "× $85 per hour = $85 $0 $85 $6,205.")
    other = evidence_of(2, "paragraph", "/f/1.md", "T1", {"start": 9, "end": 40}, "Section 5 of the rule.", 0.1)
    draft = finalise("The cost of a printed A5 copy of your geometry and topology script is $6,205 [1].",
                     [costs, other], "How much does a printed A5 copy of my geometry and topology script cost?")
    assert draft.unsupported and "does not mention 5" in draft.reasons[draft.unsupported[0]]


def test_the_page_an_item_sits_on_is_not_a_number_the_question_asks_about():
    """The A5 copy's price cited from a cost table on page 5 (unseen set): the header's "page 5" is
    where the item sits, not what it says; a title that writes the number does back it."""
    text = "ESTIMATED COSTS Labor cost Parts cost Cost per product 1 work-hour × $85 per hour = $85 $0 $85 $6,205."
    asked = "How much does a printed A5 copy of my geometry and topology script cost?"
    on_page = evidence_of(1, "paragraph", "/f/rule.pdf", "Rule", {"start": 0, "end": 9, "page": 5}, text, 0.1)
    draft = finalise("A printed A5 copy of your geometry and topology script costs $6,205 [1].", [on_page], asked)
    assert draft.unsupported and "does not mention 5" in draft.reasons[draft.unsupported[0]]
    titled = evidence_of(1, "paragraph", "/f/prices.pdf", "Prices of A5 copies", {"start": 0, "end": 9, "page": 5},
                         text, 0.1)
    held = finalise("A printed A5 copy of your geometry and topology script costs $6,205 [1].", [titled], asked)
    assert held.unsupported == []


def test_a_month_the_question_asks_about_must_be_written_in_the_cited_file():
    """"How many NICS checks were there in December 2015?" answered 804,006 from the November 2015
    report (rest set): the month is neither named nor dated in it. A month the file writes in a date
    of digits ("03/25/2016") is written."""
    november = [evidence_of(1, "paragraph", "/n/nics.pdf", "nics", {}, "NICS Firearm Background Checks "
                            "November - 2015. Totals 804,006", 0.5)]
    other = finalise("There were 804,006 NICS checks in December 2015 [1].", november,
                     "How many NICS checks were there in December 2015?")
    assert other.reasons[other.unsupported[0]] == ("the cited file does not mention December, which the "
                                                   "question asks about")
    asked = "How many NICS checks were there in November 2015?"
    assert not finalise("There were 804,006 NICS checks in November 2015 [1].", november, asked).unsupported
    warn = [evidence_of(1, "paragraph", "/w/warn.pdf", "warn", {}, "03/25/2016 Molycorp 474", 0.5)]
    march = finalise("The Molycorp notice of March 2016 affected 474 employees [1].", warn,
                     "How many employees did the Molycorp notice of March 2016 affect?")
    assert not march.unsupported


def test_a_number_written_without_its_leading_zero_keeps_the_space_before_it():
    cisi = [evidence_of(1, "paragraph", "/c/12.txt", "12", {}, "a correlation of .766 was found", 0.5)]
    assert finalise("The correlation was .766 [1].", cisi, "What was the correlation?").text == (
        "The correlation was .766 [1].")


def test_a_name_a_video_gives_only_as_its_file_name_is_no_name_of_anyone_in_it():
    """"What is the name of the girl in my gymnastics video?" answered "Megamind" from another video's
    item (rest set); the same item may be named as a file ("Megamind.avi shows 3 people")."""
    megamind = [evidence_of(1, "video", "/v/Megamind.avi", "Megamind.avi", {}, "Video Megamind.avi (Megamind) in "
                            "the folder opencv samples: 0:11 long, 3 clips.\nShows 3 people, 1 tie.", 0.5)]
    named = finalise("The name of the girl in your gymnastics video is Megamind [1].", megamind,
                     "What is the name of the girl in my gymnastics video?")
    assert named.reasons[named.unsupported[0]] == "Megamind is only the name of the cited file, not something it shows"
    as_file = finalise("Megamind.avi shows 3 people [1].", megamind, "Which video shows three people?")
    assert as_file.answered and not as_file.unsupported
