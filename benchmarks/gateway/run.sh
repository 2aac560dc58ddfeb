#!/usr/bin/env bash
# The claim gateway under wrk, side by side with a raw SDK GET loop (BENCHMARKS.md, "The claim
# gateway"). Run from anywhere on an idle machine; SECONDS_PER_RUN (default 10) sets each run's
# length. Installs wrk from Debian's packages when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v wrk > /dev/null; then
  apt-get install -y wrk || { apt-get update && apt-get install -y wrk; }
fi
mvn -B -q -pl gateway,benchmarks -am -DskipTests package
java -Xmx2g -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.GatewayHarness \
  "${SECONDS_PER_RUN:-10}" gateway/target/claimcheck-gateway.jar
