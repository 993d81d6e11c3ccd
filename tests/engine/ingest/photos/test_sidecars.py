"""Captions people already wrote: sidecar files and the alt text of notes that embed a photo."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from engine.ingest.photos.sidecars import caption, image_refs, photo_of


def _photo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (32, 32)).save(path)
    return path


def test_sidecars_belong_to_the_photo_beside_them(tmp_path: Path):
    photo = _photo(tmp_path / "IMG_1.jpg")
    (tmp_path / "IMG_1.txt").write_text("Breakfast at the café.\n")
    (tmp_path / "IMG_1.jpg.json").write_text(json.dumps({"title": "IMG_1.jpg", "description": "Lisbon, day two",
                                                          "people": [{"name": "Priya"}], "views": 3}))
    (tmp_path / "IMG_1.xmp").write_text('<x:xmpmeta><dc:description><rdf:Alt><rdf:li xml:lang="x-default">'
                                        "Tram 28 at Martim Moniz</rdf:li></rdf:Alt></dc:description></x:xmpmeta>")
    (tmp_path / "todo.txt").write_text("not a caption")
    assert photo_of(tmp_path / "IMG_1.txt") == photo
    assert photo_of(tmp_path / "IMG_1.jpg.json") == photo
    assert photo_of(tmp_path / "todo.txt") is None
    text = caption(photo)
    for said in ("Breakfast at the café.", "Lisbon, day two", "Priya", "Tram 28 at Martim Moniz"):
        assert said in text
    assert "views" not in text


def test_a_broken_json_sidecar_is_ignored(tmp_path: Path):
    photo = _photo(tmp_path / "a.png")
    (tmp_path / "a.json").write_text("{not json")
    assert caption(photo) == ""


def test_notes_embed_photos_with_alt_text(tmp_path: Path):
    note = tmp_path / "notes" / "cat.md"
    note.parent.mkdir()
    photo = _photo(tmp_path / "photos" / "chelsea window.jpg")
    markdown = ("Our cat.\n\n![Chelsea asleep on the windowsill](../photos/chelsea%20window.jpg)\n"
                "![](../photos/no-alt.jpg) ![remote](https://example.org/x.jpg) ![[cat.png|Chelsea again]]\n")
    refs = image_refs(markdown, note)
    assert (photo.resolve(), "Chelsea asleep on the windowsill") in refs
    assert (note.parent / "cat.png", "Chelsea again") in [(p, a) for p, a in refs]
    assert all("example.org" not in str(p) for p, _ in refs)
    assert all(a for _, a in refs)  # an image with no alt text says nothing
