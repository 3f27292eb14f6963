package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/full"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
	"github.com/crdlab/crdlab/lab/ui"
	"github.com/crdlab/crdlab/lab/writefile"
)

// Options configure a lab that Run runs. The zero value works: a full lab
// with every component, the samples and no web UI, saying nothing.
type Options struct {
	// Lab is the lab to run (package full). Its Lab.WorkDir is ignored:
	// the state dir is the lab's work dir. Its Lab.Progress, if nil,
	// prints each phase to Out, worded in Lang (progressText).
	Lab full.Options

	// UI, if not nil, serves the lab's web UI.
	UI *UIOptions

	// Out receives what the lab says: the phases of its start, where it
	// is once ready (PrintWhere), and with ShowTimeline the timeline.
	// nil: nothing.
	Out io.Writer

	// ErrOut receives the error of the lab's stop, which comes when Run
	// has returned what it had to. nil: nothing.
	ErrOut io.Writer

	// ShowTimeline shows on Out, as it happens, every change in the
	// cluster and the events only this process sees (the foreground
	// 'crdlab up'). Either way they go to the state dir's timeline log and
	// the web UI.
	ShowTimeline bool

	// Lang is the language the lab speaks: what it says on Out, its web
	// UI's default, and Status.Lang. "": English.
	Lang lang.Lang

	// Ready, if set, is called once the lab is ready, before Run says so
	// on Out.
	Ready func()
}

// UIOptions configure the web UI of a lab.
type UIOptions struct {
	// Port is its port on 127.0.0.1; 0: a free port.
	Port int
	// Course, if set, returns the course map the UI shows, with the
	// learner's progress now (cmd/crdlab: the lessons and the state dir's
	// learn/NAME.json). The UI's hint button asks the lesson that runs on
	// the state dir (AskHint) either way.
	Course func() ([]ui.Lesson, error)
}

// ErrUIPort: the web UI's port is taken.
var ErrUIPort = ui.ErrPortInUse

// Run runs a lab on the state dir d until ctx is done, then stops it. It
// locks d (an error wrapping control.ErrRunning when a lab holds it; one
// wrapping lab.ErrWorkDir when d cannot be used), starts the lab in d,
// serves its control socket and web UI, writes its status, says it is
// ready (to a 'crdlab up -d' that started it with control.Start, and on
// Out), then watches the cluster into the timeline until ctx is done. On
// its way out it stops the lab, clears the status and releases d.
func Run(ctx context.Context, d control.Dir, opts Options) error {
	started := time.Now()
	out, errOut := orDiscard(opts.Out), orDiscard(opts.ErrOut)
	ready := readyNotifier() // before the lab starts its processes
	l := opts.Lang
	printer := timeline.NewPrinter(out)
	printer.ActorName, printer.Lang = l.Actor, l
	if opts.Lab.Lab.Progress == nil {
		var mu sync.Mutex // the phases come from several goroutines
		opts.Lab.Lab.Progress = func(p lab.Progress) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(out, "%6.2fs  %s\n", time.Since(started).Seconds(), progressText(l, p))
		}
	}
	s, err := start(ctx, d, opts, started)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(out, l.Msg("stopping the lab"))
		if err := s.stop(); err != nil {
			fmt.Fprintln(errOut, l.Msgf("Error: %s", err))
		}
	}()

	// The timeline also goes to logs/timeline.log, for test suites to show
	// who did what when a spec fails (lab/labtest), in both modes.
	logFile, err := os.OpenFile(d.TimelineLog(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("unable to write the timeline: %w", err)
	}
	defer logFile.Close()

	ready()
	if opts.Ready != nil {
		opts.Ready()
	}
	fmt.Fprintf(out, "%6.2fs  %s\n", time.Since(started).Seconds(), l.Msg("lab ready"))
	uiURL := ""
	if s.ui != nil {
		uiURL = s.ui.URL()
	}
	PrintWhere(out, l, s.written, uiURL)

	// One stream, ordered once (the lab's timeline, a timeline.Stream):
	// the terminal and the log here, the web UI and the scenario runs
	// (control.RouteTimeline) subscribe to it.
	logged := timeline.NewPrinter(logFile)
	logged.Revisions = true
	sink := timeline.Sink(logged)
	if opts.ShowTimeline {
		fmt.Fprintln(out)
		fmt.Fprint(out, l.Msgf("Watching the cluster (Ctrl-C stops the lab), in the cluster's order (etcd revisions, the apiserver's times; lines held %s):\n",
			s.timeline.Window()))
		// A person reads the terminal: bursts (a scale-up of thousands
		// of Pods) are counted there, the log keeps every line.
		grouped := timeline.NewGroup(printer)
		grouped.Msgf = l.Msgf
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); grouped.Run(stop) }()
		defer func() { close(stop); <-done }()
		sink = timeline.Tee(grouped, logged)
	}
	return s.timeline.Timeline(ctx, sink, nil)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// running is a lab that Run started on its state dir.
type running struct {
	d         control.Dir
	unlock    func()
	lab       *full.Lab
	timeline  *timeline.Stream // the lab's, in the cluster's order
	ui        *ui.Server
	stopServe context.CancelFunc
	written   *control.Status // as first written, for PrintWhere

	statusMu sync.Mutex
	status   *control.Status // as written to the state dir, while the lab runs
}

// start locks d and starts the lab in it; once it returns without error,
// the lab is ready and other processes find it. On error nothing it
// started is left running and d is released.
func start(ctx context.Context, d control.Dir, opts Options, started time.Time) (_ *running, retErr error) {
	if err := d.CheckPathLength(); err != nil {
		return nil, lang.Errorf("%w: %w", lab.ErrWorkDir, err)
	}
	unlock, err := Lock(d)
	if errors.Is(err, control.ErrRunning) {
		return nil, err
	}
	if err != nil {
		return nil, lang.Errorf("%w: %w", lab.ErrWorkDir, err)
	}
	s := &running{d: d, unlock: unlock}
	defer func() {
		if retErr != nil {
			_ = s.stop()
		}
	}()
	if opts.UI != nil {
		// Before the lab boots, so that a port in use is said at once.
		if s.ui, err = ui.Listen(opts.UI.Port); err != nil {
			return nil, err
		}
		s.ui.Lang = opts.Lang
		s.ui.Course = opts.UI.Course
		s.ui.Hint = func(ctx context.Context, l lang.Lang) (string, error) { return AskHint(ctx, d, l) }
	}
	o := opts.Lab
	o.Lab.WorkDir = string(d)
	s.timeline = timeline.NewStream(o.Trace)
	o.Trace = s.timeline
	onHealth := o.Lab.OnHealth
	o.Lab.OnHealth = func(h control.Health) {
		s.updateHealth()
		if onHealth != nil {
			onHealth(h)
		}
	}
	if s.lab, err = full.Start(ctx, o); err != nil {
		return nil, err
	}
	watch := timeline.Options{AuditLog: s.lab.Dir().AuditLog()}
	if s.ui != nil {
		watch.Observe = s.ui.Observe
	}
	s.timeline.Watch(ctx, s.lab.RESTConfig(), watch)
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopServe = cancel
	var reports func(json.RawMessage)
	if s.ui != nil {
		if err := writefile.Atomic(d.UIToken(), []byte(s.ui.Token()+"\n"), 0o600); err != nil {
			return nil, err
		}
		reports = s.ui.Report
		s.ui.Serve(serveCtx)
		go func() { _ = s.timeline.Timeline(serveCtx, s.ui, nil) }()
	}
	if err := serveControl(serveCtx, d, served{s.lab, s.timeline}, reports); err != nil {
		return nil, err
	}
	st := control.Status{
		PID:        os.Getpid(),
		Endpoint:   s.lab.Endpoint(),
		Kubeconfig: d.Kubeconfig(),
		DataDir:    o.Lab.DataDir,
		StartedAt:  started,
		ReadyAt:    time.Now(),
		Webhooks:   s.lab.Webhooks(),
		Lang:       string(opts.Lang),
		Kubernetes: serverVersion(s.lab.RESTConfig()),
	}
	if s.ui != nil {
		st.UI = s.ui.Address()
	}
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	st.Health = s.lab.Health()
	if err := writeStatus(d, st, s.lab.Kubeconfig()); err != nil {
		return nil, err
	}
	written := st
	s.status, s.written = &st, &written
	return s, nil
}

// updateHealth rewrites the state dir's status with the lab's health now,
// so that 'crdlab status' says degraded while a process is down. Updates
// are serialized, and each reads the health when it writes, so the last
// one wins.
func (s *running) updateHealth() {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	if s.status == nil {
		return
	}
	s.status.Health = s.lab.Health()
	_ = updateStatus(s.d, *s.status)
}

// stop stops serving, then the lab, then clears the status and releases
// the state dir. It is safe on a partly started lab.
func (s *running) stop() error {
	s.statusMu.Lock()
	s.status = nil // a stopping lab's health is not news
	s.statusMu.Unlock()
	if s.stopServe != nil {
		s.stopServe()
	}
	if s.ui != nil {
		s.ui.Close()
	}
	if s.timeline != nil {
		s.timeline.Stop()
	}
	var err error
	if s.lab != nil {
		err = s.lab.Stop()
	}
	clearStatus(s.d)
	s.unlock()
	return err
}
