"""bench.soak's own bookkeeping: what it keeps must not grow inside the RSS it measures."""

from __future__ import annotations

import numpy as np
import pytest

from bench.soak import Figures, malloc_split, pct, slope_per_10min
from pipeline.memory import glibc


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


@pytest.mark.skipif(glibc() is None or not hasattr(glibc(), "mallinfo2"), reason="glibc 2.33+ only")
def test_malloc_split_tells_memory_in_use_from_memory_freed_and_held():
    before = malloc_split(glibc())
    blocks = [np.ones(2**17) for _ in range(64)]  # 64 MB in blocks of 1 MB
    during = malloc_split(glibc())
    assert during["malloc_used_mb"] - before["malloc_used_mb"] > 60
    del blocks
    after = malloc_split(glibc())
    assert after["malloc_used_mb"] - before["malloc_used_mb"] < 5


def test_without_glibcs_figures_there_is_no_split_and_no_slope_of_it():
    assert malloc_split(None) == {}
    samples = [{"t": t, "rss_mb": 100.0 + t / 60} for t in (0.0, 300.0, 600.0)]
    assert slope_per_10min(samples, "malloc_used_mb") is None
    assert slope_per_10min(samples, "rss_mb") == pytest.approx(10.0)
