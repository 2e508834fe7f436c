"""bench.soak's own bookkeeping: what it keeps must not grow inside the RSS it measures."""

from __future__ import annotations

import numpy as np

from bench.soak import Figures, pct


def test_figures_keep_a_fixed_buffer_and_the_newest_values():
    figures = Figures(capacity=4)
    held = figures._values.nbytes
    for value in range(10):
        figures.append(value / 1000)
    assert figures._values.nbytes == held
    assert len(figures) == 4
    assert sorted(figures.values()) == [0.006, 0.007, 0.008, 0.009]
    assert pct(figures, 100) == 9.0


def test_no_figures_no_percentile():
    figures = Figures(capacity=4)
    assert len(figures) == 0 and pct(figures, 99) is None
    figures.append(0.002)
    assert np.isclose(pct(figures, 50), 2.0)
