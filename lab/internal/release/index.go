package main

// Index is index.json, what a downloader reads to find and check an
// archive:
//
//	{"releases": {"<version>": {"<archive>": Asset}},
//	 "components": {"<version>": {"<archive>": Asset with "kubernetes"}}}
//
// "components" came later: a downloader that knows only "releases" reads
// crdlab's archives as before and never mistakes a components archive for
// crdlab's.
type Index struct {
	Releases map[string]map[string]Asset `json:"releases"`
	// Components are the archives of the components executables
	// (crdlab-k8s-<minor>) of each version, by archive name; omitted when a
	// release has none.
	Components map[string]map[string]Asset `json:"components,omitempty"`
}

// Asset is one archive of a release.
type Asset struct {
	// Kubernetes is the minor of a components archive, as "1.36"; empty
	// (and omitted) for crdlab's archives.
	Kubernetes string `json:"kubernetes,omitempty"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	SHA256     string `json:"sha256"`
	// URL is <base URL>/<version>/<archive>, GitHub's layout of a release's
	// assets: for people and other tools (a downloader builds the URL from
	// its own base URL and the archive's name).
	URL string `json:"url"`
}

// AssetURL is where version's archive name is published under baseURL.
func AssetURL(baseURL, version, name string) string {
	return baseURL + "/" + version + "/" + name
}
