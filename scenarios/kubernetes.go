package scenarios

import (
	"k8s.io/client-go/discovery"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// serverVersion returns the apiserver's version (its /version's
// gitVersion: v1.37.0), asked once per run: spec.minKubernetes and the
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

// readMinor asks the apiserver its version when some step runs only on
// some minors (its kubernetes range), so that the run can leave out the
// others (skips); it says why it could not ("" when it could, or when no
// step names a range).
func (r *runner) readMinor() string {
	if !r.s.HasMinorSteps() {
		return ""
	}
	if _, err := r.serverVersion(); err != nil {
		return r.opts.Lang.Msgf("unable to ask the apiserver its version: %v", err)
	}
	return ""
}

// skips reports whether a step is of another minor than the apiserver's
// (its kubernetes range): the run leaves it out, as if it were not
// written; the other steps keep their numbers, so that a lesson's
// progress (its steps done) reads the same on every minor.
func (r *runner) skips(st *Step) bool {
	return st.Kubernetes != "" && !st.Applies(r.version)
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
