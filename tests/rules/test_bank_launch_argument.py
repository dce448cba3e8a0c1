"""A bank conflict whose stride only the launch gives (every launch passes stride = 32) is computed
with that value, and the finding says it assumed it, as correctness findings do.
Source: data/bank_launch_argument.cu."""

from pathlib import Path

from support import findings_by_kernel

PTX = Path(__file__).with_name("data") / "bank_launch_argument.sm_90.ptx"


def test_a_stride_passed_by_every_launch_gives_the_conflict_and_is_noted():
    (found,) = findings_by_kernel(PTX, ["BANK"])["strided_tile"]
    assert found.code == "BANK001" and "32-way" in found.message
    # the API keeps PTX names; the text report shows the source name (`stride`)
    assert "assumed `strided_tile_param_2` (kernel parameter 3) = 32: the value every launch of this block passes" \
        in found.notes
