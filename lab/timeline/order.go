package timeline

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Order puts the lines of a lab's timeline in the cluster's order, once,
// for everyone who shows them (the terminal, logs/timeline.log, the web
// UI, the scenario runs over the control socket): a line that carries a
// revision comes after every line of a lower revision, whichever informer
// delivered it first; a line without one (a reconcile pass, a webhook
// call, a crash) comes among them by its time.
//
// Lines arrive late: informers of different resources deliver at different
// moments, more so on a busy machine. Order holds each line for a window
// after it arrives, and releases the held lines in order; a line that
// arrives after a line that comes after it was released is released at
// once, marked Late, and counted (Late).
//
// Without ByRevision (a cluster given by --kubeconfig, whose
// resourceVersions are not promised to be ordered) lines are released as
// they arrive.
type Order struct {
	window     time.Duration
	byRevision bool

	mu       sync.Mutex
	revs     []held // lines with a revision, by revision
	times    []held // lines without, by time
	lastRev  int64
	lastTime time.Time
	late     int64
	wake     chan struct{}
	subs     Broadcast
}

type held struct {
	e   Event
	due time.Time
}

// NewOrder returns an ordered stream that holds lines for window (by
// revision), or releases them as they arrive (!byRevision). Run releases
// them.
func NewOrder(window time.Duration, byRevision bool) *Order {
	return &Order{window: window, byRevision: byRevision, wake: make(chan struct{}, 1)}
}

// ByRevision says whether the stream orders lines by revision.
func (o *Order) ByRevision() bool { return o.byRevision }

// Window is how long a line is held for the lines before it.
func (o *Order) Window() time.Duration { return o.window }

// Record takes a line: the one entry point of the stream, for the
// cluster's lines (WatchWith) and for the lines only a process sees.
func (o *Order) Record(e Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case !o.byRevision:
		o.publish(e)
		return
	case e.Revision > 0 && e.Revision < o.lastRev, e.Revision == 0 && e.Time.Before(o.lastTime):
		e.Late = true
		o.late++
		o.publish(e)
		return
	}
	arrived := e.arrived
	if arrived.IsZero() {
		arrived = time.Now()
	}
	h := held{e: e, due: arrived.Add(o.window)}
	if e.Revision > 0 {
		i := sort.Search(len(o.revs), func(i int) bool { return o.revs[i].e.Revision > e.Revision })
		o.revs = insert(o.revs, i, h)
	} else {
		i := sort.Search(len(o.times), func(i int) bool { return o.times[i].e.Time.After(e.Time) })
		o.times = insert(o.times, i, h)
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func insert(list []held, i int, h held) []held {
	list = append(list, held{})
	copy(list[i+1:], list[i:])
	list[i] = h
	return list
}

// Late returns how many lines arrived after the window: after a line that
// comes after them had been released.
func (o *Order) Late() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.late
}

// Subscribe returns a channel of the lines released from now on, in order,
// and a function that ends the subscription. A subscriber that does not
// keep up loses lines rather than slowing the lab down.
func (o *Order) Subscribe() (<-chan Event, func()) { return o.subs.Subscribe() }

// Run releases the held lines as their windows end, until ctx is done.
func (o *Order) Run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		o.mu.Lock()
		next := o.release(time.Now())
		o.mu.Unlock()
		wait := time.Hour
		if !next.IsZero() {
			wait = time.Until(next)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		case <-timer.C:
		}
	}
}

// release releases, in order, the lines whose window has ended, and
// returns when the next one's ends (zero: none is held).
func (o *Order) release(now time.Time) time.Time {
	for {
		var next *[]held
		switch {
		case len(o.revs) > 0 && len(o.times) > 0:
			next = &o.revs
			if o.times[0].e.Time.Before(o.revs[0].e.Time) {
				next = &o.times
			}
		case len(o.revs) > 0:
			next = &o.revs
		case len(o.times) > 0:
			next = &o.times
		default:
			return time.Time{}
		}
		h := (*next)[0]
		if h.due.After(now) {
			return h.due
		}
		*next = (*next)[1:]
		if h.e.Revision > o.lastRev {
			o.lastRev = h.e.Revision
		}
		if h.e.Time.After(o.lastTime) {
			o.lastTime = h.e.Time
		}
		o.publish(h.e)
	}
}

func (o *Order) publish(e Event) { o.subs.Record(e) }
