"""Occupancy: how many blocks of a kernel one SM keeps resident, and which resource limits it.

The limits per architecture are the CUDA programming guide's (compute capabilities table); the
way they combine reproduces `cudaOccupancyMaxActiveBlocksPerMultiprocessor`, checked on an H100
for every row of validation/occupancy/ (26 kernels x 32 block sizes x 6 dynamic shared sizes):

* registers: each warp gets `regs x 32` rounded up to 256 registers; the register file is split
  in 4 sub-partitions (16384 registers each) and a warp lives in one, so the SM holds
  `4 x floor(16384 / registers per warp)` warps, and `floor(that / warps per block)` blocks;
* shared memory: each block takes its static + dynamic bytes plus a per-block reservation
  (1 KB from sm_80 on, used by the system), rounded up to 128 bytes, out of the SM's shared
  memory (the largest carveout: the runtime picks a carveout that fits);
* threads (warps) per SM and blocks per SM cap the rest.

Like the runtime's function, the count ignores a `__launch_bounds__` maximum: a block larger than
`.maxntid` cannot be launched at all, which `Occupancy.exceeds_max_threads` says separately.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

WARP = 32


@dataclass(frozen=True)
class SmLimits:
    """The resources of one SM of an architecture."""

    name: str
    registers: int = 65536  # 32-bit registers per SM
    register_unit: int = 256  # registers are allocated per warp in units of this many
    register_partitions: int = 4  # a warp's registers come from one of these sub-partitions
    max_registers_per_thread: int = 255
    smem_per_sm: int = 233472  # bytes, largest carveout
    smem_per_block: int = 232448  # bytes, with the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize)
    smem_per_block_default: int = 49152  # without the opt-in
    smem_reserved_per_block: int = 1024
    smem_unit: int = 128
    max_threads: int = 2048
    max_blocks: int = 32
    max_threads_per_block: int = 1024

    @property
    def max_warps(self) -> int:
        return self.max_threads // WARP


# CUDA C++ Programming Guide, "Technical Specifications per Compute Capability".
_LIMITS = {
    75: SmLimits("sm_75 (Turing)", smem_per_sm=65536, smem_per_block=65536, smem_reserved_per_block=0,
                 max_threads=1024, max_blocks=16),
    80: SmLimits("sm_80 (A100)", smem_per_sm=167936, smem_per_block=166912),
    86: SmLimits("sm_86 (Ampere GA10x)", smem_per_sm=102400, smem_per_block=101376, max_threads=1536, max_blocks=16),
    87: SmLimits("sm_87 (Orin)", smem_per_sm=167936, smem_per_block=166912, max_threads=1536, max_blocks=16),
    89: SmLimits("sm_89 (Ada)", smem_per_sm=102400, smem_per_block=101376, max_threads=1536, max_blocks=24),
    90: SmLimits("sm_90 (Hopper H100/H200)"),
    100: SmLimits("sm_100 (Blackwell B200)"),
    101: SmLimits("sm_101 (Blackwell)"),
    103: SmLimits("sm_103 (Blackwell B300)"),
    120: SmLimits("sm_120 (Blackwell RTX)", smem_per_sm=102400, smem_per_block=101376, max_threads=1536),
}


def limits_for(arch: Optional[str]) -> SmLimits:
    """The SM limits of `sm_90`, `sm_90a`, `compute_80`, 90 ... (an unknown one: an error)."""
    number = arch if isinstance(arch, int) else _arch_number(arch or "sm_90")
    if number not in _LIMITS:
        known = ", ".join(f"sm_{n}" for n in sorted(_LIMITS))
        raise ValueError(f"no occupancy limits for {arch!r}; known: {known}")
    return _LIMITS[number]


def known_arches() -> list:
    return [f"sm_{n}" for n in sorted(_LIMITS)]


def _arch_number(arch: str) -> int:
    m = re.fullmatch(r"(?:sm_|compute_)?(\d+)[af]?", arch.strip())
    if not m:
        raise ValueError(f"{arch!r} is not a CUDA architecture")
    return int(m.group(1))


@dataclass
class Occupancy:
    """Resident blocks and warps of one kernel at one launch configuration, and why."""

    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float  # resident warps / the SM's maximum
    limiter: str  # registers | shared memory | threads | blocks | none (nothing fits)
    limits: dict = field(default_factory=dict)  # resource -> blocks it alone allows
    block_threads: int = 0
    exceeds_max_threads: bool = False  # the block is larger than .maxntid / the register budget allows
    smem_per_block: int = 0  # bytes one block takes, reservation and rounding included
    registers_per_warp: int = 0


def occupancy(limits: SmLimits, registers: int, block_threads: int, static_smem: int = 0,
              dynamic_smem: int = 0, max_threads: Optional[int] = None) -> Occupancy:
    """Blocks of `block_threads` threads one SM keeps resident (what
    cudaOccupancyMaxActiveBlocksPerMultiprocessor answers), with the limiting resource.

    `max_threads`: the kernel's `.maxntid` (launch bounds), only to flag blocks that cannot launch."""
    warps = -(-block_threads // WARP)
    per_warp = _round_up(max(registers, 1) * WARP, limits.register_unit)
    warps_by_registers = limits.register_partitions * ((limits.registers // limits.register_partitions) // per_warp)
    smem = _round_up(static_smem + dynamic_smem + limits.smem_reserved_per_block, limits.smem_unit)
    by = {
        "registers": warps_by_registers // warps if warps else 0,
        "threads": limits.max_threads // (warps * WARP) if warps else 0,
        "blocks": limits.max_blocks,
        "shared memory": limits.smem_per_sm // smem if smem else limits.max_blocks,
    }
    if static_smem + dynamic_smem > limits.smem_per_block:
        by["shared memory"] = 0
    blocks = min(by.values())
    # the limiter: the resource that allows fewest blocks; in a tie the fixed caps (threads, blocks)
    # come first, since using fewer registers or less shared memory alone would not help then
    order = ["threads", "blocks", "registers", "shared memory"]
    limiter = min(order, key=lambda r: (by[r], order.index(r)))
    if blocks == 0 and block_threads > limits.max_threads_per_block:
        limiter = "threads"
    too_big = block_threads > (max_threads or limits.max_threads_per_block) or by["registers"] == 0
    return Occupancy(
        blocks_per_sm=blocks, warps_per_sm=blocks * warps, occupancy=blocks * warps / limits.max_warps,
        limiter=limiter, limits=by, block_threads=block_threads, exceeds_max_threads=too_big,
        smem_per_block=smem, registers_per_warp=per_warp,
    )


def registers_for_more_blocks(limits: SmLimits, registers: int, block_threads: int) -> Optional[int]:
    """The largest register count per thread that fits one more block per SM than `registers`
    does (other resources aside); None when no count would."""
    current = occupancy(limits, registers, block_threads).limits["registers"]
    for regs in range(registers - 1, 0, -1):
        if occupancy(limits, regs, block_threads).limits["registers"] > current:
            return regs
    return None


def smem_for_more_blocks(limits: SmLimits, smem_bytes: int) -> Optional[int]:
    """The most shared memory per block (static + dynamic) that fits one more block per SM than
    `smem_bytes` does; None when even none would not."""
    reserved, unit = limits.smem_reserved_per_block, limits.smem_unit
    current = limits.smem_per_sm // _round_up(smem_bytes + reserved, unit)
    if current >= limits.max_blocks:
        return None
    per_block = limits.smem_per_sm // (current + 1)
    per_block = per_block // unit * unit - reserved
    return per_block if per_block >= 0 else None


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit
