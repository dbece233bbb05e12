"""Shard i/n: parsing, a disjoint cover of the keys, and the same placement in every process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graphforge.errors import ConfigError
from graphforge.sharding import Shard, parse_shard, shard_of

KEYS = [f"ws-{n:04d}" for n in range(2000)]


def test_shards_of_n_cover_every_key_exactly_once_and_evenly() -> None:
    for n in (1, 2, 3, 8):
        parts = [Shard(index=i, count=n).select(KEYS) for i in range(n)]
        assert sorted(k for part in parts for k in part) == sorted(KEYS)
        assert all(len(part) > len(KEYS) / n * 0.8 for part in parts)


def test_placement_does_not_depend_on_the_process_hash_seed() -> None:
    code = "from graphforge.sharding import shard_of; print([shard_of(f'ws-{n:04d}', 7) for n in range(50)])"
    outputs = {
        subprocess.run([sys.executable, "-c", code], env={"PYTHONHASHSEED": seed}, capture_output=True,
                       text=True, check=True).stdout
        for seed in ("1", "2", "random")
    }
    assert len(outputs) == 1
    assert outputs.pop().strip() == str([shard_of(f"ws-{n:04d}", 7) for n in range(50)])


def test_shard_text_parses_and_malformed_text_is_a_one_line_config_error() -> None:
    assert parse_shard("1/4") == Shard(index=1, count=4) and str(parse_shard(" 0 / 2 ")) == "0/2"
    assert parse_shard(None) is None
    for bad, says in (("2/2", "below the shard count 2"), ("x", "not of the form i/n"), ("1/0", "1"),
                      ("-1/2", "not of the form")):
        with pytest.raises(ConfigError, match="--shard") as err:
            parse_shard(bad)
        assert says in str(err.value) and "\n" not in str(err.value)
