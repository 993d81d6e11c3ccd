"""Sidecar subtitles: sloppy SRT and VTT, legacy encodings, which files belong to which video."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.videos.subtitles import (
    Cue,
    cues_between,
    find_sidecars,
    parse,
    read_sidecars,
    read_subtitles,
    transcript,
)

SRT = (
    "\ufeff1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Hello</i> there,\r\nfriend.\r\n\r\n"
    "7\r\n00:00:03.250 --> 00:00:04,000 X1:40 X2:600\r\n{\\an8}<font color=\"#ff0\">Numbering gap</font> &amp; dots\r\n"
    "8\r\n00:00:05,000 --> 00:00:06,000\r\nno blank line before me\r\n\r\n"
    "9\r\n00:00:07,000 -> 00:00:08,000\r\nbad arrow\r\n\r\n"
    "10\r\n00:00:09,000 --> 00:00:08,000\r\nends before it starts\r\n\r\n"
    "11\r\n00:00:99,000 --> 00:01:00,000\r\n99 seconds\r\n\r\n"
    "an orphan line with no timing\r\n\r\n"
    "12\r\n01:00:00,5 --> 01:00:01,75\r\nlast\r\n"
)

VTT = """WEBVTT - a title
Kind: captions

NOTE this is a comment
spanning lines --> with an arrow

STYLE
::cue { color: yellow }

intro
00:01.000 --> 00:02.000 align:start position:10%
<v Roger Bingham>We are in New York City

00:00:02.500 --> 00:00:04.000
<c.yellow>Caf&eacute;</c> <00:00:03.000><b>time</b>

3
00:00:05.000 --> 00:00:05.000
zero length
"""


def test_srt_is_parsed_despite_bom_crlf_tags_gaps_and_missing_blank_lines():
    cues, skipped = parse(SRT)
    assert [(c.start_s, c.end_s, c.text) for c in cues] == [
        (1.0, 2.5, "Hello there, friend."),
        (3.25, 4.0, "Numbering gap & dots"),
        (5.0, 6.0, "no blank line before me"),
        (3600.5, 3601.75, "last"),
    ]
    assert skipped == 4  # bad arrow, end < start, 99 seconds, the orphan line


def test_vtt_header_notes_styles_ids_settings_and_tags():
    cues, skipped = parse(VTT)
    assert [c.text for c in cues] == ["Roger Bingham: We are in New York City", "Café time", "zero length"]
    assert cues[0].start_s == 1.0 and cues[1].end_s == 4.0 and skipped == 0


def test_encodings_utf8_cp1252_latin1_and_binary(tmp_path: Path):
    body = "1\n00:00:01,000 --> 00:00:02,000\n“Café” – naïve\n"
    (tmp_path / "a.srt").write_bytes(body.encode("utf-8"))
    (tmp_path / "b.srt").write_bytes(body.encode("cp1252"))
    (tmp_path / "c.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\ncaf\xe9 \x81\n")  # 0x81: not cp1252
    (tmp_path / "d.vtt").write_bytes(("WEBVTT\n\n" + body[2:]).encode("utf-16"))
    (tmp_path / "e.srt").write_bytes(b"\x00\x01\x02\x03" * 100)
    a, b, c, d = (read_subtitles(tmp_path / n) for n in ("a.srt", "b.srt", "c.srt", "d.vtt"))
    assert a.cues[0].text == b.cues[0].text == d.cues[0].text == "“Café” – naïve"
    assert (a.encoding, b.encoding, c.encoding, d.encoding) == ("utf-8", "cp1252", "latin-1", "utf-16")
    assert c.cues[0].text.startswith("café")
    with pytest.raises(ParseError, match="binary"):
        read_subtitles(tmp_path / "e.srt")
    (tmp_path / "empty.srt").write_bytes(b"")
    assert read_subtitles(tmp_path / "empty.srt").cues == []


def test_sidecars_with_the_same_stem_belong_to_the_video(tmp_path: Path):
    for name in ["trip.mp4", "trip.srt", "trip.en.vtt", "Trip.FR.SRT", "trip.mp4.de.srt", "trip.final.mp4",
                 "trip.final.srt", "trip2.srt", "trip.txt", "other.srt"]:
        (tmp_path / name).write_text("1\n00:00:01,000 --> 00:00:02,000\nhi\n")
    found = {p.name: lang for p, lang in find_sidecars(tmp_path / "trip.mp4")}
    assert found == {"trip.srt": "", "trip.en.vtt": "en", "Trip.FR.SRT": "FR", "trip.mp4.de.srt": "de"}
    assert [p.name for p, _ in find_sidecars(tmp_path / "trip.final.mp4")] == ["trip.final.srt"]
    (tmp_path / "trip.en.vtt").write_bytes(b"\x00" * 50)
    subs = {s.path.name: s for s in read_sidecars(tmp_path / "trip.mp4")}
    assert "binary" in subs["trip.en.vtt"].problem and subs["trip.srt"].cues[0].text == "hi"
    assert find_sidecars(tmp_path / "missing" / "x.mp4") == []


def test_cues_between_takes_overlapping_cues_and_transcript_drops_repeats():
    cues = [Cue(0.0, 2.0, "a"), Cue(1.5, 4.0, "b"), Cue(4.0, 4.0, "c"), Cue(6.0, 7.0, "d"), Cue(7.0, 8.0, "d")]
    assert [c.text for c in cues_between(cues, 2.0, 4.0)] == ["b"]
    assert [c.text for c in cues_between(cues, 4.0, 6.0)] == ["c"]
    assert [c.text for c in cues_between(cues, 0.0, 1.0)] == ["a"]
    assert transcript(cues_between(cues, 5.0, 9.0)) == "d"
    assert transcript([]) == ""
