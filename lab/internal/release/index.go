package main

// Index is index.json, what a downloader reads to find and check an
// archive: {"releases": {"<version>": {"<archive>": Asset}}}.
type Index struct {
	Releases map[string]map[string]Asset `json:"releases"`
}

// Asset is one archive of a release.
type Asset struct {
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	SHA256 string `json:"sha256"`
	// URL is <base URL>/<version>/<archive>, GitHub's layout of a release's
	// assets: for people and other tools (a downloader builds the URL from
	// its own base URL and the archive's name).
	URL string `json:"url"`
}

// AssetURL is where version's archive name is published under baseURL.
func AssetURL(baseURL, version, name string) string {
	return baseURL + "/" + version + "/" + name
}
