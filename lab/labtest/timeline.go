package labtest

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// The lab writes its timeline, every change in the cluster with who made
// it (you, the replicaset controller, the scheduler, the garbage
// collector, the simulated kubelet, an operator...), to logs/timeline.log
// in its state dir, the lines 'crdlab up' shows.

// Mark is a place in the timeline: TimelineSince(mark) returns what came
// after it.
type Mark int64

// Mark returns the end of the timeline now; take one when a spec starts.
func (e *Environment) Mark() Mark {
	fi, err := os.Stat(e.timelinePath())
	if err != nil {
		return 0
	}
	return Mark(fi.Size())
}

// TimelineSince returns the timeline's lines after mark: who did what since
// the spec started. The lab writes its timeline a moment after the changes
// happen: it waits until no line came for a quarter of a second (at most
// 3s) before it reads.
func (e *Environment) TimelineSince(mark Mark) string {
	if e.stateDir == "" {
		return "(no timeline: not a crdlab lab)\n"
	}
	e.waitQuiet(250*time.Millisecond, 3*time.Second)
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
	return string(data)
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
