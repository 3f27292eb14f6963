package timeline

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Stream is a lab's timeline, in the cluster's order (Order): every change
// in the cluster, watched from Watch on, and every line only the lab's
// process sees (Record: a reconcile pass, a webhook call, a crash). It is
// the one stream the terminal, logs/timeline.log, the web UI and the
// scenario runs show; a lab with or without the samples has one. Stop it
// with Stop.
type Stream struct {
	ordered *Order
	events  Broadcast // the lines only the lab's process sees (Events)
	also    Sink      // NewStream's sink

	synced   chan struct{} // closed once the watch synced or could not start
	watchErr error         // set before synced is closed, if the watch could not start

	mu    sync.Mutex
	stops []context.CancelFunc // the ordering's, then the watch's
}

// streamHold is how long a lab's timeline holds a line for the lines of
// lower revisions that other informers have not delivered yet, the wait
// for the audit log's time included (Options.auditWait). It is the lab's
// one value of it: its subscribers are told it (Timeline's ready; the
// control socket's control.TimelineHoldHeader), and wait no other.
const streamHold = 500 * time.Millisecond

// NewStream starts a lab's timeline; also, if not nil, receives each line
// Record is given, as it comes.
func NewStream(also Sink) *Stream {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Stream{ordered: NewOrder(streamHold, true), also: also, synced: make(chan struct{}), stops: []context.CancelFunc{cancel}}
	go s.ordered.Run(ctx)
	return s
}

// Record puts a line only the lab's process sees (no revision: placed by
// its Time) on the timeline, in its event stream (Events) and in
// NewStream's sink. The reconcile passes of a suite's own controller,
// which its process sends over the control socket (control.RoutePasses),
// come in here too.
func (s *Stream) Record(e Event) {
	s.events.Record(e)
	s.ordered.Record(e)
	if s.also != nil {
		s.also.Record(e)
	}
}

// Watch watches the lab's cluster into the timeline until Stop, its
// writes with their revisions and, from opts.AuditLog, the apiserver's
// times (opts.Revisions and opts.Synced are the stream's own).
func (s *Stream) Watch(ctx context.Context, cfg *rest.Config, opts Options) {
	var once sync.Once
	opts.Revisions = true
	opts.auditWait = s.Window() / auditShare
	opts.Synced = func() { once.Do(func() { close(s.synced) }) }
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.stops = append(s.stops, cancel)
	s.mu.Unlock()
	go func() {
		if err := WatchWith(ctx, cfg, s.ordered, opts); err != nil {
			s.watchErr = err
			opts.Synced()
		}
	}()
}

// Timeline streams the timeline into sink until ctx is done: every change
// in the cluster since Watch and every line Record was given, in the
// cluster's order, each write with its revision and the apiserver's time
// (control.RouteTimeline).
//
// ready, if not nil, is called once the watches have synced (or after
// syncWait, when a resource cannot be listed: a CRD whose conversion
// webhook does not answer): the changes made after it are in the stream.
// Lines released before it are not streamed. It is given the stream's hold
// (Window): a line reaches sink at most that long after the lab's watch
// saw its change, unless it is late.
func (s *Stream) Timeline(ctx context.Context, sink Sink, ready func(hold time.Duration)) error {
	ch, cancel := s.ordered.Subscribe()
	defer cancel()
	synced, timeout := s.synced, time.After(syncWait)
	started := ready == nil
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-synced:
			if s.watchErr != nil {
				return s.watchErr
			}
			synced, timeout = nil, nil
			if !started {
				ready(s.Window())
				started = true
			}
		case <-timeout:
			timeout = nil
			if !started {
				ready(s.Window())
				started = true
			}
		case e := <-ch:
			if started {
				sink.Record(e)
			}
		}
	}
}

// syncWait bounds how long Timeline waits for the watches to sync before
// it calls ready.
const syncWait = 20 * time.Second

// Events streams the lines only the lab's process sees (Record) into sink,
// as they come, until ctx is done; ready, if not nil, is called once it
// listens. A slow sink loses events rather than slowing the lab down. It
// is the stream a lab's server serves on its control socket
// (control.RouteEvents).
func (s *Stream) Events(ctx context.Context, sink Sink, ready func()) error {
	ch, cancel := s.events.Subscribe()
	defer cancel()
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-ch:
			sink.Record(e)
		}
	}
}

// Window is how long the timeline holds a line for the lines before it
// (the wait for the audit log included).
func (s *Stream) Window() time.Duration { return s.ordered.Window() }

// Late returns how many lines arrived after the window, after lines that
// come after them.
func (s *Stream) Late() int64 { return s.ordered.Late() }

// Stop stops the watch and the ordering. It is safe more than once.
func (s *Stream) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, stop := range s.stops {
		stop()
	}
}
