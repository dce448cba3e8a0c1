"""`x ^ k` and `x | k` with a block-wide constant k follow the thread when the unknown part of x
(blockIdx times the block size) cannot reach the bits k touches: `gid ^ 1` pairs neighbouring
threads of one block, so the race checks can compare their addresses."""

from ptxlint.analysis.lane_values import Affine, low_bits_changed, with_low_bits


def test_xor_and_or_change_only_the_known_low_bits():
    # gid = 256 * b + t: gid ^ 1 is 256 * b + (t ^ 1); gid | 3 is 256 * b + (t | 3)
    terms = (("b", 256),)
    assert with_low_bits("xor", 5, terms, 1) == 4
    assert with_low_bits("or", 5, terms, 3) == 7
    assert with_low_bits("xor", -3, terms, 1) == -4  # two's complement: ...11101 ^ 1 = ...11100
    gid = Affine([0, 1, 2, 3], terms)
    assert low_bits_changed("xor", gid, Affine([1, 1, 1, 1])) == Affine([1, 0, 3, 2], terms)


def test_unknowns_that_reach_the_changed_bits_leave_the_value_unknown():
    # 2 * n + t: adding 2n changes bit 1, which `^ 3` touches
    assert with_low_bits("xor", 1, (("n", 2),), 3) is None
    assert low_bits_changed("xor", Affine([0, 1], (("n", 2),)), Affine([3, 3])) is None
    # a per-thread k is no block-wide constant
    assert low_bits_changed("xor", Affine([0, 1], (("b", 256),)), Affine([1, 2])) is None
