package actor

import "testing"

func TestOfManager(t *testing.T) {
	for manager, want := range map[string]string{
		"":                          "?",
		"kubectl-client-side-apply": "you (kubectl)",
		"kube-controller-manager":   "controller-manager",
		"default-scheduler":         "scheduler",
		"crdlab-kubelet":            "kubelet (simulated)",
		"deployment-controller":     "deployment",
		"webapp-operator":           "webapp-operator",
	} {
		if got := OfManager(manager); got != want {
			t.Errorf("OfManager(%q) = %q, want %q", manager, got, want)
		}
	}
}

func TestOfRequest(t *testing.T) {
	for _, tc := range []struct{ user, agent, want string }{
		{"system:kube-controller-manager", "kube-controller-manager/v1.37.2", "controller-manager"},
		{"admin", "", "?"},
		{"system:serviceaccount:kube-system:replicaset-controller", "", "replicaset"},
	} {
		if got := OfRequest(tc.user, tc.agent); got != tc.want {
			t.Errorf("OfRequest(%q, %q) = %q, want %q", tc.user, tc.agent, got, tc.want)
		}
	}
}
