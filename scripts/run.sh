#!/usr/bin/env bash
# The main job on the built-in default: the bot plays a simulated PopStar game
# (no display needed). Extra arguments go to `gridbot` (e.g. `play --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo run --release --quiet -- "$@"
