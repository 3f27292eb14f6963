#!/usr/bin/env bash
# release.sh: make release. Builds crdlab for each of $PLATFORMS and
# crdlab-k8s-<minor> (lab/components/<minor>) for each minor of $COMPONENTS
# and platform of $COMPONENT_PLATFORMS into bin/release/$VERSION, then
# packages them with lab/internal/tools/release into dist/$VERSION (archives,
# SHA256SUMS, index.json and their signatures: docs/releases.md); the
# components first, so that each crdlab knows their digests. The Makefile
# exports the variables; $CRDLAB_LDFLAGS and $COMPONENTS_LDFLAGS are the
# links' flags; $SIGNING_KEY is the PEM file of the signing key, empty in
# the release workflow, which gives the key itself in
# $CRDLAB_RELEASE_SIGNING_KEY.
set -euo pipefail
: "${GO:=go}" "${VERSION:?}" "${RELEASE_BASE_URL:?}" "${CRDLAB_LDFLAGS:?}" "${COMPONENTS_LDFLAGS:?}"
bin=bin/release/$VERSION
rm -rf "dist/$VERSION" "$bin"
# CGO_ENABLED=0 and -trimpath as every build of the Makefile: the compiled
# packages are those make build, make cross and make components compiled.
export CGO_ENABLED=0
for p in ${COMPONENTS:+$COMPONENT_PLATFORMS}; do
	for m in $COMPONENTS; do
		echo "== crdlab-k8s-$m $VERSION for $p"
		(cd "lab/components/$m" && GOOS=${p%/*} GOARCH=${p#*/} "$GO" build -trimpath -ldflags "$COMPONENTS_LDFLAGS" \
			-o "$OLDPWD/$bin/${p%/*}-${p#*/}/crdlab-k8s-$m" .)
	done
done
# Each crdlab is linked with the SHA-256 of its platform's crdlab-k8s-<minor>
# (lab/kubeminor's digests, "<minor>:<sha256>,..."): the only components
# executables a release crdlab runs.
sha256() { if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi; }
for p in $PLATFORMS; do
	digests=
	for f in "$bin/${p%/*}-${p#*/}"/crdlab-k8s-*; do
		[[ -f $f ]] || continue
		sum=$(sha256 "$f")
		digests+=${digests:+,}${f##*/crdlab-k8s-}:${sum%% *}
	done
	echo "== crdlab $VERSION for $p${digests:+ (components: $digests)}"
	GOOS=${p%/*} GOARCH=${p#*/} "$GO" build -trimpath -ldflags "$CRDLAB_LDFLAGS -X github.com/crdlab/crdlab/lab/kubeminor.digests=$digests" \
		-o "$bin/${p%/*}-${p#*/}/crdlab" ./cmd/crdlab
done
# shellcheck disable=SC2086 # PLATFORMS is a list of words
"$GO" run ./lab/internal/tools/release package -version "$VERSION" -out "dist/$VERSION" -bin "$bin" \
	-base-url "$RELEASE_BASE_URL" -date "$(git log -1 --format=%ct)" -license LICENSE -readme README.md \
	-components "$COMPONENTS" -component-platforms "$COMPONENT_PLATFORMS" -signing-key "${SIGNING_KEY:-}" $PLATFORMS
rm -rf "$bin"
ls -l "dist/$VERSION"
