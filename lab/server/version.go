package server

import (
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// serverVersion is the version the lab's kube-apiserver says it serves
// (its /version), for the status: "" when it cannot be read.
func serverVersion(cfg *rest.Config) string {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return ""
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return ""
	}
	return v.GitVersion
}
