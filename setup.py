"""The package's C extensions (the rest of the metadata is in pyproject.toml).

``behavioral_model.pipeline._native`` extracts and emits headers for the generated
pipeline; ``fabric.sim._eventq`` is the fabric simulator's queue of scheduled calls.
Both are optional: where they cannot be built (no C compiler, no Python headers), the
package installs without them and the pipeline and the simulator run in Python alone.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("behavioral_model.pipeline._native",
                             ["behavioral_model/pipeline/_native.c",
                              "behavioral_model/pipeline/_parseplan.c"],
                             depends=["behavioral_model/pipeline/_native.h"],
                             extra_compile_args=["-O2", "-Wall"], optional=True),
                   Extension("fabric.sim._eventq", ["fabric/sim/_eventq.c"],
                             extra_compile_args=["-O2", "-Wall"], optional=True)])
