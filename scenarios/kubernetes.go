package scenarios

import (
	"k8s.io/client-go/discovery"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// serverVersion returns the apiserver's version (its /version's
// gitVersion: v1.37.2), asked once per run: spec.minKubernetes and the
// steps' kubernetes ranges read it.
func (r *runner) serverVersion() (string, error) {
	if r.version != "" {
		return r.version, nil
	}
	dc, err := discovery.NewDiscoveryClientForConfig(r.target.Config)
	if err != nil {
		return "", err
	}
	v, err := dc.ServerVersion() // discovery's ServerVersion takes no context
	if err != nil {
		return "", err
	}
	r.version = v.GitVersion
	return r.version, nil
}

// tooOld says why the scenario is skipped when the apiserver serves a
// Kubernetes minor older than its spec.minKubernetes; "" when it runs.
func (r *runner) tooOld() string {
	need := r.s.Spec.MinKubernetes
	if need == "" {
		return ""
	}
	v, err := r.serverVersion()
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the apiserver its version: %v", err)
	}
	if kubeminor.Older(v, need) {
		return r.opts.Lang.Msgf("the apiserver serves Kubernetes %s; the scenario needs %s or newer (spec.minKubernetes)", v, need)
	}
	return ""
}

// chooseSteps keeps, of the scenario's steps, those of the apiserver's
// minor (a step's kubernetes range): the run is made of them alone, as if
// the others were not written. It says why it could not tell ("" when it
// could, or when no step names a range).
func (r *runner) chooseSteps() string {
	if !r.s.HasMinorSteps() {
		return ""
	}
	v, err := r.serverVersion()
	if err != nil {
		return r.opts.Lang.Msgf("unable to ask the apiserver its version: %v", err)
	}
	r.s = r.s.ForKubernetes(v)
	return ""
}

// applies reports whether a step is one of the apiserver's minor (Player:
// the answer tables play a lesson's steps one at a time).
func (r *runner) applies(st *Step) (bool, error) {
	if st.Kubernetes == "" {
		return true, nil
	}
	v, err := r.serverVersion()
	if err != nil {
		return false, err
	}
	return st.Applies(v), nil
}
