package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios"
)

// timelineRuns is how many times TestTimelineOrderUnderLoad runs each
// scenario: $CRDLAB_TIMELINE_RUNS ('make test-timeline' asks for 20), 2
// by default.
func timelineRuns() int {
	if n, err := strconv.Atoi(os.Getenv("CRDLAB_TIMELINE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// loadCores keeps every core busy until ctx is done: the machine of a user
// who runs a build beside the lab.
func loadCores(ctx context.Context) {
	for range runtime.NumCPU() {
		go func() {
			for n := 0; ctx.Err() == nil; n++ {
				for range 1 << 16 {
					n ^= n << 1
				}
			}
		}()
	}
}

// On a machine whose cores are all busy, 'crdlab scenario run' against
// 'crdlab up -d' shows each run's timeline in the cluster's order, each
// line under the step that caused it (checkTimeline), with the times the
// apiserver answered each write (its audit log's stage timestamps).
func TestTimelineOrderUnderLoad(t *testing.T) {
	c := newCLI(t)
	c.mustRun("up", "-d")
	defer c.mustRun("down")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	loadCores(ctx)
	runs, late, lines, timed := timelineRuns(), 0, 0, 0
	for i := range runs {
		out, code := c.run("scenario", "run", "delete-pod", "scale", "cascade-delete", "-o", "json")
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i+1, code, out)
		}
		byScenario := map[string][]scenarios.Entry{}
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e scenarios.Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("run %d: not an entry: %q: %v", i+1, sc.Text(), err)
			}
			byScenario[e.Scenario] = append(byScenario[e.Scenario], e)
		}
		for _, name := range []string{"delete-pod", "scale", "cascade-delete"} {
			entries := byScenario[name]
			if len(entries) == 0 || entries[0].Order != scenarios.OrderRevision {
				t.Errorf("run %d of %s: the scenario entry does not say the timeline is in revision order: %+v", i+1, name, entries[:min(1, len(entries))])
			}
			problems, l, n := checkTimeline(name, entries)
			for _, p := range problems {
				t.Errorf("run %d of %s: %s", i+1, name, p)
			}
			late, lines = late+l, lines+n
		}
		timed += checkAuditTimes(t, control.Dir(c.stateDir), byScenario)
	}
	t.Logf("timeline under load: %d of %d lines late in %d runs of each scenario; %d lines' times checked against the audit log", late, lines, runs, timed)
}

// checkAuditTimes checks that each line of a write shows the time the
// apiserver answered it: the stage timestamp of the audit log's request
// whose response carries the line's revision, or, for writes whose
// response does not (a binding answers a Status; the update that removes
// an object's last finalizer answers the object as it was), of the Pod's
// binding or of a write of the object. A deletecollection's list carries
// the revision of some other write, and is not taken for it. It returns
// how many lines it checked, and fails if that is none.
func checkAuditTimes(t *testing.T, d control.Dir, byScenario map[string][]scenarios.Entry) int {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(filepath.Dir(d.AuditLog()), "audit*.log"))
	times := map[int64]time.Time{}
	bound := map[string]time.Time{}     // namespace/name of a Pod
	written := map[string][]time.Time{} // namespace/name: every write of it
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev struct {
				Stage          string    `json:"stage"`
				Verb           string    `json:"verb"`
				StageTimestamp time.Time `json:"stageTimestamp"`
				ObjectRef      struct {
					Resource    string `json:"resource"`
					Subresource string `json:"subresource"`
					Namespace   string `json:"namespace"`
					Name        string `json:"name"`
				} `json:"objectRef"`
				ResponseObject *struct {
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
				} `json:"responseObject"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "ResponseComplete" {
				continue
			}
			key := ev.ObjectRef.Namespace + "/" + ev.ObjectRef.Name
			switch {
			case ev.Verb == "create" && ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Subresource == "binding":
				bound[key] = ev.StageTimestamp
			case ev.ObjectRef.Subresource == "":
				written[key] = append(written[key], ev.StageTimestamp)
			}
			if ev.ResponseObject == nil || ev.Verb == "deletecollection" {
				continue // a deletecollection answers a list at the revision of some other write
			}
			rev, err := strconv.ParseInt(ev.ResponseObject.Metadata.ResourceVersion, 10, 64)
			if _, seen := times[rev]; err == nil && !seen {
				times[rev] = ev.StageTimestamp
			}
		}
		f.Close()
	}
	checked := 0
	for name, entries := range byScenario {
		for _, e := range entries {
			if e.Type != "event" || e.Event == nil || e.Event.Revision == 0 {
				continue
			}
			at, ok := times[e.Event.Revision]
			key := e.Event.Namespace + "/" + e.Event.Name
			switch {
			case e.Event.Verb == timeline.Bind:
				// A binding answers a Status: a response that carries
				// its revision is a later write that changed nothing.
				at, ok = bound[key]
			case !ok && e.Event.Verb == timeline.Delete:
				for _, d := range written[key] {
					if d.Equal(e.Event.Time) {
						at, ok = d, true
					}
				}
			}
			switch {
			case !ok:
				t.Errorf("%s: no request in the audit log answered revision %d: %s %s %s/%s", name, e.Event.Revision, e.Event.Actor, e.Event.Verb, e.Event.Kind, e.Event.Name)
			case !at.Equal(e.Event.Time):
				t.Errorf("%s: %s %s %s/%s (revision %d) shows %s, the apiserver answered at %s", name, e.Event.Actor, e.Event.Verb, e.Event.Kind, e.Event.Name,
					e.Event.Revision, e.Event.Time.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano))
			default:
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no line's time was checked against the audit log")
	}
	return checked
}

// checkTimeline checks the timeline of one run of delete-pod, scale or
// cascade-delete as its report shows it (entries in the order printed):
// revisions never go down along the lines (but for lines marked late,
// which are counted); in delete-pod, the scenario's DELETE of a Pod comes
// before the replicaset's CREATE of its replacement and before the
// kubelet's confirmation; the first rollout's lines (the Deployment's
// first ReplicaSet, its first Pods and their bindings) are under the step
// that applied the Deployment or the one after it, which waits for it.
// It returns what is wrong, and how many lines were late.
func checkTimeline(scenario string, entries []scenarios.Entry) (problems []string, late, lines int) {
	replicas := map[string]int{"delete-pod": 3, "scale": 2, "cascade-delete": 2}[scenario]
	var last int64
	applyStep := 0
	var deleted string
	deleteAt, replacementAt, confirmAt := -1, -1, -1
	firstRS := ""
	podCreates := 0
	rollout := map[string]bool{} // pods of the first rollout
	for i, e := range entries {
		if e.Type == "step" && e.Status == scenarios.Running && e.Action == "apply" && applyStep == 0 {
			applyStep = e.Step
		}
		if e.Type != "event" || e.Event == nil {
			continue
		}
		ev := e.Event
		lines++
		if ev.Late {
			late++
		} else if ev.Revision > 0 {
			if ev.Revision < last {
				problems = append(problems, fmt.Sprintf("line %d: revision %d after %d: %s %s %s/%s", i, ev.Revision, last, ev.Actor, ev.Verb, ev.Kind, ev.Name))
			}
			last = ev.Revision
		}
		firstRollout := false
		switch {
		case ev.Kind == "ReplicaSet" && ev.Verb == timeline.Create && firstRS == "":
			firstRS, firstRollout = ev.Name, true
		case ev.Kind == "Pod" && ev.Verb == timeline.Create && ev.Actor == "replicaset":
			podCreates++
			if firstRS != "" && strings.HasPrefix(ev.Name, firstRS+"-") && podCreates <= replicas {
				rollout[ev.Name], firstRollout = true, true
			}
			if deleteAt >= 0 && replacementAt < 0 {
				replacementAt = i
			}
			if deleteAt < 0 && podCreates > replicas && scenario == "delete-pod" {
				problems = append(problems, fmt.Sprintf("line %d: replicaset CREATE pod/%s, a replacement, before the scenario's DELETE", i, ev.Name))
			}
		case ev.Kind == "Pod" && ev.Verb == timeline.Bind && rollout[ev.Name]:
			firstRollout = true
		case ev.Kind == "Pod" && ev.Verb == timeline.Delete && ev.Actor == "you (scenario)" && deleted == "":
			deleted, deleteAt = ev.Name, i
		case ev.Kind == "Pod" && ev.Verb == timeline.Delete && ev.Actor == "kubelet" && ev.Name == deleted && confirmAt < 0:
			confirmAt = i
		case ev.Kind == "Pod" && ev.Verb == timeline.Delete && ev.Actor == "kubelet" && deleted == "" && scenario == "delete-pod":
			problems = append(problems, fmt.Sprintf("line %d: the kubelet confirms the deletion of pod/%s before the scenario's DELETE", i, ev.Name))
		}
		if firstRollout && !ev.Late && e.Step != applyStep && e.Step != applyStep+1 {
			problems = append(problems, fmt.Sprintf("line %d: %s %s %s/%s of the first rollout under step %d, not %d (apply) or %d", i, ev.Actor, ev.Verb, ev.Kind, ev.Name, e.Step, applyStep, applyStep+1))
		}
	}
	if applyStep == 0 || firstRS == "" || len(rollout) != replicas {
		problems = append(problems, fmt.Sprintf("the first rollout is not all there: apply step %d, ReplicaSet %q, %d of %d Pods", applyStep, firstRS, len(rollout), replicas))
	}
	if scenario == "delete-pod" && (deleteAt < 0 || replacementAt < 0 || confirmAt < 0) {
		problems = append(problems, fmt.Sprintf("delete-pod: the scenario's DELETE at %d, the replacement's CREATE at %d, the kubelet's confirmation at %d", deleteAt, replacementAt, confirmAt))
	}
	return problems, late, lines
}
