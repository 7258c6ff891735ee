"""A tiny YOLOv8-shaped detector, exported as Ultralytics exports (torch.onnx.export, opset 17, static 1x3x64x64,
names in the metadata), for the importer's tests (detector/src/test/resources/onnx/tiny-yolov8.onnx).

The structure follows YOLOv8's published one at a tiny width: Conv = Conv2d + BatchNorm + SiLU; C2f (split, bottlenecks,
concat); SPPF (three max-pools); a PAN neck with nearest upsampling; a decoupled anchor-free head per stride with DFL
(softmax over 16 bins), boxes decoded against anchor points and strides, concatenated to [1, 4 + classes, anchors].
Width 2 and 8-channel heads keep the file at about 160 KB. Weights are random (seeded): the importer's tests check structure and shapes, not detections.

    python3 scripts/onnx/tiny_yolov8.py OUT.onnx   (needs torch and onnx)
"""
import sys

import torch
import torch.nn as nn


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut=True):
        super().__init__()
        self.cv1, self.cv2, self.add = Conv(c, c, 3), Conv(c, c, 3), shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C2f(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=False):
        super().__init__()
        self.c = c2 // 2
        self.cv1 = Conv(c1, 2 * self.c, 1)
        self.cv2 = Conv((2 + n) * self.c, c2, 1)
        self.m = nn.ModuleList(Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x):
        y = list(self.cv1(x).split((self.c, self.c), 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c, 1), Conv(c * 4, c2, 1)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class DFL(nn.Module):
    def __init__(self, c1=16):
        super().__init__()
        self.conv = nn.Conv2d(c1, 1, 1, bias=False).requires_grad_(False)
        self.conv.weight.data[:] = torch.arange(c1, dtype=torch.float).view(1, c1, 1, 1)
        self.c1 = c1

    def forward(self, x):
        b, _, a = x.shape
        return self.conv(x.view(b, 4, self.c1, a).transpose(2, 1).softmax(1)).view(b, 4, a)


class Detect(nn.Module):
    def __init__(self, nc, ch, strides):
        super().__init__()
        self.nc, self.reg_max, self.strides = nc, 16, strides
        c2, c3 = 8, 8  # Ultralytics: max(16, ch[0] // 4, 64), max(ch[0], min(nc, 100)); tiny to keep the file small
        self.cv2 = nn.ModuleList(nn.Sequential(Conv(x, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * 16, 1)) for x in ch)
        self.cv3 = nn.ModuleList(nn.Sequential(Conv(x, c3, 3), Conv(c3, c3, 3), nn.Conv2d(c3, nc, 1)) for x in ch)
        self.dfl = DFL(16)

    def forward(self, xs):
        shapes, anchors, strides = [], [], []
        outs = []
        for i, x in enumerate(xs):
            b, _, h, w = x.shape
            outs.append(torch.cat((self.cv2[i](x), self.cv3[i](x)), 1).view(b, 4 * 16 + self.nc, -1))
            sy, sx = torch.meshgrid(torch.arange(h, dtype=torch.float) + 0.5, torch.arange(w, dtype=torch.float) + 0.5,
                                    indexing="ij")
            anchors.append(torch.stack((sx, sy), -1).view(-1, 2))
            strides.append(torch.full((h * w, 1), float(self.strides[i])))
        x = torch.cat(outs, 2)
        box, cls = x.split((4 * 16, self.nc), 1)
        anchor = torch.cat(anchors).transpose(0, 1).unsqueeze(0)
        stride = torch.cat(strides).transpose(0, 1)
        lt, rb = self.dfl(box).chunk(2, 1)
        xy = (anchor - lt + anchor + rb) / 2
        wh = rb + lt
        return torch.cat((torch.cat((xy, wh), 1) * stride, cls.sigmoid()), 1)


class TinyYolov8(nn.Module):
    def __init__(self, nc=3, w=8):
        super().__init__()
        self.b0, self.b1 = Conv(3, w, 3, 2), Conv(w, 2 * w, 3, 2)
        self.b2 = C2f(2 * w, 2 * w, 1, True)
        self.b3, self.b4 = Conv(2 * w, 4 * w, 3, 2), C2f(4 * w, 4 * w, 1, True)       # P3/8
        self.b5, self.b6 = Conv(4 * w, 8 * w, 3, 2), C2f(8 * w, 8 * w, 1, True)       # P4/16
        self.b7, self.b8 = Conv(8 * w, 8 * w, 3, 2), C2f(8 * w, 8 * w, 1, True)       # P5/32
        self.sppf = SPPF(8 * w, 8 * w)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.n1 = C2f(16 * w, 8 * w)
        self.n2 = C2f(12 * w, 4 * w)
        self.d1, self.n3 = Conv(4 * w, 4 * w, 3, 2), C2f(12 * w, 8 * w)
        self.d2, self.n4 = Conv(8 * w, 8 * w, 3, 2), C2f(16 * w, 8 * w)
        self.detect = Detect(nc, (4 * w, 8 * w, 8 * w), (8, 16, 32))

    def forward(self, x):
        p3 = self.b4(self.b3(self.b2(self.b1(self.b0(x)))))
        p4 = self.b6(self.b5(p3))
        p5 = self.sppf(self.b8(self.b7(p4)))
        n1 = self.n1(torch.cat((self.up(p5), p4), 1))
        n2 = self.n2(torch.cat((self.up(n1), p3), 1))
        n3 = self.n3(torch.cat((self.d1(n2), n1), 1))
        n4 = self.n4(torch.cat((self.d2(n3), p5), 1))
        return self.detect([n2, n3, n4])


def main(out):
    torch.manual_seed(0)
    model = TinyYolov8(w=2).eval()
    x = torch.zeros(1, 3, 64, 64)
    torch.onnx.export(model, x, out, opset_version=17, input_names=["images"], output_names=["output0"],
                      do_constant_folding=True, dynamo=False)
    import onnx
    m = onnx.load(out)
    for k, v in {"names": "{0: 'person', 1: 'bicycle', 2: 'car'}", "stride": "32", "imgsz": "[64, 64]",
                 "task": "detect"}.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.checker.check_model(m)
    onnx.save(m, out)
    print(out, [(o.name, [d.dim_value for d in o.type.tensor_type.shape.dim]) for o in m.graph.output],
          sorted({n.op_type for n in m.graph.node}))


if __name__ == "__main__":
    main(sys.argv[1])
