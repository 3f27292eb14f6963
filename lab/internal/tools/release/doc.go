// Command release packages crdlab's release, and checks a packaged one.
//
// make release builds crdlab for each platform with go build, then runs
//
//	go run ./lab/internal/tools/release package -version v0.1.0 -bin bin/release/v0.1.0 \
//		-out dist/v0.1.0 -base-url https://github.com/crdlab/crdlab/releases/download \
//		-license LICENSE -readme README.md linux/amd64 darwin/arm64
//
// which writes, in -out, one crdlab-<version>-<os>-<arch>.tar.gz per
// platform (crdlab, mode 0755, LICENSE and README.md at the archive's top
// level), SHA256SUMS in sha256sum's format, and index.json:
//
//	{"releases": {"<version>": {"<archive>": {"os": "linux", "arch": "amd64",
//		"sha256": "<hex>", "url": "<base-url>/<version>/<archive>"}}}}
//
// With -components "1.35 1.36" (and -component-platforms, default the
// platforms given), it also packages each minor's components executable,
// <bin>/<os>-<arch>/crdlab-k8s-<minor>, as crdlab-k8s-<minor>-<version>-<os>-<arch>.tar.gz
// (crdlab-k8s-<minor>, LICENSE, README.md), in SHA256SUMS and under
// index.json's "components", beside "releases" (which old downloaders read
// alone, unchanged):
//
//	"components": {"<version>": {"<archive>": {"kubernetes": "1.35", "os": ...,
//		"arch": ..., "sha256": ..., "url": ...}}}
//
// The archives are reproducible: a fixed owner, the -date given (make
// release gives the commit's), no name or time in the gzip header.
//
// "release verify" with the same flags (no -bin) checks what "package"
// wrote: every platform's archive and nothing else, each archive's entries
// and modes, LICENSE and README.md as given, each digest against SHA256SUMS
// and index.json, each URL, and, unless -run=false, that the crdlab of
// this machine's platform runs "crdlab version" and prints -version, and
// that each crdlab-k8s-<minor> of this machine's platform runs "version"
// and prints -version and a Kubernetes of its minor.
// make test runs it after a make release of two platforms.
package main
