"""bench/ab_compare.py: per-cell ratios of the runs' means (runs of either side may differ in number), a cell
that failed in a run (no time) is reported as such instead of stopping the comparison, and the GPU the runs
name is printed, with a warning when the two sides' runs name different GPUs."""

import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ab_compare", ROOT / "bench" / "ab_compare.py")
ab_compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab_compare)


def run_file(tmp_path, name, tflops_by_seqlen, gpu=None):
    rows = [{"op": "bwd", "impl": "flashattn", "D": 128, "causal": False, "B": 1, "Sq": s, "Sk": s, "tflops": t}
            for s, t in tflops_by_seqlen.items()]
    path = tmp_path / name
    path.write_text(json.dumps({"rows": rows, **({"env": {"gpu": gpu}} if gpu else {})}))
    return str(path)


def compare(monkeypatch, capsys, a, b):
    monkeypatch.setattr(sys, "argv", ["ab_compare.py", "--a", *a, "--b", *b])
    status = ab_compare.main()
    return status, capsys.readouterr().out


def test_ratio_of_means_with_unequal_run_counts(tmp_path, monkeypatch, capsys):
    a = [run_file(tmp_path, "a1.json", {1024: 110.0})]
    b = [run_file(tmp_path, "b1.json", {1024: 90.0}), run_file(tmp_path, "b2.json", {1024: 110.0})]
    status, out = compare(monkeypatch, capsys, a, b)
    assert status == 0 and "| 1.100  |" in out and "geometric mean A/B 1.100 over 1 cells" in out, out


def test_a_failed_cell_has_no_ratio(tmp_path, monkeypatch, capsys):
    a = [run_file(tmp_path, "a1.json", {1024: None, 2048: 200.0})]
    b = [run_file(tmp_path, "b1.json", {1024: 100.0, 2048: 100.0})]
    status, out = compare(monkeypatch, capsys, a, b)
    assert status == 0 and "FAIL" in out and "over 1 cells" in out and "1 of 2 cells failed" in out, out
    a = [run_file(tmp_path, "a2.json", {1024: None})]
    status, out = compare(monkeypatch, capsys, a, [run_file(tmp_path, "b2.json", {1024: 100.0})])
    assert status == 1 and "geometric mean" not in out, out


def test_the_device_is_named_and_a_mismatch_warned(tmp_path, monkeypatch, capsys):
    a = [run_file(tmp_path, "a1.json", {1024: 110.0}, gpu="NVIDIA H100 80GB HBM3")]
    b = [run_file(tmp_path, "b1.json", {1024: 100.0}, gpu="NVIDIA H100 80GB HBM3")]
    _, out = compare(monkeypatch, capsys, a, b)
    assert "device: NVIDIA H100 80GB HBM3" in out and "WARNING" not in out, out
    b = [run_file(tmp_path, "b2.json", {1024: 100.0}, gpu="NVIDIA H200")]
    _, out = compare(monkeypatch, capsys, a, b)
    assert "WARNING: the runs name different GPUs" in out and "NVIDIA H200" in out, out
