# hack/lib/coldbuild.sh: sourced by the scripts that build a tool from its Go
# module (helm.sh, promtool.sh) so a cold build says what it is doing and for
# how long: each step is announced, a line every COLD_BUILD_TICK seconds
# (default 30) tells how long it has been running, and its end says how long
# it took. Everything goes to stderr, prefixed with COLD_BUILD_NAME.

: "${COLD_BUILD_TICK:=30}"

coldbuild_log() { echo "${COLD_BUILD_NAME:-build}: $*" >&2; }

# timed DESCRIPTION COMMAND [ARGS...]: run COMMAND as one step of a build.
timed() {
	local what=$1 start rc=0 ticker
	shift
	start=$(date +%s)
	coldbuild_log "${what} ..."
	(
		while sleep "${COLD_BUILD_TICK}"; do
			coldbuild_log "${what}: still running ($(($(date +%s) - start))s)"
		done
	) &
	ticker=$!
	"$@" >&2 || rc=$?
	kill "${ticker}" 2>/dev/null || true
	wait "${ticker}" 2>/dev/null || true
	if ((rc != 0)); then
		coldbuild_log "${what}: FAILED after $(($(date +%s) - start))s (exit ${rc})"
		return "${rc}"
	fi
	coldbuild_log "${what}: done in $(($(date +%s) - start))s"
}
