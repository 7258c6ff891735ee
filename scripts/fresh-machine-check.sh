#!/usr/bin/env bash
# The newcomer's first ten minutes, proven on a fresh machine. A green CI can hide a missing install step
# (libpulse0 came in with chromium and GStreamer, not with Argus), so this check builds what a new user has, a
# minimal Debian 12 with a JDK and Maven and nothing else, and runs README's two "Set up" commands there verbatim:
#
#   1. `bin/argus run`      must reach /ready and deliver detections to a WebSocket client;
#                           then every native library `run`, `detect` and `train` load, and the system libraries they
#                           link, must resolve in that root (listed, with the Debian package of each);
#   2. `scripts/test.sh`    must pass (the whole test suite: the unit tier, then the system tier);
#   3. the release tarball (scripts/release.sh) in a root with NO JDK and no Maven: its `bin/argus run` reaches
#                           /ready and delivers detections.
#
# Roots are made with debootstrap from Debian's mirror and cached as tarballs (ARGUS_FRESH_CACHE, default
# /var/cache/argus-fresh); each run unpacks a pristine copy. The JDK is the host's Temurin, bind-mounted read-only as
# a fresh machine of our kind has it; the Maven repository is the host's ~/.m2, bind-mounted (pre-seeded, so the
# build needs no download when it is full; it fills it otherwise).
#
# Usage: scripts/fresh-machine-check.sh [--skip-tests] [--skip-release] [--keep]
#   --skip-tests    leave out command 2 (the test suite), for a quick check of command 1 and the release
#   --keep          leave the roots in place (under $ARGUS_FRESH_WORK) for a look afterwards
# Needs root (debootstrap, chroot, mounts), debootstrap, curl, and a JDK 21+ on the host (Temurin 25 by default).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${ARGUS_FRESH_CACHE:-/var/cache/argus-fresh}"
WORK="${ARGUS_FRESH_WORK:-/var/tmp/argus-fresh-run}"
MIRROR="${ARGUS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
HOST_JDK="${ARGUS_FRESH_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
READY_LIMIT_S="${ARGUS_FRESH_READY_LIMIT_S:-900}"     # command 1: build + packages + start, on a 2-core machine
DETECT_LIMIT_S=60                                     # after /ready: first detections at a WebSocket client
BASE_VERSION=1                                        # bump to rebuild the cached roots

RUN_TESTS=1; RUN_RELEASE=1; KEEP=0
for a in "$@"; do
  case "$a" in
    --skip-tests) RUN_TESTS=0 ;;
    --skip-release) RUN_RELEASE=0 ;;
    --keep) KEEP=1 ;;
    *) echo "fresh-machine-check: unknown option $a (see the header of $0)" >&2; exit 2 ;;
  esac
done

log() { printf '[fresh %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf '[fresh %s] FAIL: %s\n' "$(date +%H:%M:%S)" "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mounts)"
[ -x "$HOST_JDK/bin/java" ] || die "no JDK at $HOST_JDK (set ARGUS_FRESH_JDK)"
for tool in debootstrap curl chroot mount; do
  command -v "$tool" >/dev/null 2>&1 || {
    if [ "$tool" = debootstrap ]; then
      DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    else
      die "$tool not found"
    fi
  }
done
mkdir -p "$CACHE" "$WORK"

# ---------------------------------------------------------------------------------------------------------------
# Roots
# ---------------------------------------------------------------------------------------------------------------
MOUNTED=()
mount_root() {   # ROOT: itself, proc, sys, a private /dev/shm and /dev/pts, the host's DNS and hosts
  local r="$1"
  # The root bound onto itself, so that its / is a mount point as a machine's is: `ip netns exec` (the cluster
  # partition test) remounts / as a slave in its own mount namespace, and fails on a plain directory.
  mount --bind "$r" "$r"; MOUNTED+=("$r")
  mount -t proc proc "$r/proc"; MOUNTED+=("$r/proc")
  mount -t sysfs sysfs "$r/sys"; MOUNTED+=("$r/sys")
  mkdir -p "$r/dev/shm" "$r/dev/pts"
  mount -t tmpfs -o mode=1777,size=2g shm "$r/dev/shm"; MOUNTED+=("$r/dev/shm")
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts"; MOUNTED+=("$r/dev/pts")
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  # The machine's network trust, like its DNS: where egress TLS is intercepted, the host trusts the interceptor's CA
  # (in /usr/local/share/ca-certificates); a root without it cannot reach Maven Central (PKIX path building failed).
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$r/usr/local/share/ca-certificates" "$r/etc/ssl/certs/java"
    cp /usr/local/share/ca-certificates/*.crt "$r/usr/local/share/ca-certificates/"
    cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/ca-certificates.crt"
    if [ -f /etc/ssl/certs/java/cacerts ]; then cp /etc/ssl/certs/java/cacerts "$r/etc/ssl/certs/java/cacerts"; fi
  fi
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$r/etc/hosts"
}
bind_into() {    # SRC ROOT DEST [ro]
  mkdir -p "$2$3"
  mount --bind "$1" "$2$3"; MOUNTED+=("$2$3")
  if [ "${4:-}" = ro ]; then mount -o remount,bind,ro "$2$3"; fi
}
unmount_all() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTED[$i]}" 2>/dev/null || true; done
  MOUNTED=()
}
kill_root_processes() {  # every process whose root is ROOT (argus, its JVM, test servers)
  local r="$1" p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill -9 "${p#/proc/}" 2>/dev/null || true
  done
}
mounts_under_work() { awk -v w="$WORK/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r; }
unmount_under_work() {  # every mount below $WORK, deepest first: ours, and any a test made inside a root (ip netns)
  local m pass
  for pass in 1 2 3 4 5; do   # mounts stacked on one path (ip netns's /run/netns) go one per pass
    [ -z "$(mounts_under_work)" ] && return 0
    mounts_under_work | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  done
}
cleanup() {
  local r
  for r in "$WORK"/*/; do [ -d "$r" ] && kill_root_processes "${r%/}"; done
  unmount_all
  unmount_under_work
  if [ "$KEEP" = 0 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

# A run killed before its cleanup (the machine restarted, the job was killed with -9) leaves its roots mounted: the
# JDK's read-only bind then makes `rm -rf` of the old root fail ("Read-only file system") and this run with it. So
# first: kill what still runs in an old root, and unmount everything under $WORK, deepest first.
clear_leftovers() {
  local r m
  for r in "$WORK"/*/; do [ -d "$r" ] && kill_root_processes "${r%/}"; done
  mounts_under_work | while read -r m; do log "unmounting a leftover of an earlier run: $m" >&2; done
  unmount_under_work
  m="$(mounts_under_work)"
  [ -z "$m" ] || die "cannot unmount what an earlier run left mounted: $m"
}
clear_leftovers

# debootstrap's minimal Debian 12, cached. Then "a fresh machine of our kind": + JDK 17 (Debian's default) + Maven.
base_tar() {     # NAME -> path of the cached tarball, made when missing
  local name="$1" tarball="$CACHE/bookworm-$1-v$BASE_VERSION.tar" tmp
  if [ -f "$tarball" ]; then echo "$tarball"; return; fi
  tmp="$CACHE/build-$name"
  rm -rf "$tmp"
  if [ "$name" = minbase ]; then
    log "debootstrap --variant=minbase bookworm (cached afterwards in $tarball)" >&2
    debootstrap --variant=minbase bookworm "$tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || die "debootstrap failed: see $CACHE/debootstrap.log"
  else
    log "root with Debian's JDK 17 and Maven (cached afterwards in $tarball)" >&2
    mkdir -p "$tmp" && tar -C "$tmp" -xf "$(base_tar minbase)"
    mount_root "$tmp"
    chroot "$tmp" /bin/sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
      apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless maven >/dev/null' \
      || { unmount_all; die "installing openjdk-17-jdk-headless maven in the root failed"; }
    unmount_all
  fi
  rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
  tar -C "$tmp" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
  rm -rf "$tmp"
  echo "$tarball"
}

new_root() {     # NAME BASE -> a pristine root at $WORK/NAME
  local r="$WORK/$1" t0=$SECONDS
  rm -rf "$r"; mkdir -p "$r"
  tar -C "$r" -xf "$(base_tar "$2")"
  log "root $1 ($2) unpacked in $((SECONDS - t0)) s" >&2
  echo "$r"
}

# ---------------------------------------------------------------------------------------------------------------
# Command 1's checks: /ready, then detections at a WebSocket client (scripts/fresh/WsProbe.java, run by the host JDK)
# ---------------------------------------------------------------------------------------------------------------
wait_ready() {   # LOGFILE PID START -> seconds to /ready; fails after READY_LIMIT_S or when PID dies
  local logf="$1" pid="$2" start="$3"
  while ! curl -sf -o /dev/null http://127.0.0.1:8080/ready; do
    kill -0 "$pid" 2>/dev/null || { tail -40 "$logf" >&2; die "argus run exited before /ready (log above)"; }
    [ $((SECONDS - start)) -lt "$READY_LIMIT_S" ] || { tail -40 "$logf" >&2; die "no /ready within $READY_LIMIT_S s"; }
    sleep 2
  done
  echo $((SECONDS - start))
}

ws_detections() {  # LOGFILE -> prints the probe's line; the token (if the run printed one) comes from the log
  local logf="$1" token
  token="$(grep -o 'token=[A-Za-z0-9_-]*' "$logf" | sed -n 1p | cut -d= -f2 || true)"
  "$HOST_JDK/bin/java" "$REPO/scripts/fresh/WsProbe.java" "ws://127.0.0.1:8080/ws" "$token" "$DETECT_LIMIT_S"
}

port_free() {
  if curl -s -o /dev/null --max-time 2 http://127.0.0.1:8080/; then
    die "port 8080 is in use on this machine; README's command 1 serves there (stop what uses it)"
  fi
}

# Every native library JavaCPP extracted (= loaded) for a command, and the system libraries they link (ldd inside the
# root), each with its Debian package. Every dependency must resolve: a "not found" is the libpulse0 this check first caught.
NATIVE_REPORT="$WORK/native-libraries.txt"
package_of() {   # ROOT PATH -> the Debian package owning PATH (merged /usr: try the path, its target, /usr-less)
  local r="$1" f="$2" real c
  real="$(chroot "$r" readlink -f "$f" 2>/dev/null || echo "$f")"
  for c in "$f" "$real" "/usr$f" "${f#/usr}" "/usr$real" "${real#/usr}"; do
    chroot "$r" dpkg -S "$c" 2>/dev/null | sed -n 1p | cut -d: -f1 | grep . && return 0
  done
  echo "?"
}
report_libraries() {   # ROOT LABEL CACHEDIR (inside the root) -> appends to NATIVE_REPORT; non-zero if any is missing
  local r="$1" label="$2" cache="$3" libs dirs lib line missing=0 n
  libs="$(chroot "$r" find "$cache" -name '*.so*' -type f | sort)"
  [ -n "$libs" ] || { echo "== $label: JavaCPP loaded nothing from $cache ==" >> "$NATIVE_REPORT"; return 1; }
  dirs="$(echo "$libs" | xargs -n1 dirname | sort -u | tr '\n' ':')"
  n="$(echo "$libs" | wc -l)"
  {
    echo "== $label: $n native libraries loaded by JavaCPP =="
    echo "$libs" | sed "s|^$cache/||; s|/org/bytedeco/[^/]*/linux-x86_64/| |" \
      | awk '{a[$1]=a[$1]" "$2} END {for (k in a) print "  " k ":" a[k]}' | sort
    echo "   their system libraries (ldd in the fresh root) and Debian packages:"
  } >> "$NATIVE_REPORT"
  for lib in $libs; do
    chroot "$r" /bin/sh -c "LD_LIBRARY_PATH=$dirs ldd '$lib'" 2>&1 | sed "s|^|$(basename "$lib") |"
  done > "$WORK/$label-ldd.txt"
  # The CUDA JNI libraries link the NVIDIA driver and CUDA runtime: a GPU host's own install, absent on a CPU machine
  # (the cuda backend then says "CUDA is not usable" and `auto` uses the CPU). Any other "not found" fails.
  while read -r line; do
    if echo "$line" | grep -Eq '\b(libcuda|libcudart|libcudnn[a-z_]*|libnvrtc[a-z-]*|libcublas(Lt)?|libnvcuvid|libnvidia-[a-z]*)\.so'; then
      echo "     gpu only (NVIDIA driver / CUDA, not on this CPU machine): $line" >> "$NATIVE_REPORT"
    else
      echo "     MISSING: $line" >> "$NATIVE_REPORT"; missing=1
    fi
  done < <(grep 'not found' "$WORK/$label-ldd.txt" | tr -s ' \t' ' ' || true)
  awk '$3 == "=>" && $4 ~ /^\// {print $4}' "$WORK/$label-ldd.txt" | grep -v "^$cache" | sort -u | while read -r lib; do
    printf '     %-48s %s\n' "$lib" "$(package_of "$r" "$lib")"
  done >> "$NATIVE_REPORT"
  return $missing
}

run_command_1() {   # ROOT WORKDIR LABEL -> starts `bin/argus run` in ROOT, checks /ready + detections, stops it
  local r="$1" dir="$2" label="$3" logf="$WORK/$3-run.log" start t_ready t_det pid
  port_free
  start=$SECONDS
  log "$label: chroot: cd $dir && bin/argus run"
  chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd $dir && exec bin/argus run" >"$logf" 2>&1 &
  pid=$!
  t_ready="$(wait_ready "$logf" "$pid" "$start")"
  log "$label: /ready after ${t_ready} s (limit $READY_LIMIT_S s)"
  ws_detections "$logf" || { tail -30 "$logf" >&2; die "$label: no detections at a WebSocket client within $DETECT_LIMIT_S s of /ready"; }
  t_det=$((SECONDS - start))
  log "$label: first detections at the WebSocket client ${t_det} s after the command started"
  echo "--- $label: what the user saw (argus's output) ---"; sed '41,$d; s/token=[A-Za-z0-9_-]*/token=<redacted>/g' "$logf"
  report_libraries "$r" "$label (argus run)" /root/.javacpp/cache || RESULT_LIBS=1
  kill_root_processes "$r"
  { wait "$pid"; } 2>/dev/null || true
  TIMINGS+=("$label: bin/argus run -> /ready ${t_ready} s, first detections ${t_det} s")
}

loaded_by() {    # ROOT DIR LABEL CMD... -> runs an argus command with its own JavaCPP cache, reports what it loaded
  local r="$1" dir="$2" label="$3"; shift 3
  chroot "$r" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    ARGUS_JAVA_OPTS="-Dorg.bytedeco.javacpp.cachedir=/tmp/javacpp-$label" \
    /bin/bash -c "cd $dir && $*" >"$WORK/$label.log" 2>&1 \
    || { tail -20 "$WORK/$label.log" >&2; die "$label: $* failed in the fresh root"; }
  report_libraries "$r" "$label" "/tmp/javacpp-$label" || RESULT_LIBS=1
}

# ---------------------------------------------------------------------------------------------------------------
TIMINGS=(); RESULT_LIBS=0
: > "$NATIVE_REPORT"

# The checkout as it is (tracked files and untracked ones git does not ignore; no build outputs).
copy_checkout() {  # ROOT DEST
  mkdir -p "$1$2"
  (cd "$REPO" && git ls-files -z --cached --others --exclude-standard | tar --null --no-recursion -T - -cf -) | tar -C "$1$2" -xf -
  if [ -d "$REPO/../shared" ]; then mkdir -p "$1$(dirname "$2")/shared" && cp -a "$REPO/../shared/." "$1$(dirname "$2")/shared/"; fi
}

# 1 + 2: README's commands in a fresh machine of our kind.
ROOT="$(new_root machine java-maven)"
mount_root "$ROOT"
bind_into "$HOST_JDK" "$ROOT" "$HOST_JDK" ro
mkdir -p /root/.m2; bind_into /root/.m2 "$ROOT" /root/.m2
copy_checkout "$ROOT" /root/work/argus
log "fresh root: $(chroot "$ROOT" sh -c '. /etc/os-release; echo $PRETTY_NAME'); $(chroot "$ROOT" java -version 2>&1 | sed -n 1p) default; $(chroot "$ROOT" mvn -v 2>/dev/null | sed -n 1p | sed 's/\x1b\[[0-9;]*m//g')"
run_command_1 "$ROOT" /root/work/argus command-1
loaded_by "$ROOT" /root/work/argus detect bin/argus detect --cfg config/models/demo.cfg --weights config/models/demo.weights \
  --names config/models/demo.names --out /tmp/shapes-out.jpg config/samples/shapes.png
loaded_by "$ROOT" /root/work/argus train "bin/argus dataset synth --out /tmp/synth --count 8 --seed 1 >/dev/null && \
  bin/argus train --cfg config/models/demo.cfg --weights config/models/demo.weights --data /tmp/synth/synth.data \
  --max-batches 1 --out /tmp/train-out --threads 1"
log "native libraries and their system packages:"; cat "$NATIVE_REPORT"
[ "$RESULT_LIBS" = 0 ] || die "a library loaded by run/detect/train does not resolve in the fresh root (MISSING above)"

# 3: the release tarball in a root without a JDK and without Maven.
if [ "$RUN_RELEASE" = 1 ]; then
  t0=$SECONDS
  log "release: scripts/release.sh (on the host)"
  (cd "$REPO" && JAVA_HOME="$HOST_JDK" scripts/release.sh) >"$WORK/release-build.log" 2>&1 \
    || { tail -30 "$WORK/release-build.log" >&2; die "scripts/release.sh failed"; }
  TARBALL="$(ls -t "$REPO"/target/argus-*-linux-x86_64.tar.gz | sed -n 1p)"
  TIMINGS+=("release: scripts/release.sh $((SECONDS - t0)) s, $(du -h "$TARBALL" | cut -f1) $(basename "$TARBALL")")
  RROOT="$(new_root nojdk minbase)"
  mount_root "$RROOT"
  mkdir -p "$RROOT/opt" && tar -C "$RROOT/opt" -xzf "$TARBALL"
  RDIR="/opt/$(ls "$RROOT/opt" | sed -n 1p)"   # the tarball's one top folder, argus-<version>
  if chroot "$RROOT" /bin/sh -c 'command -v java || command -v javac || command -v mvn || ls /usr/lib/jvm' >/dev/null 2>&1; then
    die "the no-JDK root has a java, javac, mvn or /usr/lib/jvm"
  fi
  run_command_1 "$RROOT" "$RDIR" release
fi

# 2: the whole test suite, README's command 2 verbatim.
if [ "$RUN_TESTS" = 1 ]; then
  t0=$SECONDS
  log "command 2: chroot: cd /root/work/argus && scripts/test.sh"
  set +e
  chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb CI="${CI:-}" /bin/bash -c "cd /root/work/argus && scripts/test.sh"
  status=$?
  set -e
  TIMINGS+=("command 2: scripts/test.sh $((SECONDS - t0)) s, exit $status")
  [ "$status" = 0 ] || { printf '  %s\n' "${TIMINGS[@]}"; die "command 2 (scripts/test.sh) failed in the fresh root"; }
fi

log "PASS"
printf '  %s\n' "${TIMINGS[@]}"
