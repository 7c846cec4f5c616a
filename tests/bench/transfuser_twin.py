#!/usr/bin/python3
"""PyTorch twin of Pitwall's TransFuser-lite (plugins/transfuser) and its training-step benchmark.

Same layers in the same order, the same parameter names (so weights load by name), the same losses and
LEAD's loss-weight normalisation as the C++ model; it is the reference that bench_transfuser_step is
measured against (run_transfuser_step_bench.py runs both side by side).

    /usr/bin/python3 tests/bench/transfuser_twin.py [--threads N=2] [--batch B=16] [--width W]
        [--stage pretrain|posttrain] [--warmup N] [--steps M] [--seed S] [--expect-params N]
        [--expect-trainable N] [key=value ...]
    /usr/bin/python3 tests/bench/transfuser_twin.py --check DIR [same options as the dump]

The timing run prints one JSON line (median/mean ms per step, samples/s). --expect-params makes it fail
(exit 1) unless its parameter count equals the C++ one. --check DIR loads what
`bench_transfuser_step --no-dropout --dump DIR` wrote (weights, buffers, batch, losses of two steps),
requires the same parameter names and shapes, and compares the losses of both steps (the second one after
an AdamW step, so gradients and the optimiser are compared too).

Runs with Debian's /usr/bin/python3 (python3-torch 1.13); LibTorch 1.13's C++ modules are seq-first.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

STAGES = 4
STAGE_STRIDE = (1, 2, 2, 2)  # after a stride-2 stem: 1/2, 1/4, 1/8, 1/16
STAGE_SCALE = (1, 2, 4, 8)
BACKBONE_STRIDE = 16
GPT_DROPOUT = 0.1
YAW_BINS = 12
BEV_GRID_STRIDE = 4.0
COMMANDS = 6
MAX_BOXES = 48
SPEED_CLASSES = [0.0, 4.0, 8.0, 10.0, 13.89, 16.0, 17.78, 20.0]
PERCEPTION_TERMS = ["semantic", "depth", "bev_semantic", "center_heatmap", "center_wh", "center_offset",
                    "center_yaw_class", "center_yaw_res", "center_velocity"]
PLANNING_TERMS = ["waypoints", "target_speed"]
ROW, COL, LENGTH, WIDTH, YAW, CLASS, SPEED = range(7)

# The config keys the twin understands, with the schemas' defaults (core.schema.yaml, transfuser.schema.yaml).
DEFAULTS = {
    "training.optimization.batch_size": 16, "training.optimization.lr": 0.0003,
    "training.optimization.weight_decay": 0.01, "training.optimization.precision": "fp32",
    "data.synthetic.image_width": 256, "data.synthetic.image_height": 96,
    "data.synthetic.bev_width": 96, "data.synthetic.bev_height": 80,
    "policy.transfuser.upsample_perspective_logits": False, "policy.transfuser.upsample_mode": "bilinear",
    "policy.transfuser.freeze_backbone": False, "policy.transfuser.use_depth": True,
    "policy.transfuser.use_semantic": True, "policy.transfuser.use_bev_semantic": True,
    "policy.transfuser.use_detection": True, "policy.transfuser.width": 16, "policy.transfuser.gpt_layers": 1,
    "policy.transfuser.gpt_heads": 4, "policy.transfuser.token_dim": 64, "policy.transfuser.planning_layers": 2,
    "policy.transfuser.planning_heads": 4,
}
DEFAULTS.update({f"policy.transfuser.loss_weights.{t}": 1.0 for t in PERCEPTION_TERMS + PLANNING_TERMS})


def parse_value(key, text):
    default = DEFAULTS[key]
    if isinstance(default, bool):
        if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
            raise ValueError(f"{key}: '{text}' is not a bool")
        return text.lower() in ("true", "1", "yes", "on")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


class Spec:
    def __init__(self, cfg):
        self.image_height = cfg["data.synthetic.image_height"]
        self.image_width = cfg["data.synthetic.image_width"]
        self.bev_height = cfg["data.synthetic.bev_height"]
        self.bev_width = cfg["data.synthetic.bev_width"]
        self.waypoints = 8
        self.semantic_classes = 10
        self.bev_semantic_classes = 13
        self.box_classes = 8
        self.max_depth_m = 100.0


class Options:
    def __init__(self, cfg):
        key = lambda leaf: cfg["policy.transfuser." + leaf]
        self.width = key("width")
        self.gpt_layers = key("gpt_layers")
        self.gpt_heads = key("gpt_heads")
        self.token_dim = key("token_dim")
        self.planning_layers = key("planning_layers")
        self.planning_heads = key("planning_heads")
        self.upsample_logits = key("upsample_perspective_logits")
        self.nearest = key("upsample_mode") == "nearest"
        self.freeze_backbone = key("freeze_backbone")
        self.use_depth = key("use_depth")
        self.use_semantic = key("use_semantic")
        self.use_bev_semantic = key("use_bev_semantic")
        self.use_detection = key("use_detection")
        self.loss_weights = {t: key("loss_weights." + t) for t in PERCEPTION_TERMS + PLANNING_TERMS}


# ---- layers (plugins/transfuser/modules.cpp) ----

def conv(cin, cout, kernel, stride=1, bias=True):
    return nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2, bias=bias)


def stem(cin, cout):
    return nn.Sequential(conv(cin, cout, 3, 2, False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def conv_pair(cin, mid, cout, relu_at_end):
    layers = [conv(cin, mid, 3), nn.ReLU(inplace=True), conv(mid, cout, 3)]
    if relu_at_end:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


def upsample(x, size, nearest):
    if x.shape[2] == size[0] and x.shape[3] == size[1]:
        return x
    if nearest:
        return F.interpolate(x, size=list(size), mode="nearest")
    return F.interpolate(x, size=list(size), mode="bilinear", align_corners=False)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = conv(cin, cout, 3, stride, False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = conv(cout, cout, 3, 1, False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if cin != cout or stride != 1:
            self.shortcut = conv(cin, cout, 1, stride, False)
            self.shortcut_bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (self.shortcut_bn(self.shortcut(x)) if self.shortcut is not None else x))


class Gpt(nn.Module):
    def __init__(self, channels, tokens, layers, heads):
        super().__init__()
        self.pos_emb = nn.Parameter(torch.zeros(1, tokens, channels))
        self.norms1 = nn.ModuleList()
        self.attentions = nn.ModuleList()
        self.norms2 = nn.ModuleList()
        self.mlps = nn.ModuleList()
        for _ in range(layers):
            self.norms1.append(nn.LayerNorm(channels))
            self.attentions.append(nn.MultiheadAttention(channels, heads, dropout=GPT_DROPOUT))
            self.norms2.append(nn.LayerNorm(channels))
            self.mlps.append(nn.Sequential(nn.Linear(channels, 4 * channels), nn.ReLU(inplace=True),
                                           nn.Linear(4 * channels, channels), nn.Dropout(GPT_DROPOUT)))
        self.ln_f = nn.LayerNorm(channels)
        self.drop = nn.Dropout(GPT_DROPOUT)
        for module in self.modules():  # LEAD's initialisation (out_proj included, as in C++)
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, 0.0, 0.02)
                nn.init.zeros_(module.bias)

    def forward(self, x):  # [B, T, C]
        x = self.drop(x + self.pos_emb)
        for norm1, attention, norm2, mlp in zip(self.norms1, self.attentions, self.norms2, self.mlps):
            h = norm1(x).transpose(0, 1)  # [T, B, C]
            # LibTorch's MultiheadAttention::forward defaults to need_weights=true; so does this call.
            attended = attention(h, h, h)[0]
            x = x + attended.transpose(0, 1)
            x = x + mlp(norm2(x))
        return self.ln_f(x)


class Backbone(nn.Module):
    def __init__(self, o, spec):
        super().__init__()
        self.image_stem = stem(3, o.width)
        self.lidar_stem = stem(1, o.width)
        self.image_anchors = (max(1, spec.image_height // BACKBONE_STRIDE), max(1, spec.image_width // BACKBONE_STRIDE))
        self.lidar_anchors = (max(1, spec.bev_height // BACKBONE_STRIDE), max(1, spec.bev_width // BACKBONE_STRIDE))
        tokens = self.image_anchors[0] * self.image_anchors[1] + self.lidar_anchors[0] * self.lidar_anchors[1]
        self.image_stages = nn.ModuleList()
        self.lidar_stages = nn.ModuleList()
        self.lidar_to_image = nn.ModuleList()
        self.image_to_lidar = nn.ModuleList()
        self.fusions = nn.ModuleList()
        cin = o.width
        for s in range(STAGES):
            cout = o.width * STAGE_SCALE[s]
            self.image_stages.append(BasicBlock(cin, cout, STAGE_STRIDE[s]))
            self.lidar_stages.append(BasicBlock(cin, cout, STAGE_STRIDE[s]))
            self.lidar_to_image.append(conv(cout, cout, 1))
            self.image_to_lidar.append(conv(cout, cout, 1))
            self.fusions.append(Gpt(cout, tokens, o.gpt_layers, min(o.gpt_heads, cout)))
            cin = cout

    def forward(self, rgb, lidar):
        image = self.image_stem(rgb)
        bev = self.lidar_stem(lidar)
        image_tokens = self.image_anchors[0] * self.image_anchors[1]
        for s in range(STAGES):
            image = self.image_stages[s](image)
            bev = self.lidar_stages[s](bev)
            image_pooled = F.adaptive_avg_pool2d(image, self.image_anchors)
            bev_pooled = self.lidar_to_image[s](F.adaptive_avg_pool2d(bev, self.lidar_anchors))
            b, c = image.shape[0], image.shape[1]
            tokens = torch.cat([image_pooled.flatten(2), bev_pooled.flatten(2)], 2).transpose(1, 2)  # [B, T, C]
            tokens = self.fusions[s](tokens).transpose(1, 2)
            image_out = tokens.narrow(2, 0, image_tokens).reshape(b, c, *self.image_anchors)
            bev_out = tokens.narrow(2, image_tokens, tokens.shape[2] - image_tokens).reshape(b, c, *self.lidar_anchors)
            bev_out = self.image_to_lidar[s](bev_out)
            image = image + upsample(image_out, (image.shape[2], image.shape[3]), False)
            bev = bev + upsample(bev_out, (bev.shape[2], bev.shape[3]), False)
        return image, bev


class PerspectiveDecoder(nn.Module):
    def __init__(self, cin, w, cout, upsample_logits, nearest, height, width):
        super().__init__()
        c0, c1, c2 = max(8, 2 * w), max(8, w), max(4, w // 2)
        self.deconv1 = conv_pair(cin, c0, c1, True)
        self.deconv2 = conv_pair(c1, c2, c2, True)
        self.deconv3 = conv_pair(c2, c2, cout, False)
        self.upsample_logits, self.nearest, self.height, self.width = upsample_logits, nearest, height, width

    def forward(self, features):
        x = self.deconv1(features)
        x = upsample(x, (features.shape[2] * 4, features.shape[3] * 4), self.nearest)
        x = self.deconv2(x)
        if self.upsample_logits:
            return upsample(self.deconv3(x), (self.height, self.width), self.nearest)
        x = upsample(x, (self.height, self.width), self.nearest)
        return self.deconv3(x)


class TopDown(nn.Module):
    def __init__(self, cin, cout, grid_h, grid_w, nearest):
        super().__init__()
        self.c5_conv = conv(cin, cout, 1)
        self.up_conv5 = conv(cout, cout, 3)
        self.up_conv4 = conv(cout, cout, 3)
        self.grid_h, self.grid_w, self.nearest = grid_h, grid_w, nearest

    def forward(self, bev):
        x = torch.relu(self.c5_conv(bev))
        x = upsample(x, (bev.shape[2] * 2, bev.shape[3] * 2), self.nearest)
        x = torch.relu(self.up_conv5(x))
        x = upsample(x, (self.grid_h, self.grid_w), self.nearest)
        return torch.relu(self.up_conv4(x))


class CenterNetHead(nn.Module):
    def __init__(self, cin, classes, yaw_bins):
        super().__init__()
        self.heads = nn.ModuleDict()
        for name, channels in [("heatmap", classes), ("wh", 2), ("offset", 2), ("yaw_class", yaw_bins),
                               ("yaw_res", 1), ("velocity", 1)]:
            last = conv(cin, channels, 1)
            if name == "heatmap":
                nn.init.constant_(last.bias, -2.19)
            self.heads[name] = nn.Sequential(conv(cin, cin, 3), nn.ReLU(inplace=True), last)

    def forward(self, grid):
        return {name: head(grid) for name, head in self.heads.items()}


def sine_positions(h, w, d, like):
    quarter = max(1, d // 4)
    opts = dict(dtype=like.dtype, device=like.device)
    ys = torch.arange(h, **opts).unsqueeze(1).expand(h, w).reshape(-1, 1)
    xs = torch.arange(w, **opts).unsqueeze(0).expand(h, w).reshape(-1, 1)
    freq = torch.exp(torch.arange(quarter, **opts) * (-math.log(10000.0) / quarter)).unsqueeze(0)
    pe = torch.cat([torch.sin(ys * freq), torch.cos(ys * freq), torch.sin(xs * freq), torch.cos(xs * freq)], 1)
    if pe.shape[1] < d:
        pe = torch.cat([pe, torch.zeros(pe.shape[0], d - pe.shape[1], **opts)], 1)
    return pe.narrow(1, 0, d)


class PlanningDecoder(nn.Module):
    def __init__(self, bev_channels, o, n, speed_classes):
        super().__init__()
        d = o.token_dim
        self.waypoints, self.token_dim = n, d
        self.context = conv(bev_channels, d, 1)
        self.speed_token = nn.Linear(1, d)
        self.target_token = nn.Linear(2, d)
        self.command_token = nn.Embedding(COMMANDS, d)
        self.status_pos = nn.Parameter(torch.randn(3, 1, d) * 0.02)
        self.queries = nn.Parameter(torch.randn(n + 1, 1, d) * 0.02)
        layer = nn.TransformerDecoderLayer(d, o.planning_heads, dim_feedforward=4 * d, dropout=0.0, activation="gelu")
        self.decoder = nn.TransformerDecoder(layer, o.planning_layers, norm=nn.LayerNorm(d))  # seq-first
        self.waypoint_out = nn.Linear(d, 2)
        self.speed_out = nn.Sequential(nn.Linear(d, d), nn.ReLU(inplace=True), nn.Linear(d, speed_classes))

    def forward(self, bev, speed, target_point, command):
        b = bev.shape[0]
        ctx = self.context(bev)  # [B, D, h, w]
        pos = sine_positions(ctx.shape[2], ctx.shape[3], self.token_dim, ctx)
        memory = (ctx.flatten(2).transpose(1, 2) + pos.unsqueeze(0)).transpose(0, 1)  # [T, B, D]
        status = torch.stack([self.speed_token(speed.unsqueeze(1)), self.target_token(target_point),
                              self.command_token(command)], 0) + self.status_pos  # [3, B, D]
        memory = torch.cat([memory, status], 0)
        out = self.decoder(self.queries.expand(self.queries.shape[0], b, self.token_dim).contiguous(), memory)
        wp = self.waypoint_out(out.narrow(0, 0, self.waypoints)).transpose(0, 1).cumsum(1)  # [B, N, 2]
        return wp, self.speed_out(out[self.waypoints])


# ---- losses (plugins/transfuser/losses.cpp) ----

def make_center_targets(boxes, classes, grid_h, grid_w, stride, yaw_bins):
    b, n = boxes.shape[0], boxes.shape[1]
    dtype = boxes.dtype
    cls = boxes[:, :, CLASS]
    valid = cls >= 0
    row = boxes[:, :, ROW] / stride
    col = boxes[:, :, COL] / stride
    inside = valid & (row >= 0) & (row < grid_h) & (col >= 0) & (col < grid_w)
    t = {"mask": inside.to(dtype)}
    row_cell = row.floor().clamp(0, grid_h - 1)
    col_cell = col.floor().clamp(0, grid_w - 1)
    t["index"] = (row_cell * grid_w + col_cell).long() * inside.long()
    t["wh"] = torch.stack([boxes[:, :, LENGTH], boxes[:, :, WIDTH]], 2) / stride
    t["offset"] = torch.stack([row - row_cell, col - col_cell], 2)
    yaw_bin = 2.0 * math.pi / yaw_bins
    yaw = torch.remainder(boxes[:, :, YAW], 2.0 * math.pi)
    t["yaw_class"] = (yaw / yaw_bin).floor().clamp(0, yaw_bins - 1).long()
    t["yaw_residual"] = yaw / yaw_bin - t["yaw_class"].to(dtype)
    t["velocity"] = boxes[:, :, SPEED]
    t["count"] = t["mask"].sum().clamp_min(1.0)
    sigma = ((torch.min(t["wh"][:, :, 0], t["wh"][:, :, 1]) / 2.0).floor().clamp_min(1.0) * 2 + 1) / 6.0
    ys = torch.arange(grid_h, dtype=dtype).view(1, 1, grid_h, 1)
    xs = torch.arange(grid_w, dtype=dtype).view(1, 1, 1, grid_w)
    dy = ys - row_cell.view(b, n, 1, 1)
    dx = xs - col_cell.view(b, n, 1, 1)
    gauss = torch.exp(-(dy * dy + dx * dx) / (2 * sigma.view(b, n, 1, 1).pow(2))) * t["mask"].view(b, n, 1, 1)
    one_hot = F.one_hot(cls.clamp_min(0).long(), classes).to(dtype) * t["mask"].unsqueeze(2)
    t["heatmap"] = (gauss.unsqueeze(1) * one_hot.permute(0, 2, 1).unsqueeze(3).unsqueeze(4)).max(2)[0]
    return t


def gaussian_focal_loss(logits, target, avg_factor):
    alpha, gamma, eps = 2.0, 4.0, 1e-4
    p = torch.sigmoid(logits.float()).clamp(eps, 1 - eps)
    pos = target.eq(1).to(p.dtype)
    neg = 1 - pos
    pos_loss = -torch.log(p) * (1 - p).pow(alpha) * pos
    neg_loss = -torch.log(1 - p) * p.pow(alpha) * (1 - target).pow(gamma) * neg
    return (pos_loss.sum() + neg_loss.sum()) / avg_factor


def gather_at(feature_map, index):
    b, c = feature_map.shape[0], feature_map.shape[1]
    flat = feature_map.reshape(b, c, -1)
    return flat.gather(2, index.unsqueeze(1).expand(b, c, index.shape[1])).transpose(1, 2)


def center_net_losses(out, t):
    losses = {"center_heatmap": gaussian_focal_loss(out["heatmap"], t["heatmap"], t["count"])}
    mask = t["mask"].unsqueeze(2)
    losses["center_wh"] = (F.l1_loss(gather_at(out["wh"], t["index"]).float(), t["wh"], reduction="none")
                           * mask).sum() / (t["count"] * 2)
    losses["center_offset"] = (F.l1_loss(gather_at(out["offset"], t["index"]).float(), t["offset"], reduction="none")
                               * mask).sum() / (t["count"] * 2)
    yaw_logits = gather_at(out["yaw_class"], t["index"]).float()
    yaw_ce = F.cross_entropy(yaw_logits.reshape(-1, yaw_logits.shape[2]), t["yaw_class"].reshape(-1), reduction="none")
    losses["center_yaw_class"] = (yaw_ce * t["mask"].reshape(-1)).sum() / t["count"]
    yaw_res = gather_at(out["yaw_res"], t["index"]).squeeze(2).float()
    losses["center_yaw_res"] = (F.smooth_l1_loss(yaw_res, t["yaw_residual"], reduction="none")
                                * t["mask"]).sum() / t["count"]
    velocity = gather_at(out["velocity"], t["index"]).squeeze(2).float()
    losses["center_velocity"] = (F.l1_loss(velocity, t["velocity"], reduction="none") * t["mask"]).sum() / t["count"]
    return losses


def two_hot_speed(speed, classes):
    k = len(classes)
    centres = torch.tensor(classes, dtype=torch.float32, device=speed.device)
    s = speed.float().clamp(classes[0], classes[-1]).unsqueeze(1)  # [B, 1]
    upper = torch.searchsorted(centres, s.contiguous(), out_int32=False, right=True).clamp(1, k - 1)
    lower = upper - 1
    lo = centres.index_select(0, lower.squeeze(1)).unsqueeze(1)
    hi = centres.index_select(0, upper.squeeze(1)).unsqueeze(1)
    w_hi = ((s - lo) / (hi - lo)).clamp(0, 1)
    target = torch.zeros(speed.shape[0], k, dtype=s.dtype, device=s.device)
    target.scatter_(1, lower, 1 - w_hi)
    target.scatter_add_(1, upper, w_hi)
    return target


# ---- the model (plugins/transfuser/transfuser.cpp) ----

class TransfuserLite(nn.Module):
    def __init__(self, cfg, spec):
        super().__init__()
        o = self.options = Options(cfg)
        self.spec = spec
        top = o.width * 8
        bev_channels = max(16, o.width * 4)
        self.backbone = Backbone(o, spec)
        if o.use_semantic:
            self.semantic_decoder = PerspectiveDecoder(top, o.width, spec.semantic_classes, o.upsample_logits,
                                                       o.nearest, spec.image_height, spec.image_width)
        if o.use_depth:
            self.depth_decoder = PerspectiveDecoder(top, o.width, 1, o.upsample_logits, o.nearest,
                                                    spec.image_height, spec.image_width)
        self.grid_h = max(1, spec.bev_height // int(BEV_GRID_STRIDE))
        self.grid_w = max(1, spec.bev_width // int(BEV_GRID_STRIDE))
        if o.use_bev_semantic or o.use_detection:
            self.top_down = TopDown(top, bev_channels, self.grid_h, self.grid_w, o.nearest)
        if o.use_bev_semantic:
            self.bev_semantic_decoder = nn.Sequential(nn.Conv2d(bev_channels, bev_channels, 3, padding=1),
                                                      nn.ReLU(inplace=True),
                                                      nn.Conv2d(bev_channels, spec.bev_semantic_classes, 1))
        if o.use_detection:
            self.center_net = CenterNetHead(bev_channels, spec.box_classes, YAW_BINS)
        self.planning_decoder = PlanningDecoder(top, o, spec.waypoints, len(SPEED_CLASSES))
        if o.freeze_backbone:
            for p in self.backbone.parameters():
                p.requires_grad_(False)
        self.set_stage("pretrain")

    def head(self, name):
        return getattr(self, name, None)

    def term_enabled(self, term):
        o = self.options
        if term == "semantic":
            return o.use_semantic
        if term == "depth":
            return o.use_depth
        if term == "bev_semantic":
            return o.use_bev_semantic
        if term.startswith("center_"):
            return o.use_detection
        return self.stage == "posttrain"

    def set_stage(self, stage):
        self.stage = stage
        weights = {t: (w if self.term_enabled(t) else 0.0) for t, w in sorted(self.options.loss_weights.items())}
        total = 0.0
        for w in weights.values():
            total += w
        self.weights = {t: (w / total if total > 0 else 0.0) for t, w in weights.items()}

    def trainable_parameters(self):
        out = []
        names = [] if self.options.freeze_backbone else ["backbone"]
        names += ["semantic_decoder", "depth_decoder", "top_down", "bev_semantic_decoder", "center_net"]
        if self.stage == "posttrain":
            names.append("planning_decoder")
        for name in names:
            module = self.head(name)
            if module is not None:
                out += [p for p in module.parameters() if p.requires_grad]
        return out

    def outputs(self, batch):
        out = {}
        image, bev = self.backbone(batch["rgb"], batch["lidar"])
        if self.head("semantic_decoder") is not None:
            out["semantic"] = self.semantic_decoder(image)
        if self.head("depth_decoder") is not None:
            out["depth"] = self.depth_decoder(image).squeeze(1)
        if self.head("top_down") is not None:
            grid = self.top_down(bev)
            if self.head("bev_semantic_decoder") is not None:
                out["bev_semantic"] = upsample(self.bev_semantic_decoder(grid),
                                               (self.spec.bev_height, self.spec.bev_width), False)
            if self.head("center_net") is not None:
                out["centers"] = self.center_net(grid)
        if self.stage == "posttrain":
            command = batch["command"].clamp(0, COMMANDS - 1)
            out["waypoints"], out["speed_logits"] = self.planning_decoder(bev, batch["speed"], batch["target_point"],
                                                                          command)
        return out

    def compute_loss(self, batch):
        out = self.outputs(batch)
        heads = {}
        if "semantic" in out:
            heads["semantic"] = F.cross_entropy(out["semantic"].float(), batch["semantic"])
        if "depth" in out:
            heads["depth"] = F.l1_loss(out["depth"].float(), batch["depth"] / self.spec.max_depth_m)
        if "bev_semantic" in out:
            heads["bev_semantic"] = F.cross_entropy(out["bev_semantic"].float(), batch["bev_semantic"], ignore_index=-1)
        if "centers" in out:
            targets = make_center_targets(batch["boxes"], self.spec.box_classes, self.grid_h, self.grid_w,
                                          BEV_GRID_STRIDE, YAW_BINS)
            heads.update(center_net_losses(out["centers"], targets))
        if "waypoints" in out:
            heads["waypoints"] = F.l1_loss(out["waypoints"].float(), batch["waypoints"])
            target = two_hot_speed(batch["target_speed"], SPEED_CLASSES)
            heads["target_speed"] = -(target * F.log_softmax(out["speed_logits"].float(), 1)).sum(1).mean()
        total = torch.zeros((), dtype=torch.float32)
        for term in sorted(heads):  # std::map order, as the C++ sum
            if self.weights[term] > 0:
                total = total + self.weights[term] * heads[term]
        return total, heads


def random_batch(spec, b):
    """The same draws, in the same order, as bench_transfuser_step.cpp's randomBatch."""
    h, w, hb, wb = spec.image_height, spec.image_width, spec.bev_height, spec.bev_width
    t = {}
    t["rgb"] = torch.randn(b, 3, h, w)
    t["lidar"] = torch.rand(b, 1, hb, wb)
    t["semantic"] = torch.randint(0, spec.semantic_classes, (b, h, w), dtype=torch.long)
    t["depth"] = torch.rand(b, h, w) * spec.max_depth_m
    t["bev_semantic"] = torch.randint(-1, spec.bev_semantic_classes, (b, hb, wb), dtype=torch.long)
    n = MAX_BOXES
    count = torch.randint(1, 25, (b, 1), dtype=torch.long)
    valid = (torch.arange(n, dtype=torch.long).unsqueeze(0) < count).float()
    row = torch.rand(b, n) * float(hb)
    col = torch.rand(b, n) * float(wb)
    length = 4 + torch.rand(b, n) * 16
    width_px = 2 + torch.rand(b, n) * 6
    yaw = (torch.rand(b, n) * 2 - 1) * math.pi
    cls = torch.randint(0, spec.box_classes, (b, n), dtype=torch.long).float()
    speed = torch.rand(b, n) * 15
    boxes = torch.stack([row, col, length, width_px, yaw, cls, speed], 2) * valid.unsqueeze(2)
    boxes[:, :, CLASS] = cls * valid - (1 - valid)
    t["boxes"] = boxes
    t["waypoints"] = (torch.rand(b, spec.waypoints, 2) * 2).cumsum(1)
    t["target_speed"] = torch.rand(b) * 20
    t["target_point"] = torch.randn(b, 2) * 10
    t["speed"] = torch.rand(b) * 15
    t["command"] = torch.randint(0, COMMANDS, (b,), dtype=torch.long)
    return t


def disable_dropout(model):
    for module in model.modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.0
        if isinstance(module, nn.MultiheadAttention):
            module.dropout = 0.0


def load_dump(directory):
    with open(os.path.join(directory, "index.json")) as f:
        index = json.load(f)
    with open(os.path.join(directory, "tensors.bin"), "rb") as f:
        data = f.read()
    tensors = {}
    for e in index["tensors"]:
        dtype = torch.int64 if e["dtype"] == "int64" else torch.float32
        count = math.prod(e["shape"])
        raw = bytearray(data[e["offset"]:e["offset"] + count * (8 if dtype == torch.int64 else 4)])
        tensors[e["name"]] = torch.frombuffer(raw, dtype=dtype).reshape(e["shape"]).clone() if count else \
            torch.zeros(e["shape"], dtype=dtype)
    return index, tensors


def make_optimizer(params, cfg):
    return torch.optim.AdamW(params, lr=cfg["training.optimization.lr"],
                             weight_decay=cfg["training.optimization.weight_decay"], amsgrad=True)


def check(args, cfg, spec):
    index, tensors = load_dump(args.check)
    torch.manual_seed(args.seed)
    model = TransfuserLite(cfg, spec)
    model.train()
    disable_dropout(model)
    problems = []
    state = dict(model.named_parameters())
    state.update({"buffer:" + k: v for k, v in model.named_buffers()})
    cpp_params = {k[len("param:"):] for k in tensors if k.startswith("param:")}
    cpp_buffers = {k[len("buffer:"):] for k in tensors if k.startswith("buffer:")}
    py_params = {k for k, _ in model.named_parameters()}
    py_buffers = {k for k, _ in model.named_buffers()}
    if cpp_params != py_params:
        problems.append(f"parameter names differ: only C++ {sorted(cpp_params - py_params)}, "
                        f"only Python {sorted(py_params - cpp_params)}")
    if cpp_buffers != py_buffers:
        problems.append(f"buffer names differ: only C++ {sorted(cpp_buffers - py_buffers)}, "
                        f"only Python {sorted(py_buffers - cpp_buffers)}")
    with torch.no_grad():
        for name, p in model.named_parameters():
            source = tensors.get("param:" + name)
            if source is not None:
                if tuple(source.shape) != tuple(p.shape):
                    problems.append(f"{name}: C++ shape {tuple(source.shape)}, Python {tuple(p.shape)}")
                else:
                    p.copy_(source)
        for name, b in model.named_buffers():
            source = tensors.get("buffer:" + name)
            if source is not None and tuple(source.shape) == tuple(b.shape):
                b.copy_(source.to(b.dtype))
    batch = {k[len("input:"):]: v for k, v in tensors.items() if k.startswith("input:")}
    total = sum(p.numel() for p in model.parameters())
    model.set_stage(args.stage)
    params = model.trainable_parameters()
    trainable = sum(p.numel() for p in params)
    if total != index["parameters"] or trainable != index["trainable_parameters"]:
        problems.append(f"parameter counts: C++ {index['parameters']} / {index['trainable_parameters']} trainable, "
                        f"Python {total} / {trainable}")
    optimizer = make_optimizer(params, cfg)
    precision = cfg["training.optimization.precision"]
    results = {}
    for step in (1, 2):
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss, heads = model.compute_loss(batch)
        loss.backward()
        optimizer.step()
        expected = index[f"losses_step{step}"]
        got = {"total": loss.item(), **{k: v.item() for k, v in heads.items()}}
        # Same kernels, different op order in places (e.g. where attention scales q): allow float noise; the
        # second step also carries AdamW's near-sign first update of tiny gradients.
        rtol = (1e-4 if step == 1 else 2e-3) * (50 if precision == "bf16" else 1)
        for key in sorted(set(expected) | set(got)):
            e, g = expected.get(key), got.get(key)
            ok = e is not None and g is not None and abs(e - g) <= rtol * max(abs(e), 1e-3)
            results[f"step{step}.{key}"] = {"cpp": e, "python": g, "ok": ok}
            if not ok:
                problems.append(f"step {step} loss {key}: C++ {e}, Python {g}")
    def worst(step):
        rel = [abs(r["cpp"] - r["python"]) / max(abs(r["cpp"]), 1e-3) for k, r in results.items()
               if k.startswith(f"step{step}.") and r["cpp"] is not None and r["python"] is not None]
        return max(rel) if rel else None
    print(json.dumps({"check": args.check, "parameters": total, "trainable_parameters": trainable,
                      "ok": not problems, "max_rel_diff_step1": worst(1), "max_rel_diff_step2": worst(2),
                      "problems": problems, "losses": results}))
    return 0 if not problems else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--width", type=int)
    parser.add_argument("--stage", choices=["pretrain", "posttrain"], default="pretrain")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-dropout", action="store_true")
    parser.add_argument("--expect-params", type=int, help="fail unless the parameter count equals this (C++)")
    parser.add_argument("--expect-trainable", type=int, help="same for the trainable parameters")
    parser.add_argument("--check", metavar="DIR", help="compare with bench_transfuser_step --no-dropout --dump DIR")
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    args = parser.parse_args()

    cfg = dict(DEFAULTS)
    cfg["training.optimization.batch_size"] = args.batch
    if args.width is not None:
        cfg["policy.transfuser.width"] = args.width
    for item in args.overrides:
        key, sep, text = item.partition("=")
        if not sep or key not in DEFAULTS:
            parser.error(f"unknown override '{item}' (known: {', '.join(sorted(DEFAULTS))})")
        cfg[key] = parse_value(key, text)
    if cfg["training.optimization.precision"] not in ("fp32", "bf16"):
        parser.error("precision: fp32 or bf16 on CPU")

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)  # as the C++ bench
    spec = Spec(cfg)
    if args.check:
        return check(args, cfg, spec)

    torch.manual_seed(args.seed)
    model = TransfuserLite(cfg, spec)
    model.train()
    if args.no_dropout:
        disable_dropout(model)
    model.set_stage(args.stage)
    params = model.trainable_parameters()
    optimizer = make_optimizer(params, cfg)
    torch.manual_seed(args.seed + 1)
    batch = random_batch(spec, cfg["training.optimization.batch_size"])
    total_params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in params)
    if args.expect_params is not None and args.expect_params != total_params:
        print(f"transfuser_twin: {total_params} parameters, C++ has {args.expect_params}", file=sys.stderr)
        return 1
    if args.expect_trainable is not None and args.expect_trainable != trainable:
        print(f"transfuser_twin: {trainable} trainable parameters, C++ has {args.expect_trainable}", file=sys.stderr)
        return 1
    bf16 = cfg["training.optimization.precision"] == "bf16"

    def step():
        cpu_start = time.process_time()  # whole process, all threads
        start = time.perf_counter()
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss, _ = model.compute_loss(batch)
        forward_end = time.perf_counter()
        loss.backward()
        backward_end = time.perf_counter()
        optimizer.step()
        end = time.perf_counter()
        return loss, ((end - start) * 1e3, (time.process_time() - cpu_start) * 1e3, (forward_end - start) * 1e3,
                      (backward_end - forward_end) * 1e3, (end - backward_end) * 1e3)

    load_before = os.getloadavg()[0]
    loss = None
    for _ in range(args.warmup):
        loss, _ = step()
    times = []
    for _ in range(args.steps):
        loss, t = step()
        times.append(t)
    last_loss = loss.item()
    if not math.isfinite(last_loss):
        print(f"transfuser_twin: the loss is not finite: {last_loss}", file=sys.stderr)
        return 1
    step_ms = [t[0] for t in times]
    median_ms = statistics.median(step_ms)
    print(json.dumps({
        "impl": "python", "threads": args.threads, "batch": cfg["training.optimization.batch_size"],
        "width": cfg["policy.transfuser.width"], "stage": args.stage,
        "precision": cfg["training.optimization.precision"], "image": [spec.image_width, spec.image_height],
        "bev": [spec.bev_width, spec.bev_height], "parameters": total_params, "trainable_parameters": trainable,
        "warmup": args.warmup, "steps": args.steps, "median_ms": round(median_ms, 3),
        "mean_ms": round(statistics.mean(step_ms), 3), "min_ms": round(min(step_ms), 3),
        "cpu_ms": round(statistics.median(t[1] for t in times), 3),
        "forward_ms": round(statistics.median(t[2] for t in times), 3),
        "backward_ms": round(statistics.median(t[3] for t in times), 3),
        "optimizer_ms": round(statistics.median(t[4] for t in times), 3),
        "samples_per_s": round(cfg["training.optimization.batch_size"] * 1e3 / median_ms, 2),
        "last_loss": round(last_loss, 6), "load_before": load_before, "load_after": os.getloadavg()[0],
        "overrides": args.overrides, "torch": torch.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
