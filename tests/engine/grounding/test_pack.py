"""Knowledge packs: a valid pack loads with resolved paths; each mistake names the file and the field."""

from pathlib import Path

import pytest
import yaml
from PIL import Image

from engine.errors import ParseError
from engine.grounding import Inventory, find_packs, is_pack_file, load_pack


def _photo(path: Path, size: tuple[int, int] = (200, 100), orientation: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.new("RGB", size, (120, 80, 40))
    if orientation is None:
        image.save(path)
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        image.save(path, exif=exif)
    return path


def _write(folder: Path, data: object, name: str = "trove-pack.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _pack(**element: object) -> dict:
    return {"entities": [{"name": "Chelsea", "kind": "pet", "reference_photos": ["refs/chelsea.jpg"],
                          "elements": [{"name": "tabby fur", **element}]}]}


def test_valid_pack_loads_with_photos_resolved_relative_to_the_pack(tmp_path: Path):
    photo = _photo(tmp_path / "pets" / "refs" / "chelsea.jpg")
    pack = load_pack(_write(tmp_path / "pets", {
        "name": "Our household",
        "entities": [
            {"name": "Chelsea", "kind": "pet", "description": "Our tabby cat.",
             "reference_photos": ["refs/chelsea.jpg"],
             "elements": [{"name": "tabby fur", "description": "orange-brown fur", "labels": ["Cat"],
                           "box": [10, 5, 120, 90]},
                          {"name": "red collar", "labels": "cat", "text": ["BELL"]}]},
            {"name": "Grandpa's bicycle", "description": "a black Dutch bicycle"},
        ]}))
    assert pack.name == "Our household"
    chelsea, bicycle = pack.entities
    assert chelsea.reference_photos == (photo.resolve(),)
    fur, collar = chelsea.elements
    assert fur.box == (10.0, 5.0, 120.0, 90.0) and fur.labels == ("Cat",) and collar.box is None
    assert collar.labels == ("cat",) and collar.text == ("BELL",)
    # an entity without elements is one element: itself
    assert [(e.name, e.description) for e in bicycle.elements] == [("Grandpa's bicycle", "a black Dutch bicycle")]

    inventory = Inventory.from_packs([pack])
    assert [e.id for e in inventory.elements] == ["Chelsea/tabby fur", "Chelsea/red collar",
                                                  "Grandpa's bicycle/Grandpa's bicycle"]
    fur_el, collar_el, _ = inventory.elements
    assert fur_el.labels == ("cat",) and fur_el.title == "Chelsea \u2014 tabby fur"
    assert inventory.elements[2].title == "Grandpa's bicycle"
    assert [(r.photo, r.box) for r in fur_el.references] == [(photo.resolve(), (10.0, 5.0, 120.0, 90.0))]
    assert [(r.photo, r.box) for r in collar_el.references] == [(photo.resolve(), None)]


def test_pack_files_are_found_by_name(tmp_path: Path):
    _write(tmp_path / "a", {"entities": [{"name": "x"}]})
    _write(tmp_path / "b", {"entities": [{"name": "y"}]}, name="Shop.trove-pack.yaml")
    _write(tmp_path / "b", {"entities": []}, name="other.yaml")
    assert [p.relative_to(tmp_path).as_posix() for p in find_packs(tmp_path)] == ["a/trove-pack.yaml",
                                                                                 "b/Shop.trove-pack.yaml"]
    assert not is_pack_file(Path("trove-pack.yml"))


def test_box_is_checked_against_the_photo_as_displayed(tmp_path: Path):
    # stored 200x100 but EXIF says "rotate 90°": displayed 100x200, so y2 = 150 fits and x2 = 150 does not
    _photo(tmp_path / "refs" / "chelsea.jpg", orientation=6)
    assert load_pack(_write(tmp_path, _pack(box=[0, 0, 90, 150]))).entities[0].elements[0].box == (0, 0, 90, 150)
    with pytest.raises(ParseError, match=r"elements\[0\]\.box: \[0, 0, 150, 90\] lies outside chelsea.jpg \(100x200"):
        load_pack(_write(tmp_path, _pack(box=[0, 0, 150, 90])))


@pytest.mark.parametrize(("data", "message"), [
    (None, r"trove-pack.yaml: the knowledge pack is empty"),
    ("entities: [name: x", r"trove-pack.yaml: not valid YAML at line \d"),
    ({"name": "x"}, r"trove-pack.yaml: entities: missing or empty"),
    ({"entities": [{"kind": "pet"}]}, r"entities\[0\]\.name: missing"),
    ({"entities": [{"name": "a", "elements": [{"description": "no name"}]}]},
     r"entities\[0\]\.elements\[0\]\.name: missing"),
    ({"entities": [{"name": "a", "reference_photos": ["refs/nope.jpg"]}]},
     r"entities\[0\]\.reference_photos\[0\]: reference photo not found: .*refs/nope.jpg \(paths are relative"),
    (_pack(box=[1, 2, 3]), r"entities\[0\]\.elements\[0\]\.box: must be 4 numbers \[x1, y1, x2, y2\].*\[1, 2, 3\]"),
    (_pack(box=[1, 2, "3", 4]), r"elements\[0\]\.box: must be 4 numbers"),
    (_pack(box=[50, 2, 10, 40]), r"elements\[0\]\.box: needs 0 <= x1 < x2"),
    (_pack(box=[0, 0, 10, 400]), r"elements\[0\]\.box: \[0, 0, 10, 400\] lies outside chelsea.jpg \(200x100"),
    ({"entities": [{"name": "a", "elements": [{"name": "b", "box": [0, 0, 5, 5]}]}]},
     r"elements\[0\]\.box: a box needs a reference photo"),
    (_pack(labels=["cat", 3]), r"elements\[0\]\.labels: must be a list of non-empty strings"),
    ({"entities": [{"name": "a", "referance_photos": []}]}, r"entities\[0\]\.referance_photos: unknown field"),
    ({"entities": [{"name": "a"}, {"name": "A"}]}, r"entities\[1\]\.name: 'A' is listed twice"),
    ({"entities": [{"name": "a", "elements": [{"name": "b"}, {"name": "b"}]}]},
     r"entities\[0\]\.elements\[1\]\.name: 'b' is listed twice in 'a'"),
    ({"entities": [{"name": "a", "elements": []}]}, r"entities\[0\]\.elements: must be a non-empty list"),
    (["a", "b"], r"trove-pack.yaml: the knowledge pack must be a mapping"),
])
def test_each_mistake_is_reported_with_the_file_and_the_field(tmp_path: Path, data: object, message: str):
    _photo(tmp_path / "refs" / "chelsea.jpg")
    path = _write(tmp_path, "" if data is None else data)
    with pytest.raises(ParseError, match=message) as info:
        load_pack(path)
    assert str(info.value).startswith(str(path))


def test_missing_pack_file_is_a_parse_error(tmp_path: Path):
    with pytest.raises(ParseError, match="cannot read the knowledge pack"):
        load_pack(tmp_path / "trove-pack.yaml")
