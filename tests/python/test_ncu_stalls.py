"""bench/ncu_stalls.py: reads ncu's source-page CSV (a title line, then the header), numbers instructions by
their SASS position, attributes samples no stall column names to "(no column)", names a warpgroup-collective
instruction's "barrier" samples "warpgroup_sync", reports a range, and groups samples by execution count."""

import gzip
import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("ncu_stalls", ROOT / "bench" / "ncu_stalls.py")
ncu_stalls = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ncu_stalls)

HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_long_sb",
          "stall_long_sb (Not Issued)", "stall_barrier"]


def write_csv(tmp_path):
    rows = [
        ["0x1000", "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x38000], R2", "10", "64", "0", "0", "0"],
        ["0x1010", "@!P0  BRA 0x1000", "60", "64", "58", "50", "0"],
        ["0x1020", "HGMMA.64x80x16.F32.BF16 R24, gdesc[UR8], R24", "30", "64", "0", "0", "5"],
    ]
    path = tmp_path / "sass.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write('"==PROF== title line"\n')
        for row in [HEADER, *rows]:
            f.write(",".join(f'"{v}"' for v in row) + "\n")
    return str(path)


def run(monkeypatch, capsys, *argv):
    monkeypatch.setattr(sys, "argv", ["ncu_stalls.py", *argv])
    ncu_stalls.main()
    return capsys.readouterr().out


def test_reads_positions_samples_and_named_stalls(tmp_path):
    insts = ncu_stalls.read(write_csv(tmp_path))
    assert [i.index for i in insts] == [0, 1, 2]
    assert [i.samples for i in insts] == [10, 60, 30]
    assert insts[1].stalls == {"long_sb": 58}  # the (Not Issued) column is not a second reason
    assert ncu_stalls.opcode(insts[1].source) == "BRA" and ncu_stalls.opcode(insts[2].source) == "HGMMA"


def test_top_attributes_unnamed_samples(tmp_path, monkeypatch, capsys):
    out = run(monkeypatch, capsys, write_csv(tmp_path), "top", "--count", "2")
    lines = out.splitlines()
    assert lines[0] == "100 samples over 3 instructions"
    assert len(lines) == 3 and "BRA" in lines[1] and "HGMMA" in lines[2], out  # in SASS order
    assert "long_sb 97%" in lines[1] and "(no column) 83%" in lines[2], out


def test_range_and_regions(tmp_path, monkeypatch, capsys):
    path = write_csv(tmp_path)
    out = run(monkeypatch, capsys, path, "range", "1", "2")
    assert "range 1-2: 90.0% of samples" in out, out
    out = run(monkeypatch, capsys, path, "regions", "--window", "2")
    assert "     0  70.0%" in out and "SYNCS" in out and "     2  30.0%" in out and "HGMMA" in out, out


def test_counts_groups_by_execution_count(tmp_path, monkeypatch, capsys):
    path = tmp_path / "sass.csv"
    rows = [
        ["0x1000", "MOV R0, R1", "5", "8", "0", "0", "0"],                 # per CTA
        ["0x1010", "HGMMA.64x80x16.F32.BF16 R24, gdesc[UR8], R24", "20", "64", "0", "0", "15"],  # per tile
        ["0x1020", "IADD3 R2, R2, 0x1, RZ", "10", "64", "8", "0", "0"],    # per tile
        ["0x1030", "@!P0  BRA 0x1010", "65", "512", "60", "0", "0"],        # per step
    ]
    path.write_text("\n".join(",".join(f'"{v}"' for v in row) for row in [HEADER, *rows]) + "\n")
    lines = run(monkeypatch, capsys, str(path), "counts").splitlines()
    assert lines[0] == "100 samples over 4 instructions"
    assert lines[1].startswith("exec       512   65.0% of samples      1 instructions  long_sb 92%"), lines
    per_tile = "exec        64   30.0% of samples      2 instructions  warpgroup_sync 50%, long_sb 27%"
    assert lines[2].startswith(per_tile), lines
    assert lines[3].startswith("exec         8    5.0% of samples      1 instructions"), lines


def test_barrier_stalls_of_warpgroup_collectives_are_named_apart(tmp_path):
    path = tmp_path / "sass.csv"
    rows = [
        ["0x1000", "BAR.SYNC.DEFER_BLOCKING R234, 0xa0", "10", "64", "0", "0", "10"],
        ["0x1010", "WARPGROUP.DEPBAR.LE gsb0, 0x1", "20", "64", "0", "0", "19"],
        ["0x1020", "HGMMA.64x64x16.F32.BF16 R152, gdesc[UR16], RZ, !UPT", "30", "64", "2", "0", "28"],
    ]
    path.write_text("\n".join(",".join(f'"{v}"' for v in row) for row in [HEADER, *rows]) + "\n")
    insts = ncu_stalls.read(str(path))
    assert insts[0].stalls == {"barrier": 10}  # a named barrier keeps ncu's name
    assert insts[1].stalls == {"warpgroup_sync": 19}
    assert insts[2].stalls == {"long_sb": 2, "warpgroup_sync": 28}
