"""Trove as a local service: an HTTP API (`trove serve`) and an MCP server (`trove mcp`) over one
warm `Trove`, for the other programs on the machine."""
