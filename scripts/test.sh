#!/usr/bin/env bash
# The whole test suite: unit, property, fixture replay, the loop on the
# simulator, and the end-to-end games against real Swell Foop, Gweled and
# Quadrapassel and the orb-drag practice window under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --e2e
cargo test "$@"
