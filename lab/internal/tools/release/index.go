package main

import format "github.com/crdlab/crdlab/lab/labtest/release"

// Index is index.json: the release format's schema, which the downloaders
// read with the same package.
type Index = format.Index

// Asset is one archive of a release in the Index.
type Asset = format.Asset

// AssetURL is where version's archive name is published under baseURL.
func AssetURL(baseURL, version, name string) string {
	return format.AssetURL(baseURL, version, name)
}
