"""Today's YOLO families rebuilt in PyTorch from their published structure, with random (seeded) weights, and exported
as each family's own exporter does, for the ONNX importer's tests (tiny) and benchmarks (n, s). We cannot download the
families' weights or repositories, so the modules below follow their code's structure and names (node names such as
/model.22/cv2.0/cv2.0.0/conv/Conv come out as in real exports); the weights are random and do not detect anything.

Families (each at SIZE tiny, n or s):
  yolov5  v7.0 (the v6.0 architecture): Conv(6x6, s2, p2) stem, Conv + C3 (cv1, cv2, n Bottlenecks, cat, cv3),
          SPPF, PAN with nearest upsampling; Detect with 3 anchors per stride (the default anchors), decoded as
          YOLOv5's export.py leaves it: per level view(bs, na, no, ny, nx).permute(0, 1, 3, 4, 2), sigmoid, split
          xy/wh/conf, xy = (xy * 2 + grid) * stride (grid = cell - 0.5), wh = (wh * 2) ** 2 * anchor_grid, cat,
          view; output0 [1, 3 * cells, 5 + classes]; metadata stride and names (what YOLOv5 writes).
  yolov8  Ultralytics: Conv, C2f, SPPF, PAN, decoupled head (cv2 box: 3x3, 3x3, 1x1 to 4 x 16 bins; cv3 class:
          3x3, 3x3, 1x1), DFL (softmax over 16 bins, 1x1 conv by 0..15) decoded against anchor points and strides;
          output0 [1, 4 + classes, anchors].
  yolo11  Ultralytics: C3k2 (C2f whose blocks are Bottlenecks, or C3k for the deeper stages), SPPF, C2PSA (PSABlock:
          multi-head attention over the pixels, qkv 1x1, q^T k * scale, softmax, v attn^T, + a depthwise 3x3 of v,
          proj; then a 1x1 feed-forward), the head's class branch depthwise-separable (DWConv 3x3 then Conv 1x1);
          output as yolov8.
  yolox   Megvii YOLOX: Focus (space to depth by slicing, cat, BaseConv), CSPDarknet of CSPLayers (depthwise for
          nano), SPPBottleneck (max-pools 5, 9, 13), YOLOPAFPN, YOLOXHead (stems, cls_convs, reg_convs, cls_preds,
          reg_preds, obj_preds) as tools/export_onnx.py exports it by default (decode_in_inference False): per
          level cat(reg, obj.sigmoid(), cls.sigmoid()), flatten, cat, permute; output [1, anchors, 5 + classes] with
          raw reg (xy offsets from the cell, log wh, in stride units). Input BGR 0..255. No metadata (YOLOX writes
          none).
  yolov9  Ultralytics yolov9t/s (GELAN): ELAN1, AConv (avg_pool2d(2, 1, 0) then 3x3 s2 conv), RepNCSPELAN4
          (RepCSP of RepBottlenecks whose RepConv 3x3 + 1x1 is fused into one 3x3 conv, as Ultralytics' exporter
          fuses), SPPELAN; head and output as yolov8. (ADown belongs to yolov9m/c/e, not t/s.)

Sizes: n and s have the family's published widths, depths and head widths (parameter counts equal the published
ones: yolov5n 1,872,157, yolov8n 3,157,200, yolo11n 2,624,080, yolov9t 2,128,720, ...; yolox-nano 912,159 for the
published 0.91M), 80 COCO classes and a 640x640 input (yolox n is nano: depthwise, 416x416; yolov9 n is yolov9t).
tiny keeps the n structure (blocks, depths, heads; yolov9: one RepBottleneck per RepCSP instead of 3) at the smallest
widths: the yaml widths / 32 (yolov9t's / 8; yolox nano at width 1/32, not YOLOX's own yolox-tiny of width 0.375),
heads of 8 channels, yolo11's attention with two heads; 3 classes (person, bicycle, car) and a 64x64 input, so each
file stays under 250 KB.

Export as the families' exporters do: model in eval() (BatchNorm folds into Conv), torch.onnx.export with the
TorchScript exporter (dynamo=False), opset 17 (--opset to change; YOLOX's own default is 11), do_constant_folding,
static 1x3xHxW input `images`, no dynamic axes, after a dry run (YOLOv5's grids, Ultralytics' anchors are constants);
no onnx-simplifier / onnxslim pass. Then onnx.checker and ONNX Runtime against the PyTorch module (as built, RepConv
unfused) on a white-noise image and a smooth random image: relative difference below 1e-4 or the script fails.
Weights: see randomise(); BatchNorm statistics are calibrated so that activations stay of order 1.

    python3 scripts/onnx/yolo_models.py FAMILY SIZE OUT.onnx [--opset N]   (needs torch, onnx, onnxruntime, numpy)
"""
import math
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

COCO = ["person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
        "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
        "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
        "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
        "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
        "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
        "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
        "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
        "hair drier", "toothbrush"]


# ---------------------------------------------------------------- YOLOv5 and Ultralytics building blocks

def autopad(k, p=None):
    return k // 2 if p is None else p


class Conv(nn.Module):
    """Conv2d (no bias) + BatchNorm2d + SiLU, as YOLOv5 and Ultralytics (act=False: no activation)."""

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class DWConv(Conv):
    def __init__(self, c1, c2, k=1, s=1, act=True):
        super().__init__(c1, c2, k, s, g=math.gcd(c1, c2), act=act)


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True, g=1, k=(3, 3), e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1 = Conv(c1, c_, k[0], 1)
        self.cv2 = Conv(c_, c2, k[1], 1, g=g)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        return x + self.cv2(self.cv1(x)) if self.add else self.cv2(self.cv1(x))


class C3(nn.Module):
    """CSP bottleneck with 3 convolutions (YOLOv5; Ultralytics' C3 is the same)."""

    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5):
        super().__init__()
        c_ = int(c2 * e)
        self.cv1, self.cv2, self.cv3 = Conv(c1, c_, 1, 1), Conv(c1, c_, 1, 1), Conv(2 * c_, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=(1, 3), e=1.0) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c_ = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c_, 1, 1), Conv(c_ * 4, c2, 1, 1)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        y = [self.cv1(x)]
        y.extend(self.m(y[-1]) for _ in range(3))
        return self.cv2(torch.cat(y, 1))


class C2f(nn.Module):
    """Ultralytics' CSP bottleneck with 2 convolutions; forward as the exporter sets it (forward_split)."""

    def __init__(self, c1, c2, n=1, shortcut=False, g=1, e=0.5):
        super().__init__()
        self.c = int(c2 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, self.c, shortcut, g, k=(3, 3), e=1.0) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).split((self.c, self.c), 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class C3k(C3):
    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5, k=3):
        super().__init__(c1, c2, n, shortcut, g, e)
        c_ = int(c2 * e)
        self.m = nn.Sequential(*(Bottleneck(c_, c_, shortcut, g, k=(k, k), e=1.0) for _ in range(n)))


class C3k2(C2f):
    def __init__(self, c1, c2, n=1, c3k=False, e=0.5, g=1, shortcut=True):
        super().__init__(c1, c2, n, shortcut, g, e)
        self.m = nn.ModuleList(
            C3k(self.c, self.c, 2, shortcut, g) if c3k else Bottleneck(self.c, self.c, shortcut, g) for _ in range(n))


class Attention(nn.Module):
    def __init__(self, dim, num_heads=8, attn_ratio=0.5):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.key_dim = int(self.head_dim * attn_ratio)
        self.scale = self.key_dim ** -0.5
        nh_kd = self.key_dim * num_heads
        self.qkv = Conv(dim, dim + nh_kd * 2, 1, act=False)
        self.proj = Conv(dim, dim, 1, act=False)
        self.pe = Conv(dim, dim, 3, 1, g=dim, act=False)

    def forward(self, x):
        B, C, H, W = x.shape
        N = H * W
        qkv = self.qkv(x)
        q, k, v = qkv.view(B, self.num_heads, self.key_dim * 2 + self.head_dim, N).split(
            [self.key_dim, self.key_dim, self.head_dim], dim=2)
        attn = (q.transpose(-2, -1) @ k) * self.scale
        attn = attn.softmax(dim=-1)
        x = (v @ attn.transpose(-2, -1)).view(B, C, H, W) + self.pe(v.reshape(B, C, H, W))
        return self.proj(x)


class PSABlock(nn.Module):
    def __init__(self, c, attn_ratio=0.5, num_heads=4, shortcut=True):
        super().__init__()
        self.attn = Attention(c, attn_ratio=attn_ratio, num_heads=num_heads)
        self.ffn = nn.Sequential(Conv(c, c * 2, 1), Conv(c * 2, c, 1, act=False))
        self.add = shortcut

    def forward(self, x):
        x = x + self.attn(x) if self.add else self.attn(x)
        return x + self.ffn(x) if self.add else self.ffn(x)


class C2PSA(nn.Module):
    def __init__(self, c1, c2, n=1, e=0.5):
        super().__init__()
        assert c1 == c2
        self.c = int(c1 * e)
        self.cv1 = Conv(c1, 2 * self.c, 1, 1)
        self.cv2 = Conv(2 * self.c, c1, 1)
        heads = self.c // 64 if self.c >= 64 else 2  # Ultralytics: c // 64; tiny widths: two heads, as yolo11n has
        self.m = nn.Sequential(*(PSABlock(self.c, attn_ratio=0.5, num_heads=heads) for _ in range(n)))

    def forward(self, x):
        a, b = self.cv1(x).split((self.c, self.c), dim=1)
        return self.cv2(torch.cat((a, self.m(b)), 1))


def folded(conv, bn):
    std = (bn.running_var + bn.eps).sqrt()
    return conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1), bn.bias - bn.running_mean * bn.weight / std


class RepConv(nn.Module):
    """3x3 conv + BN and 1x1 conv + BN, summed, then SiLU; fuse() makes it one 3x3 conv (Ultralytics fuse_convs)."""

    def __init__(self, c1, c2, k=3, s=1, p=1, g=1):
        super().__init__()
        self.g, self.c1, self.c2, self.s = g, c1, c2, s
        self.conv1 = Conv(c1, c2, k, s, p=p, g=g, act=False)
        self.conv2 = Conv(c1, c2, 1, s, p=(p - k // 2), g=g, act=False)
        self.act = nn.SiLU()

    def forward(self, x):
        if hasattr(self, "conv"):
            return self.act(self.conv(x))
        return self.act(self.conv1(x) + self.conv2(x))

    @torch.no_grad()
    def fuse(self):
        k3, b3 = folded(self.conv1.conv, self.conv1.bn)
        k1, b1 = folded(self.conv2.conv, self.conv2.bn)
        self.conv = nn.Conv2d(self.c1, self.c2, 3, self.s, 1, groups=self.g, bias=True)
        self.conv.weight.copy_(k3 + F.pad(k1, [1, 1, 1, 1]))
        self.conv.bias.copy_(b3 + b1)
        del self.conv1, self.conv2


class RepBottleneck(Bottleneck):
    def __init__(self, c1, c2, shortcut=True, g=1, k=(3, 3), e=0.5):
        super().__init__(c1, c2, shortcut, g, k, e)
        self.cv1 = RepConv(c1, int(c2 * e), k[0], 1)


class RepCSP(C3):
    def __init__(self, c1, c2, n=1, shortcut=True, g=1, e=0.5):
        super().__init__(c1, c2, n, shortcut, g, e)
        c_ = int(c2 * e)
        self.m = nn.Sequential(*(RepBottleneck(c_, c_, shortcut, g, e=1.0) for _ in range(n)))


class RepNCSPELAN4(nn.Module):
    def __init__(self, c1, c2, c3, c4, n=1):
        super().__init__()
        self.c = c3 // 2
        self.cv1 = Conv(c1, c3, 1, 1)
        self.cv2 = nn.Sequential(RepCSP(c3 // 2, c4, n), Conv(c4, c4, 3, 1))
        self.cv3 = nn.Sequential(RepCSP(c4, c4, n), Conv(c4, c4, 3, 1))
        self.cv4 = Conv(c3 + (2 * c4), c2, 1, 1)

    def forward(self, x):
        y = list(self.cv1(x).chunk(2, 1))
        y.extend(m(y[-1]) for m in [self.cv2, self.cv3])
        return self.cv4(torch.cat(y, 1))


class ELAN1(RepNCSPELAN4):
    def __init__(self, c1, c2, c3, c4):
        super().__init__(c1, c2, c3, c4)
        self.c = c3 // 2
        self.cv1 = Conv(c1, c3, 1, 1)
        self.cv2 = Conv(c3 // 2, c4, 3, 1)
        self.cv3 = Conv(c4, c4, 3, 1)
        self.cv4 = Conv(c3 + (2 * c4), c2, 1, 1)


class AConv(nn.Module):
    def __init__(self, c1, c2):
        super().__init__()
        self.cv1 = Conv(c1, c2, 3, 2, 1)

    def forward(self, x):
        return self.cv1(F.avg_pool2d(x, 2, 1, 0, False, True))


class SPPELAN(nn.Module):
    def __init__(self, c1, c2, c3, k=5):
        super().__init__()
        self.c = c3
        self.cv1 = Conv(c1, c3, 1, 1)
        self.cv2 = self.cv3 = self.cv4 = nn.MaxPool2d(k, 1, k // 2)
        self.cv5 = Conv(4 * c3, c2, 1, 1)

    def forward(self, x):
        y = [self.cv1(x)]
        y.extend(m(y[-1]) for m in [self.cv2, self.cv3, self.cv4])
        return self.cv5(torch.cat(y, 1))


class Concat(nn.Module):
    def forward(self, xs):
        return torch.cat(xs, 1)


class V5Detect(nn.Module):
    """YOLOv5's Detect as export.py runs it (export=True): grids made on the dry run, constants in the graph."""

    def __init__(self, nc, anchors, ch, strides=(8, 16, 32)):
        super().__init__()
        self.nc, self.no, self.nl, self.na = nc, nc + 5, len(anchors), len(anchors[0]) // 2
        self.grid = [torch.empty(0) for _ in range(self.nl)]
        self.anchor_grid = [torch.empty(0) for _ in range(self.nl)]
        self.stride = torch.tensor(strides, dtype=torch.float)
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2) / self.stride.view(-1, 1, 1))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if self.grid[i].shape[2:4] != x[i].shape[2:4] or self.grid[i].device != x[i].device:
                self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
            xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
            xy = (xy * 2 + self.grid[i]) * self.stride[i]
            wh = (wh * 2) ** 2 * self.anchor_grid[i]
            y = torch.cat((xy, wh, conf), 4)
            z.append(y.view(bs, self.na * nx * ny, self.no))
        return torch.cat(z, 1)

    def _make_grid(self, nx, ny, i):
        shape = 1, self.na, ny, nx, 2
        d, t = self.anchors[i].device, self.anchors[i].dtype   # as YOLOv5: the grids where the model is
        y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)
        yv, xv = torch.meshgrid(y, x, indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


class DFL(nn.Module):
    def __init__(self, c1=16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = nn.Parameter(torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1))
        self.c1 = c1

    def forward(self, x):
        b, _, a = x.shape
        return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)


class Detect(nn.Module):
    """Ultralytics' Detect as its exporter runs it (export=True, after the dry runs: anchors and strides cached)."""

    def __init__(self, nc, ch, legacy=True, widths=None, strides=(8, 16, 32)):
        super().__init__()
        self.nc, self.nl, self.reg_max = nc, len(ch), 16
        self.no = nc + self.reg_max * 4
        self.stride = torch.tensor(strides, dtype=torch.float)
        c2, c3 = widths or (max((16, ch[0] // 4, self.reg_max * 4)), max(ch[0], min(self.nc, 100)))
        self.cv2 = nn.ModuleList(
            nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * self.reg_max, 1)) for x in ch)
        self.cv3 = (
            nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, self.nc, 1)) for x in ch)
            if legacy else nn.ModuleList(
                nn.Sequential(nn.Sequential(DWConv(x, x, 3), Conv(x, c3, 1)),
                              nn.Sequential(DWConv(c3, c3, 3), Conv(c3, c3, 1)),
                              nn.Conv2d(c3, self.nc, 1)) for x in ch))
        self.dfl = DFL(self.reg_max)
        self.shape = None

    def forward(self, x):
        for i in range(self.nl):
            x[i] = torch.cat((self.cv2[i](x[i]), self.cv3[i](x[i])), 1)
        shape = x[0].shape
        x_cat = torch.cat([xi.view(shape[0], self.no, -1) for xi in x], 2)
        if self.shape != shape or self.anchors.device != x_cat.device:
            self.anchors, self.strides = (t.transpose(0, 1) for t in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        box, cls = x_cat.split((self.reg_max * 4, self.nc), 1)
        dbox = dist2bbox(self.dfl(box), self.anchors.unsqueeze(0)) * self.strides
        return torch.cat((dbox, cls.sigmoid()), 1)


def make_anchors(feats, strides, offset=0.5):
    anchor_points, stride_tensor = [], []
    for i, stride in enumerate(strides):
        _, _, h, w = feats[i].shape
        d, t = feats[i].device, feats[i].dtype               # as Ultralytics: where and as the features are
        sx = torch.arange(end=w, device=d, dtype=t) + offset
        sy = torch.arange(end=h, device=d, dtype=t) + offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), float(stride), device=d, dtype=t))
    return torch.cat(anchor_points), torch.cat(stride_tensor)


def dist2bbox(distance, anchor_points, dim=1):
    lt, rb = distance.chunk(2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    return torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), dim)


class YoloModel(nn.Module):
    """A layer list with 'from' indices, as YOLOv5's and Ultralytics' Model (node names /model.N/...)."""

    def __init__(self, layers, froms):
        super().__init__()
        self.model = nn.ModuleList(layers)
        self.froms = froms
        self.save = {j for f in froms for j in ([f] if isinstance(f, int) else f) if j != -1}

    def forward(self, x):
        y = []
        for i, (m, f) in enumerate(zip(self.model, self.froms)):
            if f != -1:
                x = y[f] if isinstance(f, int) else [x if j == -1 else y[j] for j in f]
            x = m(x)
            y.append(x if i in self.save else None)
        return x


def make_divisible(x, d=8):
    return math.ceil(x / d) * d


def parse(spec, width, depth, nc, detect):
    """Builds a layer list from yaml-style [from, repeats, module, args] rows, scaling as the families do."""
    ch, layers, froms = [], [], []
    for f, n, m, args in spec:
        n = max(round(n * depth), 1) if n > 1 else n
        c1 = (ch[f] if ch else 3) if isinstance(f, int) else None
        if m is Concat:
            mod, c2 = Concat(), sum(ch[j] for j in f)
        elif m == "Upsample":
            mod, c2 = nn.Upsample(None, 2, "nearest"), c1
        elif m == "Detect":
            mod, c2 = detect([ch[j] for j in f]), 0
        elif m in (Conv, SPPF, AConv):
            c2 = width(args[0])
            mod = m(c1, c2, *args[1:])
        elif m in (C3, C2f, C3k2, C2PSA):
            c2 = width(args[0])
            mod = m(c1, c2, n, *args[1:])
        elif m in (ELAN1, SPPELAN):
            c2 = width(args[0])
            mod = m(c1, c2, *(width(a) for a in args[1:]))
        elif m is RepNCSPELAN4:
            c2 = width(args[0])
            mod = m(c1, c2, width(args[1]), width(args[2]), args[3])
        else:
            raise ValueError(m)
        ch.append(c2)
        layers.append(mod)
        froms.append(f)
    return YoloModel(layers, froms)


V5 = [[-1, 1, Conv, [64, 6, 2, 2]], [-1, 1, Conv, [128, 3, 2]], [-1, 3, C3, [128]],
      [-1, 1, Conv, [256, 3, 2]], [-1, 6, C3, [256]], [-1, 1, Conv, [512, 3, 2]], [-1, 9, C3, [512]],
      [-1, 1, Conv, [1024, 3, 2]], [-1, 3, C3, [1024]], [-1, 1, SPPF, [1024, 5]],
      [-1, 1, Conv, [512, 1, 1]], [-1, 1, "Upsample", []], [[-1, 6], 1, Concat, []], [-1, 3, C3, [512, False]],
      [-1, 1, Conv, [256, 1, 1]], [-1, 1, "Upsample", []], [[-1, 4], 1, Concat, []], [-1, 3, C3, [256, False]],
      [-1, 1, Conv, [256, 3, 2]], [[-1, 14], 1, Concat, []], [-1, 3, C3, [512, False]],
      [-1, 1, Conv, [512, 3, 2]], [[-1, 10], 1, Concat, []], [-1, 3, C3, [1024, False]],
      [[17, 20, 23], 1, "Detect", []]]
V5_ANCHORS = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]

V8 = [[-1, 1, Conv, [64, 3, 2]], [-1, 1, Conv, [128, 3, 2]], [-1, 3, C2f, [128, True]],
      [-1, 1, Conv, [256, 3, 2]], [-1, 6, C2f, [256, True]], [-1, 1, Conv, [512, 3, 2]], [-1, 6, C2f, [512, True]],
      [-1, 1, Conv, [1024, 3, 2]], [-1, 3, C2f, [1024, True]], [-1, 1, SPPF, [1024, 5]],
      [-1, 1, "Upsample", []], [[-1, 6], 1, Concat, []], [-1, 3, C2f, [512]],
      [-1, 1, "Upsample", []], [[-1, 4], 1, Concat, []], [-1, 3, C2f, [256]],
      [-1, 1, Conv, [256, 3, 2]], [[-1, 12], 1, Concat, []], [-1, 3, C2f, [512]],
      [-1, 1, Conv, [512, 3, 2]], [[-1, 9], 1, Concat, []], [-1, 3, C2f, [1024]],
      [[15, 18, 21], 1, "Detect", []]]

V11 = [[-1, 1, Conv, [64, 3, 2]], [-1, 1, Conv, [128, 3, 2]], [-1, 2, C3k2, [256, False, 0.25]],
       [-1, 1, Conv, [256, 3, 2]], [-1, 2, C3k2, [512, False, 0.25]], [-1, 1, Conv, [512, 3, 2]],
       [-1, 2, C3k2, [512, True]], [-1, 1, Conv, [1024, 3, 2]], [-1, 2, C3k2, [1024, True]],
       [-1, 1, SPPF, [1024, 5]], [-1, 2, C2PSA, [1024]],
       [-1, 1, "Upsample", []], [[-1, 6], 1, Concat, []], [-1, 2, C3k2, [512, False]],
       [-1, 1, "Upsample", []], [[-1, 4], 1, Concat, []], [-1, 2, C3k2, [256, False]],
       [-1, 1, Conv, [256, 3, 2]], [[-1, 13], 1, Concat, []], [-1, 2, C3k2, [512, False]],
       [-1, 1, Conv, [512, 3, 2]], [[-1, 10], 1, Concat, []], [-1, 2, C3k2, [1024, True]],
       [[16, 19, 22], 1, "Detect", []]]


def v9(c, r=3):  # yolov9t.yaml (c = 16) and yolov9s.yaml (c = 32), in units of c / 16; r: RepCSP's repeats
    u = lambda k: int(k * c / 16)
    return [[-1, 1, Conv, [u(16), 3, 2]], [-1, 1, Conv, [u(32), 3, 2]], [-1, 1, ELAN1, [u(32), u(32), u(16)]],
            [-1, 1, AConv, [u(64)]], [-1, 1, RepNCSPELAN4, [u(64), u(64), u(32), r]],
            [-1, 1, AConv, [u(96)]], [-1, 1, RepNCSPELAN4, [u(96), u(96), u(48), r]],
            [-1, 1, AConv, [u(128)]], [-1, 1, RepNCSPELAN4, [u(128), u(128), u(64), r]],
            [-1, 1, SPPELAN, [u(128), u(64)]],
            [-1, 1, "Upsample", []], [[-1, 6], 1, Concat, []], [-1, 1, RepNCSPELAN4, [u(96), u(96), u(48), r]],
            [-1, 1, "Upsample", []], [[-1, 4], 1, Concat, []], [-1, 1, RepNCSPELAN4, [u(64), u(64), u(32), r]],
            [-1, 1, AConv, [u(48)]], [[-1, 12], 1, Concat, []], [-1, 1, RepNCSPELAN4, [u(96), u(96), u(48), r]],
            [-1, 1, AConv, [u(64)]], [[-1, 9], 1, Concat, []], [-1, 1, RepNCSPELAN4, [u(128), u(128), u(64), r]],
            [[15, 18, 21], 1, "Detect", []]]


# ---------------------------------------------------------------- YOLOX (Megvii), its module and attribute names

class BaseConv(nn.Module):
    def __init__(self, in_channels, out_channels, ksize, stride, groups=1, bias=False):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, ksize, stride, (ksize - 1) // 2, groups=groups, bias=bias)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class XDWConv(nn.Module):
    def __init__(self, in_channels, out_channels, ksize, stride=1):
        super().__init__()
        self.dconv = BaseConv(in_channels, in_channels, ksize, stride, groups=in_channels)
        self.pconv = BaseConv(in_channels, out_channels, 1, 1)

    def forward(self, x):
        return self.pconv(self.dconv(x))


class XBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, shortcut=True, expansion=0.5, depthwise=False):
        super().__init__()
        hidden = int(out_channels * expansion)
        self.conv1 = BaseConv(in_channels, hidden, 1, 1)
        self.conv2 = (XDWConv if depthwise else BaseConv)(hidden, out_channels, 3, 1)
        self.use_add = shortcut and in_channels == out_channels

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        return y + x if self.use_add else y


class CSPLayer(nn.Module):
    def __init__(self, in_channels, out_channels, n=1, shortcut=True, expansion=0.5, depthwise=False):
        super().__init__()
        hidden = int(out_channels * expansion)
        self.conv1 = BaseConv(in_channels, hidden, 1, 1)
        self.conv2 = BaseConv(in_channels, hidden, 1, 1)
        self.conv3 = BaseConv(2 * hidden, out_channels, 1, 1)
        self.m = nn.Sequential(*[XBottleneck(hidden, hidden, shortcut, 1.0, depthwise) for _ in range(n)])

    def forward(self, x):
        return self.conv3(torch.cat((self.m(self.conv1(x)), self.conv2(x)), dim=1))


class SPPBottleneck(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_sizes=(5, 9, 13)):
        super().__init__()
        hidden = in_channels // 2
        self.conv1 = BaseConv(in_channels, hidden, 1, 1)
        self.m = nn.ModuleList([nn.MaxPool2d(k, 1, k // 2) for k in kernel_sizes])
        self.conv2 = BaseConv(hidden * (len(kernel_sizes) + 1), out_channels, 1, 1)

    def forward(self, x):
        x = self.conv1(x)
        return self.conv2(torch.cat([x] + [m(x) for m in self.m], dim=1))


class Focus(nn.Module):
    def __init__(self, in_channels, out_channels, ksize=1, stride=1):
        super().__init__()
        self.conv = BaseConv(in_channels * 4, out_channels, ksize, stride)

    def forward(self, x):
        top_left, top_right = x[..., ::2, ::2], x[..., ::2, 1::2]
        bot_left, bot_right = x[..., 1::2, ::2], x[..., 1::2, 1::2]
        return self.conv(torch.cat((top_left, bot_left, top_right, bot_right), dim=1))


class CSPDarknet(nn.Module):
    def __init__(self, dep_mul, wid_mul, depthwise=False):
        super().__init__()
        Cv = XDWConv if depthwise else BaseConv
        bc = int(wid_mul * 64)
        bd = max(round(dep_mul * 3), 1)
        self.stem = Focus(3, bc, ksize=3)
        self.dark2 = nn.Sequential(Cv(bc, bc * 2, 3, 2), CSPLayer(bc * 2, bc * 2, n=bd, depthwise=depthwise))
        self.dark3 = nn.Sequential(Cv(bc * 2, bc * 4, 3, 2), CSPLayer(bc * 4, bc * 4, n=bd * 3, depthwise=depthwise))
        self.dark4 = nn.Sequential(Cv(bc * 4, bc * 8, 3, 2), CSPLayer(bc * 8, bc * 8, n=bd * 3, depthwise=depthwise))
        self.dark5 = nn.Sequential(Cv(bc * 8, bc * 16, 3, 2), SPPBottleneck(bc * 16, bc * 16),
                                   CSPLayer(bc * 16, bc * 16, n=bd, shortcut=False, depthwise=depthwise))

    def forward(self, x):
        x = self.dark2(self.stem(x))
        d3 = self.dark3(x)
        d4 = self.dark4(d3)
        return d3, d4, self.dark5(d4)


class YOLOPAFPN(nn.Module):
    def __init__(self, depth, width, in_channels=(256, 512, 1024), depthwise=False):
        super().__init__()
        self.backbone = CSPDarknet(depth, width, depthwise=depthwise)
        Cv = XDWConv if depthwise else BaseConv
        c0, c1, c2 = (int(c * width) for c in in_channels)
        n = round(3 * depth)
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")
        self.lateral_conv0 = BaseConv(c2, c1, 1, 1)
        self.C3_p4 = CSPLayer(2 * c1, c1, n, False, depthwise=depthwise)
        self.reduce_conv1 = BaseConv(c1, c0, 1, 1)
        self.C3_p3 = CSPLayer(2 * c0, c0, n, False, depthwise=depthwise)
        self.bu_conv2 = Cv(c0, c0, 3, 2)
        self.C3_n3 = CSPLayer(2 * c0, c1, n, False, depthwise=depthwise)
        self.bu_conv1 = Cv(c1, c1, 3, 2)
        self.C3_n4 = CSPLayer(2 * c1, c2, n, False, depthwise=depthwise)

    def forward(self, x):
        x2, x1, x0 = self.backbone(x)
        fpn_out0 = self.lateral_conv0(x0)
        f_out0 = self.C3_p4(torch.cat([self.upsample(fpn_out0), x1], 1))
        fpn_out1 = self.reduce_conv1(f_out0)
        pan_out2 = self.C3_p3(torch.cat([self.upsample(fpn_out1), x2], 1))
        pan_out1 = self.C3_n3(torch.cat([self.bu_conv2(pan_out2), fpn_out1], 1))
        pan_out0 = self.C3_n4(torch.cat([self.bu_conv1(pan_out1), fpn_out0], 1))
        return pan_out2, pan_out1, pan_out0


class YOLOXHead(nn.Module):
    def __init__(self, num_classes, width, in_channels=(256, 512, 1024), depthwise=False):
        super().__init__()
        Cv = XDWConv if depthwise else BaseConv
        h = int(256 * width)
        self.stems, self.cls_convs, self.reg_convs = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        self.cls_preds, self.reg_preds, self.obj_preds = nn.ModuleList(), nn.ModuleList(), nn.ModuleList()
        for c in in_channels:
            self.stems.append(BaseConv(int(c * width), h, 1, 1))
            self.cls_convs.append(nn.Sequential(Cv(h, h, 3, 1), Cv(h, h, 3, 1)))
            self.reg_convs.append(nn.Sequential(Cv(h, h, 3, 1), Cv(h, h, 3, 1)))
            self.cls_preds.append(nn.Conv2d(h, num_classes, 1, 1, 0))
            self.reg_preds.append(nn.Conv2d(h, 4, 1, 1, 0))
            self.obj_preds.append(nn.Conv2d(h, 1, 1, 1, 0))

    def forward(self, xin):
        outputs = []
        for k, x in enumerate(xin):
            x = self.stems[k](x)
            cls_output = self.cls_preds[k](self.cls_convs[k](x))
            reg_feat = self.reg_convs[k](x)
            reg_output, obj_output = self.reg_preds[k](reg_feat), self.obj_preds[k](reg_feat)
            outputs.append(torch.cat([reg_output, obj_output.sigmoid(), cls_output.sigmoid()], 1))
        return torch.cat([x.flatten(start_dim=2) for x in outputs], dim=2).permute(0, 2, 1)


class YOLOX(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x):
        return self.head(self.backbone(x))


# ---------------------------------------------------------------- building, exporting, checking


def build(family, size):
    """Returns (model, input size, class names, output name, metadata or None, input range)."""
    tiny = size == "tiny"
    names = COCO[:3] if tiny else COCO
    nc = len(names)
    imgsz = 64 if tiny else 640
    if family == "yolox":
        depth, width, dw = {"tiny": (0.33, 1 / 32, True), "n": (0.33, 0.25, True), "s": (0.33, 0.50, False)}[size]
        model = YOLOX(YOLOPAFPN(depth, width, depthwise=dw), YOLOXHead(nc, width, depthwise=dw))
        return model, (416 if size == "n" else imgsz), names, "output", None, 255.0
    if family == "yolov5":
        depth, gw = 0.33, {"tiny": None, "n": 0.25, "s": 0.50}[size]
        width = (lambda c: c // 32) if tiny else (lambda c: make_divisible(c * gw, 8))
        model = parse(V5, width, depth, nc, lambda ch: V5Detect(nc, V5_ANCHORS, ch))
        meta = {"stride": "32", "names": repr(dict(enumerate(names)))}
        return model, imgsz, names, "output0", meta, 1.0
    heads = (8, 8) if tiny else None
    if family == "yolov8":
        spec, depth, legacy = V8, 0.33, True
    elif family == "yolo11":
        spec, depth, legacy = V11, 0.50, False
    elif family == "yolov9":
        spec, depth, legacy = v9(32 if size == "s" else 16, 1 if tiny else 3), 1.0, True
    else:
        raise SystemExit(f"unknown family {family}: yolov5, yolov8, yolo11, yolox, yolov9")
    if family == "yolov9":
        width = (lambda c: c // 8) if tiny else (lambda c: c)
    else:
        gw = {"n": 0.25, "s": 0.50}.get(size)
        width = (lambda c: c // 32) if tiny else (lambda c: make_divisible(min(c, 1024) * gw, 8))
    model = parse(spec, width, depth, nc, lambda ch: Detect(nc, ch, legacy, heads))
    label = {"yolov9": "yolov9t" if size != "s" else "yolov9s"}.get(family, family + ("n" if tiny else size))
    label += " (tiny widths)" if tiny else ""
    meta = {"description": f"{label} structure, random weights (scripts/onnx/yolo_models.py)", "stride": "32",
            "task": "detect", "batch": "1", "imgsz": repr([imgsz, imgsz]), "names": repr(dict(enumerate(names)))}
    return model, imgsz, names, "output0", meta, 1.0


def calibration_images(n, imgsz, scale, generator):
    """Noise at several scales (2x2 up to the input size, resized bilinear), full or random contrast and brightness."""
    images = []
    for i in range(n):
        r = max(2, imgsz >> (i // 2 % 6))
        x = F.interpolate(torch.rand(1, 3, r, r, generator=generator), size=(imgsz, imgsz), mode="bilinear")
        c = torch.rand(1, generator=generator) * 0.8 + 0.2 if i % 2 else torch.ones(1)
        images.append((x - 0.5) * c + 0.5 + (torch.rand(1, generator=generator) - 0.5) * (1 - c))
    return torch.cat(images).clamp(0, 1) * scale


def predictions(model):
    """The heads' last convolutions (no BatchNorm after them): box, class and objectness logits."""
    for m in model.modules():
        if isinstance(m, Detect):
            yield from (s[-1] for s in (*m.cv2, *m.cv3))
        elif isinstance(m, V5Detect):
            yield from m.m
        elif isinstance(m, YOLOXHead):
            yield from (*m.cls_preds, *m.reg_preds, *m.obj_preds)


@torch.no_grad()
def randomise(model, imgsz, scale):
    """Seeded weights; BatchNorm scale 0.1..0.2 and shift -0.05..0.05, its statistics from a batch of varied random
    images; the logits scaled to a standard deviation of 2 about a random -1..1 per channel on that batch. SiLU then
    runs nearly linear: with BatchNorm scales about 1 a random network of 100+ layers amplifies rounding so much that
    float32 PyTorch itself is 1e-4 off float64 on a white-noise input; at 0.1..0.2 it stays near 1e-6."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for bn in bns:
        bn.weight.uniform_(0.1, 0.2)
        bn.bias.uniform_(-0.05, 0.05)
        bn.momentum = None  # cumulative average: one batch sets the statistics
    images = calibration_images(24, imgsz, scale, torch.Generator().manual_seed(2))
    model.train()
    model(images)
    for bn in bns:
        bn.momentum = 0.03
    model.eval()
    inputs = {}
    hooks = [c.register_forward_hook(lambda c, i, o: inputs.__setitem__(c, i[0])) for c in predictions(model)]
    model(images)
    for h in hooks:
        h.remove()
    for c, x in inputs.items():
        y = F.conv2d(x, c.weight).transpose(0, 1).flatten(1)
        k = 2 / y.std(1)
        c.weight.mul_(k.view(-1, 1, 1, 1))
        c.bias.copy_(torch.rand(c.bias.shape) * 2 - 1 - y.mean(1) * k)
    return model


def main(argv):
    opset = 17
    if "--opset" in argv:
        i = argv.index("--opset")
        opset = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 3 or argv[1] not in ("tiny", "n", "s"):
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    family, size, out = argv
    torch.manual_seed(0)
    model, imgsz, names, output, meta, scale = build(family, size)
    params = sum(p.numel() for p in model.parameters())
    model = randomise(model, imgsz, scale)
    inputs = {"white noise": torch.rand(1, 3, imgsz, imgsz, generator=torch.Generator().manual_seed(1)) * scale,
              "smooth random": calibration_images(6, imgsz, scale, torch.Generator().manual_seed(7))[3:4]}
    with torch.no_grad():
        refs = {k: model(x).numpy() for k, x in inputs.items()}  # the module as built (RepConv unfused)
        for m in model.modules():
            if isinstance(m, RepConv):
                m.fuse()  # as Ultralytics' exporter does (model.fuse())
        x = inputs["white noise"]
        model(x)  # the exporters' dry run: grids and anchors cached
    warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)  # the dry run's shape checks, as intended
    torch.onnx.export(model, x, out, opset_version=opset, input_names=["images"], output_names=[output],
                      do_constant_folding=True, dynamo=False)

    import numpy as np
    import onnx
    import onnxruntime as ort
    m = onnx.load(out)
    for k, v in (meta or {}).items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, out)
    session = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    print(f"{out}: {family} {size}, {params} parameters (before fusion), {os.path.getsize(out)} bytes, "
          f"opset {m.opset_import[0].version}, input {m.graph.input[0].name} "
          f"{[d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]}")
    print("outputs", [(o.name, [d.dim_value for d in o.type.tensor_type.shape.dim]) for o in m.graph.output])
    print("ops", sorted({n.op_type for n in m.graph.node}))
    print("metadata", {p.key: p.value[:60] for p in m.metadata_props})
    worst = 0.0
    for k, x in inputs.items():
        got, ref = session.run(None, {"images": x.numpy()})[0], refs[k]
        diff = float(np.abs(got - ref).max())
        worst = max(worst, diff / float(np.abs(ref).max()))
        print(f"ONNX Runtime vs PyTorch, {k} input: max abs diff {diff:.3g}, relative to max |output| "
              f"{diff / float(np.abs(ref).max()):.3g}, output range [{ref.min():.4g}, {ref.max():.4g}]")
    if not worst < 1e-4:
        raise SystemExit(f"ONNX Runtime disagrees with PyTorch: relative {worst:.3g}")


if __name__ == "__main__":
    main(sys.argv[1:])
