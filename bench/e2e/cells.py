"""How a workload (serve.py, train.py) runs its cells inside a report part's time limit: it starts no cell
once the deadline has passed, records each cell it did not start as a failure naming the limit, and rewrites
its JSON after every cell, so a part cut short still reports what it measured (session 10 lost two whole
parts to the device call's limit: report.py kept a workload's rows only when it finished)."""

import json
import time

SKIPPED = "skipped: the part's time limit (--deadline) passed before this cell started"


def out_of_time(deadline):
    """True once `deadline` (seconds since the epoch, or None for no limit) has passed."""
    return deadline is not None and time.time() > deadline


def write_report(path, report):
    """Writes `report` to `path` (None: nowhere) whole, replacing the previous version."""
    if path is None:
        return
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(json.dumps(report, indent=1))
    partial.replace(path)
