package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/internal/webhooks"
	"github.com/crdlab/crdlab/lab/multicall"
)

// Starting kube-controller-manager and kube-scheduler while kube-apiserver
// boots, rather than once it is ready, saves their own start (about half
// a second) from a lab's boot. They need their kubeconfigs for that before
// envtest has made the apiserver's certificates and its client CA, which
// exist only once envtest's Start runs. So the lab makes what they need
// itself, before envtest starts:
//   - the apiserver's port (a free one, unless Options.Port);
//   - its serving certificate, with a CA of the lab's (envtest keeps the
//     certificates it finds in the cert dir and makes none), and the
//     service-account signing key envtest would have made beside them;
//   - a bearer token for each component, in a --token-auth-file.
//
// A component that cannot wait for the apiserver (kube-controller-manager
// gives up after 10 s) is started again once the apiserver is ready, as it
// was before: an early start can only save time.

// earlyStart holds what the components started early need.
type earlyStart struct {
	host   string            // https://127.0.0.1:PORT
	ca     []byte            // the apiserver's serving CA, PEM
	tokens map[string]string // bearer token by user
	done   chan error        // the early start's result, once it ran
}

// earlyUsers are the users of the components started early.
var earlyUsers = []string{"system:" + multicall.KubeControllerManager, "system:" + multicall.KubeScheduler}

// prepareEarlyStart makes the port, certificates and tokens of an early
// start of the components in api's cert dir (made empty by environment).
func (l *Lab) prepareEarlyStart(api *envtest.APIServer) error {
	if !l.opts.runs(ControllerManager) && !l.opts.runs(Scheduler) {
		return nil
	}
	port := l.opts.Port
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			return err
		}
	}
	api.SecureServing.Port = strconv.Itoa(port)
	ca, cert, key, err := webhooks.ServingCert("crdlab apiserver CA")
	if err != nil {
		return err
	}
	// The service-account signer: a key of its own, as envtest makes it.
	_, saCert, saKey, err := webhooks.ServingCert("crdlab service-account signer")
	if err != nil {
		return err
	}
	e := &earlyStart{host: "https://127.0.0.1:" + strconv.Itoa(port), ca: ca, tokens: map[string]string{}}
	var tokens strings.Builder
	for i, user := range earlyUsers {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		e.tokens[user] = hex.EncodeToString(b)
		fmt.Fprintf(&tokens, "%s,%s,crdlab-%d\n", e.tokens[user], user, i)
	}
	for name, data := range map[string][]byte{
		"apiserver.crt": cert, "apiserver.key": key, "sa-signer.crt": saCert, "sa-signer.key": saKey,
		"component-tokens.csv": []byte(tokens.String()),
	} {
		if err := os.WriteFile(filepath.Join(api.CertDir, name), data, 0o600); err != nil {
			return fmt.Errorf("unable to write %s: %w", name, err)
		}
	}
	api.SecureServing.CA = ca
	api.Configure().Set("token-auth-file", filepath.Join(api.CertDir, "component-tokens.csv"))
	l.early = e
	return nil
}

// earlyConfig is the client configuration of user for the apiserver to be,
// or nil without an early start.
func (l *Lab) earlyConfig(user string) *rest.Config {
	if l.early == nil || l.early.tokens[user] == "" {
		return nil
	}
	return &rest.Config{Host: l.early.host, BearerToken: l.early.tokens[user], TLSClientConfig: rest.TLSClientConfig{CAData: l.early.ca}}
}

// startEarly starts kube-controller-manager and kube-scheduler while the
// apiserver boots; awaitEarly waits for them.
func (l *Lab) startEarly(ctx context.Context) {
	if l.early == nil {
		return
	}
	l.opts.Progress("starting kube-controller-manager and kube-scheduler, while kube-apiserver starts")
	l.early.done = make(chan error, 1)
	go func() { l.early.done <- l.startControlPlaneChildren(ctx) }()
}

// awaitEarly waits for the early start, if there was one, and reports
// whether the components run; where they do not, it stops what is left of
// them, so that they start as before.
func (l *Lab) awaitEarly() bool {
	if l.early == nil || l.early.done == nil {
		return false
	}
	err := <-l.early.done
	l.early.done = nil
	if err == nil {
		return true
	}
	l.opts.Logger.Info("kube-controller-manager and kube-scheduler could not start while kube-apiserver did; starting them again", "error", err.Error())
	l.mu.Lock()
	children := l.children
	l.children = map[string]*proc.Child{}
	l.mu.Unlock()
	for _, c := range children {
		_ = c.Stop(0)
	}
	return false
}
