"""bench/decode_splits_report.py: the library's choice against the fastest split count of each cell (its
regret), cluster sizes in the labels, untimed rows ignored, and the fastest times of two sweeps compared."""

import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("decode_splits_report", ROOT / "bench" / "decode_splits_report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def sweep_file(tmp_path, name, points):
    """points: (B, L, requested, ran, cluster, us) per row; us None for a row that was not timed."""
    rows = [{"op": "decode", "impl": "flashattn", "B": b, "Sk": l, "page_size": 0, "num_splits_requested": req,
             "num_splits": ran, "cluster_size": cluster, "us_median": us} for b, l, req, ran, cluster, us in points]
    path = tmp_path / name
    path.write_text(json.dumps({"rows": rows}))
    return str(path)


def run(monkeypatch, capsys, *argv):
    monkeypatch.setattr(sys, "argv", ["decode_splits_report.py", *argv])
    status = report.main()
    return status, capsys.readouterr().out


def test_regret_is_the_choice_over_the_fastest(tmp_path, monkeypatch, capsys):
    path = sweep_file(tmp_path, "s.json", [(1, 32768, 0, 32, 0, 51.5), (1, 32768, 16, 16, 16, 50.5),
                                           (1, 32768, 32, 32, 0, 51.7), (1, 32768, 8, 8, 8, None)])
    status, out = run(monkeypatch, capsys, path)
    assert status == 0, out
    assert "|     32    51.5 |  16c16    50.5 | 1.020" in out, out
    assert "geometric mean regret 1.020 over 1 cells (max 1.020)" in out, out


def test_a_cell_without_the_libraries_choice_has_no_regret(tmp_path, monkeypatch, capsys):
    path = sweep_file(tmp_path, "s.json", [(4, 1024, 2, 2, 2, 14.8), (16, 1024, 0, 1, 0, 27.5)])
    status, out = run(monkeypatch, capsys, path)
    assert status == 0 and "|    2c2    14.8 | -" in out and "over 1 cells" in out, out


def test_two_sweeps_compared_on_their_fastest(tmp_path, monkeypatch, capsys):
    a = sweep_file(tmp_path, "a.json", [(1, 131072, 0, 16, 16, 136.0), (1, 131072, 32, 32, 0, 140.0)])
    b = sweep_file(tmp_path, "b.json", [(1, 131072, 0, 33, 0, 142.4), (1, 131072, 32, 32, 0, 141.7)])
    status, out = run(monkeypatch, capsys, a, b, "--vs")
    assert status == 0 and "16c16   136.0 /     32   141.7 = 0.960" in out, out
    assert "geometric mean 0.960 over 1 cells" in out, out
