package labtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The lab writes its timeline, every change in the cluster with who made
// it (you, the replicaset controller, the scheduler, the garbage
// collector, the simulated kubelet, an operator...), to logs/timeline.log
// in its state dir, the lines 'crdlab up' shows, in the cluster's order:
// each line of a write ends with the write's etcd revision ("  #1234"),
// which tells the lines of the writes after a Mark from those before.

// Mark is a place in the timeline: TimelineSince(mark) returns what came
// after it.
type Mark int64

// Mark returns the end of the timeline now; take one when a spec starts.
// It also reads the cluster's revision now: the lab holds each line half
// a second for the lines before it, so lines of earlier writes can still
// come after the mark, and TimelineSince leaves them out.
func (e *Environment) Mark() Mark {
	fi, err := os.Stat(e.timelinePath())
	if err != nil {
		return 0
	}
	m := Mark(fi.Size())
	if rev := e.revisionNow(); rev > 0 {
		e.marksOf().set(m, rev)
	}
	return m
}

// marks are the cluster's revisions at an environment's marks.
type marks struct {
	mu  sync.Mutex
	rev map[Mark]int64
}

// marksInit guards the creation of an environment's marks.
var marksInit sync.Mutex

func (e *Environment) marksOf() *marks {
	marksInit.Lock()
	defer marksInit.Unlock()
	if e.marks == nil {
		e.marks = &marks{rev: map[Mark]int64{}}
	}
	return e.marks
}

func (m *marks) set(mark Mark, rev int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rev[mark] = rev
}

func (m *marks) get(mark Mark) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rev[mark]
}

// revisionNow returns the cluster's revision now (the resourceVersion of
// a quorum list), 0 if it cannot tell.
func (e *Environment) revisionNow() int64 {
	if e.Config == nil {
		return 0
	}
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	return rev
}

// revisionSuffix ends a line of logs/timeline.log about a write.
var revisionSuffix = regexp.MustCompile(`  #([0-9]+)$`)

// since keeps the lines of a write after revision rev (all of them if rev
// is 0) and the lines of no write, without their revisions.
func since(text string, rev int64) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if m := revisionSuffix.FindStringSubmatch(body); m != nil {
			if r, _ := strconv.ParseInt(m[1], 10, 64); r <= rev {
				continue // a write from before the mark, shown after it
			}
			line = strings.TrimSuffix(body, m[0]) + line[len(body):]
		}
		b.WriteString(line)
	}
	return b.String()
}

// TimelineSince returns the timeline's lines after mark: who did what since
// the spec started, the writes after the mark's revision. The lab writes
// its timeline a moment after the changes happen (it holds each line half
// a second for the lines before it): it waits until no line came for
// three quarters of a second (at most 5s) before it reads.
func (e *Environment) TimelineSince(mark Mark) string {
	if e.stateDir == "" {
		return "(no timeline: not a crdlab lab)\n"
	}
	e.waitQuiet(750*time.Millisecond, 5*time.Second)
	rev := e.marksOf().get(mark)
	f, err := os.Open(e.timelinePath())
	if err != nil {
		return fmt.Sprintf("(no timeline: %v)\n", err)
	}
	defer f.Close()
	if _, err := f.Seek(int64(mark), io.SeekStart); err != nil {
		return fmt.Sprintf("(no timeline: %v)\n", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(no timeline: %v)\n", err)
	}
	return since(string(data), rev)
}

// waitQuiet waits until the timeline did not grow for quiet, or for at most
// limit.
func (e *Environment) waitQuiet(quiet, limit time.Duration) {
	deadline := time.Now().Add(limit)
	last := e.Mark()
	for time.Now().Before(deadline) {
		time.Sleep(quiet)
		now := e.Mark()
		if now == last {
			return
		}
		last = now
	}
}

func (e *Environment) timelinePath() string {
	return control.Dir(e.stateDir).TimelineLog()
}

// TB is what PrintTimelineOnFailure needs of a test: *testing.T has it.
type TB interface {
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
}

// PrintTimelineOnFailure logs, when t fails, the timeline from now to the
// end of the test. With Ginkgo, take a Mark in a BeforeEach and print
// TimelineSince(mark) in an AfterEach when CurrentSpecReport().Failed().
func (e *Environment) PrintTimelineOnFailure(t TB) {
	mark := e.Mark()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("timeline of the lab during the test (who did what):\n%s", indent(e.TimelineSince(mark)))
		}
	})
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
