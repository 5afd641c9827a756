"""The GPU's SM clock, power draw and clock-event reasons while a benchmark times: nvidia-smi samples them
in the background every `interval_ms` into a file, and window(t0, t1) summarises the samples taken between
two wall-clock times. On an H100 a D = 128 S = 16k forward or backward that runs for a second or more holds
the SM clock at 1.3-1.75 GHz under the software power cap instead of 1.98 (docs/PERF.md, backward session
38), so a row's TFLOP/s depend on the clock its point ran at; peers.py attaches each point's summary to its
rows. The first GPU nvidia-smi lists is sampled (peers.py's, on the one-GPU machines these grids run on).
Tested by tests/python/test_clock_log.py (a stand-in nvidia-smi, no GPU).
"""
import datetime
import os
import statistics
import subprocess
import tempfile

QUERY = "timestamp,clocks.sm,power.draw,clocks_event_reasons.active"
TIMESTAMP_FORMAT = "%Y/%m/%d %H:%M:%S.%f"  # nvidia-smi's, in local time like datetime.now()
SW_POWER_CAP = 0x4  # clocks_event_reasons bit: the driver lowers clocks to hold the power limit


def parse_sample(line):
    """(datetime, SM MHz, watts or None, reasons bit mask) of one CSV line, or None when it is not a sample."""
    fields = [field.strip() for field in line.split(",")]
    if len(fields) != 4:
        return None
    try:
        when = datetime.datetime.strptime(fields[0], TIMESTAMP_FORMAT)
        mhz = float(fields[1])
        watts = float(fields[2]) if fields[2] not in ("", "[N/A]", "N/A") else None
        reasons = int(fields[3], 16)
    except ValueError:
        return None
    return when, mhz, watts, reasons


def summarize(samples):
    """Summary of parsed samples: their count, the SM clock's min / median / max (MHz), the largest power
    reading (W), the share of samples under the software power cap, and every reason bit seen (hex)."""
    if not samples:
        return {"samples": 0}
    mhz = [sample[1] for sample in samples]
    watts = [sample[2] for sample in samples if sample[2] is not None]
    reasons = 0
    for sample in samples:
        reasons |= sample[3]
    capped = sum(1 for sample in samples if sample[3] & SW_POWER_CAP)
    return {"samples": len(samples), "sm_mhz_min": min(mhz), "sm_mhz_median": statistics.median(mhz),
            "sm_mhz_max": max(mhz), "power_w_max": max(watts) if watts else None,
            "power_capped_share": round(capped / len(samples), 3), "reasons_seen": hex(reasons)}


# nvidia-smi under a shell that ends it when its parent (the benchmark) is gone, checked each second, or when
# the shell itself is asked to end (close()): a benchmark killed by a time limit leaves no sampler running.
SAMPLER = ('nvidia-smi "$@" & sampler=$!; trap \'kill "$sampler" 2>/dev/null; exit 0\' TERM; '
           'while kill -0 "$PPID" 2>/dev/null && kill -0 "$sampler" 2>/dev/null; do sleep 1; done; '
           'kill "$sampler" 2>/dev/null')


class ClockLog:
    """nvidia-smi sampling in the background from construction to close(); window() reads what it wrote so
    far. Without nvidia-smi every window is {"samples": 0}."""

    def __init__(self, interval_ms=100):
        handle, self._path = tempfile.mkstemp(prefix="clock_log_", suffix=".csv")
        self._file = os.fdopen(handle, "w")
        try:
            self._process = subprocess.Popen(
                ["sh", "-c", SAMPLER, "sh", "-i", "0", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits",
                 "-lms", str(interval_ms)], stdout=self._file, stderr=subprocess.DEVNULL)
        except OSError:
            self._process = None

    @staticmethod
    def now():
        return datetime.datetime.now()

    def window(self, start, end):
        """summarize() of the samples taken from `start` to `end` (datetimes from now())."""
        self._file.flush()
        with open(self._path) as log:
            samples = [sample for sample in map(parse_sample, log) if sample and start <= sample[0] <= end]
        return summarize(samples)

    def close(self):
        if self._process is not None:
            self._process.terminate()
            self._process.wait()
        self._file.close()
        os.unlink(self._path)
