"""Pictures of the table: a pure function of a ``TableView`` (as python-chess renders a board)."""

from .table import SIDE_COLOURS, draw_table, render_panels, render_table

__all__ = ["render_table", "render_panels", "draw_table", "SIDE_COLOURS"]
