package timeline

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// pause waits relistBackoff's delay for the failures in a row, if any,
// or until ctx is done.
func (rw *resourceWatch) pause(ctx context.Context) error {
	b := relistBackoff
	var d time.Duration
	for range min(rw.failures.Load(), int32(b.Steps)) {
		d = b.Step()
	}
	if d == 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// count counts the answer to a list or a watch request (see failures).
func (rw *resourceWatch) count(err error) {
	if err == nil || restarts(err) || apierrors.IsNotFound(err) {
		rw.failures.Store(0)
		return
	}
	rw.failures.Add(1)
}

// restarts reports whether err is the apiserver asking for a relist: the
// resourceVersion is older than its cache (a new one, when a CRD's storage
// was replaced).
func restarts(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

// counted passes w's events on, counting them (see failures): an event
// that is no error (or a 410) resets the failures; a watch that ends
// without one is a failure (a conversion that fails each time: the
// reflector would watch again at once, for ever).
func (rw *resourceWatch) counted(w watch.Interface) watch.Interface {
	c := &countedWatch{Interface: w, out: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(c.out)
		worked := false
		defer func() {
			if !worked {
				rw.failures.Add(1)
			}
		}()
		for e := range w.ResultChan() {
			if e.Type != watch.Error || restarts(apierrors.FromObject(e.Object)) {
				worked = true
				rw.failures.Store(0)
			}
			select {
			case c.out <- e:
			case <-c.done:
				return
			}
		}
	}()
	return c
}

// countedWatch is a watch whose events pass through counted.
type countedWatch struct {
	watch.Interface
	out  chan watch.Event
	done chan struct{}
	once sync.Once
}

func (c *countedWatch) ResultChan() <-chan watch.Event { return c.out }

func (c *countedWatch) Stop() {
	c.once.Do(func() { close(c.done) })
	c.Interface.Stop()
}
