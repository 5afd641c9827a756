"""bench/e2e's time limit (cells.py): a workload past its deadline starts no cell and records each one it
skipped as a failure naming the limit, and its JSON holds what it finished. Runs the tiny model on the CPU."""

import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
E2E = ROOT / "bench" / "e2e"
sys.path.insert(0, str(E2E))
from cells import SKIPPED  # noqa: E402

SERVE_TINY = ["--config", "tiny", "--device", "cpu", "--dtype", "fp32", "--attention", "math", "--prompts", "64",
              "--concurrency", "1,2", "--new-tokens", "2", "--repeats", "2"]


def run(script, arguments, out):
    subprocess.run([sys.executable, str(E2E / script), "--json", str(out), *arguments], check=True,
                   capture_output=True, text=True)
    return json.loads(out.read_text())


def test_serving_past_its_deadline_skips_every_cell_and_says_why(tmp_path):
    report = run("serve.py", SERVE_TINY + ["--deadline", "0"], tmp_path / "serve.json")
    assert [(row["concurrency"], row["failures"]) for row in report["rows"]] == [(1, [SKIPPED]), (2, [SKIPPED])]
    assert all("ttft_s" not in row for row in report["rows"])


def test_serving_before_its_deadline_measures_every_cell(tmp_path):
    report = run("serve.py", SERVE_TINY + ["--deadline", str(time.time() + 3600)], tmp_path / "serve.json")
    assert [row["concurrency"] for row in report["rows"]] == [1, 2]
    assert all(not row["failures"] and row["ttft_s"]["p50"] > 0 for row in report["rows"])


def test_training_past_its_deadline_skips_cells_and_the_longest_search(tmp_path):
    arguments = ["--config", "tiny", "--device", "cpu", "--attention", "math", "--seqlens", "64", "--tokens", "128",
                 "--steps", "1", "--longest", "--deadline", "0"]
    report = run("train.py", arguments, tmp_path / "train.json")
    assert [row["failures"] for row in report["rows"]] == [[SKIPPED]]
    assert report["longest"]["math"] == {"longest_trained": None, "first_failure_at": None, "failures": [SKIPPED]}
