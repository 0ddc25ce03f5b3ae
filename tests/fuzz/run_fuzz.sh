#!/usr/bin/env bash
# Runs libFuzzer targets built by `make fuzz` (Note [fuzz targets]) one after the other, each for SECONDS from
# its committed seeds (tests/fuzz/corpus/<target>, read only) and what earlier runs found (<build>/fuzz-corpus/
# <target>, where new inputs go), with its dictionary. Fails, after running them all, when any target found a
# crash (ASan, UBSan, an uncaught exception, a failed check), a leak, an input slower than TIMEOUT seconds
# (-timeout) or one that needs more than RSS_MB of memory (-rss_limit_mb; a single allocation above it too);
# the input is kept as <build>/fuzz-artifacts/<target>/<kind>-<sha1>. Each target's log is
# <build>/fuzz-logs/<target>.log; its summary lines are printed here.
#
#   tests/fuzz/run_fuzz.sh <build> <seconds> <timeout> <rss_mb> <target>... [-- <more libFuzzer flags>]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
[[ $# -ge 5 ]] || { echo "usage: $0 <build> <seconds> <timeout> <rss_mb> <target>... [-- flags]" >&2; exit 2; }
build=$1 seconds=$2 timeout=$3 rss_mb=$4
shift 4
targets=()
while [[ $# -gt 0 && $1 != -- ]]; do targets+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
extra=("$@")

failed=()
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t artifacts=$build/fuzz-artifacts/$t log=$build/fuzz-logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  echo "fuzz: $t for ${seconds}s (log: $log)"
  start=$SECONDS
  "$build/fuzz/fuzz_$t" "$corpus" "tests/fuzz/corpus/$t" -dict="tests/fuzz/dicts/$t.dict" \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]}" >"$log" 2>&1
  rc=$?
  # libFuzzer's final statistics: executions and their rate, peak memory.
  stats=$(grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb):' "$log" |
          sed 's/^stat:://' | tr '\n' ' ')
  echo "fuzz: $t: exit $rc after $((SECONDS - start))s; $stats"
  if [[ $rc -ne 0 ]]; then
    failed+=("$t")
    grep -E '^==[0-9]+==|ERROR|SUMMARY|Test unit written|runtime error|libFuzzer: (timeout|out-of-memory)' "$log" |
      head -20 | sed "s/^/fuzz: $t: /"
  fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $build/fuzz-artifacts/<target>/; logs in $build/fuzz-logs/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds}s each without a crash, leak, timeout or out-of-memory"
