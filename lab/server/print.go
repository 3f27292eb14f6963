package server

import (
	"fmt"
	"io"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
)

// PrintWhere tells the user, in l, where the lab st describes is and how
// to use it: its apiserver and kubeconfig, its web UI (uiURL, with its
// token; none when empty) and where to serve their webhooks. 'crdlab up'
// prints it once the lab is ready, in the foreground and with -d.
func PrintWhere(out io.Writer, l lang.Lang, st *control.Status, uiURL string) {
	fmt.Fprint(out, l.Msgf(`
The lab's kube-apiserver is at %s.
Use it with any kubectl:

  export KUBECONFIG=%s
  kubectl get namespaces

or with the kubectl built into crdlab:

  crdlab kubectl get namespaces
`, st.Endpoint, st.Kubeconfig))
	if uiURL != "" {
		fmt.Fprint(out, l.Msgf(`
Watch it in a browser (the objects, the timeline in lanes, each object's
history; only with this token):

  %s
`, uiURL))
	}
	if w := st.Webhooks; w != nil {
		fmt.Fprint(out, l.Msgf(`
Serve your webhooks on https://%[1]s:%[2]d with the certificate and key in
%[3]s (tls.crt, tls.key); with controller-runtime:

  webhook.NewServer(webhook.Options{Host: %[1]q, Port: %[2]d, CertDir: %[3]q})

The apiserver calls them through %[4]s, which puts every call on the timeline.
`, w.Host, w.Port, w.CertDir, w.Front))
	}
}
