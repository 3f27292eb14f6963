package scenarios

import (
	"context"

	"k8s.io/client-go/discovery"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// tooOld says why the scenario is skipped when the apiserver serves a
// Kubernetes minor older than its spec.minKubernetes; "" when it runs.
func (r *runner) tooOld(ctx context.Context) string {
	need := r.s.Spec.MinKubernetes
	if need == "" {
		return ""
	}
	dc, err := discovery.NewDiscoveryClientForConfig(r.target.Config)
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the apiserver its version: %v", err)
	}
	_ = ctx // discovery's ServerVersion takes none
	v, err := dc.ServerVersion()
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the apiserver its version: %v", err)
	}
	if kubeminor.Older(v.GitVersion, need) {
		return r.opts.Lang.Msgf("the apiserver serves Kubernetes %s; the scenario needs %s or newer (spec.minKubernetes)", v.GitVersion, need)
	}
	return ""
}
