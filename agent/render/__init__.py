"""Pictures of the table: a pure function of a ``TableView`` (as python-chess renders a board)."""

from .table import SIDE_COLOURS, render_table

__all__ = ["render_table", "SIDE_COLOURS"]
