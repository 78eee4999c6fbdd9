"""The package's one C extension (the rest of the metadata is in pyproject.toml).

``behavioral_model.pipeline._native`` extracts and emits headers for the generated
pipeline. It is optional: where it cannot be built (no C compiler, no Python headers),
the package installs without it and the pipeline runs in Python alone.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("behavioral_model.pipeline._native",
                             ["behavioral_model/pipeline/_native.c"],
                             extra_compile_args=["-O2", "-Wall"], optional=True)])
