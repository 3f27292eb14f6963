package trace

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The reporter never makes a pass wait: with no lab listening, passes are
// queued or lost, and the reporter ends with its manager.
func TestReporterWithoutALab(t *testing.T) {
	r := newReporter(control.Dir(t.TempDir()))
	for range 2 * cap(r.queue) { // more than the queue holds: the rest is lost, nothing waits
		r.record(control.Pass{Controller: "c", Name: "x"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start: %v", err)
	}
}

// The reporter sends every pass it was given, in order, in batches, to the
// lab's control socket.
func TestReporterSendsInOrder(t *testing.T) {
	dir, err := os.MkdirTemp("", "crdlab-trace-") // short enough for a socket path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := control.Dir(dir)
	ln, err := net.Listen("unix", d.ControlSocket())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	requests := 0
	all := make(chan struct{})
	const n = 1000
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method+" "+req.URL.Path != string(control.RoutePasses) {
			http.NotFound(w, req)
			return
		}
		dec := json.NewDecoder(req.Body)
		mu.Lock()
		defer mu.Unlock()
		requests++
		for {
			var p control.Pass
			if dec.Decode(&p) != nil {
				break
			}
			got = append(got, p.Name)
		}
		if len(got) == n {
			close(all)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	r := newReporter(d)
	for i := range n {
		r.record(control.Pass{Controller: "c", Name: string(rune('a'+i%26)) + "-" + strconv.Itoa(i)})
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	<-all
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, name := range got {
		if want := string(rune('a'+i%26)) + "-" + strconv.Itoa(i); name != want {
			t.Fatalf("pass %d reached the lab as %s, want %s", i, name, want)
		}
	}
	if requests > n/maxBatch+2 {
		t.Errorf("%d passes took %d requests: not batched", n, requests)
	}
}
