"""Ingest: find files, read each kind into text blocks, cut items at each granularity, index them."""
