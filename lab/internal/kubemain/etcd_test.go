package kubemain

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitForEtcdIfAsked(t *testing.T) {
	var calls atomic.Int32
	etcd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			t.Errorf("asked %s, want /health", r.URL.Path)
		}
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable) // no leader yet
			return
		}
		_, _ = w.Write([]byte(`{"health":"true"}`))
	}))
	defer etcd.Close()

	t.Run("unset", func(t *testing.T) {
		t.Setenv(WaitForEtcdEnv, "")
		if err := WaitForEtcdIfAsked(context.Background(), []string{"http://127.0.0.1:1"}); err != nil {
			t.Fatalf("without %s: %v, want no wait", WaitForEtcdEnv, err)
		}
	})
	t.Run("not a duration", func(t *testing.T) {
		t.Setenv(WaitForEtcdEnv, "soon")
		err := WaitForEtcdIfAsked(context.Background(), []string{etcd.URL})
		if err == nil || !strings.Contains(err.Error(), WaitForEtcdEnv+`="soon"`) {
			t.Fatalf("got %v, want an error naming %s", err, WaitForEtcdEnv)
		}
	})
	t.Run("healthy after two refusals", func(t *testing.T) {
		t.Setenv(WaitForEtcdEnv, "1m")
		if err := WaitForEtcdIfAsked(context.Background(), []string{etcd.URL, "https://127.0.0.1:1"}); err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 3 {
			t.Errorf("etcd asked %d times, want 3 (healthy on the third)", n)
		}
	})
	t.Run("never healthy", func(t *testing.T) {
		t.Setenv(WaitForEtcdEnv, "50ms")
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		defer down.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := WaitForEtcdIfAsked(ctx, []string{down.URL})
		if err == nil || !strings.Contains(err.Error(), "not healthy within 50ms") || !strings.Contains(err.Error(), down.URL) {
			t.Fatalf("got %v, want an error naming the server and the timeout", err)
		}
	})
}
