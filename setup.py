"""Builds the optional compiled core (docs/native.md); everything else is declared in pyproject.toml.

``optional=True``: without a C compiler the build warns and installs the pure-Python engine.  The
hash of the C source is compiled in, so ``clashofdecks.native`` refuses a build older than its source.
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "src/clashofdecks/_native.c"
SOURCE_HASH = hashlib.sha256(
    Path(__file__).resolve().with_name("src").joinpath("clashofdecks", "_native.c").read_bytes()
).hexdigest()[:16]

setup(
    ext_modules=[
        Extension(
            "clashofdecks._native",
            [SOURCE],
            define_macros=[("SOURCE_HASH", f'"{SOURCE_HASH}"')],
            # -ffp-contract=off: no fused multiply-add, so the greedy scores and the search's UCB values
            # are the same doubles as Python's.
            extra_compile_args=["-O2", "-std=c99", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
