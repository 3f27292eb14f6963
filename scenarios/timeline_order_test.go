package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios"
)

// timelineRuns is how many times the timeline's order is checked for each
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

var _ = Describe("the timeline, on a loaded machine", func() {
	It("shows each run's lines in the cluster's order, each under the step that caused it", func(ctx context.Context) {
		loadCtx, stopLoad := context.WithCancel(ctx)
		defer stopLoad()
		loadCores(loadCtx)
		runs, late, lines := timelineRuns(), 0, 0
		for _, name := range []string{"delete-pod", "scale", "cascade-delete"} {
			s, err := scenarios.Load(name)
			Expect(err).NotTo(HaveOccurred())
			for i := range runs {
				res, rep := run(ctx, s, target())
				Expect(res.Status).To(Equal(scenarios.Passed), "%s run %d: %s\n%s", name, i+1, res.Message, failures(res))
				rep.mu.Lock()
				problems, l, n := checkTimeline(name, rep.entries)
				rep.mu.Unlock()
				Expect(problems).To(BeEmpty(), "%s run %d", name, i+1)
				Expect(res.LateLines).To(Equal(l), "the result counts the late lines the report marks")
				late, lines = late+l, lines+n
			}
		}
		AddReportEntry("late lines", fmt.Sprintf("%d of %d lines in %d runs of each scenario arrived after the window", late, lines, runs))
		GinkgoWriter.Printf("timeline under load: %d of %d lines late in %d runs of each scenario\n", late, lines, runs)
	}, NodeTimeout(60*time.Minute))
})

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

// checkTimeline finds what it is meant to find: a revision that goes down,
// the replacement before the deletion, the first rollout under a later
// step.
func TestCheckTimelineFindsDisorder(t *testing.T) {
	ev := func(step int, rev int64, actor, verb, kind, name string) scenarios.Entry {
		return scenarios.Entry{Type: "event", Step: step, Event: &timeline.Event{Revision: rev, Actor: actor, Verb: verb, Kind: kind, Name: name}}
	}
	good := []scenarios.Entry{
		{Type: "step", Step: 2, Action: "apply", Status: scenarios.Running},
		ev(2, 10, "deployment", timeline.Create, "ReplicaSet", "web-1"),
		ev(2, 11, "replicaset", timeline.Create, "Pod", "web-1-a"),
		ev(3, 12, "replicaset", timeline.Create, "Pod", "web-1-b"),
		ev(3, 13, "replicaset", timeline.Create, "Pod", "web-1-c"),
		ev(3, 14, "scheduler", timeline.Bind, "Pod", "web-1-a"),
		ev(5, 20, "you (scenario)", timeline.Delete, "Pod", "web-1-a"),
		ev(5, 21, "replicaset", timeline.Create, "Pod", "web-1-d"),
		ev(6, 22, "kubelet", timeline.Delete, "Pod", "web-1-a"),
	}
	if problems, late, lines := checkTimeline("delete-pod", good); len(problems) != 0 || late != 0 || lines != 8 {
		t.Fatalf("a good timeline: %v, %d late of %d", problems, late, lines)
	}
	for name, change := range map[string]func([]scenarios.Entry){
		"a revision goes down":           func(es []scenarios.Entry) { es[3].Event.Revision = 9 },
		"the replacement before DELETE":  func(es []scenarios.Entry) { es[6], es[7] = es[7], es[6] },
		"the confirmation before DELETE": func(es []scenarios.Entry) { es[6], es[8] = es[8], es[6] },
		"the rollout under step 5":       func(es []scenarios.Entry) { es[5].Step = 5 },
	} {
		es := make([]scenarios.Entry, len(good))
		for i, e := range good {
			es[i] = e
			if e.Event != nil {
				c := *e.Event
				es[i].Event = &c
			}
		}
		change(es)
		if problems, _, _ := checkTimeline("delete-pod", es); len(problems) == 0 {
			t.Errorf("%s: no problem found", name)
		}
	}
}
