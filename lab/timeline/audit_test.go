package timeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAuditActor(t *testing.T) {
	for _, tc := range []struct{ user, agent, want string }{
		{"system:serviceaccount:kube-system:generic-garbage-collector", "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:generic-garbage-collector", "garbage collector"},
		{"system:serviceaccount:kube-system:namespace-controller", "kube-controller-manager/v1.37.2", "namespace"},
		{"admin", "kubectl/v1.32.3 (linux/amd64) kubernetes/1a2b3c4", "you (kubectl)"},
		{"admin", "crdlab-scenario", "you (scenario)"},
		{"admin", "redis-operator", "redis-operator"},
		{"system:kube-scheduler", "kube-scheduler/v1.37.2", "scheduler"},
	} {
		if got := auditActor(tc.user, tc.agent); got != tc.want {
			t.Errorf("auditActor(%q, %q) = %q, want %q", tc.user, tc.agent, got, tc.want)
		}
	}
}

// followedLog returns an empty audit log, and its follower once ready,
// both ending with the test.
func followedLog(t *testing.T) (*os.File, *auditLog) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a := followAudit(ctx, path)
	<-a.ready
	return f, a
}

// followAudit reads what is appended to the log, also lines written in
// pieces, and names the deleter of an object or of a collection.
func TestFollowAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(`{"stage":"ResponseComplete","verb":"delete","user":{"username":"old"},"objectRef":{"resource":"pods","namespace":"a","name":"p"}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := followAudit(ctx, path)
	<-a.ready // it starts at the end
	line := `{"stage":"ResponseComplete","verb":"delete","userAgent":"x","user":{"username":"system:serviceaccount:kube-system:generic-garbage-collector"},"objectRef":{"resource":"replicasets","namespace":"a","name":"rs"}}` + "\n"
	_, _ = f.WriteString(line[:40])
	waitSeen(t, a, 40) // the follower has read half a line and waits for the rest
	_, _ = f.WriteString(line[40:])
	_, _ = f.WriteString(`{"stage":"ResponseComplete","verb":"deletecollection","user":{"username":"system:serviceaccount:kube-system:namespace-controller"},"objectRef":{"resource":"configmaps","namespace":"b"}}` + "\n")
	if got := a.who("replicasets", "a", "rs", 2*time.Second); got != "garbage collector" {
		t.Errorf("who deleted replicasets/a/rs: %q", got)
	}
	if got := a.who("configmaps", "b", "settings", 2*time.Second); got != "namespace" {
		t.Errorf("who deleted configmaps/b/settings: %q", got)
	}
	if got := a.who("pods", "a", "p", 50*time.Millisecond); got != "" {
		t.Errorf("a deletion from before it started: %q", got)
	}

	// The garbage collector asks, the kubelet confirms: the graceful
	// deletion is the collector's, whichever the timeline looks up last.
	for _, user := range [][2]string{{"system:serviceaccount:kube-system:generic-garbage-collector", "kube-controller-manager"}, {"admin", "crdlab-kubelet"}} {
		_, _ = f.WriteString(`{"stage":"ResponseComplete","verb":"delete","user":{"username":"` + user[0] + `"},"userAgent":"` + user[1] + `","objectRef":{"resource":"pods","namespace":"a","name":"q"}}` + "\n")
	}
	if got := a.who("pods", "a", "q", 2*time.Second); got != "garbage collector" {
		t.Errorf("first deleter of pods/a/q: %q", got)
	}
	if got := a.who("pods", "a", "q", 2*time.Second); got != "kubelet (simulated)" {
		t.Errorf("second deleter of pods/a/q: %q", got)
	}
}

// waitSeen waits until the follower has read n bytes since it started.
func waitSeen(t *testing.T, a *auditLog, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for a.seen.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the follower read %d bytes, want %d", a.seen.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The follower keeps reading when the apiserver rotates its log (renames
// it at --audit-log-maxsize and starts a new one): the deletions and the
// times written after a rotation are found.
func TestFollowAuditRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := followAudit(ctx, path)
	<-a.ready
	write := func(f *os.File, rev int, name string) {
		line := `{"stage":"ResponseComplete","verb":"delete","stageTimestamp":"2026-12-04T10:00:00.` + fmt.Sprintf("%06d", rev) +
			`Z","user":{"username":"admin"},"userAgent":"crdlab-scenario","objectRef":{"resource":"pods","namespace":"a","name":"` + name +
			`"},"responseObject":{"metadata":{"resourceVersion":"` + fmt.Sprint(rev) + `"}}}` + "\n"
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	for round := 1; round <= 3; round++ {
		write(f, round*10, fmt.Sprintf("before-%d", round))
		// as lumberjack rotates: the old file renamed, a new one created
		f.Close()
		if err := os.Rename(path, filepath.Join(dir, fmt.Sprintf("audit-%d.log", round))); err != nil {
			t.Fatal(err)
		}
		if f, err = os.Create(path); err != nil {
			t.Fatal(err)
		}
		write(f, round*10+1, fmt.Sprintf("after-%d", round))
		for _, c := range []struct {
			rev  int64
			name string
		}{{int64(round * 10), fmt.Sprintf("before-%d", round)}, {int64(round*10 + 1), fmt.Sprintf("after-%d", round)}} {
			if got := a.who("pods", "a", c.name, 5*time.Second); got != "you (scenario)" {
				t.Errorf("rotation %d: who deleted pods/a/%s: %q", round, c.name, got)
			}
			at, ok := a.when(c.rev, time.Now(), 5*time.Second)
			want := time.Date(2026, 12, 4, 10, 0, 0, int(c.rev)*1000, time.UTC)
			if !ok || !at.Equal(want) {
				t.Errorf("rotation %d: time of revision %d: %v %v, want %v", round, c.rev, at, ok, want)
			}
		}
	}
	f.Close()
}

// A write's time is the stage timestamp of the request whose response
// carries its revision (the first such: a write that changed nothing
// answers the revision before it, a deletecollection a list at the
// revision some other write made); a binding, which answers a Status, is
// found by its Pod; a revision the log has moved on from (later revisions,
// answered passedGrace after it) without answering it is not waited for.
func TestAuditTimes(t *testing.T) {
	f, a := followedLog(t)
	for _, line := range []string{
		`{"stage":"ResponseComplete","verb":"update","stageTimestamp":"2026-12-04T10:00:00.000010Z","objectRef":{"resource":"deployments","namespace":"a","name":"web"},"responseObject":{"metadata":{"resourceVersion":"10"}}}`,
		`{"stage":"ResponseComplete","verb":"update","stageTimestamp":"2026-12-04T10:00:00.000011Z","objectRef":{"resource":"deployments","namespace":"a","name":"web"},"responseObject":{"metadata":{"resourceVersion":"10"}}}`,
		`{"stage":"ResponseComplete","verb":"create","stageTimestamp":"2026-12-04T10:00:00.000012Z","objectRef":{"resource":"pods","subresource":"binding","namespace":"a","name":"web-1"},"responseObject":{"kind":"Status","status":"Success"}}`,
		`{"stage":"ResponseComplete","verb":"deletecollection","stageTimestamp":"2026-12-04T10:00:00.000019Z","objectRef":{"resource":"csistoragecapacities","namespace":"b"},"responseObject":{"kind":"CSIStorageCapacityList","metadata":{"resourceVersion":"20"},"items":[]}}`,
		`{"stage":"ResponseComplete","verb":"create","stageTimestamp":"2026-12-04T10:00:00.000020Z","objectRef":{"resource":"pods","namespace":"a"},"responseObject":{"metadata":{"resourceVersion":"20"}}}`,
	} {
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	at := func(us int) time.Time { return time.Date(2026, 12, 4, 10, 0, 0, us*1000, time.UTC) }
	if got, ok := a.when(20, at(20), 5*time.Second); !ok || !got.Equal(at(20)) {
		t.Errorf("time of revision 20: %v %v, want %v", got, ok, at(20))
	}
	if got, ok := a.when(10, at(10), time.Second); !ok || !got.Equal(at(10)) {
		t.Errorf("time of revision 10: %v %v, want the first answer's, %v", got, ok, at(10))
	}
	if got, ok := a.boundAt("a", "web-1", time.Second); !ok || !got.Equal(at(12)) {
		t.Errorf("binding of pods/a/web-1: %v %v, want %v", got, ok, at(12))
	}
	// The update that removes an object's last finalizer deletes it, and
	// answers the object as it was: its deletion is dated by that update.
	if _, err := f.WriteString(`{"stage":"ResponseComplete","verb":"delete","stageTimestamp":"2026-12-04T10:00:00.000029Z","objectRef":{"resource":"deployments","namespace":"a","name":"gone"},"responseObject":{"metadata":{"resourceVersion":"24"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	seen := time.Now()
	if _, err := f.WriteString(`{"stage":"ResponseComplete","verb":"patch","stageTimestamp":"2026-12-04T10:00:00.000030Z","objectRef":{"resource":"deployments","namespace":"a","name":"gone"},"responseObject":{"metadata":{"resourceVersion":"24"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if got, ok := a.deletedAt("deployments", "a", "gone", seen, 5*time.Second); !ok || !got.Equal(at(30)) {
		t.Errorf("deletion of deployments/a/gone: %v %v, want the patch's time %v", got, ok, at(30))
	}
	// Revision 15 is not answered, and the log has answered later ones,
	// but within passedGrace of its moment: an answer logged a little out
	// of order is still to come, however long the follower takes to read.
	a.mu.Lock()
	movedOn := a.movedOn(15, at(15))
	a.mu.Unlock()
	if movedOn {
		t.Error("the log moved on from revision 15 with answers 15µs after it")
	}
	later := at(15).Add(passedGrace + time.Millisecond)
	if _, err := f.WriteString(`{"stage":"ResponseComplete","verb":"create","stageTimestamp":"` + later.Format(time.RFC3339Nano) + `","objectRef":{"resource":"pods","namespace":"a"},"responseObject":{"metadata":{"resourceVersion":"40"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, ok := a.when(15, at(15), time.Hour); ok {
		t.Error("revision 15, which no response carries, has a time")
	}
	if waited := time.Since(start); waited > time.Minute {
		t.Errorf("the lookup of a revision the log has moved on from waited %s", waited)
	}
}

// A deletion held by a finalizer ends with the update that took it off,
// which the apiserver answers with the object as the request made it:
// being deleted, no finalizer left. finishedBy names that update's author
// (the learner's Operator, or their kubectl patch), not the deletion
// request, whatever the order the log has them in: the Operator's update,
// set off by the deletion's watch event, can be answered before the
// deletion request itself.
func TestFinishedBy(t *testing.T) {
	f, a := followedLog(t)
	const operator = `"user":{"username":"admin"},"userAgent":"user-operator/v0.0.0 (linux/amd64) kubernetes/$Format"`
	const kubectl = `"user":{"username":"admin"},"userAgent":"kubectl/v1.37.2"`
	lines := `{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:00.100000Z","verb":"patch",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"alice"},"responseObject":{"metadata":{"uid":"alice-1"}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.100000Z","verb":"delete",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"dave"},"responseObject":{"metadata":{"uid":"dave-1","deletionTimestamp":"2026-12-07T02:00:01Z","finalizers":["a/cleanup"]}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.120000Z","verb":"patch",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"dave"},"responseObject":{"metadata":{"uid":"dave-1","deletionTimestamp":"2026-12-07T02:00:01Z","finalizers":["a/cleanup","b/other"]}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.150000Z","verb":"patch",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"dave"},"responseObject":{"metadata":{"uid":"dave-2"}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.180000Z","verb":"delete","requestURI":"/apis/auth.ilinux.io/v1/namespaces/a/users/bob?dryRun=All",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"bob"},"responseObject":{"metadata":{"uid":"bob-1","deletionTimestamp":"2026-12-07T02:00:01Z","finalizers":["a/cleanup"]}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.190000Z","verb":"patch","requestURI":"/apis/auth.ilinux.io/v1/namespaces/a/users/bob?dryRun=All\u0026fieldManager=kubectl-patch",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"bob"},"responseObject":{"metadata":{"uid":"bob-1","deletionTimestamp":"2026-12-07T02:00:01Z"}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.200000Z","verb":"patch",` + operator + `,"objectRef":{"resource":"users","namespace":"a","name":"bob"},"responseStatus":{"metadata":{},"code":200},"responseObject":{"metadata":{"uid":"bob-1","deletionTimestamp":"2026-12-07T02:00:01Z"}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.210000Z","verb":"delete","requestURI":"/apis/auth.ilinux.io/v1/namespaces/a/users/bob",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"bob"},"responseObject":{"metadata":{"uid":"bob-1","deletionTimestamp":"2026-12-07T02:00:01Z","finalizers":["a/cleanup"]}}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:03.510000Z","verb":"patch",` + operator + `,"objectRef":{"resource":"users","namespace":"a","name":"bob"},"responseStatus":{"metadata":{},"status":"Failure","reason":"NotFound","code":404},"responseObject":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:03.520000Z","verb":"delete",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"carol"},"responseStatus":{"metadata":{},"status":"Failure","reason":"NotFound","code":404},"responseObject":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}}
{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:04.000000Z","verb":"patch",` + kubectl + `,"objectRef":{"resource":"users","namespace":"a","name":"eve"},"responseObject":{"metadata":{"uid":"eve-1","deletionTimestamp":"2026-12-07T02:00:03Z","finalizers":[]}}}
`
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
	waitSeen(t, a, int64(len(lines)))
	// The Operator's patch after it (a 404: bob was gone) wrote nothing.
	if got, ok := a.finishedBy("bob-1"); !ok || got != "user-operator" {
		t.Errorf("finished the deletion of users/a/bob: %q, %v; want user-operator (logged before the deletion request; a refused patch after it is no write)", got, ok)
	}
	if got, ok := a.finishedBy("eve-1"); !ok || got != "you (kubectl)" {
		t.Errorf("finished the deletion of users/a/eve, its finalizer taken off by hand: %q, %v; want you (kubectl)", got, ok)
	}
	if got, ok := a.finishedBy("alice-1"); ok {
		t.Errorf("users/a/alice, updated but never deleted: %q, want none", got)
	}
	if got, ok := a.finishedBy("dave-2"); ok {
		t.Errorf("users/a/dave, a new one patched after the deletion of the one before: %q, want none (the write that ends its deletion is to come)", got)
	}
	if got, ok := a.finishedBy("dave-1"); ok {
		t.Errorf("users/a/dave-1, deleting, patched with a finalizer left: %q, want none (its deletion has not ended)", got)
	}
	if got, ok := a.finishedBy("carol-1"); ok {
		t.Errorf("users/a/carol, never updated: %q", got)
	}
	if got := a.who("users", "a", "carol", 10*time.Millisecond); got != "" {
		t.Errorf("users/a/carol, whose deletion was refused (404): deleted by %q, want none", got)
	}
	if got := a.who("users", "a", "bob", time.Second); got != "you (kubectl)" {
		t.Errorf("the deletion request of users/a/bob: %q, want you (kubectl): finishedBy does not claim it", got)
	}
	// The dry runs before it (a hint tried with --dry-run=server) are no
	// deletion: bob's one deletion request is claimed, and then none is left.
	if got := a.who("users", "a", "bob", 10*time.Millisecond); got != "" {
		t.Errorf("a second deletion of users/a/bob: %q, want none: a dry run is no deletion", got)
	}
}

// The end of a deletion that finalizers held waits for the write that
// took them off as long as the follower has not read the log past the
// moment the watch told of it: a follower that reads late under load
// still names the Operator. A log read well past that moment without such
// a write gives up at once.
func TestFinishedByWaitsForALateLog(t *testing.T) {
	f, a := followedLog(t)
	line := func(at time.Time, verb, agent, name, uid string) string {
		return `{"stage":"ResponseComplete","stageTimestamp":"` + at.UTC().Format(time.RFC3339Nano) + `","verb":"` + verb +
			`","user":{"username":"admin"},"userAgent":"` + agent + `","objectRef":{"resource":"users","namespace":"a","name":"` + name +
			`"},"responseObject":{"metadata":{"uid":"` + uid + `","deletionTimestamp":"2026-12-07T02:00:00Z"}}}` + "\n"
	}
	start := time.Now()
	if _, err := f.WriteString(line(start.Add(-time.Second), "delete", "kubectl/v1.37.2", "bob", "bob-1") +
		line(start.Add(-time.Second), "delete", "kubectl/v1.37.2", "carol", "carol-1")); err != nil {
		t.Fatal(err)
	}
	w := &watcher{audit: a, auditWait: 5 * time.Millisecond} // gives up after finalizedWaits × 5ms = 80ms, unless...
	bob := Event{Verb: Delete, Kind: "User", Namespace: "a", Name: "bob", Actor: "?", arrived: time.Now()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.fromAudit(&bob, "users", false, true, "bob-1", true)
	}()
	// The log is read late: the Operator's write, answered when the watch
	// said bob was gone, is read only after the watcher's own wait.
	for past := bob.arrived.Add(2 * finalizedWaits * w.auditWait); time.Now().Before(past); {
		select {
		case <-done:
			t.Fatalf("the end of bob's deletion gave up after %s, by %q: the log was not read past its moment", time.Since(bob.arrived), bob.Actor)
		case <-time.After(time.Until(past)):
		}
	}
	if _, err := f.WriteString(line(bob.arrived, "patch", "user-operator/v0.0.0 (linux/amd64) kubernetes/$Format", "bob", "bob-1")); err != nil {
		t.Fatal(err)
	}
	<-done
	if bob.Actor != "user-operator" {
		t.Errorf("the end of bob's deletion, the log read late: by %q, want user-operator", bob.Actor)
	}
	// carol's deletion ended by no write the log has; the log has been
	// read past its moment (bob's patch, later): the wait ends at once.
	carol := Event{Verb: Delete, Kind: "User", Namespace: "a", Name: "carol", Actor: "?", arrived: bob.arrived.Add(-2 * finalizedPast)}
	begin := time.Now()
	w.fromAudit(&carol, "users", false, true, "carol-1", true)
	if carol.Actor != "?" {
		t.Errorf("carol's deletion, ended by no write of the log: by %q, want ?", carol.Actor)
	}
	if waited := time.Since(begin); waited > auditMemory/2 {
		t.Errorf("a log read past carol's moment was waited on for %s", waited)
	}
}

// The line of a write whose writer managedFields did not date takes its
// writer from the audit log, by the write's revision.
func TestUnsureWriterIsTheAuditLogs(t *testing.T) {
	f, a := followedLog(t)
	line := `{"stage":"ResponseComplete","stageTimestamp":"2026-12-07T02:00:01.000000Z","verb":"patch","user":{"username":"admin"},"userAgent":"kubectl/v1.37.2","objectRef":{"resource":"configmaps","namespace":"a","name":"user-directory"},"responseObject":{"metadata":{"uid":"d-1","resourceVersion":"42"}}}` + "\n"
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	waitSeen(t, a, int64(len(line)))
	w := &watcher{audit: a, auditWait: time.Second}
	e := Event{Verb: Update, Kind: "ConfigMap", Namespace: "a", Name: "user-directory", Actor: "user-operator", Revision: 42, writerUnsure: true, arrived: time.Now()}
	w.fromAudit(&e, "configmaps", true, false, "", false)
	if e.Actor != "you (kubectl)" {
		t.Errorf("the removal of bob's key, by revision 42: by %q, want you (kubectl)", e.Actor)
	}
	sure := Event{Verb: Update, Kind: "ConfigMap", Namespace: "a", Name: "user-directory", Actor: "user-operator", Revision: 42, arrived: time.Now()}
	w.fromAudit(&sure, "configmaps", true, false, "", false)
	if sure.Actor != "user-operator" {
		t.Errorf("a line sure of its writer: by %q, want it kept (user-operator)", sure.Actor)
	}
}
