package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/scenarios"
)

// bare-pod's explanation tells solo's graceful deletion in the order its
// own timeline shows it: the deletionTimestamp set, the kubelet's
// confirmation that it stopped the Pod, then the Pod gone from etcd (the
// watch's deletion, which the timeline tells as confirmed by the node).
func TestBarePodTellsDeletionInItsTimelinesOrder(t *testing.T) {
	s, err := scenarios.Load("bare-pod")
	if err != nil {
		t.Fatal(err)
	}
	// What the text says happened, in its order, in each language.
	for l, marks := range map[lang.Lang][]string{
		lang.EN: {"deletionTimestamp", "kubelet stopped it and confirmed", "remove it from etcd"},
		lang.ZH: {"deletionTimestamp", "kubelet 停掉它并确认", "从 etcd 中删掉"},
	} {
		text := strings.ReplaceAll(s.In(l).Spec.Explanation, "\n", " ")
		if l == lang.ZH {
			text = strings.ReplaceAll(s.In(l).Spec.Explanation, "\n", "") // wrapped Chinese joins with nothing
		}
		at := -1
		for _, m := range marks {
			i := strings.Index(text, m)
			if i < 0 || i < at {
				t.Errorf("bare-pod's explanation (%s) does not say %q after the step before it:\n%s", l, m, text)
				break
			}
			at = i
		}
	}
	if testing.Short() {
		return
	}
	c := newCLI(t)
	c.mustRun("up", "-d", "--no-ui", "--no-samples")
	defer c.mustRun("down")
	out := c.mustRun("scenario", "run", "bare-pod", "-o", "json")
	var solo []timeline.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e scenarios.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("not an entry: %q: %v", sc.Text(), err)
		}
		if e.Event != nil && e.Event.Kind == "Pod" && e.Event.Name == "solo" {
			solo = append(solo, *e.Event)
		}
	}
	// The timeline's order: the deletion requested, the kubelet's status of
	// a Pod terminating, the Pod removed on the kubelet's confirmation.
	steps := []struct {
		what string
		is   func(timeline.Event) bool
	}{
		{"the deletion requested (deletionTimestamp set)", func(e timeline.Event) bool {
			return e.Verb == timeline.Delete && e.Detail == "deletion requested (graceful)"
		}},
		{"the kubelet's confirmation, and the Pod gone", func(e timeline.Event) bool {
			return e.Verb == timeline.Delete && e.Actor == "kubelet" && strings.HasPrefix(e.Detail, "confirmed by node/")
		}},
	}
	next := 0
	for _, e := range solo {
		if next < len(steps) && steps[next].is(e) {
			next++
		}
	}
	if next < len(steps) {
		var lines []string
		for _, e := range solo {
			lines = append(lines, string(e.Verb)+" "+e.Actor+": "+e.Detail)
		}
		t.Errorf("solo's timeline does not show %s in its order:\n%s", steps[next].what, strings.Join(lines, "\n"))
	}
}
