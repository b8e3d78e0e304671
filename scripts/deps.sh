#!/usr/bin/env bash
# Installs the Debian packages gridbot needs, only those that are missing.
#   build: what xcap's Linux backend links against
#   e2e:   Xvfb, a window manager, a session bus, GL and the game (tests only)
set -euo pipefail
build=(pkg-config libclang-dev libxcb1-dev libegl-dev libgbm-dev libwayland-dev libpipewire-0.3-dev)
e2e=(xvfb openbox dbus dbus-x11 libgl1-mesa-dri x11-utils xdotool swell-foop quadrapassel gweled)
want=("${build[@]}")
[ "${1:-}" = "--e2e" ] && want+=("${e2e[@]}")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
