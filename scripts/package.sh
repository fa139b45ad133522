#!/usr/bin/env bash
# package.sh — every package, from the built tree, into dist/ (no network):
#   dist/tracemerge-<v>-py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>.whl, arch x86_64 and
#                                                   aarch64: the Python package (core/python/tracemerge:
#                                                   the C core as libtracemerge.so through ctypes, the
#                                                   notebook helper and the single-file page), the
#                                                   library built by Zig for glibc 2.17 with its own
#                                                   libc++ inside (setup.sh --wheels fetches Zig); without
#                                                   Zig, one py3-none-linux_<arch> wheel of build/native's
#   dist/tracemerge-<v>.tar.gz                       the sdist: builds the library with CMake and a C++17
#                                                   compiler through setuptools, for other platforms
#   dist/tracemerge-<v>.tgz                          the npm package of the WebAssembly module (ESM,
#                                                   worker, helper, Node CLI, .d.ts; no build step)
#   dist/tracemerge-web-<v>.zip                      the static site: the page, the single-file page,
#                                                   the notebook helper
# and checks that `cmake --install` of the native build works (the CLI, the C library, its
# header). <v> is the CMake project's version, the one every artifact says.
# Builds first when build/ lacks what it needs (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/native/libtracemerge.so ] && [ -f build/wasm/tracemerge.mjs ] && [ -f build/web/tracemerge.html ] \
  || bash scripts/build.sh
version=$(build/native/tracemerge --version | awk '{print $2}')
rm -rf dist build/package
mkdir -p dist build/package

# ---- the library for the wheels: Zig, glibc 2.17, libc++ inside ------------------------------
# build/zig-<arch>/libtracemerge.so, stripped; the C library only (no tests).
zig_build() {
  local arch=$1 dir=build/zig-$1
  mkdir -p "$dir"
  for tool in cc c++; do
    printf '#!/bin/sh\nexec "%s" %s -target %s-linux-gnu.2.17 "$@"\n' "$PWD/.deps/zig/zig" "$tool" "$arch" > "$dir/zig-$tool"
    chmod +x "$dir/zig-$tool"
  done
  local cross=()
  [ "$arch" != "$(uname -m)" ] && cross=(-DCMAKE_SYSTEM_NAME=Linux "-DCMAKE_SYSTEM_PROCESSOR=$arch")
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTRACEMERGE_TESTS=OFF "${cross[@]}" \
    "-DCMAKE_C_COMPILER=$PWD/$dir/zig-cc" "-DCMAKE_CXX_COMPILER=$PWD/$dir/zig-c++" -DCMAKE_SHARED_LINKER_FLAGS=-s >/dev/null
  cmake --build "$dir" -j2 --target tracemerge_c >/dev/null
  echo "[package] $dir/libtracemerge.so (zig, $arch-linux-gnu.2.17)"
}
wheels=()  # "library tag" pairs
if [ -x .deps/zig/zig ]; then
  for arch in x86_64 aarch64; do
    zig_build "$arch"
    wheels+=("build/zig-$arch/libtracemerge.so" "manylinux_2_17_$arch.manylinux2014_$arch")
  done
else
  echo "[package] no Zig in .deps (bash scripts/setup.sh --wheels): one wheel of build/native's library, linux_$(uname -m)"
  wheels+=(build/native/libtracemerge.so "linux_$(uname -m)")
fi

# ---- the wheels (a zip with the package and its dist-info; PEP 427) --------------------------
python3 - "$version" "${wheels[@]}" <<'EOF'
import base64, hashlib, pathlib, sys, zipfile
version, pairs = sys.argv[1], sys.argv[2:]
name = f"tracemerge-{version}"
files = {f"tracemerge/{p.name}": p.read_bytes() for p in sorted(pathlib.Path("core/python/tracemerge").glob("*.py"))}
files["tracemerge/py.typed"] = b""  # (PEP 561: the package's annotations are its types)
files["tracemerge/_notebook.py"] = pathlib.Path("web/notebook/tracemerge_notebook.py").read_bytes()
files["tracemerge/tracemerge.html"] = pathlib.Path("build/web/tracemerge.html").read_bytes()
info = f"{name}.dist-info"
# The license (PEP 639: its SPDX expression, the files under licenses/) and the README's
# Python part as the description.
for f in ("LICENSE", "NOTICE"):
    files[f"{info}/licenses/{f}"] = pathlib.Path(f).read_bytes()
readme = pathlib.Path("README.md").read_text()
python_part = readme[readme.index("## From smdebug"):]
python_part = python_part[:python_part.find("\n## ", 3)] if "\n## " in python_part[3:] else python_part
files[f"{info}/METADATA"] = (f"Metadata-Version: 2.4\nName: tracemerge\nVersion: {version}\n"
                             "Summary: Merge profiler traces (Chrome/Perfetto JSON, SageMaker Debugger, PyTorch/Kineto) "
                             "into one timeline; smdebug's MergedTimeline on a C++ core\n"
                             "License-Expression: Apache-2.0\nLicense-File: LICENSE\nLicense-File: NOTICE\n"
                             "Classifier: Programming Language :: Python :: 3\n"
                             "Classifier: Operating System :: POSIX :: Linux\n"
                             "Classifier: Topic :: System :: Distributed Computing\n"
                             "Classifier: Topic :: Software Development :: Debuggers\n"
                             "Requires-Python: >=3.8\n"
                             "Description-Content-Type: text/markdown\n\n" + python_part).encode()
files[f"{info}/top_level.txt"] = b"tracemerge\n"
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
for lib, tag in zip(pairs[0::2], pairs[1::2]):  # a wheel per library: the same files, its .so and tag
    whl = dict(files)
    whl["tracemerge/libtracemerge.so"] = pathlib.Path(lib).read_bytes()
    whl[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: tracemerge scripts/package.sh\nRoot-Is-Purelib: false\n"
                            + "".join(f"Tag: py3-none-{t}\n" for t in tag.split("."))).encode()
    record = "".join(f"{path},{digest(data)},{len(data)}\n" for path, data in whl.items()) + f"{info}/RECORD,,\n"
    whl[f"{info}/RECORD"] = record.encode()
    out = pathlib.Path(f"dist/{name}-py3-none-{tag}.whl")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in whl.items():
            zi = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    print(f"[package] {out}")
EOF

# ---- the sdist: the library built by CMake and a C++17 compiler through setuptools -----------
python3 scripts/sdist.py "$version"

# ---- the npm package -----------------------------------------------------------------------
npm_dir=build/package/npm
mkdir -p "$npm_dir"
cp build/wasm/*.mjs build/wasm/tracemerge.d.ts wasm/tracemerge-client.d.ts wasm/protocol.d.ts \
  wasm/tracemerge-worker.d.ts wasm/tracemerge-helper.d.ts LICENSE NOTICE "$npm_dir/"
cat > "$npm_dir/package.json" <<EOF
{
  "name": "tracemerge",
  "version": "$version",
  "description": "Merge profiler traces into one timeline, in the browser or Node: tracemerge's C++ core as WebAssembly",
  "type": "module",
  "main": "./tracemerge.mjs",
  "types": "./tracemerge.d.ts",
  "exports": {
    ".": { "types": "./tracemerge.d.ts", "default": "./tracemerge.mjs" },
    "./client": { "types": "./tracemerge-client.d.ts", "default": "./tracemerge-client.mjs" },
    "./worker": { "types": "./tracemerge-worker.d.ts", "default": "./tracemerge-worker.mjs" },
    "./helper": { "types": "./tracemerge-helper.d.ts", "default": "./tracemerge-helper.mjs" },
    "./protocol": { "types": "./protocol.d.ts", "default": "./protocol.mjs" },
    "./package.json": "./package.json"
  },
  "bin": { "tracemerge-wasm": "./tracemerge-cli.mjs" },
  "engines": { "node": ">=18" },
  "license": "Apache-2.0"
}
EOF
cat > "$npm_dir/README.md" <<EOF
# tracemerge $version (WebAssembly)

\`mergeFiles(files, options)\` merges profiler traces into one timeline, in a browser (a Web
Worker: \`new MergeClient().merge(files, options)\` from \`tracemerge/client\`) or Node, with
the same core and the same bytes as the native CLI; \`npx tracemerge-wasm PATH… -o out.json\`
takes the CLI's flags. Example (\`example.mjs\`, runnable):

\`\`\`js
$(sed -n '/^import fs/,$p' wasm/example.mjs | sed "s#'./tracemerge.mjs'#'tracemerge'#")
\`\`\`
EOF
(cd "$npm_dir" && npm pack --silent --pack-destination ../../../dist >/dev/null)
echo "[package] dist/tracemerge-$version.tgz"

# ---- the static site -----------------------------------------------------------------------
python3 - "$version" <<'EOF'
import pathlib, sys, zipfile
version = sys.argv[1]
out = pathlib.Path(f"dist/tracemerge-web-{version}.zip")
root = pathlib.Path("build/web")
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for p in sorted(root.rglob("*")):
        if p.is_file():
            z.write(p, f"tracemerge-web-{version}/{p.relative_to(root).as_posix()}")
print(f"[package] {out}")
EOF

# ---- cmake --install of the CLI and the C library -------------------------------------------
cmake --install build/native --prefix build/package/install >/dev/null
build/package/install/bin/tracemerge --version >/dev/null
echo "[package] cmake --install: $(ls build/package/install/bin build/package/install/lib | tr '\n' ' ')"
