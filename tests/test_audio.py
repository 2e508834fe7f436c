"""Audio normalisation: any rate, layout and format becomes 16 kHz mono float32, faithfully."""

from __future__ import annotations

import av
import numpy as np
import pytest

from streamtwin.media.audio import SAMPLE_RATE, AudioBuffer, AudioConverter
from streamtwin.media.ingest import AudioChunk, MediaReader


def tone(rate: int, seconds: float, freq: float = 440.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def write_audio(path, signal: np.ndarray, rate: int, layout: str, codec: str, fmt: str) -> None:
    channels = len(av.AudioLayout(layout).channels)
    with av.open(str(path), "w") as container:
        stream = container.add_stream(codec, rate=rate, layout=layout)
        step = 1024
        for i in range(0, len(signal), step):
            block = np.repeat(signal[i : i + step][None, :], channels, axis=0)
            if fmt == "s16":
                data = (block * 32767).astype(np.int16).T.reshape(1, -1)
            else:  # planar float
                data = block.astype(np.float32)
            frame = av.AudioFrame.from_ndarray(data, format=fmt, layout=layout)
            frame.sample_rate = rate
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


@pytest.mark.parametrize(
    "suffix, codec, rate, layout, fmt",
    [
        ("wav", "pcm_s16le", 44100, "stereo", "s16"),
        ("wav", "pcm_s16le", 8000, "mono", "s16"),
        ("flac", "flac", 48000, "stereo", "s16"),
        ("ogg", "libopus", 48000, "stereo", "fltp"),
    ],
)
async def test_files_become_16k_mono_float32(tmp_path, suffix, codec, rate, layout, fmt):
    source = tone(rate, 2.0)
    path = tmp_path / f"tone.{suffix}"
    write_audio(path, source, rate, layout, codec, fmt)
    reader = MediaReader(str(path), realtime=False, video=False)
    chunks = [item async for item in reader.items() if isinstance(item, AudioChunk)]
    audio = np.concatenate([c.samples for c in chunks])
    assert audio.dtype == np.float32
    assert abs(len(audio) / SAMPLE_RATE - 2.0) < 0.05
    # chunk times are contiguous
    assert chunks[1].time == pytest.approx(len(chunks[0].samples) / SAMPLE_RATE)
    expected = tone(SAMPLE_RATE, 2.0)
    # compare a steady stretch, after any codec priming
    lag = int(np.argmax(np.correlate(audio[4000:4400], expected[4000:4800], "valid")))
    start = 4000 - lag if lag <= 400 else 4000
    segment, reference = audio[4000 : 4000 + 8000], expected[start : start + 8000]
    correlation = np.corrcoef(segment, reference)[0, 1]
    assert correlation > 0.99


def test_converter_handles_webrtc_style_frames_and_flushes():
    converter = AudioConverter()
    source = tone(48000, 1.0)
    out = []
    for i in range(0, len(source), 960):  # 20 ms stereo s16, as browsers send
        block = (np.repeat(source[None, i : i + 960], 2, axis=0) * 32767).astype(np.int16)
        frame = av.AudioFrame.from_ndarray(block.T.reshape(1, -1), format="s16", layout="stereo")
        frame.sample_rate = 48000
        out.append(converter.convert(frame))
    out.append(converter.flush())
    audio = np.concatenate(out)
    assert abs(len(audio) - SAMPLE_RATE) <= 32
    # swresample's stereo downmix is -3 dB per channel: identical channels sum to 0.707x
    assert np.abs(audio).max() == pytest.approx(0.5 * 2**0.5, abs=0.03)


def test_buffer_slices_by_media_time_after_trimming():
    buffer = AudioBuffer()
    buffer.append(np.arange(32000, dtype=np.float32))  # 2 s
    buffer.trim_before(0.5)
    assert buffer.slice(1.0, 1.5)[0] == 16000
    assert len(buffer.slice(1.0, 1.5)) == 8000
    assert buffer.slice(0.0, 0.6)[0] == 8000  # trimmed audio is gone, not an error
    assert buffer.end_time == 2.0
