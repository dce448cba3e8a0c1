import pytest

from support import run_cli


@pytest.fixture
def cli():
    return run_cli
