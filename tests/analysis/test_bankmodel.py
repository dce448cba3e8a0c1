"""The bank model's rules, each as measured on the H100 (validation/bank/ has the kernels)."""

from ptxlint.analysis.bankmodel import KEPLER, MAXWELL_AND_LATER as H100, bank_model_for


def cost(addresses, nbytes, kind="load", model=H100, matrices=1, uniform=False):
    return model.warp_cost(list(enumerate(addresses)), nbytes, kind, matrices, uniform_address=uniform)


def test_32bit_strides_broadcast_and_two_words_in_one_bank():
    assert cost([4 * i for i in range(32)], 4).wavefronts == 1
    assert cost([8 * i for i in range(32)], 4).wavefronts == 2
    assert cost([128 * i for i in range(32)], 4).wavefronts == 32
    assert cost([0] * 32, 4).wavefronts == 1
    two = cost([0] * 16 + [128] * 16, 4)
    assert (two.wavefronts, two.worst.bank, two.worst.words) == (2, 0, [0, 32])


def test_64bit_half_warps_add_up_unless_lane_pairs_share_an_address():
    assert (cost([8 * i for i in range(32)], 8).wavefronts, cost([8 * i for i in range(32)], 8).ideal) == (2, 2)
    assert cost([8 * (i % 16) for i in range(32)], 8).wavefronts == 2  # identical halves still 2 (b35)
    assert cost([8 * (i // 2) for i in range(32)], 8).wavefronts == 1  # pairs: one phase (d02)
    assert cost([0] * 32, 8).wavefronts == 1


def test_128bit_quarter_warps_and_broadcast_costs_two():
    assert cost([16 * i for i in range(32)], 16).wavefronts == 4
    assert cost([0] * 32, 16).wavefronts == 2
    assert cost([128 * i for i in range(32)], 16).wavefronts == 32


def test_atomics_serialise_lanes_on_one_word_unless_the_address_is_provably_uniform():
    assert cost([0] * 32, 4, "atomic").wavefronts == 32
    assert cost([0] * 32, 4, "atomic", uniform=True).wavefronts == 1
    assert cost([4 * (i // 2) for i in range(32)], 4, "atomic").wavefronts == 2


def test_ldmatrix_one_phase_per_matrix():
    rows_128 = [128 * i for i in range(32)]
    assert cost(rows_128, 16, "ldmatrix", matrices=4).wavefronts == 32
    assert cost([16 * i for i in range(32)], 16, "ldmatrix", matrices=4).wavefronts == 4
    assert cost([0] * 32, 16, "ldmatrix", matrices=4).wavefronts == 4  # no broadcast across matrices


def test_kepler_has_eight_byte_banks():
    assert bank_model_for(35) is KEPLER and bank_model_for(90) is H100
    assert cost([8 * i for i in range(32)], 8, model=KEPLER).wavefronts == 1
    assert cost([4 * i for i in range(32)], 4, model=KEPLER).wavefronts == 1
    assert cost([256 * i for i in range(32)], 4, model=KEPLER).wavefronts == 32


def _grid_wavefronts(addresses, nbytes, kind="load", matrices=1):
    """The wavefronts the report's lane-to-bank grid shows: per phase, its deepest bank."""
    accesses = list(enumerate(addresses))
    cells = H100.lane_banks(accesses, nbytes, kind, matrices)
    total = 0
    for phase in H100.phases(accesses, nbytes, kind, matrices):
        lanes = {lane for lane, _, _ in phase}
        total += max((depth for lane, _, _, depth in cells if lane in lanes), default=0)
    return total, cells


def test_the_lane_to_bank_grid_adds_up_to_the_models_wavefronts():
    patterns = [
        ([128 * i for i in range(32)], 4, "load", 1),  # a column of a [32][32] float tile: 32-way
        ([132 * i for i in range(32)], 4, "load", 1),  # the same column padded to [32][33]: conflict-free
        ([0] * 16 + [128] * 16, 4, "load", 1),  # two words on bank 0, each broadcast: 2
        ([8 * i for i in range(32)], 8, "load", 1),  # 64-bit: two half-warp phases
        ([256 * i for i in range(32)], 16, "load", 1),  # 128-bit, quarter-warps, every lane on banks 0-3
        ([4 * (i % 4) for i in range(32)], 4, "atomic", 1),  # atomics on 4 words: no broadcast
        ([128 * i for i in range(32)], 16, "ldmatrix", 4),  # ldmatrix rows 128 bytes apart: 8-way per matrix
    ]
    for addresses, nbytes, kind, matrices in patterns:
        total, cells = _grid_wavefronts(addresses, nbytes, kind, matrices)
        assert total == cost(addresses, nbytes, kind, matrices=matrices).wavefronts, (addresses[:4], nbytes, kind)
        assert {lane for lane, *_ in cells} == set(range(32))
    _, padded = _grid_wavefronts([132 * i for i in range(32)], 4)
    assert {depth for *_, depth in padded} == {1} and len({bank for _, bank, _, _ in padded}) == 32
    _, column = _grid_wavefronts([128 * i for i in range(32)], 4)
    assert {(bank, depth) for _, bank, _, depth in column} == {(0, 32)}
