#!/usr/bin/env bash
# plan-scale.sh: wall time and peak memory of building and rendering a
# kubernetes create plan (the planner's share of `tofu plan`) at several
# node counts, one fresh process per count.
#
#   internal/planner/bench/plan-scale.sh [NODES...]     (default: 100 1000 5000)
#
# Each count runs the planner's test binary once with CP_PLAN_SCALE_NODES
# set (TestPlanScaleProbe). The probe prints its own step times and peak
# RSS (VmHWM); GNU time, where installed, adds the process's wall time, CPU
# time (which a loaded machine inflates less than wall time) and maximum
# resident set size.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pkg=$(cd "$here/.." && pwd)
counts=("$@")
if [ "${#counts[@]}" -eq 0 ]; then
	counts=(100 1000 5000)
fi
for n in "${counts[@]}"; do
	case "$n" in
	'' | *[!0-9]*)
		echo "plan-scale.sh: node count '$n' is not a number; pass counts like 100 1000 5000" >&2
		exit 2
		;;
	esac
done

work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT
bin="$work/planner.test"
(cd "$pkg" && go test -c -o "$bin" .)

gnu_time=""
if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
	gnu_time=/usr/bin/time
fi

for n in "${counts[@]}"; do
	out="$work/out.$n"
	tv="$work/time.$n"
	if [ -n "$gnu_time" ]; then
		(cd "$pkg" && CP_PLAN_SCALE_NODES="$n" "$gnu_time" -v -o "$tv" "$bin" -test.run '^TestPlanScaleProbe$' -test.count=1) >"$out"
		wall=$(sed -n 's/^[[:space:]]*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tv")
		rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tv")
		user=$(sed -n 's/^[[:space:]]*User time (seconds): //p' "$tv")
		sys=$(sed -n 's/^[[:space:]]*System time (seconds): //p' "$tv")
	else
		(cd "$pkg" && CP_PLAN_SCALE_NODES="$n" "$bin" -test.run '^TestPlanScaleProbe$' -test.count=1) >"$out"
		wall="?"
		rss=""
	fi
	line=$(grep '^nodes=' "$out" || true)
	if [ -z "$line" ]; then
		echo "plan-scale.sh: the probe printed no figures for $n nodes:" >&2
		cat "$out" >&2
		exit 1
	fi
	if [ -n "$rss" ]; then
		echo "$line process_wall=$wall process_cpu_user_s=$user process_cpu_sys_s=$sys process_max_rss_mb=$((rss / 1024))"
	else
		echo "$line"
	fi
done
