package lab

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/crdlab/crdlab/lab/internal/writefile"
)

// kubeconfigName names the cluster, user and context of a lab's kubeconfig.
const kubeconfigName = "crdlab"

// kubeconfigFor renders a kubeconfig for cfg, a client-certificate config as
// envtest provisions them.
func kubeconfigFor(cfg *rest.Config) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[kubeconfigName] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
	}
	kc.AuthInfos[kubeconfigName] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
	}
	kc.Contexts[kubeconfigName] = &clientcmdapi.Context{
		Cluster:   kubeconfigName,
		AuthInfo:  kubeconfigName,
		Namespace: "default",
	}
	kc.CurrentContext = kubeconfigName
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("unable to render kubeconfig: %w", err)
	}
	return data, nil
}

// WriteKubeconfig writes the admin kubeconfig to path with mode 0600,
// atomically: a reader sees the old file or the new one, never a part.
func (l *Lab) WriteKubeconfig(path string) error {
	return writefile.Atomic(path, l.kubeconfig, 0o600)
}
