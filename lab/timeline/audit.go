package timeline

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crdlab/crdlab/lab/internal/actor"
)

// The watch of an object says it was deleted, not by whom; the apiserver's
// audit log does. A lab runs its apiserver with an audit policy that logs
// deletions only, and the timeline reads the log to name
// who deleted what: the garbage collector, the namespace controller, you.

// auditEvent is the part of an audit.k8s.io/v1 Event the timeline reads.
type auditEvent struct {
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	UserAgent string `json:"userAgent"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource  string `json:"resource"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"objectRef"`
}

// auditLog indexes who deleted what, from an audit log it follows. An
// object can be deleted by several clients in turn (the garbage collector
// asks, the kubelet confirms), so each key holds its deletions in order, and
// each deletion the timeline reports takes the oldest one left.
type auditLog struct {
	// ready is closed once the follower reads from the end of the log as
	// it was when it started: deletions after that are seen.
	ready chan struct{}
	// seen counts the bytes the follower has read, a partial line included.
	seen atomic.Int64

	mu      sync.Mutex
	deleted map[string][]deletion // resource/namespace/name (name "" for a collection)
}

type deletion struct {
	actor string
	at    time.Time
}

// auditMemory is how long a deletion waits to be claimed by a watch event.
const auditMemory = 30 * time.Second

func auditKey(resource, ns, name string) string { return resource + "/" + ns + "/" + name }

// followAudit reads the audit log at path from its current end as it grows,
// until ctx is done; a log that does not exist yet is read from its start
// once the apiserver creates it. a.ready is closed once what is written
// after is sure to be read.
func followAudit(ctx context.Context, path string) *auditLog {
	a := &auditLog{deleted: map[string][]deletion{}, ready: make(chan struct{})}
	go func() {
		f, err := os.Open(path)
		if err == nil {
			_, err = f.Seek(0, io.SeekEnd)
		}
		close(a.ready)
		for err != nil { // the apiserver has not created it yet
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			f, err = os.Open(path)
		}
		defer f.Close()
		r := bufio.NewReaderSize(f, 64<<10)
		var partial []byte
		for {
			line, err := r.ReadBytes('\n')
			partial = append(partial, line...)
			a.seen.Add(int64(len(line)))
			if err == nil {
				a.add(partial)
				partial = partial[:0]
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return a
}

func (a *auditLog) add(line []byte) {
	var ev auditEvent
	if json.Unmarshal(line, &ev) != nil || ev.ObjectRef == nil || ev.Stage != "ResponseComplete" {
		return
	}
	if ev.Verb != "delete" && ev.Verb != "deletecollection" {
		return
	}
	ref := ev.ObjectRef
	key := auditKey(ref.Resource, ref.Namespace, ref.Name)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.deleted) > 10000 { // deletions nobody looked up (a kubelet's confirmations): forget the old ones
		for k := range a.deleted {
			a.claim(k, false)
		}
	}
	a.deleted[key] = append(a.deleted[key], deletion{actor: auditActor(ev.User.Username, ev.UserAgent), at: time.Now()})
}

// who returns who deleted the object (the oldest deletion of it not yet
// claimed, or else a deletion of its whole collection), waiting up to wait
// for the audit log to say (the watch can be faster than the log); "" if it
// does not.
func (a *auditLog) who(resource, ns, name string, wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		actor, ok := a.claim(auditKey(resource, ns, name), true)
		if !ok {
			actor, ok = a.claim(auditKey(resource, ns, ""), false)
		}
		a.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return actor
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// claim returns the oldest recent deletion of key, removing it if take (a
// collection's deletion stands for each of its objects).
func (a *auditLog) claim(key string, take bool) (string, bool) {
	list := a.deleted[key]
	for len(list) > 0 && time.Since(list[0].at) > auditMemory {
		list = list[1:] // nobody claimed it
	}
	if len(list) == 0 {
		delete(a.deleted, key)
		return "", false
	}
	actor := list[0].actor
	if take {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(a.deleted, key)
	} else {
		a.deleted[key] = list
	}
	return actor, true
}

// auditActor names the client of a request in a learner's words.
func auditActor(username, userAgent string) string { return actor.OfRequest(username, userAgent) }
