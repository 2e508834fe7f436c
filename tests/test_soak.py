"""bench.soak's own bookkeeping: what it keeps must not grow inside the RSS it measures."""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.soak import Figures, glibc_split, pct, slope_per_10min
from streamtwin.service.native_memory import glibc

ROOT = Path(__file__).resolve().parent.parent


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
    before = glibc_split(glibc())
    blocks = [np.ones(2**17) for _ in range(64)]  # 64 MB in blocks of 1 MB
    during = glibc_split(glibc())
    assert during["malloc_used_mb"] - before["malloc_used_mb"] > 60
    del blocks
    after = glibc_split(glibc())
    assert after["malloc_used_mb"] - before["malloc_used_mb"] < 5


JEMALLOC_SPLIT = """
import json, numpy as np
from bench.soak import malloc_split
before = malloc_split()
blocks = [np.ones(2**17) for _ in range(64)]
during = malloc_split()
del blocks
print(json.dumps([before, during, malloc_split()]))
"""


@pytest.mark.skipif(ctypes.util.find_library("jemalloc") is None, reason="libjemalloc2 is not installed")
def test_under_jemalloc_the_split_comes_from_its_statistics():
    """As ``serve`` and the soak run when jemalloc is installed: its own account, not glibc's (all zero then)."""
    env = {**os.environ, "LD_PRELOAD": ctypes.util.find_library("jemalloc")}
    out = subprocess.run([sys.executable, "-c", JEMALLOC_SPLIT], env=env, cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=60)
    before, during, after = json.loads(out.stdout)
    assert during["malloc_used_mb"] - before["malloc_used_mb"] > 60
    assert after["malloc_used_mb"] - before["malloc_used_mb"] < 5
    assert min(before["malloc_held_mb"], during["malloc_held_mb"], after["malloc_held_mb"]) >= 0


def test_without_glibcs_figures_there_is_no_split_and_no_slope_of_it():
    assert glibc_split(None) == {}
    samples = [{"t": t, "rss_mb": 100.0 + t / 60} for t in (0.0, 300.0, 600.0)]
    assert slope_per_10min(samples, "malloc_used_mb") is None
    assert slope_per_10min(samples, "rss_mb") == pytest.approx(10.0)
