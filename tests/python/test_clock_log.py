"""bench/clock_log.py: parses nvidia-smi's CSV samples, summarises the SM clock, power and the share of
samples under the software power cap, keeps only a window's samples, and samples in the background through
whatever nvidia-smi is on PATH (here a stand-in script), or reports no samples without one."""

import datetime
import importlib.util
import os
import pathlib
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("clock_log", ROOT / "bench" / "clock_log.py")
clock_log = importlib.util.module_from_spec(spec)
spec.loader.exec_module(clock_log)

LINES = ["2026/12/05 19:35:22.497, 1755, 189.56, 0x0000000000000004",
         "2026/12/05 19:35:22.548, 1980, [N/A], 0x0000000000000000",
         "2026/12/05 19:35:22.598, 1695, 318.38, 0x0000000000000005",
         "not a sample", ""]


def test_parses_samples_and_summarises_them():
    samples = [sample for sample in map(clock_log.parse_sample, LINES) if sample]
    assert len(samples) == 3
    assert clock_log.summarize(samples) == {
        "samples": 3, "sm_mhz_min": 1695.0, "sm_mhz_median": 1755.0, "sm_mhz_max": 1980.0,
        "power_w_max": 318.38, "power_capped_share": 0.667, "reasons_seen": "0x5"}
    assert clock_log.summarize([]) == {"samples": 0}


def test_window_keeps_the_samples_between_its_times(tmp_path, monkeypatch):
    # A stand-in nvidia-smi prints two samples stamped now and keeps running, as -lms does.
    fake = tmp_path / "nvidia-smi"
    fake.write_text("#!/bin/sh\n"
                    "for mhz in 1500 1600; do\n"
                    "  echo \"$(date '+%Y/%m/%d %H:%M:%S.%N' | cut -c1-23), $mhz, 650.00, 0x0000000000000004\"\n"
                    "done\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    start = clock_log.ClockLog.now() - datetime.timedelta(seconds=1)
    log = clock_log.ClockLog()
    try:
        deadline = time.time() + 10
        summary = {"samples": 0}
        while summary["samples"] < 2 and time.time() < deadline:
            time.sleep(0.05)
            summary = log.window(start, clock_log.ClockLog.now() + datetime.timedelta(seconds=1))
        assert summary["samples"] == 2
        assert (summary["sm_mhz_min"], summary["sm_mhz_max"], summary["power_capped_share"]) == (1500, 1600, 1.0)
        later = clock_log.ClockLog.now() + datetime.timedelta(seconds=5)
        assert log.window(later, later + datetime.timedelta(seconds=1)) == {"samples": 0}
    finally:
        log.close()


def test_without_nvidia_smi_every_window_is_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    log = clock_log.ClockLog()
    try:
        now = clock_log.ClockLog.now()
        assert log.window(now - datetime.timedelta(seconds=1), now) == {"samples": 0}
    finally:
        log.close()
