"""bench/e2e/report.py's merge of report parts: rows keep their part, and a headline compares flashattn only
with a peer measured in the same part (the same run)."""

import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("e2e_report", ROOT / "bench" / "e2e" / "report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def part(rows, env_date):
    """A report part whose serving section ran with `rows` (attention, tokens/s) at prompt 2048, concurrency 32."""
    serving_rows = [{"attention": a, "prompt_tokens": 2048, "new_tokens": 4, "concurrency": 32, "ttft": None,
                     "tpot": None, "latency": None, "tokens_per_s": t, "prefill_tokens_per_s": None,
                     "peak_mem_bytes": None, "kv_cache_bytes": None, "kernel": {}, "fallback": 0, "failures": []}
                    for a, t in rows]
    empty = {"config": None, "parameters": None, "rows": [], "error": None, "arguments": None, "ran": False}
    return {"env": {"date": env_date}, "measurement_boundary": {}, "note": "n",
            "serving": {"config": "c", "parameters": 1, "rows": serving_rows, "error": None, "arguments": ["x"],
                        "ran": True},
            "training": empty | {"longest": {}}, "quality": empty | {"math_loss": None}}


def test_merge_keeps_parts_and_compares_within_one(tmp_path):
    paths = []
    # Part 0: flashattn and a slow peer; part 1: only a faster peer, measured in another run.
    for i, rows in enumerate(([("flashattn", 100.0), ("cudnn", 50.0)], [("fa2", 400.0)])):
        paths.append(tmp_path / f"part{i}.json")
        paths[-1].write_text(json.dumps(part(rows, f"day{i}")))
    merged_path = tmp_path / "merged.json"
    report.merge(type("Args", (), {"json": merged_path, "parts": paths, "caveat": ["a known limit"]})())
    merged = json.loads(merged_path.read_text())
    assert [r["part"] for r in merged["serving"]["rows"]] == [0, 0, 1]
    assert [p["env"]["date"] for p in merged["parts"]] == ["day0", "day1"]
    assert merged["serving"]["ran"] and not merged["training"]["ran"]
    assert merged["caveats"] == ["a known limit"]
    lines = report.headlines(merged)
    assert len(lines) == 1 and "vs cudnn 50" in lines[0], lines


def merged_headlines(tmp_path, parts_rows):
    """The headlines of the merge of one part per entry of `parts_rows` (attention, tokens/s)."""
    paths = []
    for i, rows in enumerate(parts_rows):
        paths.append(tmp_path / f"part{i}.json")
        paths[-1].write_text(json.dumps(part(rows, f"day{i}")))
    merged_path = tmp_path / "merged.json"
    report.merge(type("Args", (), {"json": merged_path, "parts": paths, "caveat": []})())
    return report.headlines(json.loads(merged_path.read_text()))


def test_headline_takes_the_part_where_a_peer_ran_beside_flashattn(tmp_path):
    # Part 0 measured flashattn alone (its peers' cells were skipped); part 1 measured the cell again with one.
    lines = merged_headlines(tmp_path, ([("flashattn", 100.0)], [("flashattn", 120.0), ("cudnn", 60.0)]))
    assert len(lines) == 1 and "120 output tokens/s vs cudnn 60 (2.00x)" in lines[0], lines


def test_headline_takes_the_newest_part_that_measured_the_cell(tmp_path):
    # Part 0 measured the cell with a peer (a run later found biased); part 1 measured it again.
    lines = merged_headlines(tmp_path, ([("flashattn", 100.0), ("cudnn", 90.0)],
                                        [("flashattn", 110.0), ("cudnn", 50.0)]))
    assert len(lines) == 1 and "110 output tokens/s vs cudnn 50 (2.20x)" in lines[0], lines


def test_the_page_of_a_merged_report_names_every_part_commit(tmp_path):
    paths = []
    for i in range(2):
        content = part([("flashattn", 100.0), ("cudnn", 90.0)], f"2026-12-0{i + 1}T00:00:00")
        content["env"]["commit"] = f"c{i}"
        paths.append(tmp_path / f"part{i}.json")
        paths[-1].write_text(json.dumps(content))
    merged_path = tmp_path / "e2e-test.json"
    report.merge(type("Args", (), {"json": merged_path, "parts": paths, "caveat": []})())
    report.render(type("Args", (), {"report": merged_path, "docs": tmp_path / "docs"})())
    page = (tmp_path / "docs" / "e2e-test.md").read_text()
    assert "commits c0, c1, dates 2026-12-01 to 2026-12-02" in page, page[:400]
