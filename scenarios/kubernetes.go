package scenarios

import (
	"context"
	"regexp"
	"strconv"

	"k8s.io/client-go/discovery"
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
	if older(v.GitVersion, need) {
		return r.opts.Lang.Msgf("the apiserver serves Kubernetes %s; the scenario needs %s or newer (spec.minKubernetes)", v.GitVersion, need)
	}
	return ""
}

var minorOf = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// older reports whether version ("v1.35.8") is of a minor older than min
// ("1.36"). A version it cannot read is not older.
func older(version, min string) bool {
	a, b := minorOf.FindStringSubmatch(version), minorOf.FindStringSubmatch(min)
	if a == nil || b == nil {
		return false
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if num(a[1]) != num(b[1]) {
		return num(a[1]) < num(b[1])
	}
	return num(a[2]) < num(b[2])
}
