"""``reseal.__all__`` is the documented API: every name exists and says what it is."""

from __future__ import annotations

import inspect
from pathlib import Path

import reseal


def test_every_public_name_exists_and_callables_have_docstrings() -> None:
    assert len(set(reseal.__all__)) == len(reseal.__all__)
    undocumented = []
    for name in reseal.__all__:
        value = getattr(reseal, name)
        if (inspect.isfunction(value) or inspect.isclass(value)) and not inspect.getdoc(value):
            undocumented.append(name)
    assert not undocumented, f"public names without a docstring: {undocumented}"


def test_the_package_is_typed() -> None:
    assert Path(inspect.getfile(reseal)).with_name("py.typed").is_file()
