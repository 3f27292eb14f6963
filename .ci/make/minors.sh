#!/usr/bin/env bash
# minors.sh FILE [components|oldest|builtin]: the Kubernetes minors of FILE
# (lab/kubeminor/minors.txt: one line per minor, oldest first, "minor
# kubernetes staging [built-in]", # comments). components: the minors that
# are modules of their own (every one but the built-in), oldest first;
# oldest: the first line's minor; builtin: the built-in one. With no second
# argument, all three as the Makefile's variables (make print-minors).
set -euo pipefail
file=${1:?usage: minors.sh FILE [components|oldest|builtin]}
what=${2:-all}
awk -v what="$what" -v file="$file" '
	/^[[:space:]]*(#|$)/ { next }
	NF < 3 || NF > 4 || (NF == 4 && $4 != "built-in") {
		printf "%s:%d: want \"minor kubernetes staging [built-in]\", got %s\n", file, NR, $0 > "/dev/stderr"; bad = 1; exit 1
	}
	{ if (oldest == "") oldest = $1 }
	NF == 4 { builtin = builtin (builtin == "" ? "" : " ") $1; next }
	{ components = components (components == "" ? "" : " ") $1 }
	END {
		if (bad) exit 1
		if (split(builtin, b, " ") != 1) {
			printf "%s: want one built-in minor, got %d\n", file, split(builtin, b, " ") > "/dev/stderr"; exit 1
		}
		if (what == "components") print components
		else if (what == "oldest") print oldest
		else if (what == "builtin") print builtin
		else if (what == "all") printf "K8S_MINORS=%s\nK8S_OLDEST=%s\nK8S_BUILTIN=%s\n", components, oldest, builtin
		else { printf "minors.sh: %s: want components, oldest or builtin\n", what > "/dev/stderr"; exit 2 }
	}' "$file"
