"""Builds the optional compiled core (docs/native.md); everything else is declared in pyproject.toml.

``optional=True``: without a C compiler the build warns and installs the pure-Python engine."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "clashofdecks._native",
            ["src/clashofdecks/_native.c"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,
        )
    ]
)
