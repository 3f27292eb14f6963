package kubemain

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// WaitForEtcdIfAsked waits until the etcd servers answer healthy when
// WaitForEtcdEnv holds a duration (for at most that long), and returns at
// once when it is unset. kube-apiserver's Run calls it before it builds
// anything that uses etcd.
func WaitForEtcdIfAsked(ctx context.Context, servers []string) error {
	v := os.Getenv(WaitForEtcdEnv)
	if v == "" {
		return nil
	}
	timeout, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%s=%q: not a duration: %w", WaitForEtcdEnv, v, err)
	}
	return waitForEtcd(ctx, servers, timeout)
}

// waitForEtcd polls the /health endpoint of each plain-http etcd server
// every 5 ms until it answers 200 (etcd has a leader), for at most timeout.
func waitForEtcd(ctx context.Context, servers []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	for _, server := range servers {
		if !strings.HasPrefix(server, "http://") {
			continue // TLS to etcd: not a lab's; upstream's own retries apply
		}
		healthy := func(ctx context.Context) (bool, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(server, "/")+"/health", nil)
			if err != nil {
				return false, err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return false, nil //nolint:nilerr // not listening yet
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		}
		if err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, healthy); err != nil {
			return fmt.Errorf("etcd at %s not healthy within %s (%s): %w", server, timeout, WaitForEtcdEnv, err)
		}
	}
	return nil
}
