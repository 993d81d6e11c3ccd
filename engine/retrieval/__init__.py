"""Retrieval in the text corpora: BM25 (FTS5) and dense (sqlite-vec), fused."""
