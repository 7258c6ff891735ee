#!/usr/bin/env bash
# Builds do-nothing stand-ins for the system libraries FFmpeg's libavdevice links and Argus never calls: PulseAudio,
# ALSA and XCB (audio and screen-grab input devices). JavaCV loads libavdevice for every camera, so without these
# no camera opens; a GPU host without Java rarely has them, and the real ones pull in dozens more. run-live.sh puts a
# stand-in on LD_LIBRARY_PATH only for a library the host lacks (ldd says "not found").
#   scripts/gpu/ffmpeg-stubs.sh LIBAVDEVICE_SO OUT_DIR
# Every symbol libavdevice takes from them becomes an empty function with the same name and symbol version.
set -euo pipefail
avdevice="$1"; out="$2"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
undefined="$(nm -D --undefined-only "$avdevice" | awk '{print $2}')"
stub() { # soname, symbol prefix regex
  local soname="$1" prefix="$2" syms s v prev="" map="$work/$1.map"
  syms="$(grep -E "^($prefix)" <<<"$undefined" || true)"
  [ -n "$syms" ] || return 0
  : > "$work/$soname.c"
  : > "$map"
  for s in $syms; do echo "void ${s%%@*}(void) {}" >> "$work/$soname.c"; done
  # a version script: one node per symbol version, in order of appearance (a later node inherits the earlier)
  for v in $(grep -o '@.*' <<<"$syms" | sort -u); do
    v="${v#@}"
    echo "$v { global: $(grep "@$v\$" <<<"$syms" | sed 's/@.*/;/' | tr '\n' ' ')}${prev:+ $prev};" >> "$map"
    prev="$v"
  done
  local flags=()
  [ -s "$map" ] && flags=(-Wl,--version-script="$map")
  gcc -shared -fPIC -O0 -o "$out/$soname" -Wl,-soname,"$soname" "${flags[@]}" "$work/$soname.c"
}
stub libpulse.so.0 'pa_'
stub libasound.so.2 'snd_'
stub libxcb-shm.so.0 'xcb_shm_'
# libxcb: every xcb_ symbol but the shm extension's
undefined="$(grep -v '^xcb_shm_' <<<"$undefined")"
stub libxcb.so.1 'xcb_'
ls "$out"
