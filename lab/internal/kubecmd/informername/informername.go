// Package informername is kube-apiserver's Prepare hook for the minors whose
// options have InformerName (1.37 and later): upstream's app.Run names the
// apiserver's informers before NewConfig, so crdlab's Run (lab/internal/kubecmd)
// does too. lab/internal/tools/minorgen gives it to the components of every minor
// from 1.37 on; lab/multicall, to the built-in one.
package informername

import (
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// Set names kube-apiserver's informers "kube-apiserver" unless already named.
func Set(opts *options.CompletedOptions) error {
	if opts.InformerName != nil {
		return nil
	}
	name, err := cache.NewInformerName("kube-apiserver")
	if err != nil {
		return err
	}
	opts.InformerName = name
	return nil
}
