"""The rating history graph's geometry, drawn server-side as inline SVG (no script, no CDN).

x: the player's rated matches in order (1..n); y: the rating after each, with the starting
rating as the first point.  The template (ratings/_history_chart.html) draws the axes, their
labels, a few ticks and the line from what ``history_chart`` returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 600, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 40  # margins: room for the tick labels and axis titles


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along the axis
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    top: int
    right_edge: int
    bottom_edge: int
    points: str  # the polyline's "x,y x,y ..."
    dots: list[tuple[float, float, int]]  # each point with its rounded rating (titles)
    x_ticks: list[Tick]
    y_ticks: list[Tick]


def _nice_step(span: float, count: int = 4) -> float:
    raw = max(span / count, 1.0)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def history_chart(start: float, values: Sequence[float]) -> Chart:
    """The chart of a rating that began at ``start`` and was ``values`` after each match."""
    series = [start, *values]
    low, high = min(series), max(series)
    if high - low < 20:  # a flat history still gets a readable band around it
        low, high = low - 10, high + 10
    step = _nice_step(high - low)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM
    n = len(series) - 1

    def x(i: int) -> float:
        return round(x0 + (x1 - x0) * (i / n if n else 0.5), 1)

    def y(v: float) -> float:
        return round(y1 - (y1 - y0) * (v - low) / (high - low), 1)

    dots = [(x(i), y(v), round(v)) for i, v in enumerate(series)]
    y_ticks = []
    v = low
    while v <= high + 1e-9:
        y_ticks.append(Tick(y(v), f"{v:.0f}"))
        v += step
    x_step = max(1, math.ceil(n / 6)) if n else 1
    x_ticks = [Tick(x(i), str(i)) for i in range(0, n + 1, x_step)]
    return Chart(WIDTH, HEIGHT, x0, y0, x1, y1, " ".join(f"{a},{b}" for a, b, _ in dots), dots, x_ticks, y_ticks)
