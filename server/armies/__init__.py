"""Command-line tools over the operator's army data (``python -m server.armies``)."""
