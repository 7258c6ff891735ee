#!/usr/bin/env bash
# Fuzzes every parser of outside input for a short while each (Jazzer, JAZZER_FUZZ=1; each @FuzzTest's maxDuration,
# 20 s). A long run apart from scripts/test.sh, whose unit tier replays the seeds and found cases (docs/testing.md,
# "Long runs"; docs/reliability.md).
# A finding fails the run; Jazzer writes the input under src/test/resources/.../<Class>Inputs/<method>/, where it
# is committed with the fix and replays in every later `mvn verify`.
#   scripts/fuzz.sh [module:Class#method ...]      (default: all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZERS=("$@")
if [ ${#FUZZERS[@]} -eq 0 ]; then
  FUZZERS=(
    detector:DarknetFilesFuzzTest#cfg
    detector:DarknetFilesFuzzTest#weights
    detector:DarknetFilesFuzzTest#weightsBody
    detector:DarknetFilesFuzzTest#names
    detector:OnnxFilesFuzzTest#model
    trainer:DatasetFilesFuzzTest#labels
    trainer:DatasetFilesFuzzTest#dataFile
    pipeline:OutsideInputFuzzTest#config
    pipeline:OutsideInputFuzzTest#subscribe
    pipeline:OutsideInputFuzzTest#sceneRules
  )
fi
failed=()
for f in "${FUZZERS[@]}"; do
  module="${f%%:*}" test="${f#*:}"
  t0=$SECONDS
  # the fuzz tests run in the main test execution here (excluding nothing), the regression-only one is skipped.
  # The heap stays well under libFuzzer's RSS limit (2 GB): with the tests' usual -Xmx4g the cfg fuzzer's process
  # reached 1.77 GB RSS in 20 s here (497 MB with this), so on another run it can cross the limit, which libFuzzer
  # reports as an out-of-memory finding: the likely cause of the cfg fuzzer's one failure, in a fresh root whose log
  # was lost.
  # -am: the modules it builds on come from this checkout (the pipeline's argus-tracking is in no local repository).
  if JAZZER_FUZZ=1 mvn -B -q -o test -pl "$module" -am -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
       -Dsurefire.excludedGroups=nothing -Dargus.fuzz.regression.skip=true \
       -Dargus.test.argLine="-Xmx768m -XX:+UseSerialGC -Djava.awt.headless=true" \
       > "$module/target/fuzz-${test//#/-}.log" 2>&1; then
    echo "fuzz.sh: $test: no finding ($((SECONDS - t0)) s; log $module/target/fuzz-${test//#/-}.log)"
  else
    echo "fuzz.sh: $test: FINDING or failure, see $module/target/fuzz-${test//#/-}.log; its end:" >&2
    grep -v -e '^INFO: ' -e 'Unsupported class file' "$module/target/fuzz-${test//#/-}.log" | tail -40 >&2
    failed+=("$test")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz.sh: ${#failed[@]} fuzzer(s) failed: ${failed[*]}" >&2; exit 1; }
