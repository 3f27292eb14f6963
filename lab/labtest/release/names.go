package release

// Binary is crdlab's executable in its archives.
const Binary = "crdlab"

// ComponentsPrefix begins every components executable's name:
// crdlab-k8s-<minor> holds the components (kube-apiserver,
// kube-controller-manager, kube-scheduler, kubectl) of a Kubernetes minor
// crdlab does not link.
const ComponentsPrefix = "crdlab-k8s-"

// Files beside a release's archives.
const (
	// SumsFile lists every archive's SHA-256, in sha256sum's format.
	SumsFile = "SHA256SUMS"
	// IndexFile is the Index, what a downloader reads.
	IndexFile = "index.json"
	// IndexSignatureFile and SumsSignatureFile are their signatures
	// (SignatureFile).
	IndexSignatureFile = IndexFile + signatureSuffix
	SumsSignatureFile  = SumsFile + signatureSuffix
)

const signatureSuffix = ".sig"

// SignatureFile is the name of the detached signature of the file name:
// the 64 bytes of the ed25519 signature of its content by one of Keys, as
// is (what openssl pkeyutl -verify -rawin -sigfile reads).
func SignatureFile(name string) string { return name + signatureSuffix }

// ComponentsBinary is the executable of minor's components: crdlab-k8s-1.36.
func ComponentsBinary(minor string) string { return ComponentsPrefix + minor }

// ArchiveName is the file name of version's archive of crdlab for
// goos/goarch: crdlab-<version>-<os>-<arch>.tar.gz.
func ArchiveName(version, goos, goarch string) string {
	return Binary + "-" + version + "-" + goos + "-" + goarch + ".tar.gz"
}

// ComponentsArchiveName is the file name of version's archive of minor's
// components for goos/goarch: crdlab-k8s-<minor>-<version>-<os>-<arch>.tar.gz.
func ComponentsArchiveName(minor, version, goos, goarch string) string {
	return ComponentsBinary(minor) + "-" + version + "-" + goos + "-" + goarch + ".tar.gz"
}

// AssetURL is where version's file name is published under baseURL,
// GitHub's layout of a release's assets: <base>/<version>/<name>.
func AssetURL(baseURL, version, name string) string {
	return baseURL + "/" + version + "/" + name
}
