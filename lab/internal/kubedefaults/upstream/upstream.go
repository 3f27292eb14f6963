// Package upstream reads what a Kubernetes minor runs by default from its
// own code, compiled against the Kubernetes of the module that links it:
// kube-controller-manager's controller descriptors
// (app.NewControllerDescriptors: disabled by default or not, the feature
// gates each requires, at their defaults) and kube-apiserver's default-on
// admission plugins (options.AllOrderedPlugins less
// DefaultOffAdmissionPlugins). The main module's test reads the built-in
// minor's; each components module's generated test its own
// (lab/internal/tools/minorgen).
package upstream

import (
	"slices"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	apiserveroptions "k8s.io/kubernetes/pkg/kubeapiserver/options"

	"github.com/crdlab/crdlab/lab/internal/kubedefaults"
	"github.com/crdlab/crdlab/lab/internal/kubeversion"
)

// Defaults returns the defaults of the Kubernetes linked, with every
// feature gate at its default (the lab sets none).
func Defaults() kubedefaults.Defaults {
	d := kubedefaults.Defaults{Kubernetes: kubeversion.Module()}
	for name, c := range kcm.NewControllerDescriptors() {
		on := !c.IsDisabledByDefault()
		for _, g := range c.GetRequiredFeatureGates() {
			on = on && utilfeature.DefaultFeatureGate.Enabled(g)
		}
		d.Controllers = append(d.Controllers, kubedefaults.Controller{Name: name, On: on})
	}
	slices.SortFunc(d.Controllers, func(a, b kubedefaults.Controller) int { return strings.Compare(a.Name, b.Name) })
	off := apiserveroptions.DefaultOffAdmissionPlugins()
	for _, p := range apiserveroptions.AllOrderedPlugins {
		if !off.Has(p) {
			d.AdmissionPlugins = append(d.AdmissionPlugins, p)
		}
	}
	return d
}

// Test fails t for each way the lab's lists (kubedefaults) differ from the
// defaults of the Kubernetes linked (kubedefaults.Check).
func Test(t *testing.T) {
	t.Helper()
	d := Defaults()
	if len(d.Controllers) == 0 || len(d.AdmissionPlugins) == 0 {
		t.Fatalf("Kubernetes %s: read %d controllers and %d default-on admission plugins", d.Kubernetes, len(d.Controllers), len(d.AdmissionPlugins))
	}
	for _, p := range kubedefaults.Check(d) {
		t.Error(p)
	}
}
