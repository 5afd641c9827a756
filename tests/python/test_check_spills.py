"""cmake/check_spills.py: reads each entry function's spills and architecture from a ptxas report (device
functions' properties are not kernels), matches kernels to the first budget line whose pattern fits, holds an
unlisted kernel to zero, and fails a build whose kernel spills more than its budget, unless the build's nvcc
is not the one the budget names."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("check_spills", ROOT / "cmake" / "check_spills.py")
check_spills = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_spills)

REPORT = """\
ptxas info    : 11 bytes gmem
ptxas info    : Compiling entry function '_Z6kernelILi256EEvv' for 'sm_90a'
ptxas info    : Function properties for _Z6kernelILi256EEvv
    16 bytes stack frame, 32 bytes spill stores, 28 bytes spill loads
ptxas info    : Used 168 registers, used 16 barriers, 16 bytes cumulative stack size
ptxas info    : Function properties for _Z6helperv
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Compiling entry function '_Z5otherv' for 'sm_80'
ptxas info    : Function properties for _Z5otherv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 96 registers
"""


def test_report_lists_entry_functions_with_their_arch():
    assert check_spills.parse_report(REPORT) == [
        ("_Z6kernelILi256EEvv", "sm_90a", 32, 28), ("_Z5otherv", "sm_80", 0, 0)]


def test_first_matching_line_sets_the_budget_and_unlisted_kernels_get_zero():
    budget = check_spills.parse_budget("# comment\nsm_90a *kernel<256>* 32 28\nsm_90a *kernel<* 0 0\n")
    rows = check_spills.check(
        [("sm_90a void kernel<256>()", 32, 28), ("sm_90a void kernel<128>()", 4, 4), ("sm_80 other()", 8, 0)],
        budget)
    assert [(name, ok) for name, *_, ok in rows] == [
        ("sm_80 other()", False), ("sm_90a void kernel<128>()", False), ("sm_90a void kernel<256>()", True)]


def test_a_malformed_budget_line_is_an_error():
    with pytest.raises(ValueError, match="budget line 1"):
        check_spills.parse_budget("sm_90a kernel many\n")


def test_main_fails_on_a_kernel_above_its_budget(tmp_path, capsys):
    (tmp_path / "a.cu.o.ptxas").write_text(REPORT)
    budget = tmp_path / "budget.txt"
    budget.write_text("sm_90a * 32 28\n")
    assert check_spills.main(["check_spills.py", str(tmp_path), str(budget)]) == 0
    budget.write_text("sm_90a * 0 0\n")
    assert check_spills.main(["check_spills.py", str(tmp_path), str(budget)]) == 1
    assert "OVER" in capsys.readouterr().out


def test_main_fails_without_any_report(tmp_path):
    budget = tmp_path / "budget.txt"
    budget.write_text("")
    assert check_spills.main(["check_spills.py", str(tmp_path), str(budget)]) == 1


def test_another_nvcc_reports_but_does_not_fail(tmp_path, capsys):
    (tmp_path / "a.cu.o.ptxas").write_text(REPORT)
    budget = tmp_path / "budget.txt"
    budget.write_text("nvcc 13.0\nsm_90a * 0 0\n")
    assert check_spills.main(["check_spills.py", str(tmp_path), str(budget), "13.0.88"]) == 1
    assert check_spills.main(["check_spills.py", str(tmp_path), str(budget), "13.1.20"]) == 0
    assert "re-measure" in capsys.readouterr().out
