package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// fakeLab is a lab of two components and two nodes that records what the
// control socket asked of it.
type fakeLab struct {
	mu       sync.Mutex
	calls    []string
	recorded chan timeline.Event // what Record was given, if not nil
}

var errBusy = errors.New("busy resetting")

func (f *fakeLab) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeLab) known(name string, sentinel error) error {
	switch name {
	case "controller-manager", "lab-node-1":
		return nil
	case "busy":
		return fmt.Errorf("%s: %w", name, errBusy)
	}
	return fmt.Errorf("%w %q", sentinel, name)
}

func (f *fakeLab) Components() []control.Component {
	return []control.Component{{Name: "controller-manager", Running: true}}
}

func (f *fakeLab) StopComponent(_ context.Context, name string) error {
	f.record("stop component %s", name)
	return f.known(name, control.ErrUnknownComponent)
}

func (f *fakeLab) StartComponent(_ context.Context, name string) error {
	f.record("start component %s", name)
	return f.known(name, control.ErrUnknownComponent)
}

func (f *fakeLab) Nodes() []control.Node { return []control.Node{{Name: "lab-node-1"}} }

func (f *fakeLab) StopNode(_ context.Context, name string) error {
	f.record("stop node %s", name)
	return f.known(name, control.ErrUnknownNode)
}

func (f *fakeLab) StartNode(_ context.Context, name string) error {
	f.record("start node %s", name)
	return f.known(name, control.ErrUnknownNode)
}

func (f *fakeLab) Reset(_ context.Context, opts control.ResetOptions) error {
	f.record("reset %+v", opts)
	return nil
}

// sampleEvent has every field of timeline.Event set.
var sampleEvent = timeline.Event{
	Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Actor: "webapp-operator", Verb: timeline.Update,
	Kind: "WebApp", Namespace: "default", Name: "shop", Detail: "reconciled", Revision: 1234, Late: true,
}

// sampleLine is the line of the timeline stream.
var sampleLine = timeline.Event{
	Time: time.Date(2026, 1, 2, 3, 4, 5, 7000, time.UTC), Actor: "replicaset", Verb: timeline.Create,
	Kind: "Pod", Namespace: "default", Name: "web-1", Revision: 1235,
}

// fakeHold is the fake lab's timeline's hold.
const fakeHold = 1234 * time.Millisecond

func (f *fakeLab) Timeline(ctx context.Context, sink timeline.Sink, ready func(hold time.Duration)) error {
	if ready != nil {
		ready(fakeHold)
	}
	sink.Record(sampleLine)
	<-ctx.Done()
	return nil
}

func (f *fakeLab) Record(e timeline.Event) {
	if f.recorded != nil {
		f.recorded <- e
	}
}

func (f *fakeLab) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	if ready != nil {
		ready()
	}
	sink.Record(sampleEvent)
	<-ctx.Done()
	return nil
}

// The socket serves each route of package control with one handler, and
// refuses to serve a route without handler or a handler without route.
func TestMuxServesExactlyTheRoutes(t *testing.T) {
	ctx := context.Background()
	if _, err := newMux(handlers(ctx, &fakeLab{}, nil)); err != nil {
		t.Fatalf("the server's handlers: %v", err)
	}
	missing := handlers(ctx, &fakeLab{}, nil)
	delete(missing, control.RouteStopNode)
	if _, err := newMux(missing); err == nil || !strings.Contains(err.Error(), string(control.RouteStopNode)) {
		t.Errorf("a route without handler: %v, want an error naming %q", err, control.RouteStopNode)
	}
	extra := handlers(ctx, &fakeLab{}, nil)
	extra["GET /extra"] = func(http.ResponseWriter, *http.Request) {}
	if _, err := newMux(extra); err == nil || !strings.Contains(err.Error(), "GET /extra") {
		t.Errorf("a handler without route: %v, want an error naming GET /extra", err)
	}
}

// Every method of the client reaches the real server, which hands it to
// the lab; together they use every route of the protocol. Errors keep
// their sentinel across the socket.
func TestClientCallsEveryRoute(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tmp, err := os.MkdirTemp("", "crdlab-protocol-test-") // short enough for a socket path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	d := control.Dir(tmp)
	lab := &fakeLab{recorded: make(chan timeline.Event, 2)}
	reports := make(chan json.RawMessage, 1)
	mux, err := newMux(handlers(ctx, lab, func(e json.RawMessage) { reports <- e }))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	hits := map[string]int{}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		mu.Lock()
		hits[pattern]++
		mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	if err := listenControl(ctx, d, counted); err != nil {
		t.Fatal(err)
	}
	c := control.NewClient(d)

	components, err := c.Components(ctx)
	if err != nil || !reflect.DeepEqual(components, lab.Components()) {
		t.Errorf("Components: %v, %v; want %v", components, err, lab.Components())
	}
	nodes, err := c.Nodes(ctx)
	if err != nil || !reflect.DeepEqual(nodes, lab.Nodes()) {
		t.Errorf("Nodes: %v, %v; want %v", nodes, err, lab.Nodes())
	}
	for _, call := range []struct {
		do       func(context.Context, string) error
		name     string
		sentinel error
	}{
		{c.StopComponent, "controller-manager", nil},
		{c.StartComponent, "controller-manager", nil},
		{c.StopComponent, "no-such", control.ErrUnknownComponent},
		{c.StartComponent, "no-such", control.ErrUnknownComponent},
		{c.StopNode, "lab-node-1", nil},
		{c.StartNode, "lab-node-1", nil},
		{c.StopNode, "no-such", control.ErrUnknownNode},
		{c.StartNode, "no-such", control.ErrUnknownNode},
	} {
		err := call.do(ctx, call.name)
		if call.sentinel == nil && err != nil || call.sentinel != nil && !errors.Is(err, call.sentinel) {
			t.Errorf("%s: %v, want %v", call.name, err, call.sentinel)
		}
	}
	err = c.StopNode(ctx, "busy")
	if err == nil || err.Error() != "busy: busy resetting" || errors.Is(err, control.ErrUnknownNode) {
		t.Errorf("StopNode(busy): %v, want the lab's message without a sentinel", err)
	}
	if err := c.Reset(ctx, control.ResetOptions{RemoveCRDs: true}); err != nil {
		t.Errorf("Reset: %v", err)
	}
	wantCalls := []string{
		"stop component controller-manager", "start component controller-manager",
		"stop component no-such", "start component no-such",
		"stop node lab-node-1", "start node lab-node-1", "stop node no-such", "start node no-such",
		"stop node busy", "reset {RemoveCRDs:true}",
	}
	if !reflect.DeepEqual(lab.calls, wantCalls) {
		t.Errorf("the lab was asked:\n  %s\nwant:\n  %s", strings.Join(lab.calls, "\n  "), strings.Join(wantCalls, "\n  "))
	}

	// The events and timeline streams: a line the main module reads as a
	// timeline.Event, every field of it, and nothing it does not know; the
	// timeline's client is told the lab's hold.
	var hold time.Duration
	timelineWithHold := func(ctx context.Context, record func(json.RawMessage), _ func()) error {
		return c.Timeline(ctx, record, func(h time.Duration) { hold = h })
	}
	for _, stream := range []struct {
		name string
		open func(context.Context, func(json.RawMessage), func()) error
		want timeline.Event
	}{{"events", c.Events, sampleEvent}, {"timeline", timelineWithHold, sampleLine}} {
		evCtx, evCancel := context.WithCancel(ctx)
		lines := make(chan json.RawMessage, 1)
		streamErr := make(chan error, 1)
		go func() {
			streamErr <- stream.open(evCtx, func(line json.RawMessage) { lines <- line }, nil)
		}()
		select {
		case line := <-lines:
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			var e timeline.Event
			if err := dec.Decode(&e); err != nil || !e.Time.Equal(stream.want.Time) {
				t.Errorf("%s line %s: %v; want %+v", stream.name, line, err, stream.want)
			}
			e.Time = stream.want.Time
			if e != stream.want {
				t.Errorf("%s line %+v, want %+v", stream.name, e, stream.want)
			}
		case <-ctx.Done():
			t.Fatalf("no line on the %s stream", stream.name)
		}
		evCancel()
		if err := <-streamErr; err != nil {
			t.Errorf("%s after its context ended: %v, want nil", stream.name, err)
		}
	}

	if hold != fakeHold {
		t.Errorf("the timeline's client was told a hold of %s, want the lab's %s", hold, fakeHold)
	}

	// The reports stream: an entry reaches the lab as it was sent.
	report, end := c.Report(ctx)
	report(map[string]string{"type": "step"})
	select {
	case e := <-reports:
		if string(e) != `{"type":"step"}` {
			t.Errorf("report entry %s, want {\"type\":\"step\"}", e)
		}
	case <-ctx.Done():
		t.Fatal("no report entry reached the lab")
	}
	end()

	// Reconcile passes of a controller in another process: each becomes a
	// line of the lab's own events, with what it wrote and what woke it.
	pass := control.Pass{
		Controller: "guestbook", Kind: "Guestbook", Namespace: "default", Name: "demo",
		Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: 3 * time.Millisecond,
		Triggers: []control.Trigger{{Kind: "Guestbook", Namespace: "default", Name: "demo", Change: "created"}},
		Writes:   []control.Write{{Verb: timeline.Create, Kind: "Deployment", Namespace: "default", Name: "demo"}},
	}
	if err := c.Passes(ctx, []control.Pass{pass, pass}); err != nil {
		t.Errorf("Passes: %v", err)
	}
	for range 2 {
		select {
		case e := <-lab.recorded:
			if e.Actor != "guestbook" || e.Verb != "RECONCILE" || e.Object() != "guestbook/demo" ||
				!strings.Contains(e.Detail, "CREATE deployment/demo") || !strings.Contains(e.Detail, "woken by guestbook/demo created") {
				t.Errorf("the lab recorded %+v for the pass", e)
			}
		case <-ctx.Done():
			t.Fatal("the passes did not reach the lab")
		}
	}

	mu.Lock()
	defer mu.Unlock()
	for _, route := range control.Routes() {
		if hits[string(route)] == 0 {
			t.Errorf("no client method used route %q (hits: %v)", route, hits)
		}
	}
}

// lab.json as the server writes it is control.Status, every field of it
// (the sample must set each one), and nothing a client does not know.
func TestStatusFileIsTheSharedStatus(t *testing.T) {
	d := control.Dir(t.TempDir())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := control.Status{
		PID: 42, Endpoint: "https://127.0.0.1:6443", Kubeconfig: d.Kubeconfig(), DataDir: "/data",
		StartedAt: at, ReadyAt: at.Add(time.Second),
		Webhooks:   &control.WebhookServing{Host: "127.0.0.1", Port: 9443, CertDir: "/certs", Front: "https://127.0.0.1:1"},
		UI:         "http://127.0.0.1:8080/",
		Lang:       "zh",
		Kubernetes: "v1.35.8",
		Health: control.Health{
			State: control.StateDegraded,
			Processes: []control.ProcessHealth{{
				Name: "etcd", Up: true, Stopped: true, Restarts: 1, DownSince: at, LastExit: "signal: killed",
			}},
			Problems:           []string{"etcd restarted without its data"},
			KubeletRefused:     2,
			LastKubeletRefusal: `pod default/web: Pod "web" is invalid: status.podIPs[0]: Invalid value: "10.256.0.2": must be a valid IP address`,
		},
	}
	if path := unset(reflect.ValueOf(st), "Status"); path != "" {
		t.Fatalf("the sample status leaves %s unset: set it, so that the test covers it", path)
	}
	if err := writeStatus(d, st, []byte("kubeconfig")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(d.StatusFile())
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var got control.Status
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%s as a client reads it: %v\n%s", d.StatusFile(), err, data)
	}
	if !reflect.DeepEqual(got, st) {
		t.Errorf("%s reads back as\n  %+v\nwant\n  %+v", d.StatusFile(), got, st)
	}
	if pid, err := os.ReadFile(d.PIDFile()); err != nil || string(pid) != "42\n" {
		t.Errorf("%s: %q, %v; want 42", d.PIDFile(), pid, err)
	}
	clearStatus(d)
	for _, f := range []string{d.StatusFile(), d.PIDFile(), d.Kubeconfig()} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is left after clearStatus", f)
		}
	}
}

// unset returns the path of a field of v left at its zero value, or "".
func unset(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return path
		}
		return unset(v.Elem(), path)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if v.IsZero() {
				return path
			}
			return ""
		}
		for i := range v.NumField() {
			if p := unset(v.Field(i), path+"."+v.Type().Field(i).Name); p != "" {
				return p
			}
		}
		return ""
	case reflect.Slice:
		if v.Len() == 0 {
			return path
		}
		return unset(v.Index(0), path+"[0]")
	}
	if v.IsZero() {
		return path
	}
	return ""
}
