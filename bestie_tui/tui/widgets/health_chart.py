"""``HealthChart``: the health trend as a bar chart on a fixed 0–100 scale with a labelled axis.

Textual's ``Sparkline`` scales between the lowest and highest value shown, so a dip from 100 to 96
looks like a crash and the floor moves with every snapshot; health is a 0–100 score, so this chart
draws it against 0–100 always. It holds the last ``points`` values, newest on the right, padded
with empty columns on the left so its width never changes as snapshots accumulate.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

#: Lower eighth blocks: a cell filled 1/8 … 7/8 from the bottom (a full cell is "█").
EIGHTHS = "▁▂▃▄▅▆▇"
#: Columns per snapshot.
BAR_WIDTH = 2
#: Axis label column width, e.g. "100 ┤".
AXIS_WIDTH = 5


class HealthChart(Widget):
    """Bars of health scores (0–100) on a fixed scale; ``show(values)`` redraws it.

    Args:
        points: snapshots drawn (the width is ``AXIS_WIDTH + BAR_WIDTH * points`` cells).
        rows: chart height in lines (each line holds 8 levels).
    """

    DEFAULT_CSS = """
    HealthChart {
        width: auto;
        height: auto;
    }
    """
    COMPONENT_CLASSES = {"health-chart--axis", "health-chart--good", "health-chart--fair", "health-chart--poor"}
    #: Lowest score of the good and fair bands (colour only; the caption gives the figures).
    GOOD, FAIR = 80.0, 50.0

    def __init__(self, points: int = 26, rows: int = 3, **kwargs) -> None:
        super().__init__(**kwargs)
        self.points, self.rows = points, rows
        self.values: list[float] = []

    def show(self, values: Sequence[float]) -> None:
        """Draw the last ``points`` of ``values`` (oldest first)."""
        self.values = [float(v) for v in values][-self.points:]
        self.refresh()

    def get_content_width(self, container, viewport) -> int:
        return AXIS_WIDTH + BAR_WIDTH * self.points

    def get_content_height(self, container, viewport, width) -> int:
        return self.rows

    def level(self, value: float) -> int:
        """Eighths of the chart's height filled by ``value``: ``round(value / 100 * rows * 8)``,
        at least 1 so that a snapshot at 0 is still visible beside an empty slot."""
        clamped = min(100.0, max(0.0, value))
        return max(1, round(clamped / 100 * self.rows * 8))

    def render(self) -> Text:
        axis = self.get_component_rich_style("health-chart--axis", partial=True)
        padding = self.points - len(self.values)
        lines = []
        for row in range(self.rows):  # top row first
            floor = (self.rows - 1 - row) * 8
            label = 100 * (self.rows - row) // self.rows if row < self.rows - 1 else 0
            if 0 < row < self.rows - 1:  # middle rows are labelled by their centre, e.g. 50
                label = round(100 * (self.rows - row - 0.5) / self.rows)
            line = Text(f"{label:>3} ┤", style=axis, no_wrap=True, overflow="crop")
            line.append(" " * BAR_WIDTH * padding)
            for value in self.values:
                filled = self.level(value) - floor
                cell = "█" if filled >= 8 else " " if filled <= 0 else EIGHTHS[filled - 1]
                line.append(cell * BAR_WIDTH, style=self._band_style(value) if cell != " " else None)
            lines.append(line)
        return Text("\n", no_wrap=True).join(lines)

    def _band_style(self, value: float):
        band = "good" if value >= self.GOOD else "fair" if value >= self.FAIR else "poor"
        return self.get_component_rich_style(f"health-chart--{band}", partial=True)
