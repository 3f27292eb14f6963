package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestACommandPastItsDeadlineFails: a test's crdlab command that waits for
// something that never comes fails at its deadline, with the command, the
// time it ran and what it printed, instead of running on to the package's
// timeout. The command is crdlab's kubectl asking a server that accepts the
// request and never answers (kubectl's --request-timeout is 0: none); it
// shrugs off the interrupt (crdlab catches SIGINT), so it is killed too.
func TestACommandPastItsDeadlineFails(t *testing.T) {
	asked, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		select {
		case asked <- struct{}{}:
		default:
		}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: learner
  user: {token: none}
contexts:
- name: silent
  context: {cluster: silent, user: learner}
current-context: silent
`, srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}

	c := newCLI(t)
	const deadline = 8 * time.Second
	start := time.Now()
	// -v=9: kubectl prints the request (as curl) before it waits for the
	// answer, which the failure must show.
	out, code, err := c.runWithin(deadline, "kubectl", "--kubeconfig", kubeconfig, "get", "--raw", "/healthz", "-v=9")
	took := time.Since(start)
	if err == nil {
		t.Fatalf("crdlab kubectl, waiting for an answer that never comes: ended with no error (exit %d) after %s:\n%s", code, took, out)
	}
	t.Logf("the failure:\n%v", err)
	select {
	case <-asked:
	default:
		t.Fatalf("the server was never asked: the command did not wait for it: %v", err)
	}
	host := strings.TrimPrefix(srv.URL, "https://")
	for _, want := range []string{"crdlab kubectl --kubeconfig " + kubeconfig + " get --raw /healthz", "still running after 8s", host + "/healthz"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the failure does not say %q:\n%v", want, err)
		}
	}
	if took < deadline || took > deadline+interruptGrace+5*time.Second {
		t.Errorf("the command ended after %s, want its deadline %s, and at most %s more to stop", took, deadline, interruptGrace)
	}
}
