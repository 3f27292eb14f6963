// Package release is the one definition of crdlab's release format: the
// executables' and archives' names, the files beside them (SHA256SUMS,
// index.json) and index.json's schema. 'make release' writes a release
// with it (lab/internal/tools/release), and the downloaders read one with it
// (lab/labtest/install for users' suites and setup-crdlab, lab/kubeminor
// for crdlab's own components). Standard library only, like the rest of
// the labtest module.
package release
