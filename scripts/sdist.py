"""The sdist of the Python package, dist/tracemerge-<version>.tar.gz (scripts/package.sh runs it):
what a platform without a wheel builds with CMake and a C++17 compiler through setuptools,

    pip install --no-index --no-build-isolation tracemerge-<version>.tar.gz

— the core's sources, the pinned zlib and simdjson sources with their notices (NOTICE), the
package's Python files, the notebook helper and the single-file page (built), and a setup.py
that builds libtracemerge.so (core/capi) into the package.

    python3 scripts/sdist.py VERSION
"""
import io
import pathlib
import sys
import tarfile

SETUP_PY = '''# Builds libtracemerge.so (the C ABI, core/capi) with CMake and a C++17 compiler into the package.
import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent


class BuildLibrary(build_py):
    def run(self):
        super().run()
        build = HERE / "build" / "cmake"
        subprocess.run(["cmake", "-S", str(HERE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DTRACEMERGE_TESTS=OFF"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "tracemerge_c", "-j", str(os.cpu_count() or 2)],
                       check=True)
        dest = pathlib.Path(self.build_lib) / "tracemerge"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "libtracemerge.so", dest / "libtracemerge.so")


class NativeDistribution(Distribution):
    def has_ext_modules(self):  # (a platform wheel: the package holds a native library)
        return True


setup(cmdclass={"build_py": BuildLibrary}, distclass=NativeDistribution)
'''

PYPROJECT = '''# The sdist of tracemerge: setup.py builds libtracemerge.so with CMake into the package.
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "tracemerge"
version = "{version}"
description = "Merge profiler traces (Chrome/Perfetto JSON, SageMaker Debugger, PyTorch/Kineto) into one timeline; smdebug's MergedTimeline on a C++ core"
readme = {{file = "PYTHON.md", content-type = "text/markdown"}}
requires-python = ">=3.8"
license = {{text = "Apache-2.0"}}
classifiers = ["Programming Language :: Python :: 3", "Operating System :: POSIX :: Linux",
               "Topic :: System :: Distributed Computing", "Topic :: Software Development :: Debuggers"]

[tool.setuptools]
packages = ["tracemerge"]
package-dir = {{tracemerge = "core/python/tracemerge"}}
license-files = ["LICENSE", "NOTICE"]

[tool.setuptools.package-data]
tracemerge = ["py.typed", "tracemerge.html"]
'''

SOURCES = ("CMakeLists.txt", "LICENSE", "NOTICE", "README.md", "core/**/*.cc", "core/**/*.h", "core/capi/*.map",
           "core/python/tracemerge/*.py", "scripts/cmake/*.cmake", ".deps/zlib/*", ".deps/simdjson/*")


def python_part(readme):
    part = readme[readme.index("## From smdebug"):]
    return part[:part.index("\n## ", 3)]


def main(version):
    root = f"tracemerge-{version}"
    files = {}
    for pattern in SOURCES:
        for p in sorted(pathlib.Path(".").glob(pattern)):
            if p.is_file() and not p.name.startswith("."):
                files[p.as_posix()] = p.read_bytes()
    pkg = "core/python/tracemerge"
    files[f"{pkg}/py.typed"] = b""
    files[f"{pkg}/_notebook.py"] = pathlib.Path("web/notebook/tracemerge_notebook.py").read_bytes()
    files[f"{pkg}/tracemerge.html"] = pathlib.Path("build/web/tracemerge.html").read_bytes()
    description = python_part(pathlib.Path("README.md").read_text())
    files["PYTHON.md"] = description.encode()
    files["pyproject.toml"] = PYPROJECT.format(version=version).encode()
    files["setup.py"] = SETUP_PY.encode()
    files["PKG-INFO"] = (f"Metadata-Version: 2.1\nName: tracemerge\nVersion: {version}\nLicense: Apache-2.0\n"
                         "Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n" + description).encode()
    out = pathlib.Path(f"dist/{root}.tar.gz")
    with tarfile.open(out, "w:gz") as tar:
        for path, data in sorted(files.items()):
            info = tarfile.TarInfo(f"{root}/{path}")
            info.size, info.mtime, info.mode = len(data), 1767225600, 0o644
            tar.addfile(info, io.BytesIO(data))
    print(f"[package] {out}")


if __name__ == "__main__":
    main(sys.argv[1])
