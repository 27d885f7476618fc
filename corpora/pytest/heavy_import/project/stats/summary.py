"""Summaries of measurements: a five-number summary, outliers, and a chart of them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def five_numbers(values: list[float]) -> tuple[float, float, float, float, float]:
    data = np.sort(np.asarray(values, dtype=float))
    low, q1, median, q3, high = np.percentile(data, [0, 25, 50, 75, 100])
    return float(low), float(q1), float(median), float(q3), float(high)


def outliers(values: list[float], reach: float = 1.5) -> list[float]:
    """Values more than ``reach`` interquartile ranges outside the quartiles."""
    _, q1, _, q3, _ = five_numbers(values)
    spread = q3 - q1
    return [v for v in values if v < q1 - reach * spread or v > q3 + reach * spread]


def histogram(values: list[float], bins: int = 5) -> list[int]:
    counts, _ = np.histogram(values, bins=bins - 1)
    return [int(c) for c in counts]


def chart(values: list[float], path: str) -> None:
    figure, axes = plt.subplots()
    axes.boxplot(values)
    axes.set_title(f"{len(values)} measurements")
    figure.savefig(path)
    plt.close(figure)
