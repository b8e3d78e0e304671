#!/usr/bin/env bash
# A private headless X session for looking at real games by hand.
#
# Starts Xvfb (display number chosen by the server through -displayfd), openbox
# and a session D-Bus, all with a fresh temporary HOME, prints the environment
# to paste into another shell, and waits until Ctrl-C; then stops everything it
# started (by process group) and removes the temporary HOME.
#
# Usage:
#   scripts/xsession.sh                          # session only
#   scripts/xsession.sh swell-foop SIZE COLORS [SAVED_GAME]
#       SIZE: small | normal | large; COLORS: 2..4;
#       SAVED_GAME: a GVariant text of type m(aayqa(yy)), see docs/swellfoop.md,
#       e.g. "([[1,2],[2,1],...], 0, [])" (quote it for the shell).
#
# Then, in another shell:  eval "$(cat "$TMPDIR_OF_SESSION/env")"  or paste the
# printed lines, and e.g. `xdotool search --name 'Swell Foop'`.
set -euo pipefail

need() { command -v "$1" >/dev/null 2>&1 || { echo "xsession: $1 is not installed" >&2; exit 2; }; }
need Xvfb
need openbox
need dbus-daemon

unset WAYLAND_DISPLAY XDG_SESSION_TYPE
export NO_AT_BRIDGE=1
export GDK_BACKEND=x11

work=$(mktemp -d /tmp/gridbot-xsession.XXXXXX)
export HOME="$work/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share"
export XDG_CACHE_HOME="$HOME/.cache" XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

pids=()
cleanup() {
    trap - EXIT INT TERM
    # Newest first: the game, the bus, the window manager, then the X server.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM -- "-${pids[i]}" 2>/dev/null || true
    done
    sleep 0.3
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -KILL -- "-${pids[i]}" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Each child gets its own process group (setsid) so it can be stopped with its children.
setsid Xvfb -displayfd 3 -noreset -screen 0 1280x1024x24 3>"$work/displayfd" \
    >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    [[ -s "$work/displayfd" ]] && break
    sleep 0.05
done
num=$(head -n1 "$work/displayfd" | tr -dc 0-9)
[[ -n "$num" ]] || { echo "xsession: Xvfb did not report a display" >&2; cat "$work/xvfb.log" >&2; exit 1; }
export DISPLAY=":$num"

setsid dbus-daemon --session --nofork --nopidfile --print-address=3 3>"$work/bus" \
    >"$work/dbus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    [[ -s "$work/bus" ]] && break
    sleep 0.05
done
DBUS_SESSION_BUS_ADDRESS=$(head -n1 "$work/bus")
export DBUS_SESSION_BUS_ADDRESS

setsid openbox >"$work/openbox.log" 2>&1 &
pids+=($!)
sleep 0.5

cat >"$work/env" <<EOF
export DISPLAY=$DISPLAY
export HOME=$HOME
export XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_DATA_HOME=$XDG_DATA_HOME XDG_CACHE_HOME=$XDG_CACHE_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR
export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'
export NO_AT_BRIDGE=1 GDK_BACKEND=x11
unset WAYLAND_DISPLAY XDG_SESSION_TYPE
EOF

if [[ "${1:-}" == "swell-foop" ]]; then
    size=${2:-normal}
    colors=${3:-3}
    saved=${4:-nothing}
    gsettings set org.gnome.SwellFoop size "$size"
    gsettings set org.gnome.SwellFoop colors "$colors"
    gsettings set org.gnome.SwellFoop zealous false
    gsettings set org.gnome.SwellFoop first-run false
    gsettings set org.gnome.SwellFoop saved-game "$saved"
    setsid /usr/games/swell-foop >"$work/swell-foop.log" 2>&1 &
    pids+=($!)
fi

echo "DISPLAY=$DISPLAY"
echo "# environment for another shell: source $work/env"
cat "$work/env"
echo "# Ctrl-C to stop everything"
# Wait for a signal (or for the X server to die).
wait "${pids[0]}" || true
