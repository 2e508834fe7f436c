"""Resemblyzer's speaker encoder in plain numpy: 256-dim voice embeddings, no torch.

The PyPI package ``resemblyzer==0.1.4`` (Apache-2.0, installed with ``--no-deps`` from
requirements-models.txt: its dependencies would pull torch and librosa) ships
``resemblyzer/pretrained.pt``, a 3-layer LSTM (40 -> 256) + linear (256 -> 256) + ReLU + L2 norm
trained for speaker verification (GE2E).  The file is torch's old (pre-zip) serialisation: a few
pickles, then the raw storages.  :func:`load_weights` reads it with :mod:`pickle` and numpy only,
refusing every global but the three such a checkpoint names.

Everything here follows resemblyzer's own code (``audio.py``, ``voice_encoder.py``, ``hparams.py``)
exactly: a power mel spectrogram (not log) of 40 bands, 25 ms Hann windows every 10 ms at 16 kHz,
as ``librosa.feature.melspectrogram`` computes it (centred frames, zero padding as librosa >= 0.10
pads, Slaney mel scale and norm); partials of 160 frames (1.6 s) starting every 77 frames
(``rate=1.3`` per second, about 50% overlap), the last one kept if at least 75% covered, each
embedded from a zero LSTM state; the utterance embedding is their mean, L2-normalised again.  The
volume is raised to -30 dBFS if quieter (``normalize_volume(increase_only=True)``).  Resemblyzer
also cuts long silences with webrtcvad; the utterances given here are already cut by Silero VAD.

Pure computation, no I/O after loading: callers run it off the event loop.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import pickle
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from streamtwin.speech.asr_models import ModelLoadError

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
N_MELS = 40
PARTIAL_FRAMES = 160  # 1.6 s
PARTIAL_STEP = int(round(SAMPLE_RATE / 1.3 / HOP))  # 77 frames: resemblyzer's default rate of 1.3 partials/s
MIN_COVERAGE = 0.75
TARGET_DBFS = -30.0
HIDDEN = 256
LAYERS = 3
EMBEDDING_SIZE = 256
INT16_MAX = 2**15 - 1


class EncoderUnavailable(ModelLoadError):
    """The resemblyzer package (its weights) is not installed, or its file is not what we expect
    (a model that cannot load: the CLI says so in one line, as for a speech model)."""


# --- weights -------------------------------------------------------------------------------------


def weights_path() -> Path:
    """``pretrained.pt`` inside the installed resemblyzer package (never imported: it needs torch)."""
    spec = importlib.util.find_spec("resemblyzer")
    if spec is None or not spec.submodule_search_locations:
        raise EncoderUnavailable(
            "speaker labels need the resemblyzer package: pip install --no-deps -r requirements-models.txt"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "pretrained.pt"
    if not path.is_file():
        raise EncoderUnavailable(f"resemblyzer is installed but {path} is missing")
    return path


@dataclass
class _Storage:
    key: str
    numel: int
    data: np.ndarray | None = None


def _rebuild_tensor(storage: _Storage, offset: int, size: tuple[int, ...], stride: tuple[int, ...], *_: Any) -> Any:
    return lambda: np.lib.stride_tricks.as_strided(
        storage.data[offset:], shape=size, strides=tuple(4 * s for s in stride)  # type: ignore[index]
    ).copy()


class _FloatStorage:  # a marker: the only storage type the checkpoint holds
    pass


class _CheckpointUnpickler(pickle.Unpickler):
    _ALLOWED = {
        ("collections", "OrderedDict"): OrderedDict,
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
        ("torch", "FloatStorage"): _FloatStorage,
    }

    def __init__(self, file: BinaryIO) -> None:
        super().__init__(file)
        self.storages: dict[str, _Storage] = {}

    def find_class(self, module: str, name: str) -> Any:
        try:
            return self._ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"unexpected global {module}.{name} in the speaker weights") from None

    def persistent_load(self, pid: Any) -> _Storage:
        kind, storage_type, key, _location, numel, _view = pid
        if kind != "storage" or storage_type is not _FloatStorage:
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        return self.storages.setdefault(key, _Storage(key, numel))


def load_weights(path: Path | None = None) -> dict[str, np.ndarray]:
    """The encoder's ``model_state`` as float32 arrays, from torch's legacy file format."""
    path = path or weights_path()
    with open(path, "rb") as f:
        magic = pickle.load(f)
        if magic != 0x1950A86A20F9469CFC6C:
            raise EncoderUnavailable(f"{path} is not a torch checkpoint of the old format")
        pickle.load(f)  # protocol version
        sys_info = pickle.load(f)
        if not sys_info.get("little_endian", False):
            raise EncoderUnavailable(f"{path} was saved big-endian")
        unpickler = _CheckpointUnpickler(f)
        checkpoint = unpickler.load()
        for key in pickle.load(f):  # the storages follow in this order: int64 count, then the floats
            storage = unpickler.storages[key]
            count = int(np.frombuffer(f.read(8), dtype="<i8")[0])
            storage.data = np.frombuffer(f.read(4 * count), dtype="<f4")
            if count != storage.numel or storage.data.size != count:
                raise EncoderUnavailable(f"{path}: storage {key} is truncated")
    state = checkpoint["model_state"]
    return {name: np.asarray(make(), dtype=np.float32) for name, make in state.items()}


# --- features -------------------------------------------------------------------------------------


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, logarithmic above."""
    hz = np.asarray(hz, dtype=np.float64)
    mel = hz / (200.0 / 3)
    log_region = hz >= 1000.0
    mel[log_region] = 15.0 + np.log(hz[log_region] / 1000.0) / (np.log(6.4) / 27.0)
    return mel


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, dtype=np.float64)
    hz = mel * (200.0 / 3)
    log_region = mel >= 15.0
    hz[log_region] = 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel[log_region] - 15.0))
    return hz


@functools.lru_cache(maxsize=1)
def mel_filterbank() -> np.ndarray:
    """``librosa.filters.mel(sr=16000, n_fft=400, n_mels=40)``: triangles with Slaney area norm, (40, 201)."""
    fft_hz = np.linspace(0, SAMPLE_RATE / 2, 1 + N_FFT // 2)
    mel_hz = _mel_to_hz(np.linspace(_hz_to_mel(np.array([0.0]))[0], _hz_to_mel(np.array([SAMPLE_RATE / 2]))[0], N_MELS + 2))
    widths = np.diff(mel_hz)
    ramps = mel_hz[:, None] - fft_hz[None, :]
    weights = np.zeros((N_MELS, len(fft_hz)))
    for i in range(N_MELS):
        lower = -ramps[i] / widths[i]
        upper = ramps[i + 2] / widths[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_hz[2 : N_MELS + 2] - mel_hz[:N_MELS]))[:, None]
    return weights


@functools.lru_cache(maxsize=1)
def _window() -> np.ndarray:
    n = np.arange(N_FFT)
    return 0.5 - 0.5 * np.cos(2 * np.pi * n / N_FFT)  # periodic Hann, as scipy's get_window("hann")


def mel_frames(wav: np.ndarray, first: int, count: int) -> np.ndarray:
    """Frames ``first .. first+count`` of resemblyzer's mel spectrogram of ``wav``, shape (count, 40).

    Frame j is centred on sample ``j * 160``; samples outside the wav are zeros (librosa's centring
    with constant padding), so any run of frames can be computed alone, identical to the whole.
    """
    lo = first * HOP - N_FFT // 2
    hi = (first + count - 1) * HOP + N_FFT // 2
    seg = np.zeros(hi - lo, dtype=np.float64)
    a, b = max(lo, 0), min(hi, len(wav))
    if b > a:
        seg[a - lo : b - lo] = wav[a:b]
    frames = np.lib.stride_tricks.sliding_window_view(seg, N_FFT)[::HOP][:count]
    power = np.abs(np.fft.rfft(frames * _window(), axis=1)) ** 2
    return (power @ mel_filterbank().T).astype(np.float32)


def normalize_volume(wav: np.ndarray) -> np.ndarray:
    """Raise quiet audio to -30 dBFS (resemblyzer's ``normalize_volume(increase_only=True)``)."""
    wav = np.asarray(wav, dtype=np.float32)
    rms = float(np.sqrt(np.mean((wav.astype(np.float64) * INT16_MAX) ** 2))) if len(wav) else 0.0
    if rms <= 0:
        return wav
    change = TARGET_DBFS - 20 * np.log10(rms / INT16_MAX)
    return wav if change < 0 else wav * np.float32(10 ** (change / 20))


def partial_starts(n_samples: int) -> list[int]:
    """First mel frame of each partial for an utterance of ``n_samples`` (resemblyzer's
    ``compute_partial_slices(rate=1.3, min_coverage=0.75)``)."""
    n_frames = int(np.ceil((n_samples + 1) / HOP))
    steps = max(1, n_frames - PARTIAL_FRAMES + PARTIAL_STEP + 1)
    starts = list(range(0, steps, PARTIAL_STEP))
    coverage = (n_samples - starts[-1] * HOP) / (PARTIAL_FRAMES * HOP)
    if coverage < MIN_COVERAGE and len(starts) > 1:
        starts.pop()
    return starts


def complete_partials(n_samples: int) -> list[int]:
    """Partials wholly inside ``n_samples`` so far: they stay the same however the utterance grows."""
    return [s for s in partial_starts(n_samples) if (s + PARTIAL_FRAMES) * HOP + N_FFT // 2 <= n_samples]


def average(partials: np.ndarray) -> np.ndarray:
    """The utterance embedding: the mean of its partial embeddings, L2-normalised."""
    mean = np.mean(partials, axis=0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)


# --- the network ------------------------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class VoiceEncoder:
    """The LSTM encoder; thread-safe (no state between calls)."""

    def __init__(self, weights: dict[str, np.ndarray] | None = None) -> None:
        weights = weights if weights is not None else load_weights()
        self._layers = []
        for k in range(LAYERS):
            w_ih = weights[f"lstm.weight_ih_l{k}"]
            w_hh = weights[f"lstm.weight_hh_l{k}"]
            bias = weights[f"lstm.bias_ih_l{k}"] + weights[f"lstm.bias_hh_l{k}"]
            self._layers.append((np.ascontiguousarray(w_ih.T), np.ascontiguousarray(w_hh.T), bias))
        self._linear_w = np.ascontiguousarray(weights["linear.weight"].T)
        self._linear_b = weights["linear.bias"]

    def forward(self, mels: np.ndarray) -> np.ndarray:
        """Embeddings of a batch of partials, (batch, frames, 40) -> (batch, 256), ReLU'd and L2-normed."""
        x = np.asarray(mels, dtype=np.float32)
        batch, steps, _ = x.shape
        h = np.zeros((batch, HIDDEN), dtype=np.float32)
        for w_ih, w_hh, bias in self._layers:
            inputs = x @ w_ih + bias  # (batch, steps, 4H), gates in torch's order i, f, g, o
            h = np.zeros((batch, HIDDEN), dtype=np.float32)
            c = np.zeros((batch, HIDDEN), dtype=np.float32)
            outputs = np.empty((batch, steps, HIDDEN), dtype=np.float32)
            for t in range(steps):
                gates = inputs[:, t] + h @ w_hh
                i = _sigmoid(gates[:, :HIDDEN])
                f = _sigmoid(gates[:, HIDDEN : 2 * HIDDEN])
                g = np.tanh(gates[:, 2 * HIDDEN : 3 * HIDDEN])
                o = _sigmoid(gates[:, 3 * HIDDEN :])
                c = f * c + i * g
                h = o * np.tanh(c)
                outputs[:, t] = h
            x = outputs
        raw = np.maximum(h @ self._linear_w + self._linear_b, 0)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        return raw / np.where(norms > 0, norms, 1)

    def embed_partials(self, wav: np.ndarray, starts: list[int]) -> np.ndarray:
        """The partials beginning at mel frames ``starts`` of a volume-normalised ``wav``: (len(starts), 256)."""
        if not starts:
            return np.zeros((0, EMBEDDING_SIZE), dtype=np.float32)
        mels = np.stack([mel_frames(wav, s, PARTIAL_FRAMES) for s in starts])
        return self.forward(mels)

    def embed_utterance(self, wav: np.ndarray) -> np.ndarray:
        """resemblyzer's ``embed_utterance(preprocess_wav(wav))`` for 16 kHz mono float audio already cut by a VAD."""
        wav = normalize_volume(wav)
        return average(self.embed_partials(wav, partial_starts(len(wav))))


def one_blas_thread() -> None:
    """numpy's own OpenBLAS to one thread.  The encoder's products are small (a few partials x 256 x
    1024 per step): a second BLAS thread gains nothing and spins, doubling the CPU the encoder costs
    (measured: 0.46 s of CPU for 0.22 s of work).  Only numpy's BLAS is touched, not CTranslate2's
    OpenMP pool."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency; without it the encoder only costs more
        return
    for library in ThreadpoolController().select(user_api="blas").lib_controllers:
        if "numpy" in library.filepath and library.num_threads != 1:
            library.set_num_threads(1)
            log.info("numpy's BLAS (%s) set to one thread for the speaker encoder", Path(library.filepath).name)


@functools.lru_cache(maxsize=1)
def shared_encoder() -> VoiceEncoder:
    """One encoder per process (17 MB of weights, read once)."""
    one_blas_thread()
    encoder = VoiceEncoder()
    log.info("speaker encoder loaded from %s", weights_path())
    return encoder
