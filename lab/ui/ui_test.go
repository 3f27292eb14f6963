package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdlab/crdlab/lab/timeline"
)

func newServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

func TestOnlyTheTokenHolderGetsIn(t *testing.T) {
	s, ts := newServer(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, mod func(*http.Request)) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		if mod != nil {
			mod(req)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/", "/app.js", "/api/state", "/api/stream", "/api/object?uid=x"} {
		if code := get(path, nil).StatusCode; code != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, code)
		}
		if code := get(path+"?token=nope", nil).StatusCode; code != http.StatusUnauthorized && !strings.Contains(path, "?") {
			t.Errorf("%s with a wrong token: %d, want 401", path, code)
		}
	}
	resp := get("/?token="+s.Token(), nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("/ with the token: %d to %q, want 303 to / (the token out of the address bar)", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != "/" {
		t.Fatalf("cookies %+v: want one, HttpOnly, SameSite=Strict, Path=/", cookies)
	}
	withCookie := func(r *http.Request) { r.AddCookie(cookies[0]) }
	for _, path := range []string{"/", "/app.js", "/app.css", "/api/state"} {
		if code := get(path, withCookie).StatusCode; code != http.StatusOK {
			t.Errorf("%s with the cookie: %d, want 200", path, code)
		}
	}
	if code := get("/api/state", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+s.Token()) }).StatusCode; code != http.StatusOK {
		t.Errorf("/api/state with the token as a bearer: %d", code)
	}
	if code := get("/api/state", func(r *http.Request) { withCookie(r); r.Host = "rebound.example:80" }).StatusCode; code != http.StatusMisdirectedRequest {
		t.Errorf("another host name: %d, want 421", code)
	}
	if !strings.HasPrefix(s.Address(), "http://127.0.0.1:") || !strings.HasSuffix(s.URL(), "?token="+s.Token()) {
		t.Errorf("address %s, URL %s", s.Address(), s.URL())
	}
}

// Issue 37: each lab's UI names its cookie by its port, so that two labs
// (a browser sends 127.0.0.1's cookies to every port) keep their own
// tokens; one lab's cookie does not open the other's UI.
func TestTheCookieIsNamedByPort(t *testing.T) {
	cookieOf := func(s *Server) *http.Cookie {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/?token="+s.Token(), nil)
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		cookies := rec.Result().Cookies()
		if len(cookies) != 1 {
			t.Fatalf("%s: cookies %+v, want one", s.Address(), cookies)
		}
		return cookies[0]
	}
	a, _ := newServer(t)
	b, _ := newServer(t)
	ca, cb := cookieOf(a), cookieOf(b)
	for s, c := range map[*Server]*http.Cookie{a: ca, b: cb} {
		if want := "crdlab-ui-" + strings.TrimSuffix(strings.TrimPrefix(s.Address(), "http://127.0.0.1:"), "/"); c.Name != want {
			t.Errorf("%s sets the cookie %s, want %s", s.Address(), c.Name, want)
		}
	}
	if ca.Name == cb.Name {
		t.Errorf("two labs' UIs set the same cookie %s", ca.Name)
	}
	req := httptest.NewRequest(http.MethodGet, "/api/state", nil)
	req.Host = "127.0.0.1"
	req.AddCookie(ca)
	rec := httptest.NewRecorder()
	b.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("%s with the cookie of %s: %d, want 401", b.Address(), a.Address(), rec.Code)
	}
}

func pod(uid, name, rv string, status map[string]any, managers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": uid, "resourceVersion": rv,
			"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "rs-uid"}}},
		"spec":   map[string]any{"nodeName": "lab-node-1"},
		"status": status,
	}}
	var mf []metav1.ManagedFieldsEntry
	for _, m := range managers {
		mf = append(mf, metav1.ManagedFieldsEntry{Manager: m, Operation: metav1.ManagedFieldsOperationUpdate})
	}
	u.SetManagedFields(mf)
	return u
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func TestAnObjectsPageHasItsHistoryWithWhoAndTheDiff(t *testing.T) {
	st := newStore()
	v1 := pod("u1", "web-1-a", "1", map[string]any{"phase": "Pending"}, "kube-controller-manager")
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: v1, Initial: true})
	v2 := pod("u1", "web-1-a", "2", map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
		"kube-controller-manager", "crdlab-kubelet")
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v1, New: v2,
		Event: &timeline.Event{Time: time.Now(), Actor: "kubelet (simulated)", Verb: timeline.Status, Kind: "Pod", Name: "web-1-a", Detail: "Running, Ready"}})
	// A write of bookkeeping only changes the object, not its history.
	v3 := pod("u1", "web-1-a", "3", v2.Object["status"].(map[string]any), "kube-controller-manager", "crdlab-kubelet")
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v2, New: v3})

	p, ok := st.page("u1")
	if !ok {
		t.Fatal("no page for u1")
	}
	if p.Summary.State != "Running, Ready" || p.Summary.Level != levelOK || p.Summary.Node != "lab-node-1" ||
		len(p.Summary.Owners) != 1 || p.Summary.Owners[0] != "rs-uid" || p.Summary.Changes != 2 {
		t.Errorf("summary %+v", p.Summary)
	}
	if len(p.History) != 2 || p.History[0].Verb != timeline.Status || p.History[0].Actor != "kubelet (simulated)" || p.History[1].Verb != "EXISTED" {
		t.Fatalf("history %+v: want the kubelet's STATUS, then EXISTED", p.History)
	}
	for _, want := range []string{"-  phase: Pending", "+  phase: Running", "+    type: Ready"} {
		if !strings.Contains(p.History[0].Diff, want) {
			t.Errorf("diff has no %q:\n%s", want, p.History[0].Diff)
		}
	}
	if strings.Contains(p.History[0].Diff, "resourceVersion") {
		t.Errorf("the diff shows the resourceVersion:\n%s", p.History[0].Diff)
	}
	if strings.Contains(p.YAML, "managedFields") || !strings.Contains(p.YAML, `resourceVersion: "3"`) {
		t.Errorf("YAML now:\n%s", p.YAML)
	}
	if len(p.Managers) != 2 || p.Managers[1].Actor != "kubelet (simulated)" || p.Managers[0].Actor != "controller-manager" {
		t.Errorf("managers %+v", p.Managers)
	}

	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v3,
		Event: &timeline.Event{Time: time.Now(), Actor: "you (kubectl)", Verb: timeline.Delete, Kind: "Pod", Name: "web-1-a"}})
	p, _ = st.page("u1")
	if !p.Summary.Gone || p.History[0].Verb != timeline.Delete || p.History[0].Actor != "you (kubectl)" {
		t.Errorf("after the delete: %+v, %+v", p.Summary, p.History[0])
	}
}

func TestHistoryAndDeletedObjectsAreBounded(t *testing.T) {
	st := newStore()
	prev := pod("u", "p", "0", map[string]any{"phase": "Pending"})
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: prev})
	for i := 1; i <= maxRevisions+10; i++ {
		cur := pod("u", "p", fmt.Sprint(i), map[string]any{"phase": "Pending", "n": int64(i)})
		st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: prev, New: cur, Event: &timeline.Event{Actor: "x", Verb: timeline.Status}})
		prev = cur
	}
	p, _ := st.page("u")
	if len(p.History) != maxRevisions || p.Dropped != 10 || p.Summary.Changes != maxRevisions+10 {
		t.Errorf("%d changes kept, %d dropped, %d counted", len(p.History), p.Dropped, p.Summary.Changes)
	}
	if p.History[len(p.History)-1].Diff != "" || p.History[0].Diff == "" {
		t.Errorf("the oldest kept change has no predecessor to diff with; the newest has one")
	}
	for i := range maxGone + 5 {
		u := pod(fmt.Sprint("g", i), "p", "1", nil)
		st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: u, Event: &timeline.Event{Verb: timeline.Delete}})
	}
	if _, ok := st.page("g0"); ok {
		t.Error("the oldest deleted object is still kept")
	}
	if _, ok := st.page(fmt.Sprint("g", maxGone+4)); !ok {
		t.Error("the newest deleted object is not kept")
	}
}

func TestTheTimelineKeepsItsLastLinesInOrder(t *testing.T) {
	st := newStore()
	total := 3*maxEvents + 7
	for i := range total {
		st.record(timeline.Event{Name: fmt.Sprint(i)})
		if len(st.events) >= 2*maxEvents {
			t.Fatalf("%d lines held after %d recorded", len(st.events), i+1)
		}
	}
	st.mu.Lock()
	events := st.snapshotLocked().Events
	st.mu.Unlock()
	if len(events) != maxEvents {
		t.Fatalf("the snapshot has %d lines, want %d", len(events), maxEvents)
	}
	for i, e := range events {
		if want := fmt.Sprint(total - maxEvents + i); e.Name != want {
			t.Fatalf("line %d is %s, want %s", i, e.Name, want)
		}
	}
}

func TestSummaries(t *testing.T) {
	obj := func(kind string, o map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: o}
		u.SetKind(kind)
		u.SetName("x")
		return u
	}
	terminating := obj("RedisCluster", map[string]any{"status": map[string]any{"phase": "Ready"}})
	terminating.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
	terminating.SetFinalizers([]string{"samples.crdlab.dev/backup"})
	for _, tc := range []struct {
		kind       string
		u          *unstructured.Unstructured
		state, lvl string
	}{
		{"Deployment", obj("Deployment", map[string]any{"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"readyReplicas": int64(2)}}), "Ready 2/3", levelProgress},
		{"ReplicaSet", obj("ReplicaSet", map[string]any{"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"readyReplicas": int64(3)}}), "Ready 3/3", levelOK},
		{"Pod", obj("Pod", map[string]any{"status": map[string]any{"phase": "Pending"}}), "Pending, not scheduled", levelProgress},
		{"Node", obj("Node", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "Unknown"}}}}), "NotReady", levelBad},
		{"Job", obj("Job", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}}), "Complete", levelOK},
		{"RedisCluster", terminating, "Terminating, held by finalizer samples.crdlab.dev/backup", levelBad},
		{"WebApp", obj("WebApp", map[string]any{"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"conditions": []any{
			map[string]any{"type": "Available", "status": "True", "message": "2/2 replicas available"}}}}), "Available: 2/2 replicas available", levelOK},
		{"Thing", obj("Thing", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False"}}}}), "not Ready", levelProgress},
	} {
		s := summarize(tc.kind, "r", tc.u)
		if s.State != tc.state || s.Level != tc.lvl {
			t.Errorf("%s: %q (%s), want %q (%s)", tc.kind, s.State, s.Level, tc.state, tc.lvl)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	// Changes more than twice the context apart make two hunks.
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	b := "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\nl\n"
	want := "@@ -1 +1 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n@@ -9 +9 @@\n i\n j\n k\n+l\n"
	if got := unifiedDiff(a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := unifiedDiff(a, a); got != "" {
		t.Errorf("equal texts: %q", got)
	}
	if got := unifiedDiff("", "x\n"); got != "@@ -1 +1 @@\n+x\n" {
		t.Errorf("from nothing: %q", got)
	}
}

func TestTheStreamStartsWithASnapshotThenEveryChange(t *testing.T) {
	s, ts := newServer(t)
	s.Observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: pod("u1", "a", "1", nil), Initial: true})
	s.Record(timeline.Event{Actor: "you (kubectl)", Verb: timeline.Create, Kind: "Pod", Name: "a"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/api/stream", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	next := func() message {
		t.Helper()
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m message
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
		}
		t.Fatalf("stream ended: %v", sc.Err())
		return message{}
	}
	snap := next()
	if snap.Type != "snapshot" || len(snap.Objects) != 1 || len(snap.Events) != 1 {
		t.Fatalf("snapshot %+v", snap)
	}
	s.Report(json.RawMessage(`{"type":"scenario","scenario":"delete-pod","namespace":"delete-pod-x"}`))
	s.Report(json.RawMessage(`{"type":"event","scenario":"delete-pod"}`)) // the timeline has it
	s.Record(timeline.Event{Actor: "replicaset", Verb: timeline.Create, Kind: "Pod", Name: "b"})
	if m := next(); m.Type != "report" || !strings.Contains(string(m.Report), "delete-pod-x") {
		t.Errorf("got %+v, want the scenario's report", m)
	}
	if m := next(); m.Type != "event" || m.Event.Actor != "replicaset" {
		t.Errorf("got %+v, want the replicaset's CREATE", m)
	}
}

// The timeline tells a change once the audit log has dated it, so an older
// change of an object can be told after a newer one: the object keeps the
// newer state (a Deployment stayed "Ready 1/3" after reaching 3/3), and a
// deleted object stays deleted, while the history keeps every change.
func TestAnOlderChangeToldLateDoesNotWinOverANewerOne(t *testing.T) {
	st := newStore()
	v1 := pod("u", "p", "10", map[string]any{"phase": "Pending"})
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", New: v1, Initial: true})
	v3 := pod("u", "p", "30", map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}})
	v2 := pod("u", "p", "20", map[string]any{"phase": "Running"})
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v2, New: v3, Event: &timeline.Event{Actor: "x", Verb: timeline.Status}})
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v1, New: v2, Event: &timeline.Event{Actor: "x", Verb: timeline.Status}})
	p, _ := st.page("u")
	if p.Summary.State != "Running, Ready" || !strings.Contains(p.YAML, `resourceVersion: "30"`) || p.Summary.Changes != 3 {
		t.Errorf("after revision 30, then 20 told late: state %q, %d changes, YAML:\n%s", p.Summary.State, p.Summary.Changes, p.YAML)
	}
	gone := pod("u", "p", "40", nil)
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: gone, Event: &timeline.Event{Verb: timeline.Delete}})
	st.observe(timeline.Change{Resource: podsGVR, Kind: "Pod", Old: v2, New: v3, Event: &timeline.Event{Actor: "x", Verb: timeline.Status}})
	if p, _ := st.page("u"); !p.Summary.Gone {
		t.Errorf("a change told after the deletion brought the Pod back: %+v", p.Summary)
	}
}
