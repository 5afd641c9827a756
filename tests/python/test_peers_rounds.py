"""bench/peers.py's interleaved timing rounds, with a stand-in torch whose CUDA events read a virtual clock
that each timed call advances by its own duration: every implementation of a point is timed `samples` times,
its own duration lands in its own row, round k starts with implementation k mod n, and one that raises is
reported in its row while the others keep their times. (peers.py needs torch; this machine has none.)"""

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
