#!/usr/bin/env bash
# Builds the self-contained release: target/argus-<version>-linux-x86_64.tar.gz with one folder argus-<version>/:
#   runtime/  a jlink'ed Java runtime with just the modules the jars need (no JDK needed where it runs)
#   lib/      the Argus jars and every runtime dependency (JavaCPP natives for linux-x86_64 included)
#   config/   the default configuration, demo model and sample images (as in the source tree)
#   bin/argus the launcher: it sees runtime/ and lib/ and uses them (no Maven, no JAVA_HOME)
#   debian-packages.txt  the Debian packages the natives need at run time (config/system-packages.txt)
# The product only: beside the tarball, target/argus-tools-<version>.jar holds the tools (`argus bench`, `argus eval
# track`: benchmarks, peers, evaluation), which a user who wants them puts into the release's lib/tools/.
# Usage: scripts/release.sh [--skip-build] [--keep-stage] [--add-modules m1,m2]
#   --skip-build   package what pipeline/target and tools/target already hold (the Maven profile -Prelease
#                  calls it so)
#   --keep-stage   leave target/release/argus-<version>/ unpacked next to the tarball
#   --add-modules  more JDK modules for runtime/, e.g. jdk.localedata (non-English number/date formats, +10 MB)
# docs/release.md has the module list, sizes and times.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"

skip_build=false
keep_stage=false
user_modules=""
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-build) skip_build=true ;;
    --keep-stage) keep_stage=true ;;
    --add-modules) [ $# -ge 2 ] || { echo "release: --add-modules needs a list" >&2; exit 2; }
                   user_modules="$2"; shift ;;
    --add-modules=*) user_modules="${1#*=}" ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "release: $*" >&2; exit 1; }
step_start=$SECONDS
step() { echo "release: [$((SECONDS - step_start))s] $*" >&2; }

# --- JDK: the same search as bin/argus (JAVA_HOME, Temurin 25, /usr/lib/jvm/*), but jlink and jdeps are needed too.
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
find_jdk() {
  local c
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    [ -n "$c" ] && [ -x "$c/bin/javac" ] && [ -x "$c/bin/jlink" ] && [ -x "$c/bin/jdeps" ] || continue
    local v; v=$(java_major "$c")
    if [ -n "$v" ] && [ "${v%%.*}" -ge 21 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}
JAVA_HOME="$(find_jdk)" || die "no JDK 21 or newer with jlink and jdeps found (set JAVA_HOME)"
export JAVA_HOME
java_version=$(java_major "$JAVA_HOME")

# --- Version: the root pom's own <version> (skipping a <parent> block); plain text, so no Maven plugin is needed.
version=$(awk '/<parent>/{p=1} /<\/parent>/{p=0; next} !p && /<version>/ {
                 sub(/.*<version>[ \t]*/, ""); sub(/[ \t]*<\/version>.*/, ""); print; exit }' pom.xml)
[ -n "$version" ] || die "no <version> found in $ROOT/pom.xml"
name="argus-$version"
tarball="$ROOT/target/$name-linux-x86_64.tar.gz"
step "Argus $version, JDK $java_version at $JAVA_HOME"

# --- Build.
if ! $skip_build; then
  command -v mvn >/dev/null || die "mvn not found on PATH (or pass --skip-build after building)"
  step "building (mvn -B -q package -DskipTests)"
  mvn -B -q package -DskipTests >&2 || die "Maven build failed"
fi
app_jar="pipeline/target/argus-pipeline-$version.jar"
tools_jar="tools/target/argus-tools-$version.jar"
[ -f "$tools_jar" ] || die "$tools_jar missing: build first (mvn -B package -DskipTests) or drop --skip-build"
[ -f "$app_jar" ] || die "$app_jar missing: build first (mvn -B package -DskipTests) or drop --skip-build"
[ -d pipeline/target/lib ] && compgen -G 'pipeline/target/lib/*.jar' >/dev/null \
  || die "pipeline/target/lib has no jars: the pipeline pom's copy-dependencies did not run"
for m in detector trainer tracking; do   # copy-dependencies copies the reactor's own jars too; a stale lib would lack them
  [ -f "pipeline/target/lib/argus-$m-$version.jar" ] || die "pipeline/target/lib/argus-$m-$version.jar missing: rebuild"
done

stage_root="$ROOT/target/release"
stage="$stage_root/$name"
rm -rf "$stage_root"
mkdir -p "$stage/lib" "$stage/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- lib/: the pipeline jar and its runtime classpath (detector and trainer jars are in pipeline/target/lib).
cp "$app_jar" pipeline/target/lib/*.jar "$stage/lib/"
step "lib/: $(ls "$stage/lib" | wc -l) jars, $(du -sh "$stage/lib" | cut -f1)"
# The product holds no tool (the pipeline's ProductWithoutToolsTest checks the classes; this, what is shipped).
command -v unzip >/dev/null || die "unzip not found (it lists the jars of lib/ to check that no tool is among them)"
tools_in_lib=$(for j in "$stage/lib/"*.jar; do
                 unzip -Z1 "$j" | { grep -E '^io/argus/tools/|^META-INF/services/io\.argus\.pipeline\.cli\.ExtraCommands$' || true; } \
                   | sed "s|^|$(basename "$j"): |"
               done | head -5)
[ -z "$tools_in_lib" ] || die "the tools are in the product's lib/: $tools_in_lib"

# --- Modules: jdeps over the jars, plus what it cannot see.
# Several jars are modules whose descriptors require modules we exclude on purpose (javacv requires
# librealsense, flycapture, ...), and jdeps stops at a missing *module* even with --ignore-missing-deps.
# The jars run on the class path anyway, so analyse copies without their module-info.class.
command -v zip >/dev/null || die "zip not found (it strips module-info.class from the copies jdeps reads)"
mkdir "$work/jdeps"
cp "$stage/lib/"*.jar "$work/jdeps/"
for j in "$work/jdeps/"*.jar; do
  zip -q -d "$j" module-info.class 'META-INF/versions/*/module-info.class' >/dev/null 2>&1 || true  # 12: none there
done
# The tools jar is analysed with them: runtime/ must run it too when a user adds it to lib/tools/.
cp "$tools_jar" "$work/jdeps-tools.jar"
jdeps_modules=$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --multi-release 21 --print-module-deps \
                  --class-path "$work/jdeps/*" "$work/jdeps/"*.jar "$work/jdeps-tools.jar") || die "jdeps failed"
# ...and needs nothing beyond lib/ (bin/argus adds only lib/tools/ to the class path): no class it names may be missing.
tools_missing=$("$JAVA_HOME/bin/jdeps" --missing-deps --multi-release 21 --class-path "$work/jdeps/*" \
                  "$work/jdeps-tools.jar" 2>&1) || die "jdeps --missing-deps failed: $tools_missing"
[ -z "$tools_missing" ] || die "the tools jar needs classes that lib/ lacks:
$(head -20 <<<"$tools_missing")"
# What reflection, service loading and natives use, invisible to jdeps:
extra_modules=(
  jdk.unsupported       # sun.misc.Unsafe: Netty, JavaCPP (jdeps sees it in some jars; listed so it never drops out)
  java.desktop          # Java2D: the generated sample video and detect --out annotations
  java.management       # Vert.x/Micrometer JVM metrics, through jdk.management
  jdk.management        # com.sun.management (OperatingSystemMXBean: CPU load, process memory) for metrics
  jdk.naming.dns        # JNDI DNS provider: Netty's resolver reads the system's name servers through it
  jdk.crypto.ec         # TLS elliptic curves on JDK 21 (an empty placeholder from JDK 22, where java.base has them)
  jdk.crypto.cryptoki   # the SunPKCS11 provider java.security lists (hardware keys, NSS) for TLS
  jdk.zipfs             # the zip/jar FileSystem provider (FileSystems.newFileSystem over a jar)
  jdk.net               # jdk.net.ExtendedSocketOptions: Netty/Vert.x TCP keep-alive and quick-ack options
  jdk.charsets          # non-standard charsets (file names, HTTP bodies in legacy encodings)
)
# Left out: jdk.localedata (10 MB; without it non-English locales format numbers and dates as English does).
available=" $("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//' | tr '\n' ' ') "
modules="$jdeps_modules"
for m in "${extra_modules[@]}"; do
  case "$available" in *" $m "*) modules="$modules,$m" ;; esac   # jdk.crypto.ec may be gone in a future JDK
done
for m in ${user_modules//,/ }; do
  case "$available" in *" $m "*) modules="$modules,$m" ;; *) die "--add-modules: no module $m in $JAVA_HOME" ;; esac
done
modules=$(tr ',' '\n' <<<"$modules" | sort -u | paste -sd, -)
step "modules: $modules"

# --- runtime/: jlink (from jmods, or from the JDK's own image where jmods/ is absent: JEP 493, JDK 24+).
jlink_opts=(--strip-debug --no-man-pages --no-header-files)
jlink_help=$("$JAVA_HOME/bin/jlink" --help 2>&1; "$JAVA_HOME/bin/jlink" --list-plugins 2>&1)
if grep -q 'zip-\[0-9\]' <<<"$jlink_help"; then jlink_opts+=(--compress=zip-6); else jlink_opts+=(--compress=2); fi
# A CDS archive of the runtime's own classes: JVM start ~2x faster for a few MB.
if grep -q -- '--generate-cds-archive' <<<"$jlink_help"; then jlink_opts+=(--generate-cds-archive); fi
"$JAVA_HOME/bin/jlink" "${jlink_opts[@]}" --add-modules "$modules" --output "$stage/runtime" >&2 \
  || die "jlink failed (options: ${jlink_opts[*]})"
"$stage/runtime/bin/java" -version >/dev/null 2>&1 || die "the linked runtime does not start"
step "runtime/: $(du -sh "$stage/runtime" | cut -f1) (${jlink_opts[*]})"

# --- config/, the launcher, the package list and the docs.
cp -r config "$stage/config"
cp bin/argus "$stage/bin/argus"
chmod 755 "$stage/bin/argus"
[ -f config/system-packages.txt ] || die "config/system-packages.txt missing (the run-time Debian packages)"
cp config/system-packages.txt "$stage/debian-packages.txt"
for f in LICENSE LICENSE.txt NOTICE README.md; do [ -f "$f" ] && cp "$f" "$stage/"; done
[ -f docs/release.md ] && mkdir -p "$stage/docs" && cp docs/release.md "$stage/docs/"

# No build paths may leak into the text files we ship (jars and natives are checked by their own builds).
if grep -rIlF --exclude-dir=lib --exclude=modules -e "$ROOT" "$stage" >/dev/null 2>&1; then
  die "build path $ROOT found in: $(grep -rIlF --exclude-dir=lib --exclude=modules -e "$ROOT" "$stage" | tr '\n' ' ')"
fi

# --- Tarball: sorted names, fixed owner, modes and times (the last commit's), no gzip name or time, so the archive
# adds no variation of its own (what varies between builds: jar entry times from Maven, the CDS archive).
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}"
mkdir -p "$ROOT/target"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --mode='u+rwX,go+rX,go-w' \
    --format=gnu -C "$stage_root" -cf - "$name" | gzip -n -6 >"$tarball.tmp"
mv "$tarball.tmp" "$tarball"
$keep_stage || rm -rf "$stage_root"
step "wrote ${tarball#"$ROOT"/} ($(du -h "$tarball" | cut -f1))"
# The tools, published beside the product: a user who wants `argus bench` puts this into the release's lib/tools/.
cp "$tools_jar" "$ROOT/target/argus-tools-$version.jar"
step "wrote target/argus-tools-$version.jar ($(du -h "$tools_jar" | cut -f1)), the tools: not in the tarball"
echo "$tarball"
