#!/usr/bin/python3
"""Export models to ONNX with Debian's python3-torch, with PyTorch's own
outputs for a fixed input, for lgraph's ONNX tests and benchmarks.

    /usr/bin/python3 scripts/export_models.py OUTDIR [NAME ...]

For each model NAME it writes OUTDIR/NAME.onnx (opset 13, symbolic batch
"N", random weights from a fixed seed, eval mode, batch-norm statistics
randomised so that folding is exercised) and, for N in (1, 4),
OUTDIR/NAME.inN.npy and OUTDIR/NAME.outN.npy (float32, C order).
Models: by default the small blocks of models() (every operator the
importer maps, in the patterns exporters emit); torchvision's classifiers
(NETS) when named.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

# torchvision's classifiers, built with random weights (no download): the
# whole networks lgraph is measured on. Exported only when named (the small
# blocks below are the default set): tests/onnx/run_models.sh with MODELS=,
# bench/nets/run.py --models.
NETS = {
    "resnet50": {},
    "mobilenet_v2": {},
    "shufflenet_v2_x1_0": {},
    "squeezenet1_1": {},
    "googlenet": {"aux_logits": False, "init_weights": False},
    "densenet121": {},
    "efficientnet_b0": {},
    "mobilenet_v3_small": {},
    "mnasnet1_0": {},
    "regnet_y_400mf": {},
}


def make_net(name):
    import torchvision
    return getattr(torchvision.models, name)(**NETS[name])


def randomise_bn(model, gen):
    """Non-trivial batch-norm statistics and affine parameters."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(c, generator=gen) * 0.1)


class ChannelShuffle(nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        n, c, h, w = x.shape
        x = x.view(n, self.groups, c // self.groups, h, w)
        return torch.transpose(x, 1, 2).contiguous().view(n, c, h, w)


class Blocks(nn.Module):
    """Every operator the importer maps today, in the patterns exporters
    emit them: conv + BN (folded), depthwise conv, ReLU6 (Clip), hardswish,
    SiLU (x * sigmoid(x) -> swish), channel shuffle (Reshape, Transpose,
    Reshape), zero padding before a conv (Pad), a residual add."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 24, 3, 2, 1, bias=False), nn.BatchNorm2d(24),
                                  nn.ReLU6())
        self.dw = nn.Sequential(nn.Conv2d(24, 24, 3, 1, 1, groups=24, bias=False),
                                nn.BatchNorm2d(24), nn.Hardswish())
        self.pw = nn.Sequential(nn.Conv2d(24, 48, 1, bias=False), nn.BatchNorm2d(48), nn.SiLU())
        self.shuffle = ChannelShuffle(3)
        self.pad = nn.ZeroPad2d((1, 1, 0, 2))
        self.conv = nn.Conv2d(48, 48, 3, 1, 0, groups=3)
        self.bn = nn.BatchNorm2d(48)
        self.act = nn.LeakyReLU(0.1)
        self.tail = nn.Sequential(nn.Conv2d(48, 32, 1), nn.Tanh(), nn.Hardsigmoid(),
                                  nn.Conv2d(32, 32, 3, 2, 1), nn.ELU(0.5))

    def forward(self, x):
        x = self.pw(self.dw(self.stem(x)))
        y = self.shuffle(x)
        y = self.act(self.bn(self.conv(self.pad(y)))[:, :, :, :])
        return self.tail(x + y * 0.5)


class PoolHead(nn.Module):
    """A classifier's pooling and head: conv + BN (folded), max pool with
    ceil_mode (extra right padding), a standalone BN (a batchnorm node),
    average pools excluding and including padding, the global average pool
    both as AdaptiveAvgPool2d(1) and as x.mean([2, 3], keepdim=True)
    (ReduceMean), softmax over channels."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 20, 3, 1, 1), nn.BatchNorm2d(20), nn.ReLU())
        self.maxpool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.bn = nn.BatchNorm2d(20)
        self.avg_np = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.avg_p = nn.AvgPool2d(2, 2)
        self.gap = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        x = self.avg_p(self.avg_np(self.bn(self.maxpool(self.stem(x)))))
        return torch.softmax(self.gap(x) + x.mean([2, 3], keepdim=True) * 3.0, dim=1)


class ShuffleCat(nn.Module):
    """Concat, Split and Slice of tensors: two ShuffleNetV2 stride-1 units
    (the first splits with x.chunk(2, dim=1), which exports as Slices, the
    second with torch.split, which exports as Split; then torch.cat and a
    channel shuffle), and a concat of three conv branches (GoogLeNet-like,
    channel counts that are not multiples of 8, one reading x[:, 3:])."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 116, 3, 2, 1, bias=False), nn.BatchNorm2d(116),
                                  nn.ReLU())

        def branch():
            return nn.Sequential(nn.Conv2d(58, 58, 1, bias=False), nn.BatchNorm2d(58), nn.ReLU(),
                                 nn.Conv2d(58, 58, 3, 1, 1, groups=58, bias=False),
                                 nn.BatchNorm2d(58), nn.Conv2d(58, 58, 1, bias=False),
                                 nn.BatchNorm2d(58), nn.ReLU())

        self.branch1, self.branch2 = branch(), branch()
        self.shuffle = ChannelShuffle(2)
        self.b1 = nn.Conv2d(116, 24, 1)
        self.b2 = nn.Sequential(nn.Conv2d(116, 16, 1), nn.ReLU(), nn.Conv2d(16, 20, 3, 1, 1))
        self.b3 = nn.Conv2d(113, 13, 3, 1, 1)

    def forward(self, x):
        x = self.stem(x)
        a, b = x.chunk(2, dim=1)
        x = self.shuffle(torch.cat((a, self.branch1(b)), dim=1))
        a, b = torch.split(x, [58, 58], dim=1)
        x = self.shuffle(torch.cat((a, self.branch2(b)), dim=1))
        return torch.cat((self.b1(x), self.b2(x), self.b3(x[:, 3:])), dim=1)


class ClassifierHead(nn.Module):
    """A classifier head three ways: conv -> flatten -> Linear -> ReLU ->
    Linear (Flatten, Gemm), x.view(N, -1) -> Linear (Shape -> Gather ->
    Unsqueeze -> Concat -> Reshape, Gemm), and a bias-free Linear on a 3D
    view (Reshape, MatMul) then flatten -> Linear."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 20, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(20 * 8 * 8, 64)
        self.fc2 = nn.Linear(64, 10)
        self.fc3 = nn.Linear(20 * 8 * 8, 10)
        self.proj = nn.Linear(8, 5, bias=False)
        self.fc4 = nn.Linear(20 * 8 * 5, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        a = self.fc2(torch.relu(self.fc1(torch.flatten(y, 1))))
        b = self.fc3(y.view(y.size(0), -1))
        c = self.fc4(torch.flatten(self.proj(y.reshape(y.size(0), 20 * 8, 8)), 1))
        return a + b + c


class CeilPool(nn.Module):
    """Pooling with ceil_mode on sizes where it adds a window along both
    dims: AvgPool2d including padding (exported as a zero Pad and an
    AveragePool with ceil_mode; PyTorch divides the extra window by its part
    inside the input and the given padding, not by the kernel size), with no
    padding and an asymmetric kernel, excluding padding, and max pooling."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 20, 3, 1, 1), nn.ReLU())
        self.avg_p = nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=True)
        self.avg_p2 = nn.AvgPool2d((2, 3), 2, 0, ceil_mode=True, count_include_pad=True)
        self.avg_np = nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False)
        self.maxpool = nn.MaxPool2d(3, 2, 1, ceil_mode=True)

    def forward(self, x):
        x = self.stem(x)
        a = self.avg_p(x)
        y = a + 0.5 * self.avg_np(x) + self.maxpool(x)
        return torch.cat((torch.flatten(y, 1), torch.flatten(self.avg_p2(a), 1)), dim=1)


def models():
    return {"blocks": (Blocks, (3, 64, 64)), "poolhead": (PoolHead, (3, 30, 30)),
            "shuffle_cat": (ShuffleCat, (3, 32, 32)),
            "classifier_head": (ClassifierHead, (3, 16, 16)),
            "ceilpool": (CeilPool, (3, 16, 18))}


def all_models():
    """The default blocks and the torchvision networks, by name."""
    nets = {n: ((lambda n=n: make_net(n)), (3, 224, 224)) for n in NETS}
    return {**nets, **models()}


def export(name, outdir):
    make, shape = all_models()[name]
    gen = torch.Generator().manual_seed(20261124)
    torch.manual_seed(20261124)
    model = make().eval()
    randomise_bn(model, gen)
    path = os.path.join(outdir, name + ".onnx")
    x = torch.randn((1,) + shape, generator=gen)
    torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
    for n in (1, 4):
        x = torch.randn((n,) + shape, generator=gen)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(outdir, "%s.in%d.npy" % (name, n)), x.numpy().astype("<f4"))
        np.save(os.path.join(outdir, "%s.out%d.npy" % (name, n)), y.numpy().astype("<f4"))
    print("export_models: %s -> %s" % (name, path))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(2)
    for name in sys.argv[2:] or sorted(models()):
        export(name, outdir)


if __name__ == "__main__":
    main()
