#!/usr/bin/env bash
# The long camera faults: the system tests tagged long (a link down for a minute, a minute of loss, delay and jitter),
# which the test command's system tier leaves out to stay within its budget (docs/testing.md, "Long runs"). Runs them
# through failsafe as the system tier runs its tests, on a checkout where scripts/test.sh can run (root: network
# namespaces). About 4 minutes.
#   scripts/long-faults.sh [extra Maven arguments, e.g. -o]
# Prints each fault's FAULT line (the figures docs/reliability.md tabulates) and exits non-zero when one fails.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${JAVA_HOME:-}" ] && [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/javac ]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
[ -n "${JAVA_HOME:-}" ] && export PATH="$JAVA_HOME/bin:$PATH"
t0=$SECONDS
rc=0
mvn -B verify -pl pipeline -am -Dargus.unit.skip=true -Dargus.system.groups=long "$@" > /tmp/argus-long-faults.log 2>&1 \
  || rc=$?
grep -E '^FAULT |^RECORDING |Tests run:.*in io|FAIL' /tmp/argus-long-faults.log || true
echo "long faults: $((SECONDS - t0)) s$([ "$rc" = 0 ] || echo ", FAILED (exit $rc)"); log: /tmp/argus-long-faults.log"
exit "$rc"
