"""bench/peers.py's interleaved timing rounds, with a stand-in torch whose CUDA events read a virtual clock
that each timed call advances by its own duration: every implementation of a point is timed `samples` times,
its own duration lands in its own row, round k starts with implementation k mod n, and one that raises is
reported in its row while the others keep their times; and bench_point, driven through stand-in
implementations, reports each backward graph's own time (a timed call bound late to its loop's variables
read the last implementation's for all). (peers.py needs torch; this machine has none.)"""

import importlib.util
import pathlib
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


class VirtualClock:
    now_ms = 0.0


class Event:
    def __init__(self, enable_timing=True):
        self.at = None

    def record(self):
        self.at = VirtualClock.now_ms

    def elapsed_time(self, end):
        return end.at - self.at


@pytest.fixture
def peers(monkeypatch):
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(Event=Event, synchronize=lambda: None, _sleep=lambda cycles: None)
    torch.bfloat16, torch.float16 = "bf16", "fp16"
    torch.OutOfMemoryError = type("OutOfMemoryError", (RuntimeError,), {})
    attention = types.ModuleType("torch.nn.attention")
    attention.SDPBackend = types.SimpleNamespace(FLASH_ATTENTION=1, CUDNN_ATTENTION=2, EFFICIENT_ATTENTION=3)
    attention.sdpa_kernel = None
    for name, module in {"torch": torch, "torch.nn": types.ModuleType("torch.nn"),
                         "torch.nn.functional": types.ModuleType("torch.nn.functional"),
                         "torch.nn.attention": attention}.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("peers_under_test", ROOT / "bench" / "peers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "flush_l2", lambda: None)
    return module


def implementation(name, duration_ms, order, fail_from=None):
    calls = [0]

    def run():
        calls[0] += 1
        if fail_from is not None and calls[0] >= fail_from:
            raise ValueError(f"{name} failed")
        order.append(name)
        VirtualClock.now_ms += duration_ms
    return run


def test_rounds_time_each_implementation_in_turn(peers):
    order = []
    timed = [({"impl": "a"}, implementation("a", 1.0, order)), ({"impl": "b"}, implementation("b", 2.0, order)),
             ({"impl": "c"}, implementation("c", 3.0, order))]
    rows = peers.time_rows(timed, samples=6)
    assert [row["ms_median"] for row in rows] == [1.0, 2.0, 3.0]
    assert all(row["clocks"] is None for row in rows)  # no ClockLog outside main()
    rounds = order[-18:]  # after each implementation's warm-up (4 calls each, >= 50 us: no graph)
    assert [rounds[3 * k] for k in range(6)] == ["a", "b", "c", "a", "b", "c"]
    assert all(sorted(rounds[3 * k:3 * k + 3]) == ["a", "b", "c"] for k in range(6))


def test_an_implementation_that_raises_fails_alone(peers):
    order = []
    timed = [({"impl": "a"}, implementation("a", 1.0, order)), ({"impl": "b"}, implementation("b", 2.0, order, 7))]
    rows = peers.time_rows(timed, samples=5)
    assert rows[0]["ms_median"] == 1.0
    assert rows[1]["ms_median"] is None and rows[1]["error"] == "ValueError: b failed"
    assert order.count("a") == 4 + 5


def test_backward_call_keeps_its_own_tensors(peers, monkeypatch):
    seen = []
    monkeypatch.setattr(peers.torch, "autograd", types.SimpleNamespace(
        grad=lambda out, inputs, grad, retain_graph: seen.append((out, inputs, grad))), raising=False)
    calls = [peers.backward_call(f"out{i}", (f"q{i}",), f"grad{i}") for i in range(3)]
    for call in calls:
        call()
    assert seen == [("out0", ("q0",), "grad0"), ("out1", ("q1",), "grad1"), ("out2", ("q2",), "grad2")]


class FakeTensor:
    """What bench_point passes around; `duration_ms` is what a backward through it takes on the virtual clock."""

    def __init__(self, duration_ms=0.0):
        self.duration_ms = duration_ms

    def detach(self):
        return self

    def requires_grad_(self):
        return self


def test_bench_point_times_each_backward_graph_as_its_own(peers, monkeypatch):
    # Two implementations whose backward takes 1 and 3 ms: each row must report its own, which a timed call
    # bound late to bench_point's loop variables would not (both would read 3 ms).
    durations = {"fast": 1.0, "slow": 3.0}
    torch = peers.torch
    monkeypatch.setattr(torch, "float32", "fp32", raising=False)
    monkeypatch.setattr(torch, "manual_seed", lambda seed: None, raising=False)
    monkeypatch.setattr(torch, "randn", lambda *shape, **kwargs: FakeTensor(), raising=False)
    monkeypatch.setattr(torch, "randn_like", lambda x: FakeTensor(x.duration_ms), raising=False)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda: None, raising=False)
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda: 0, raising=False)
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda: 0, raising=False)

    def grad(out, inputs, grad_out, retain_graph):
        VirtualClock.now_ms += out.duration_ms
    monkeypatch.setattr(torch, "autograd", types.SimpleNamespace(grad=grad), raising=False)
    monkeypatch.setattr(peers, "attention", lambda *args, **kwargs: FakeTensor())
    monkeypatch.setattr(peers, "verify", lambda out, ref, base: (True, 0.0))
    monkeypatch.setattr(peers, "kv_for", lambda name, q, k, v, causal, path: (k, v, False))

    def make_impl(name, q, k, v, causal, path):
        return (lambda: FakeTensor(durations[name])), (lambda: f"kernel_{name}")
    monkeypatch.setattr(peers, "make_impl", make_impl)
    args = types.SimpleNamespace(op="bwd", dtype="bf16", path="auto", samples=4)
    point = peers.Point(batch=1, seqlen=8192, heads=2, heads_kv=2, dim=64, causal=False)
    rows = peers.bench_point(args, ["fast", "slow"], "bf16", point)
    assert [row["ms_median"] for row in rows] == [1.0, 3.0]
    assert [row["kernel"] for row in rows] == ["kernel_fast", "kernel_slow"]
    assert rows[0]["tflops"] == pytest.approx(3 * rows[1]["tflops"])
