"""A document's table grid read as a table: cleaned, titled, headed, its foot left out."""

from __future__ import annotations

from engine.ingest.parsers.grids import _titled, attached, cleaned, continues, table_of


def test_stacked_rows_split_only_when_every_filled_cell_holds_as_many_lines_and_sub_headings_join():
    grid = [["State", "Permit", "Note"], ["Alabama\nAlaska", "18,870\n209", None],
            ["Iowa", "Two lines\nof one note", "x"]]
    assert cleaned(grid) == [["State", "Permit", "Note"], ["Alabama", "18,870", ""], ["Alaska", "209", ""],
                              ["Iowa", "Two lines of one note", "x"]]
    titles, header, body = _titled([["Report", "", ""], ["Name", "Obligation dates", ""], ["", "Start", "End"],
                                    ["Bain", "03/04", "03/06"]])
    assert titles == ["Report"] and header == ["Name", "Obligation dates Start", "Obligation dates End"]
    assert body == [["Bain", "03/04", "03/06"]]


def test_a_merged_title_and_heading_repeated_across_their_cells_count_once():
    grid = [["Trip costs 2025", "Trip costs 2025", "Trip costs 2025"], ["Trip", "Cost", "Cost"],
            ["", "Planned", "Actual"], ["Lisbon", "800", "912.50"], ["Ghent", "300", "280"],
            ["Oslo", "1,200", "1,350"], ["Total", "2,300", "2,542.50"], ["All prices in euros", None, None]]
    table = table_of(grid, None)
    assert table is not None and table.titles == ["Trip costs 2025"]
    assert table.header == ["Trip", "Cost Planned", "Cost Actual"]
    assert [row[0] for row in table.rows] == ["Lisbon", "Ghent", "Oslo"]  # no totals row, no note
    (csv_file,) = attached([table])
    assert (csv_file.name, csv_file.page, csv_file.printed) == ("table 1.csv", None, True)
    assert csv_file.data.decode().splitlines()[0] == "Trip,Cost Planned,Cost Actual"


def test_a_layout_grid_or_one_without_a_header_is_no_table_and_a_next_page_grid_continues_one():
    assert table_of([["Dear Ana,", "I write about the flat."], ["Kind regards,", "Joost"]], 1) is None  # layout
    assert table_of([["1", "2"], ["3", "4"], ["5", "6"], ["7", "8"]], 1) is None  # numbers, no header
    words = table_of([["Name", "Role"], ["Ana", "Chair"], ["Ben", "Treasurer"], ["Cas", "Member"]], None)
    assert words is not None and words.header == ["Name", "Role"] and len(words.rows) == 3  # no sub-heading
    table = table_of([["Name", "Age"], ["Ana", "31"], ["Ben", "40"], ["Cas", "25"]], 4)
    assert table is not None
    assert continues(table, [["Dirk", "52"], ["Eva", "19"]], 5) and table.last_page == 5
    assert not continues(table, [["Fien", "33"]], 7)  # not the next page
    assert table.place(2) == "table 2 on pages 4-5"
