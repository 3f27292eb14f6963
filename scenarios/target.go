package scenarios

import (
	"context"
	"encoding/json"
	"time"

	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

// FieldManager is the field manager of a scenario's writes; the timeline
// shows it as "you (scenario)".
const FieldManager = "crdlab-scenario"

// LabLabel marks the namespaces a scenario creates.
const LabLabel = "crdlab.dev/scenario"

// Lab is what a scenario can do to a lab beyond the Kubernetes API: stop
// and start its components and simulated nodes, and follow the events only
// the lab's process sees (its operators' reconcile passes, its aggregated
// API server's requests). A running lab behind its control socket
// (RemoteLab) is one; a lab in this process is another (LocalTarget).
type Lab interface {
	Components(ctx context.Context) ([]control.Component, error)
	StopComponent(ctx context.Context, name string) error
	StartComponent(ctx context.Context, name string) error
	Nodes(ctx context.Context) ([]control.Node, error)
	StopNode(ctx context.Context, name string) error
	StartNode(ctx context.Context, name string) error
	// Events streams the lab's own events into sink until ctx is done,
	// calling ready once it listens.
	Events(ctx context.Context, sink timeline.Sink, ready func()) error
	// Timeline streams the lab's timeline (every change in the cluster
	// and the lab's own events, in the cluster's order, each write with
	// its revision) into sink until ctx is done, calling ready once the
	// changes made after it are sure to be in it, with the lab's hold: how
	// long the lab holds each line for the lines before it (the runner
	// waits for a step's lines that long, and no other guess of it).
	Timeline(ctx context.Context, sink timeline.Sink, ready func(hold time.Duration)) error
}

// RemoteLab is a lab another process runs ('crdlab up'), reached through
// its control socket (control.Dial).
type RemoteLab struct{ *control.Client }

var _ Lab = RemoteLab{}

// Events streams the lab's own events into sink until ctx is done: the
// control socket's lines, read as timeline events (a line that is not one
// is skipped).
func (r RemoteLab) Events(ctx context.Context, sink timeline.Sink, ready func()) error {
	return r.Client.Events(ctx, func(line json.RawMessage) {
		var e timeline.Event
		if json.Unmarshal(line, &e) == nil {
			sink.Record(e)
		}
	}, ready)
}

// Timeline streams the lab's timeline into sink until ctx is done: the
// control socket's lines (control.RouteTimeline), read as timeline events
// (a line that is not one is skipped).
func (r RemoteLab) Timeline(ctx context.Context, sink timeline.Sink, ready func(hold time.Duration)) error {
	return r.Client.Timeline(ctx, func(line json.RawMessage) {
		var e timeline.Event
		if json.Unmarshal(line, &e) == nil {
			sink.Record(e)
		}
	}, ready)
}

// Target is where a scenario runs.
type Target struct {
	// Config reaches the cluster's apiserver.
	Config *rest.Config
	// Lab, if not nil, performs lab steps; without it (a cluster reached
	// through a kubeconfig) they are skipped, and the steps after them.
	Lab Lab
	// AuditLog, if set, is the apiserver's audit log (control.Dir.AuditLog):
	// the timeline reads it to name who deleted what (the garbage
	// collector, the namespace controller...).
	AuditLog string
}

// Entry is one line of a scenario's report: what Listener receives.
type Entry struct {
	Type        string          `json:"type"` // scenario, narrate, step, event, note, result; in a lesson also task, hint, check
	Time        time.Time       `json:"time"`
	Scenario    string          `json:"scenario"`
	Title       string          `json:"title,omitempty"`
	Namespace   string          `json:"namespace,omitempty"`
	Step        int             `json:"step,omitempty"` // 1-based
	Steps       int             `json:"steps,omitempty"`
	Action      string          `json:"action,omitempty"`
	Description string          `json:"description,omitempty"`
	Status      string          `json:"status,omitempty"` // running, passed, failed, skipped
	Text        string          `json:"text,omitempty"`
	Event       *timeline.Event `json:"event,omitempty"` // its Step is the step it belongs to
	// Order is the order of the run's timeline (scenario entry):
	// OrderRevision or OrderArrival.
	Order string `json:"order,omitempty"`
	// Hints is how many hints a task has (task entry).
	Hints   int     `json:"hints,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// Statuses of steps and scenarios.
const (
	Running = "running"
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
)

// Listener receives a scenario's report as it happens. It is called from
// several goroutines, one call at a time.
type Listener func(Entry)

// Options configures a run.
type Options struct {
	// Listener receives the report; nil: nothing is reported.
	Listener Listener
	// Timeline shows every change in the scenario's namespaces as it
	// happens, with its actor (default true through Run's callers: the CLI
	// and RunAll turn it on).
	Timeline bool
	// Lang is the language of the report: the scenario's text (its zh
	// texts, or English where it has none) and the runner's own words.
	// "": English.
	Lang lang.Lang
	// Lesson, set for a lesson, runs it in the learner's namespace and
	// lets its tasks talk with the learner; nil for a scenario.
	Lesson *LessonOptions
}

// Result is how a scenario went.
type Result struct {
	Scenario  string        `json:"scenario"`
	Title     string        `json:"title"`
	Namespace string        `json:"namespace"`
	Status    string        `json:"status"` // passed, failed, skipped
	Message   string        `json:"message,omitempty"`
	Duration  time.Duration `json:"duration"`
	Steps     []StepResult  `json:"steps"`
	// LateLines counts the timeline lines shown after lines that follow
	// them (marked late): they came after the lab's window.
	LateLines int `json:"lateLines,omitempty"`
}

// Passed reports whether the scenario passed.
func (r *Result) Passed() bool { return r.Status == Passed }

// StepResult is how a step went.
type StepResult struct {
	Index       int           `json:"index"` // 1-based
	Action      string        `json:"action"`
	Description string        `json:"description"`
	Status      string        `json:"status"`
	Message     string        `json:"message,omitempty"`
	Duration    time.Duration `json:"duration"`
	// Timeline is the step's lines: those whose revision (time, for a
	// line without one) is in the step's range.
	Timeline []timeline.Event `json:"timeline,omitempty"`
}
