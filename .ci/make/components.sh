#!/usr/bin/env bash
# components.sh MINOR...: builds crdlab-k8s-<minor>, that Kubernetes minor's
# components (lab/components/<minor>), into $BINDIR for each MINOR, one of
# $K8S_MINORS (the built-in minor is in crdlab: make build). GOOS and GOARCH
# are honoured; CGO_ENABLED=0 and -trimpath come from the Makefile, as in
# make release, so that both compile the same packages.
set -euo pipefail
: "${GO:=go}" "${BINDIR:?}" "${K8S_MINORS:?}" "${K8S_BUILTIN:?}"
if [[ $# -eq 0 ]]; then
	echo "make components: K8S='': give one of $K8S_MINORS ($K8S_BUILTIN is built into crdlab: make build)" >&2
	exit 2
fi
for m; do
	if [[ " $K8S_MINORS " != *" $m "* ]]; then
		echo "make components: K8S='$m': give one of $K8S_MINORS ($K8S_BUILTIN is built into crdlab: make build)" >&2
		exit 2
	fi
done
for m; do
	echo "== crdlab-k8s-$m"
	(cd "lab/components/$m" && "$GO" build -o "$BINDIR/crdlab-k8s-$m" .)
	# crdlab runs no components executable that group or others could
	# change (lab/kubeminor), whatever the umask.
	chmod go-w "$BINDIR" "$BINDIR/crdlab-k8s-$m"
done
