#!/usr/bin/env bash
# Build thresher's wheel for Linux: one cp310-abi3 wheel (CPython 3.10 and later, through PyO3's
# abi3-py310 feature) that is manylinux2014-compatible (glibc 2.17 and later, x86_64 or the
# machine's architecture), linked by zig so that no old-glibc build image is needed.
#
#   scripts/build-wheel.sh [OUT_DIR]        # default: dist/
#
# Needs cargo (a Rust toolchain) on the PATH; maturin and zig (the ziglang package) are
# installed by this script into a venv of their own (.venv-wheel-build). Prints the wheel's path.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
command -v cargo >/dev/null || { echo "build-wheel.sh: cargo is not on the PATH (install Rust: https://rustup.rs)" >&2; exit 2; }
tools=.venv-wheel-build
[ -x "$tools/bin/maturin" ] || python3 -m venv "$tools"
"$tools/bin/pip" install -q "maturin>=1.7,<2" "ziglang>=0.13"
rm -f "$out"/thresher-*.whl
# maturin finds zig through the ziglang package of the Python running it.
PATH="$PWD/$tools/bin:$PATH" "$tools/bin/maturin" build --release --locked --zig --compatibility manylinux2014 \
    --interpreter python3 --out "$out" >&2
ls "$out"/thresher-*.whl
