"""A folder of linked markdown notes becomes a Note/Tag graph beside the notes' text, rebuilt only
when a note changes and gone when its folder is removed."""

from __future__ import annotations

import os
from pathlib import Path

from engine.ingest.graphs import vault

NOTES = {
    "Garden.md": "---\ntitle: Garden plan\ntags: [home, outdoors]\nplanted: 2025-04-12\n---\n"
                 "Tomatoes along the fence. See [[Compost]] and [[Seeds|the seed list]]. #summer\n",
    "Compost.md": "Turn it weekly. Feeds the [[Garden]].\n```\n#not-a-tag in code\n```\n",
    "projects/Seeds.md": "Order from [the shop](../Shops.md). Back to [[Garden#Beds]]. #summer\n",
    "Lonely.md": "Links nowhere, mentions [[Orchard]] which has no note yet.\n",
}


def _write(folder: Path) -> list[Path]:
    paths = []
    for rel, text in NOTES.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    return paths


def test_notes_links_tags_and_front_matter(tmp_path: Path):
    paths = _write(tmp_path)
    g = vault.read(tmp_path, paths)
    notes = {n.props["path"]: n.props for n in g.nodes.values() if n.label == "Note"}
    assert notes["Garden.md"]["title"] == "Garden plan" and str(notes["Garden.md"]["planted"]) == "2025-04-12"
    assert notes["Orchard.md"]["exists"] is False and notes["projects/Seeds.md"]["folder"] == "projects"
    links = {(g.nodes[e.src].props["path"], g.nodes[e.dst].props["path"]) for e in g.edges if e.type == "LINKS_TO"}
    assert links == {("Garden.md", "Compost.md"), ("Garden.md", "projects/Seeds.md"), ("Compost.md", "Garden.md"),
                     ("projects/Seeds.md", "Garden.md"), ("projects/Seeds.md", "Shops.md"), ("Lonely.md", "Orchard.md")}
    tags = {(g.nodes[e.src].props["path"], g.nodes[e.dst].props["name"]) for e in g.edges if e.type == "TAGGED"}
    assert ("Garden.md", "outdoors") in tags and ("projects/Seeds.md", "summer") in tags
    assert not any(t == "not-a-tag" for _, t in tags)


def test_vault_is_indexed_queried_rebuilt_on_change_and_removed(trove, tmp_path: Path):  # noqa: ANN001
    folder = tmp_path / "vault"
    paths = _write(folder)
    (folder / ".obsidian").mkdir()
    trove.index([folder])
    [graph] = [g for g in trove.status()["graphs"] if g["format"] == "vault"]
    assert graph["nodes"] == {"Note": 6, "Tag": 3} and graph["relationships"]["LINKS_TO"] == 6
    rows = trove.query(graph["name"], "MATCH (n:Note)-[:LINKS_TO]->(m:Note) WHERE m.title = 'Garden plan' "
                                      "RETURN n.path ORDER BY n.path").rows
    assert rows == [("Compost.md",), ("projects/Seeds.md",)]
    assert trove.status()["corpora"]["text/paragraph"] >= 4  # the notes' text is searchable too

    def graphs() -> list[dict]:
        return [s for s in trove.catalog.sources() if s["kind"] == "graph"]

    before = graphs()
    trove.index()
    assert graphs() == before  # nothing changed: nothing rebuilt

    paths[3].write_text("Now links to [[Garden]] too.\n")
    os.utime(paths[3], ns=(paths[3].stat().st_atime_ns, paths[3].stat().st_mtime_ns + 10**9))
    trove.index()
    rows = trove.query(graph["name"], "MATCH (n:Note)-[:LINKS_TO]->(m:Note {path: 'Garden.md'}) RETURN count(*)").rows
    assert rows == [(3,)]

    trove.remove(folder)
    assert trove.status()["graphs"] == [] and trove.stores.graphs.names() == []


def test_notes_that_do_not_link_are_not_a_graph_and_are_not_reread(trove, tmp_path: Path, monkeypatch):  # noqa: ANN001
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.md").write_text("Just a note.")
    (folder / "b.md").write_text("Another note, mentioning [[a]] once.")
    reads = []
    real_read = vault.read
    monkeypatch.setattr(vault, "read", lambda *args: reads.append(args) or real_read(*args))
    trove.index([folder])
    assert trove.status()["graphs"] == [] and len(reads) == 1
    trove.index()
    assert len(reads) == 1  # unchanged notes: the earlier decision stands
