"""Neo4j over Bolt, tested for what can be without a Neo4j server (none installs here): URLs keep
no password, writes are refused before anything is sent, a server that is not there is named, and
a graph server's URL picks its store. The contract suite runs where TROVE_TEST_NEO4J_URL names a server."""

from __future__ import annotations

import socket

import pytest

from engine.native.kinds import KINDS
from local_stores.falkordb_graph import FalkorGraph
from local_stores.neo4j_graph import Neo4jGraph, safe_url
from local_stores.results import QueryRefused, Unreachable


def _closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_urls_keep_no_password_and_name_their_database():
    assert safe_url("bolt://reader@graphs.office.lan:7687/family") == "bolt://reader@graphs.office.lan:7687/family"
    with pytest.raises(ValueError, match="NEO4J_PASSWORD"):
        safe_url("neo4j://reader:hunter2@graphs.office.lan/family")
    with pytest.raises(ValueError, match="not a Neo4j URL"):
        safe_url("http://graphs.office.lan:7474/family")
    graph = Neo4jGraph("neo4j+s://reader@graphs.office.lan/family")
    assert (graph.database, graph.user, graph.where) == ("family", "reader", "graphs.office.lan:7687")
    assert Neo4jGraph("bolt://reader@127.0.0.1:7687").database is None  # the server's default database


def test_writes_and_second_statements_are_refused_before_anything_is_sent():
    graph = Neo4jGraph(f"bolt://reader@127.0.0.1:{_closed_port()}/family")  # nothing listens: nothing is sent
    for query in ("MATCH (p:Person) DETACH DELETE p", "CREATE (:Person {name: 'x'})",
                  "MATCH (p) RETURN p; MATCH (p) DELETE p", "CALL dbms.security.createUser('x', 'y')"):
        with pytest.raises(QueryRefused):
            graph.execute(query)


def test_a_server_that_is_not_there_is_named():
    port = _closed_port()
    graph = Neo4jGraph(f"bolt://reader@127.0.0.1:{port}/family")
    with pytest.raises(Unreachable, match=f"Neo4j at 127.0.0.1:{port}"):
        graph.execute("MATCH (p:Person) RETURN count(p)")
    with pytest.raises(Unreachable, match="Neo4j at"):
        graph.describe()


def test_a_graph_servers_url_picks_its_store():
    connect = KINDS["cypher"].connect
    assert connect is not None
    assert isinstance(connect("bolt://reader@127.0.0.1:7687/family", {}), Neo4jGraph)
    assert isinstance(connect("neo4j://reader@127.0.0.1/family", {}), Neo4jGraph)
    assert isinstance(connect("falkordb://127.0.0.1:6379/family", {}), FalkorGraph)
