package kubedefaults

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Controllers are the kube-controller-manager controllers a lab runs
// (--controllers): those that make workloads, Services, namespaces,
// garbage collection, node failure, autoscaling, admission policies and
// storage migration behave as in a real cluster. A name must be known to
// every minor crdlab serves (kube-controller-manager refuses an unknown
// one); a controller whose feature gate is off in a minor does not start
// there (storage-version-migrator-controller before 1.37).
var Controllers = []string{
	"deployment-controller",
	"replicaset-controller",
	"replicationcontroller-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"cronjob-controller",
	"ttl-after-finished-controller",
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"root-ca-certificate-publisher-controller",
	"endpoints-controller",
	"endpointslice-controller",
	"endpointslice-mirroring-controller",
	"node-lifecycle-controller",
	"taint-eviction-controller",
	"pod-garbage-collector-controller",
	"disruption-controller",
	"horizontal-pod-autoscaler-controller",
	"resourcequota-controller",
	"clusterrole-aggregation-controller",
	// Removes the finalizers the StorageObjectInUseProtection admission
	// plugin puts on every PersistentVolumeClaim and PersistentVolume:
	// without them a deleted claim stays Terminating forever.
	"persistentvolumeclaim-protection-controller",
	"persistentvolume-protection-controller",
	// A ValidatingAdmissionPolicy's status.typeChecking: the warnings a
	// policy's author reads.
	"validatingadmissionpolicy-status-controller",
	// StorageVersionMigration (storagemigration.k8s.io): GA and on from
	// 1.37; its constructor checks the StorageVersionMigrator gate, off
	// before.
	"storage-version-migrator-controller",
}

// Reasons a lab leaves a default-on controller out.
const (
	noVolumes = "no kubelet-backed volumes: the simulated kubelet mounts, attaches and provisions nothing"
	noSigning = "no certificates issued through the API: the simulated kubelets ask for none, and the controller-manager has no cluster signing key (--cluster-signing-cert-file)"
	noDRA     = "no dynamic resource allocation: no DRA driver publishes ResourceSlices on the simulated nodes"
	noCloud   = "no cloud provider: the simulated nodes are nobody's machines, and the lab's Services of type LoadBalancer get no load balancer (kube-controller-manager has the cloud controllers up to 1.36; they do nothing without --cloud-provider)"
)

// ExcludedControllers are the default-on controllers a lab leaves out, by
// name, each with its reason. A name a minor does not know is harmless
// (a controller added or removed in another minor).
var ExcludedControllers = map[string]string{
	"serviceaccount-token-controller":                                "no service-account token signing key given to the controller-manager (--service-account-private-key-file): tokens are bound tokens, from the TokenRequest API, as --use-service-account-credentials uses them; no legacy token Secret is made",
	"legacy-serviceaccount-token-cleaner-controller":                 "no legacy service-account token Secrets to clean: the lab makes none (serviceaccount-token-controller is left out)",
	"node-ipam-controller":                                           "no cloud provider nor Pod network: --allocate-node-cidrs=false, and the simulated kubelet gives Pods addresses of its own",
	"ttl-controller":                                                 "annotates Nodes with how long a kubelet may cache Secrets and ConfigMaps; the simulated kubelet caches none",
	"service-cidr-controller":                                        "Services get their addresses from the default ServiceCIDR, which kube-apiserver makes and keeps Ready itself; the lab adds no other",
	"persistentvolume-binder-controller":                             noVolumes,
	"persistentvolume-attach-detach-controller":                      noVolumes,
	"persistentvolume-expander-controller":                           noVolumes,
	"ephemeral-volume-controller":                                    noVolumes,
	"volumeattributesclass-protection-controller":                    noVolumes,
	"certificatesigningrequest-signing-controller":                   noSigning,
	"certificatesigningrequest-approving-controller":                 noSigning,
	"certificatesigningrequest-cleaner-controller":                   noSigning,
	"podcertificaterequest-cleaner-controller":                       noSigning,
	"kube-apiserver-serving-clustertrustbundle-publisher-controller": noSigning,
	"cloud-node-lifecycle-controller":                                noCloud,
	"node-route-controller":                                          noCloud,
	"service-lb-controller":                                          noCloud,
	"resourceclaim-controller":                                       noDRA,
	"device-taint-eviction-controller":                               noDRA,
	"resourcepoolstatusrequest-controller":                           noDRA,
}

// AdmissionPluginsOff are the default-on admission plugins a lab turns off
// (kube-apiserver's --disable-admission-plugins), by name, each with its
// reason.
var AdmissionPluginsOff = map[string]string{
	"ServiceAccount": "a Pod would be refused until its namespace's default ServiceAccount exists (a race right after a namespace is made) and would get a token volume no kubelet mounts; envtest turns it off the same way",
}

// DisabledAdmissionPlugins returns AdmissionPluginsOff's names, sorted: the
// value of --disable-admission-plugins.
func DisabledAdmissionPlugins() []string {
	return slices.Sorted(maps.Keys(AdmissionPluginsOff))
}

// Controller is one of a minor's kube-controller-manager controllers.
type Controller struct {
	Name string
	// On: it runs by default in the minor: not disabled by default, and
	// every feature gate it requires is on by default.
	On bool
}

// Defaults are what a minor runs by default, as its code says (package
// upstream reads them).
type Defaults struct {
	Kubernetes  string       // the version read, as its /version says it
	Controllers []Controller // every controller the minor knows
	// AdmissionPlugins are kube-apiserver's default-on admission plugins.
	AdmissionPlugins []string
}

// Check returns what is wrong with the lab's lists against d, one line
// each: a default-on controller neither run nor excluded, a controller run
// that the minor does not know, one both run and excluded, an exclusion or
// an admission plugin turned off with no reason, and a default-on
// admission plugin the lab turns off without saying why. Nothing: the lab
// runs what the minor runs, but for its written exclusions.
func Check(d Defaults) []string {
	return check(d, Controllers, ExcludedControllers, AdmissionPluginsOff)
}

func check(d Defaults, run []string, excluded, pluginsOff map[string]string) []string {
	var problems []string
	known := map[string]bool{}
	for _, c := range d.Controllers {
		known[c.Name] = true
		ran, reason := slices.Contains(run, c.Name), excluded[c.Name]
		_, isExcluded := excluded[c.Name]
		switch {
		case ran && isExcluded:
			problems = append(problems, fmt.Sprintf("Kubernetes %s: controller %s is both run and excluded", d.Kubernetes, c.Name))
		case c.On && !ran && strings.TrimSpace(reason) == "":
			problems = append(problems, fmt.Sprintf("Kubernetes %s: controller %s runs by default; the lab neither runs it (kubedefaults.Controllers) nor says why not (kubedefaults.ExcludedControllers)", d.Kubernetes, c.Name))
		}
	}
	for _, name := range run {
		if !known[name] {
			problems = append(problems, fmt.Sprintf("Kubernetes %s: controller %s is not one of this minor's: kube-controller-manager would refuse --controllers", d.Kubernetes, name))
		}
	}
	on := map[string]bool{}
	for _, p := range d.AdmissionPlugins {
		on[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(pluginsOff)) {
		switch {
		case strings.TrimSpace(pluginsOff[p]) == "":
			problems = append(problems, fmt.Sprintf("Kubernetes %s: admission plugin %s is turned off with no reason", d.Kubernetes, p))
		case !on[p]:
			problems = append(problems, fmt.Sprintf("Kubernetes %s: admission plugin %s is not on by default: the lab need not turn it off", d.Kubernetes, p))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(excluded)) {
		if strings.TrimSpace(excluded[name]) == "" {
			problems = append(problems, fmt.Sprintf("controller %s is excluded with no reason", name))
		}
	}
	return problems
}
