"""The value index: values kept per source under their lower-cased text, replaced, looked up, dropped."""

from __future__ import annotations

from engine.native.values import KEYS_VERSION
from local_stores.index_database import IndexDatabase
from local_stores.value_index import ValueIndex, keys
from tests.local_stores.index_databases import index_db  # noqa: F401 (the fixture)
from tests.postgres_server import postgres  # noqa: F401 (the server the postgres index_db needs)


def test_values_are_replaced_looked_up_by_lower_case_and_dropped(index_db: IndexDatabase):  # noqa: F811
    index = ValueIndex(index_db)
    assert index.replace("trips", "s1", [("Aberdeen ", "trips.city"), ("ABERDEEN", "trips.city"), ("", "trips.x"),
                                         ("Oslo", "trips.city")]) == 2
    index.replace("people", "s1", [("aberdeen", "person.home")])
    assert index.lookup(["aberdeen", "bergen"]) == [("aberdeen", "people", "person.home", "aberdeen"),
                                                    ("aberdeen", "trips", "trips.city", "ABERDEEN")]
    assert index.stamps() == {"trips": "s1", "people": "s1"} and index.sources() == 2
    index.replace("trips", "s2", [("Bergen", "trips.city")])
    index.drop("people")
    assert index.lookup(["aberdeen", "bergen"]) == [("bergen", "trips", "trips.city", "Bergen")]
    assert index.stamps() == {"trips": "s2"} and index.lookup([]) == []
    again = ValueIndex(index_db)  # kept: its schema is made once
    assert again.stamps() == {"trips": "s2"}


def test_values_holding_a_word_among_others_are_found_by_that_word(index_db: IndexDatabase):  # noqa: F811
    index = ValueIndex(index_db)
    index.replace("movies", "s1", [("Cuba Gooding Jr.", "Person.name"), ("Tom Hanks", "Person.name"),
                                   ("Cubano", "Movie.title"), ("Cuba", "Place.name"),
                                   ("100% Cuba Libre", "Drink.name")])
    index.replace("other", "s1", [("Cuba Gooding Sr.", "Person.name")])
    assert index.containing("movies", "cuba", 5) == [("Drink.name", "100% Cuba Libre"),
                                                     ("Person.name", "Cuba Gooding Jr.")]
    assert index.containing("movies", "hanks", 5) == [("Person.name", "Tom Hanks")]
    assert index.containing("movies", "100%", 5) == [("Drink.name", "100% Cuba Libre")]
    assert index.containing("movies", "_uba", 5) == []  # LIKE's wildcards in the word are plain characters
    assert index.containing("movies", "cuba", 1) == [("Drink.name", "100% Cuba Libre")]


def test_values_are_found_by_how_they_begin(index_db: IndexDatabase):  # noqa: F811
    index = ValueIndex(index_db)
    index.replace("towns", "s1", [("Franklin County", "towns.county"), ("Franklin County.", "towns.county"),
                                  ("Franklin", "towns.town_name"), ("Frankfort_1", "towns.town_name")])
    assert index.starting("towns", "franklin county", 5) == [("towns.county", "Franklin County"),
                                                              ("towns.county", "Franklin County.")]
    assert index.starting("towns", "frank", 2) == [("towns.county", "Franklin County"),
                                                   ("towns.county", "Franklin County.")]
    assert index.starting("towns", "frankfort_", 5) == [("towns.town_name", "Frankfort_1")]
    assert index.starting("towns", "frankli_", 5) == []  # LIKE's wildcards in the text are plain characters


def test_a_value_with_a_qualifier_in_brackets_is_found_without_it(index_db: IndexDatabase):  # noqa: F811
    """WTQ's diving results write "Kelly McCormick (USA)"; a question names "Kelly McCormick", and the
    table that holds her was not the one chosen (unseen set)."""
    index = ValueIndex(index_db)
    assert index.replace("diving", "s1", [("Kelly McCormick (USA) ", "diving.diver"), ("(none)", "diving.x"),
                                          ("Kelly McCormick (USA)", "diving.diver")]) == 2
    assert index.lookup(["kelly mccormick"]) == [("kelly mccormick", "diving", "diving.diver",
                                                  "Kelly McCormick (USA)")]
    assert index.lookup(["kelly mccormick (usa)"])[0][3] == "Kelly McCormick (USA)"
    assert index.lookup(["none"]) == []  # a value that is all qualifier keeps its whole text only


def test_a_title_written_between_quotes_is_found_without_them(index_db: IndexDatabase):  # noqa: F811
    """A WTQ track list writes "\"Part of Your World\""; the question quotes part of your world, and
    the table that holds it was not chosen (the sampled WTQ set)."""
    index = ValueIndex(index_db)
    titles = [('"Part of Your World"', "songs.title"), ("“Kiss the Girl”", "songs.title")]
    assert index.replace("songs", "s1", titles) == 2
    assert index.lookup(["part of your world"]) == [("part of your world", "songs", "songs.title",
                                                     '"Part of Your World"')]
    assert index.lookup(["kiss the girl"])[0][3] == "“Kiss the Girl”"
    assert index.lookup(['"part of your world"'])[0][3] == '"Part of Your World"'


# What keys() gives for each probe at the current engine.native.values.KEYS_VERSION. A change to keys()
# that changes these must raise KEYS_VERSION (and record them again here): otherwise indexes built
# before keep their old keys, and a value keyed the new way is never found in them.
KEYED_AT_VERSION = (3, {
    "Kelly McCormick (USA)": ["kelly mccormick (usa)", "kelly mccormick"],
    '"Part of Your World"': ['"part of your world"', "part of your world"],
    "“Kiss the Girl” (single)": ["“kiss the girl” (single)", "“kiss the girl”", "kiss the girl” (single)",
                                 "kiss the girl"],
    "  New York ": ["new york"],
})


def test_a_change_to_how_values_are_keyed_raises_the_keys_version():
    version, keyed = KEYED_AT_VERSION
    assert version == KEYS_VERSION, "record what keys() gives at the new KEYS_VERSION in KEYED_AT_VERSION"
    assert {value: keys(value) for value in keyed} == keyed, "keys() changed: raise KEYS_VERSION, record them"
