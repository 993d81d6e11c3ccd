"""Property graphs from the user's files (Cypher CREATE scripts, GraphML, node/edge CSV pairs, a
vault of linked markdown notes), parsed into one neutral `GraphData` that the Kùzu store loads."""

from engine.ingest.graphs.model import Edge, GraphData, Node

__all__ = ["Edge", "GraphData", "Node"]
