"""`--shard I/N` (api.in_shard): the split a CI matrix relies on (docs/ci.md)."""

import os

from ptxlint.api import in_shard


def _shard_of(path: str, count: int) -> int:
    (index,) = [i for i in range(1, count + 1) if in_shard(path, i, count)]  # exactly one shard
    return index


def test_each_file_is_in_exactly_one_shard_and_adding_files_moves_none(tmp_path):
    (tmp_path / ".git").mkdir()
    paths = [str(tmp_path / "src" / f"k{i}.cu") for i in range(40)]
    before = {p: _shard_of(p, 4) for p in paths}
    assert set(before.values()) == {1, 2, 3, 4}  # 40 files over 4 shards: every job has work
    more = [str(tmp_path / "src" / f"new{i}.cu") for i in range(10)]
    after = {p: _shard_of(p, 4) for p in paths + more}
    assert all(after[p] == before[p] for p in paths)
    assert all(in_shard(p, 1, 1) for p in paths)


def test_the_split_depends_on_the_path_inside_the_repository_not_where_it_is_checked_out(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        (root / ".git").mkdir(parents=True)
    names = [f"kernels/k{i}.cu" for i in range(30)]
    assert [_shard_of(str(one / n), 5) for n in names] == [_shard_of(str(two / n), 5) for n in names]
    cwd = os.getcwd()
    try:
        os.chdir(one / ".git")  # a relative path from elsewhere names the same file
        assert [_shard_of(os.path.join("..", n), 5) for n in names] == [_shard_of(str(one / n), 5) for n in names]
    finally:
        os.chdir(cwd)
