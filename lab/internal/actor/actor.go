package actor

import "strings"

// OfManager names the component behind a field manager.
func OfManager(manager string) string {
	switch {
	case manager == "":
		return "?"
	case strings.HasPrefix(manager, "kubectl"):
		return "you (kubectl)"
	case manager == "crdlab-scenario":
		return "you (scenario)"
	case manager == "kube-controller-manager":
		return "controller-manager"
	case manager == "kube-scheduler", manager == "default-scheduler":
		return "scheduler"
	case manager == "kube-apiserver":
		return "apiserver"
	case manager == "crdlab-kubelet":
		return "kubelet (simulated)"
	}
	return strings.TrimSuffix(manager, "-controller")
}

// OfRequest names the client of a request from its user and user agent.
func OfRequest(username, userAgent string) string {
	agent, _, _ := strings.Cut(userAgent, "/")
	switch {
	case strings.HasPrefix(agent, "kubectl"):
		return "you (kubectl)"
	case agent == "crdlab-scenario":
		return "you (scenario)"
	case username == "system:serviceaccount:kube-system:generic-garbage-collector":
		return "garbage collector"
	case strings.HasPrefix(username, "system:serviceaccount:kube-system:"):
		return strings.TrimSuffix(strings.TrimPrefix(username, "system:serviceaccount:kube-system:"), "-controller")
	case username == "system:kube-scheduler":
		return "scheduler"
	case username == "system:kube-controller-manager":
		return "controller-manager"
	case strings.HasSuffix(agent, "-operator"):
		return agent
	}
	return OfManager(agent)
}
