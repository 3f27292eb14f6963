package lab

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// installPollInterval is how often envtest checks that the CRDs and webhook
// configurations it installed are served.
const installPollInterval = 10 * time.Millisecond

// newInstaller is the envtest environment that installs, on the lab's
// running kube-apiserver, as the admin user: its Start waits for the
// default namespace and installs crds, the conversion webhooks and the
// webhook configurations (the lab runs it while the components start). It
// starts and stops no process.
func newInstaller(crds []*apiextensionsv1.CustomResourceDefinition, admin *rest.Config, opts Options) *envtest.Environment {
	env := &envtest.Environment{
		UseExistingCluster: ptr.To(true),
		Config:             admin,
		CRDs:               crds,
		// By default envtest checks every 100 ms whether the CRDs it
		// installed are established, and its webhook configurations there:
		// 50 ms lost on average for each wait, where a check is one request.
		CRDInstallOptions: envtest.CRDInstallOptions{PollInterval: installPollInterval},
		// Which CRDs get a conversion webhook: those whose kind has a hub
		// and convertible spokes in the scheme (envtest's rule).
		Scheme:                opts.Scheme,
		WebhookInstallOptions: opts.WebhookInstallOptions,
	}
	if env.WebhookInstallOptions.LocalServingHost == "" {
		env.WebhookInstallOptions.LocalServingHost = "127.0.0.1"
	}
	if env.WebhookInstallOptions.PollInterval == 0 {
		env.WebhookInstallOptions.PollInterval = installPollInterval
	}
	return env
}
