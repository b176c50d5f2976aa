#!/usr/bin/env bash
# hack/fuzz.sh is `make fuzz`: every fuzz target for FUZZTIME each. A
# finding fails the run and is saved under the package's testdata/fuzz.
#
# Go's fuzz coordinator sometimes ends a run that found nothing with
# "context deadline exceeded" when its time runs out while a slow input (a
# config load compiles CEL and renders templates) is still being minimized.
# That is the tool's time-out, not a finding: no failing input is written.
# Such a run is repeated once; a real finding (a "Failing input written to"
# line) or a second failure fails the run.
#
# Usage: hack/fuzz.sh FUZZTIME MINIMIZETIME PKG:TARGET...
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=$1 minimize=$2
shift 2

log=$(mktemp)
trap 'rm -f "${log}"' EXIT

run() { # pkg target: the output shown and kept in ${log}; go test's status
	go test -run '^$' -fuzz "^$2\$" -fuzztime "${fuzztime}" -fuzzminimizetime "${minimize}" "$1" 2>&1 | tee "${log}"
	return "${PIPESTATUS[0]}"
}

# toolTimeout reports the fuzz tool's own time-out: no failing input written.
toolTimeout() {
	grep -q 'context deadline exceeded' "${log}" && ! grep -q 'Failing input written to' "${log}"
}

for t in "$@"; do
	pkg=${t%%:*} target=${t##*:}
	echo "fuzz: ${target} (${pkg}) for ${fuzztime}"
	start=${SECONDS}
	if run "${pkg}" "${target}"; then
		echo "fuzz: ${target} passed in $((SECONDS - start))s"
		continue
	fi
	if toolTimeout; then
		echo "fuzz: ${target}: the fuzz tool timed out with no finding (context deadline exceeded); running it once more"
		if run "${pkg}" "${target}"; then
			echo "fuzz: ${target} passed on the second run"
			continue
		fi
	fi
	echo "fuzz: ${target} FAILED (see above; a failing input is saved under ${pkg}/testdata/fuzz/${target})"
	exit 1
done
