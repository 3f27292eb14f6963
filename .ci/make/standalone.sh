#!/usr/bin/env bash
# standalone.sh: make standalone. Upstream's own, unpatched etcd and
# kube-apiserver (the built-in minor's) into bin/standalone, and
# kube-apiserver of each of $STANDALONE_MINORS at the versions of
# lab/components/<minor>/go.mod into bin/standalone/<minor>, with the same
# etcd: the benchmarks' reference, what plain envtest runs.
set -euo pipefail
: "${GO:=go}"
out=$PWD/bin/standalone
"$GO" build -o "$out/etcd" ./lab/internal/tools/standalone/etcd
"$GO" build -o "$out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
for m in ${STANDALONE_MINORS:-}; do
	echo "== kube-apiserver of lab/components/$m into bin/standalone/$m"
	mkdir -p "$out/$m" && ln -sf ../etcd "$out/$m/etcd"
	(cd "lab/components/$m" && "$GO" build -o "$out/$m/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
done
