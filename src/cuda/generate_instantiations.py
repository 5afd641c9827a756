#!/usr/bin/env python3
"""Writes the CUDA translation units of the manifest's kernel keys, plus the registry that maps each key to
its launcher, so that dispatch, tests and docs read the same list.

A translation unit holds the keys of one (op, arch, head dim): its dtypes. Most of a TU's compile time does
not grow with the kernels in it (cudafe++, host compile and cicc over CuTe's headers): a second dtype adds
10 s to the sm90 forward's 95 s and 33 s to the sm80 forward's 140 s (one core, docs/PERF.md, build time),
so one TU per dtype paid that twice. The kernels themselves are instantiated once per key as before.

Usage: generate_instantiations.py --out DIR [--head-dims 64;128] [--dtypes bf16] [--archs 90a;80]
                                  [--families fwd_sm90;bwd_sm90]

The manifest below is the one place that names what exists; the CMake options FLASHATTN_HEAD_DIMS,
FLASHATTN_DTYPES, FLASHATTN_CUDA_ARCHS and FLASHATTN_KERNEL_FAMILIES narrow it (sm90 kernels need the 90a
arch in the build). Files
are rewritten only when their text changes (no needless rebuilds), and files of keys no longer selected are
removed. Prints `sources.cmake` for CMake to include.
"""
import argparse
import itertools
import pathlib
import sys
from dataclasses import dataclass

DTYPES = {"fp16": "cutlass::half_t", "bf16": "cutlass::bfloat16_t"}
HEAD_DIMS = (64, 96, 128, 192, 256)
SM90_HEAD_DIMS = (64, 96, 128, 192, 256)  # src/cuda/sm90/tile_fwd_sm90.hpp has a tile for these
# (D, Dv) pairs with D != Dv, built by PAIR_FAMILIES (tile_fwd_sm80.hpp, tile_fwd_sm90.hpp and tile_bwd_sm80.hpp
# have a tile for these) and selected with their D. The sm90 backward has none: dispatch falls back to the sm80
# one, as at D 96 / 192.
HEAD_DIM_PAIRS = ((192, 128),)
PAIR_FAMILIES = (("fwd", 80), ("fwd", 90), ("bwd", 80))
SM90_BWD_HEAD_DIMS = (64, 128, 256)  # src/cuda/sm90/tile_bwd_sm90.hpp has a tile for these
# How a family's TUs are compiled (cmake/FlashattnCuda.cmake reads the lists of sources.cmake):
# - "one_ptx": device code that never asks for __CUDA_ARCH__: one compute_80 PTX, assembled by ptxas for
#   every real architecture of the build. cicc (NVVM), most of a TU's time, runs once instead of once per
#   architecture; the sm_90 SASS of fwd_sm80 hd128 is instruction-identical to a compute_90a pass's.
# - "per_arch": device code with architecture branches (griddepcontrol on sm90): one pass per architecture.
# - "sm90a": wgmma/setmaxnreg kernels that exist only in the sm_90a pass.
ONE_PTX, PER_ARCH, SM90A = "one_ptx", "per_arch", "sm90a"


@dataclass(frozen=True)
class Family:
    """A kernel family, per (op, arch) in FAMILIES."""

    header: str  # the launcher header each TU includes
    launcher: str  # the launcher template each TU instantiates
    smem_bytes: str  # the template that says how much shared memory per block the launcher needs at least
    compile_mode: str  # ONE_PTX, PER_ARCH or SM90A


FAMILIES = {
    ("fwd", 80): Family(
        "cuda/sm80/launch_fwd_sm80.cuh",
        "sm80::launch_fwd_sm80",
        "sm80::fwd_smem_bytes_sm80",
        ONE_PTX,
    ),
    ("fwd", 90): Family(
        "cuda/sm90/launch_fwd_sm90.cuh",
        "sm90::launch_fwd_sm90",
        "sm90::fwd_smem_bytes_sm90",
        SM90A,
    ),
    ("bwd", 80): Family(
        "cuda/sm80/launch_bwd_sm80.cuh",
        "sm80::launch_bwd_sm80",
        "sm80::bwd_smem_bytes_sm80",
        ONE_PTX,
    ),
    ("bwd", 90): Family(
        "cuda/sm90/launch_bwd_sm90.cuh",
        "sm90::launch_bwd_sm90",
        "sm90::bwd_smem_bytes_sm90",
        SM90A,
    ),
    ("kvcache", 80): Family(
        "cuda/decode/launch_kvcache_sm80.cuh",
        "decode::launch_kvcache_sm80",
        "decode::kvcache_smem_bytes_sm80",
        PER_ARCH,
    ),
}


@dataclass(frozen=True)
class Kernel:
    op: str  # "fwd", "bwd" or "kvcache"
    arch: int  # SM architecture of the kernel family (80 = the portable mma.sync path)
    dtype: str
    head_dim: int
    head_dim_v: int = 0  # 0: the same as head_dim

    @property
    def name(self) -> str:  # matches core::KernelKey::name()
        suffix = f"_dv{self.head_dim_v}" if self.head_dim_v else ""
        return f"{self.op}_sm{self.arch}_{self.dtype}_hd{self.head_dim}{suffix}"

    @property
    def template_arguments(self) -> str:  # the launcher's: the value head dim only where it differs
        dims = f"{self.head_dim}, {self.head_dim_v}" if self.head_dim_v else f"{self.head_dim}"
        return f"<{DTYPES[self.dtype]}, {dims}>"

    @property
    def launcher(self) -> str:
        return f"launch_{self.name}"

    @property
    def smem_bytes(self) -> str:
        return f"smem_bytes_{self.name}"


# The manifest: every kernel the project can build.
MANIFEST = (
    [Kernel("fwd", 80, dtype, hd) for dtype, hd in itertools.product(DTYPES, HEAD_DIMS)]
    + [Kernel("fwd", 90, dtype, hd) for dtype, hd in itertools.product(DTYPES, SM90_HEAD_DIMS)]
    + [
        Kernel(op, arch, dtype, hd, dv)
        for (op, arch), dtype, (hd, dv) in itertools.product(PAIR_FAMILIES, DTYPES, HEAD_DIM_PAIRS)
    ]
    + [Kernel("bwd", 80, dtype, hd) for dtype, hd in itertools.product(DTYPES, HEAD_DIMS)]
    + [Kernel("bwd", 90, dtype, hd) for dtype, hd in itertools.product(DTYPES, SM90_BWD_HEAD_DIMS)]
    + [Kernel("kvcache", 80, dtype, hd) for dtype, hd in itertools.product(DTYPES, HEAD_DIMS)]
)

HEADER = "// Generated by src/cuda/generate_instantiations.py from its manifest: do not edit.\n"
SIGNATURES = {
    "fwd": "Status {name}(const ForwardParams& params, const AttentionArgs& args, RunInfo& info)",
    "bwd": "Status {name}(const BackwardParams& params, const AttentionArgs& args, RunInfo& info)",
    "kvcache": "Status {name}(const KVCacheParams& params, const AttentionArgs& args, RunInfo& info)",
}
OP_KINDS = {"fwd": "forward", "bwd": "backward", "kvcache": "kvcache"}


def tu_name(kernel: Kernel) -> str:
    """The translation unit that holds `kernel`: one per (op, arch, head dim), D != Dv pairs with their D."""
    return f"{kernel.op}_sm{kernel.arch}_hd{kernel.head_dim}"


def kernel_tu(kernels: list[Kernel]) -> str:
    """The TU of `kernels` (one op, arch and head dim): each key's launcher and shared-memory query."""
    family = FAMILIES[(kernels[0].op, kernels[0].arch)]
    body = ""
    for kernel in kernels:
        arguments = kernel.template_arguments
        body += (
            SIGNATURES[kernel.op].format(name=kernel.launcher)
            + " {\n"
            + f"  return {family.launcher}{arguments}(params, args, info);\n"
            + "}\n\n"
            + f"int {kernel.smem_bytes}() {{ return {family.smem_bytes}{arguments}(); }}\n\n"
        )
    return (
        HEADER
        + f'#include "{family.header}"\n\n'
        + "namespace flashattn::cuda {\n\n"
        + body
        + "}  // namespace flashattn::cuda\n"
    )


def registry_table(kernels: list[Kernel], op: str, kind: str) -> tuple[str, str]:
    """The table of one op's kernels and its lookup function (`kind`: "Forward", "Backward", "KVCache")."""
    chosen = [k for k in kernels if k.op == op]
    rows = "".join(
        f"    {{DType::{k.dtype}, {k.arch}, {k.head_dim}, {k.head_dim_v}, {k.launcher}, {k.smem_bytes}}},\n"
        for k in chosen
    )
    op_kind = OP_KINDS[op]

    def lookup(field: str) -> str:  # an op with no built kernel has no table (a zero-length array is ill-formed)
        return (
            f"  for (const {kind}Entry& entry : k{kind}Kernels) {{\n"
            + "    if (entry.dtype == key.dtype && entry.arch == key.arch && entry.head_dim == key.head_dim &&\n"
            + f"        entry.head_dim_v == key.head_dim_v) return entry.{field};\n  }}\n"
            if chosen
            else ""
        )

    table = (
        f"struct {kind}Entry {{\n  DType dtype;\n  int arch;\n  int head_dim;\n  int head_dim_v;\n"
        + f"  core::{kind}Launcher launch;\n  core::SmemBytes smem_bytes;\n}};\n\n"
        + f"constexpr {kind}Entry k{kind}Kernels[] = {{\n{rows}}};\n\n"
        if chosen
        else ""
    )
    is_op = f"key.backend == Backend::cuda && key.op == core::OpKind::{op_kind}"
    function = (
        f"core::{kind}Launcher find_{op_kind}_launcher(const core::KernelKey& key) {{\n"
        + f"  if (!({is_op})) return nullptr;\n"
        + lookup("launch")
        + "  return nullptr;\n}\n\n"
        + f"core::SmemBytes find_{op_kind}_smem_bytes(const core::KernelKey& key) {{\n"
        + f"  if (!({is_op})) return nullptr;\n"
        + lookup("smem_bytes")
        + "  return nullptr;\n}\n\n"
        + f"int {op_kind}_kernel_count() {{ return {len(chosen)}; }}\n\n"
    )
    return table, function


def registry_tu(kernels: list[Kernel]) -> str:
    declarations = "".join(
        SIGNATURES[k.op].format(name=k.launcher) + ";\n" + f"int {k.smem_bytes}();\n" for k in kernels
    )
    fwd_table, fwd_function = registry_table(kernels, "fwd", "Forward")
    bwd_table, bwd_function = registry_table(kernels, "bwd", "Backward")
    kvcache_table, kvcache_function = registry_table(kernels, "kvcache", "KVCache")
    return (
        HEADER
        + '#include "cuda/kernel_registry.hpp"\n\n'
        + "namespace flashattn::cuda {\n\n"
        + declarations
        + "\nnamespace {\n\n"
        + fwd_table
        + bwd_table
        + kvcache_table
        + "}  // namespace\n\n"
        + fwd_function
        + bwd_function
        + kvcache_function
        + "}  // namespace flashattn::cuda\n"
    )


def sources_cmake(kernels: list[Kernel], units: dict, registry: pathlib.Path) -> str:
    """The CMake lists of the generated TUs (`units`: path -> its kernels): all of them, and one list per
    compile mode of FAMILIES."""

    def listing(variable: str, mode=None) -> str:
        chosen = [
            path
            for path, members in units.items()
            if mode is None or FAMILIES[(members[0].op, members[0].arch)].compile_mode == mode
        ]
        return f"set({variable}\n" + "".join(f'  "{path.as_posix()}"\n' for path in chosen) + ")\n"

    return (
        listing("FLASHATTN_GENERATED_KERNELS")
        + listing("FLASHATTN_KERNELS_ONE_PTX", ONE_PTX)
        + listing("FLASHATTN_KERNELS_PER_ARCH", PER_ARCH)
        + listing("FLASHATTN_KERNELS_SM90A", SM90A)
        + f'set(FLASHATTN_GENERATED_REGISTRY "{registry.as_posix()}")\n'
        + f'set(FLASHATTN_KERNEL_NAMES "{";".join(k.name for k in kernels)}")\n'
    )


def write_if_changed(path: pathlib.Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def parse_list(value: str, allowed, convert=str):
    items = [convert(item) for item in value.replace(",", ";").split(";") if item]
    for item in items:
        if allowed is not None and item not in allowed:
            sys.exit(f"generate_instantiations: {item!r} is not in the manifest's {sorted(allowed)}")
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--head-dims", default=";".join(map(str, HEAD_DIMS)))
    parser.add_argument("--dtypes", default=";".join(DTYPES))
    parser.add_argument("--archs", default="90a;80", help="FLASHATTN_CUDA_ARCHS of the build")
    parser.add_argument("--families", default="ALL", help="kernel families to build, e.g. fwd_sm90;bwd_sm90")
    args = parser.parse_args()
    head_dims = parse_list(args.head_dims, HEAD_DIMS, int)
    dtypes = parse_list(args.dtypes, DTYPES)
    # sm90 kernel bodies exist only in the sm_90a pass (wgmma, setmaxnreg): without it, no sm90 key.
    archs = {80} | ({90} if "90a" in parse_list(args.archs, None) else set())
    # A call that only an unbuilt family could take fails with a status naming that kernel (select_kernel).
    family_names = {f"{op}_sm{arch}": (op, arch) for op, arch in FAMILIES}
    families = (
        set(FAMILIES)
        if args.families == "ALL"
        else {family_names[name] for name in parse_list(args.families, family_names)}
    )
    kernels = [
        k
        for k in MANIFEST
        if k.head_dim in head_dims
        and k.dtype in dtypes
        and k.arch in archs
        and (k.op, k.arch) in families
    ]
    if not kernels:
        sys.exit(
            "generate_instantiations: the head dims, dtypes, archs and families selected leave no kernel"
            " to build"
        )

    args.out.mkdir(parents=True, exist_ok=True)
    units = {}  # TU path -> its kernels, in manifest order
    for kernel in kernels:
        units.setdefault(args.out / f"{tu_name(kernel)}.cu", []).append(kernel)
    for path, members in units.items():
        write_if_changed(path, kernel_tu(members))
    registry = args.out / "kernel_registry_cuda.cpp"
    write_if_changed(registry, registry_tu(kernels))
    for stale in args.out.glob("*.cu"):
        if stale not in units:
            stale.unlink()
    write_if_changed(args.out / "sources.cmake", sources_cmake(kernels, units, registry))

if __name__ == "__main__":
    main()
