"""A vault of linked markdown notes (Obsidian style) as a property graph.

Notes become `Note` nodes (path, title, folder, words, front-matter fields), `#tags` and front-matter
tags become `Tag` nodes, and `[[wikilinks]]` / links to other `.md` files become `LINKS_TO`
relationships (a link to a note that does not exist yet gives a Note with `exists = false`, as
Obsidian shows it). The notes' text is indexed as documents too; the graph answers the questions
about structure: what links here, what is tagged so, which notes share a tag.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from pathlib import Path

from engine.ingest.graphs.model import Edge, GraphData, Node
from engine.ingest.textio import decode

NOTE_SUFFIXES = (".md", ".markdown")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_WIKILINK = re.compile(r"(?<!!)\[\[([^\]|#^\n]+)(?:[#^][^\]|\n]*)?(?:\|[^\]\n]*)?\]\]")
_MDLINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+\.md)(?:#[^)]*)?\)")
_TAG = re.compile(r"(?:(?<=\s)|^)#([A-Za-z][\w/-]*)", re.MULTILINE)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
RESERVED = {"path", "title", "folder", "words", "exists", "tags"}


def is_vault(folder: Path) -> bool:
    return (folder / ".obsidian").is_dir()


def has_links(text: str) -> bool:
    return bool(_WIKILINK.search(text))


def fingerprint(notes: list[Path]) -> str:
    """Changes when any note is added, removed or edited (size and mtime, like the indexer)."""
    digest = hashlib.sha256()
    for path in sorted(notes):
        try:
            st = path.stat()
        except OSError:
            continue
        digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def front_matter(text: str) -> tuple[dict, str]:
    """The YAML front matter as a dict (empty when absent or invalid) and the body after it."""
    import yaml

    m = _FRONT.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return {}, text[m.end():]
    return (data if isinstance(data, dict) else {}), text[m.end():]


def _plain(value: object) -> object:
    """Front-matter values Kùzu can hold: scalars, dates and lists of scalars; the rest as text."""
    if isinstance(value, (str, int, float, bool, dt.date)) or value is None:
        return value
    if isinstance(value, list):
        return [v if isinstance(v, (str, int, float, bool)) else str(v) for v in value]
    return str(value)


def _tags(meta: dict, body: str) -> list[str]:
    raw = meta.get("tags") or meta.get("tag") or []
    listed = raw if isinstance(raw, list) else re.split(r"[,\s]+", str(raw))
    inline = _TAG.findall(_CODE.sub(" ", body))
    return list(dict.fromkeys(t.strip().lstrip("#").lower() for t in [*map(str, listed), *inline] if t.strip()))


def read(folder: Path, notes: list[Path]) -> GraphData:
    """The graph of `notes` (paths under `folder`)."""
    graph = GraphData(keys={"Note": "path", "Tag": "name"})
    by_name: dict[str, str] = {}  # lower-case stem and relative path without suffix -> ref
    for path in notes:
        rel = path.relative_to(folder).as_posix()
        ref = f"note:{rel}"
        by_name.setdefault(path.stem.lower(), ref)
        by_name[rel.rsplit(".", 1)[0].lower()] = ref
    for path in sorted(notes):
        rel = path.relative_to(folder).as_posix()
        try:
            text = decode(path.read_bytes(), path)
        except Exception as exc:  # one unreadable note must not lose the vault
            graph.warnings.append(f"{rel}: not read ({exc})")
            continue
        meta, body = front_matter(text)
        props = {"path": rel, "title": str(meta.get("title") or path.stem), "folder": path.parent.relative_to(
            folder).as_posix() if path.parent != folder else "", "words": len(body.split()), "exists": True}
        props.update({k: _plain(v) for k, v in meta.items() if isinstance(k, str) and k.lower() not in RESERVED})
        note = graph.add_node(Node(f"note:{rel}", "Note", props))
        for tag in _tags(meta, body):
            graph.add_node(Node(f"tag:{tag}", "Tag", {"name": tag}))
            graph.edges.append(Edge(note.ref, f"tag:{tag}", "TAGGED"))
        linked = [t.strip() for t in _WIKILINK.findall(body)]
        linked += [(path.parent / t).resolve().relative_to(folder.resolve()).as_posix().rsplit(".", 1)[0]
                   for t in _MDLINK.findall(body) if _inside(path.parent / t, folder)]
        for target in dict.fromkeys(linked):
            key = target.lower().removesuffix(".md")
            found = by_name.get(key) or by_name.get(key.rsplit("/", 1)[-1])
            if found is None:
                found = f"note:{target}.md"
                graph.add_node(Node(found, "Note", {"path": f"{target}.md", "title": target.rsplit("/", 1)[-1],
                                                  "exists": False}))
            if found != note.ref:
                graph.edges.append(Edge(note.ref, found, "LINKS_TO"))
    graph.edges = [e for e in graph.edges if e.src in graph.nodes and e.dst in graph.nodes]  # unread notes
    return graph


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
