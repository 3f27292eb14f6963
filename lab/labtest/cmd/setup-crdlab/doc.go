// Command setup-crdlab prints the path of a crdlab binary, or a
// KUBEBUILDER_ASSETS folder of crdlab's, downloading the checked crdlab
// release of its own version when there is no crdlab on this machine. It
// needs only Go:
//
//	go run github.com/crdlab/crdlab/lab/labtest/cmd/setup-crdlab@<version> envtest
//
// prints what 'crdlab envtest' prints, as 'setup-envtest use -p path' does
// for envtest's binaries. Run it with --help for the rest.
package main
