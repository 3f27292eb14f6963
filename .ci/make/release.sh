#!/usr/bin/env bash
# release.sh: make release. Builds crdlab for each of $PLATFORMS and
# crdlab-k8s-<minor> (lab/components/<minor>) for each minor of $COMPONENTS
# and platform of $COMPONENT_PLATFORMS into bin/release/$VERSION, then
# packages them with lab/internal/release into dist/$VERSION (archives,
# SHA256SUMS, index.json and their signatures: docs/releases.md). The
# Makefile exports the variables; $CRDLAB_LDFLAGS and $COMPONENTS_LDFLAGS
# are the links' flags; $SIGNING_KEY is the PEM file of the signing key,
# empty in the release workflow, which gives the key itself in
# $CRDLAB_RELEASE_SIGNING_KEY.
set -euo pipefail
: "${GO:=go}" "${VERSION:?}" "${RELEASE_BASE_URL:?}" "${CRDLAB_LDFLAGS:?}" "${COMPONENTS_LDFLAGS:?}"
bin=bin/release/$VERSION
rm -rf "dist/$VERSION" "$bin"
# CGO_ENABLED=0 and -trimpath as every build of the Makefile: the compiled
# packages are those make build, make cross and make components compiled.
export CGO_ENABLED=0
for p in $PLATFORMS; do
	echo "== crdlab $VERSION for $p"
	GOOS=${p%/*} GOARCH=${p#*/} "$GO" build -trimpath -ldflags "$CRDLAB_LDFLAGS" -o "$bin/${p%/*}-${p#*/}/crdlab" ./cmd/crdlab
done
for p in ${COMPONENTS:+$COMPONENT_PLATFORMS}; do
	for m in $COMPONENTS; do
		echo "== crdlab-k8s-$m $VERSION for $p"
		(cd "lab/components/$m" && GOOS=${p%/*} GOARCH=${p#*/} "$GO" build -trimpath -ldflags "$COMPONENTS_LDFLAGS" \
			-o "$OLDPWD/$bin/${p%/*}-${p#*/}/crdlab-k8s-$m" .)
	done
done
# shellcheck disable=SC2086 # PLATFORMS is a list of words
"$GO" run ./lab/internal/release package -version "$VERSION" -out "dist/$VERSION" -bin "$bin" \
	-base-url "$RELEASE_BASE_URL" -date "$(git log -1 --format=%ct)" -license LICENSE -readme README.md \
	-components "$COMPONENTS" -component-platforms "$COMPONENT_PLATFORMS" -signing-key "${SIGNING_KEY:-}" $PLATFORMS
rm -rf "$bin"
ls -l "dist/$VERSION"
