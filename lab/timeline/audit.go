package timeline

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crdlab/crdlab/lab/internal/actor"
)

// The watch of an object says it was deleted, not by whom; the apiserver's
// audit log does. A lab runs its apiserver with an audit policy that logs
// every write with its response, and the timeline reads the log to name
// who deleted what (the garbage collector, the namespace controller, you)
// and to date each write the apiserver's way: the stage timestamp of the
// request whose response carries the write's revision.

// auditEvent is the part of an audit.k8s.io/v1 Event the timeline reads.
type auditEvent struct {
	Stage          string    `json:"stage"`
	Verb           string    `json:"verb"`
	RequestURI     string    `json:"requestURI"`
	UserAgent      string    `json:"userAgent"`
	StageTimestamp time.Time `json:"stageTimestamp"`
	ResponseObject *struct {
		Metadata struct {
			ResourceVersion   string   `json:"resourceVersion"`
			UID               string   `json:"uid"`
			DeletionTimestamp string   `json:"deletionTimestamp"`
			Finalizers        []string `json:"finalizers"`
		} `json:"metadata"`
	} `json:"responseObject"`
	// ResponseStatus is the request's answer: a refused write (a 404 for
	// an object already gone, a conflict, a webhook's denial) wrote nothing.
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	User struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
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

	mu       sync.Mutex
	deleted  map[string][]deletion // resource/namespace/name (name "" for a collection)
	times    map[int64]time.Time   // revision → stage timestamp of the write
	writers  map[int64]string      // revision → who made the write (auditActor)
	revs     []int64               // the keys of times, oldest first
	maxRev   int64                 // the highest revision of a response read
	latest   time.Time             // the latest stage timestamp read
	bound    map[string]time.Time  // namespace/name → when the Pod was bound
	boundQ   []string              // the keys of bound, oldest first
	written  map[string]write      // resource/namespace/name → its last write
	writtenQ []string              // the keys of written, oldest first
	ended    map[string]string     // uid → who wrote the update that ended its deletion
	endedQ   []string              // the keys of ended, oldest first
}

// write is a request that wrote an object.
type write struct {
	stamp time.Time // the apiserver's stage timestamp
	read  time.Time // when the follower read it
	actor string    // who wrote it (auditActor)
	uid   string    // the uid of the object it answered
}

type deletion struct {
	actor string
	at    time.Time // when the follower read it
	stamp time.Time // the apiserver's stage timestamp
}

// maxTimes is how many writes' times the follower remembers.
const maxTimes = 50000

// auditMemory is how long a deletion waits to be claimed by a watch event.
const auditMemory = 30 * time.Second

func auditKey(resource, ns, name string) string { return resource + "/" + ns + "/" + name }

// followAudit reads the audit log at path from its current end as it grows,
// until ctx is done; a log that does not exist yet is read from its start
// once the apiserver creates it. a.ready is closed once what is written
// after is sure to be read.
func followAudit(ctx context.Context, path string) *auditLog {
	a := &auditLog{deleted: map[string][]deletion{}, times: map[int64]time.Time{}, writers: map[int64]string{}, ended: map[string]string{}, bound: map[string]time.Time{}, written: map[string]write{}, ready: make(chan struct{})}
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
		defer func() { f.Close() }()
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
			if next := rotated(f, path); next != nil {
				// The apiserver renamed the log and writes a new one: what
				// it wrote to the old one before is read (the loop came
				// to its end), the new one is read from its start.
				f.Close()
				f = next
				r.Reset(f)
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

// rotated returns the file now at path, opened, when it is not f any more
// (the apiserver rotated its log, at --audit-log-maxsize) or when f was
// truncated, once f has been read to its end; nil when f is still the log.
func rotated(f *os.File, path string) *os.File {
	now, err := os.Stat(path)
	if err != nil {
		return nil // between the rename and the new file: look again later
	}
	cur, err := f.Stat()
	if err != nil {
		return nil
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	if os.SameFile(now, cur) && cur.Size() >= pos {
		return nil
	}
	if !os.SameFile(now, cur) && cur.Size() > pos {
		return nil // lines written before the rotation are still to read
	}
	next, err := os.Open(path)
	if err != nil {
		return nil
	}
	return next
}

func (a *auditLog) add(line []byte) {
	var ev auditEvent
	if json.Unmarshal(line, &ev) != nil || ev.ObjectRef == nil || ev.Stage != "ResponseComplete" || ev.dryRun() || ev.refused() {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if ev.StageTimestamp.After(a.latest) {
		a.latest = ev.StageTimestamp
	}
	// A deletecollection answers a list, whose resourceVersion is the
	// store's revision when it listed, which some other write made.
	if ev.ResponseObject != nil && ev.Verb != "deletecollection" {
		if rev, err := strconv.ParseInt(ev.ResponseObject.Metadata.ResourceVersion, 10, 64); err == nil && rev > 0 {
			a.remember(rev, ev.StageTimestamp, auditActor(ev.User.Username, ev.UserAgent))
		}
	}
	ref := ev.ObjectRef
	if ref.Name != "" && ref.Subresource == "" && (ev.Verb == "update" || ev.Verb == "patch") {
		a.rememberWrite(auditKey(ref.Resource, ref.Namespace, ref.Name), ev.StageTimestamp, auditActor(ev.User.Username, ev.UserAgent), ev.uid())
		if ev.endedDeletion() {
			a.rememberEnd(ev.uid(), auditActor(ev.User.Username, ev.UserAgent))
		}
	}
	if ev.Verb == "create" && ref.Resource == "pods" && ref.Subresource == "binding" {
		// A binding answers a Status, not the Pod: no revision. The Pod's
		// BIND line is dated by its binding's request.
		a.rememberBinding(ref.Namespace+"/"+ref.Name, ev.StageTimestamp)
		return
	}
	if ev.Verb != "delete" && ev.Verb != "deletecollection" {
		return
	}
	key := auditKey(ref.Resource, ref.Namespace, ref.Name)
	if len(a.deleted) > 10000 { // deletions nobody looked up (a kubelet's confirmations): forget the old ones
		for k := range a.deleted {
			a.claim(k, false)
		}
	}
	a.deleted[key] = append(a.deleted[key], deletion{actor: auditActor(ev.User.Username, ev.UserAgent), at: time.Now(), stamp: ev.StageTimestamp})
}

// remember records when the write of revision rev was answered. A write
// that changed nothing answers the revision of the one before: the first
// answer of a revision is its write's.
func (a *auditLog) remember(rev int64, at time.Time, writer string) {
	if _, ok := a.times[rev]; ok {
		return
	}
	a.times[rev] = at
	a.writers[rev] = writer
	a.maxRev = max(a.maxRev, rev)
	a.revs = append(a.revs, rev)
	if len(a.revs) > maxTimes {
		delete(a.times, a.revs[0])
		delete(a.writers, a.revs[0])
		a.revs = a.revs[1:]
	}
}

// writerOf returns who made the write of revision rev, "" when the log
// has not said.
func (a *auditLog) writerOf(rev int64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.writers[rev]
}

func (a *auditLog) rememberBinding(key string, at time.Time) {
	a.bound[key] = at
	a.boundQ = append(a.boundQ, key)
	if len(a.boundQ) > maxTimes {
		delete(a.bound, a.boundQ[0])
		a.boundQ = a.boundQ[1:]
	}
}

func (a *auditLog) rememberWrite(key string, at time.Time, actor, uid string) {
	if _, ok := a.written[key]; !ok {
		a.writtenQ = append(a.writtenQ, key)
	}
	a.written[key] = write{stamp: at, read: time.Now(), actor: actor, uid: uid}
	if len(a.writtenQ) > maxTimes {
		delete(a.written, a.writtenQ[0])
		a.writtenQ = a.writtenQ[1:]
	}
}

// deletedAt returns when the request that deleted an object without
// answering the deletion's revision was answered: the last update (or
// patch) of the object, read at most sameMoment before the watch said it
// was deleted (seen) — the update that removed its last finalizer, which
// answers the object as it was. It waits up to wait for the log to say.
func (a *auditLog) deletedAt(resource, ns, name string, seen time.Time, wait time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		w, ok := a.written[auditKey(resource, ns, name)]
		a.mu.Unlock()
		if ok && !w.read.Before(seen.Add(-sameMoment)) {
			return w.stamp, true
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sameMoment is how long before a watch event the request that caused it
// can have been read from the audit log.
const sameMoment = 100 * time.Millisecond

// passedGrace is how much later than a watch event's arrival the log's
// requests must have been answered before a revision the log has not
// answered is given up: requests complete, and are logged, a little out
// of revision order, and a response can complete after its watch event
// arrived. Counted in the log's own stage timestamps, not in time spent
// waiting: a follower that reads the log late under load has not seen
// the log move on.
const passedGrace = 50 * time.Millisecond

// readPast says the follower has read requests answered after t.
func (a *auditLog) readPast(t time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.latest.After(t)
}

// movedOn says the log has answered revisions after rev, in requests
// answered more than passedGrace after since.
func (a *auditLog) movedOn(rev int64, since time.Time) bool {
	return a.maxRev > rev && a.latest.After(since.Add(passedGrace))
}

// when returns the stage timestamp of the write of revision rev, waiting
// up to wait for the audit log to say (the watch can be faster than the
// log), or less once the log has moved on from rev and from the moment
// since (movedOn): a write whose response does not carry its revision (a
// binding, the deletion that a finalizer's removal completes) is not in it.
func (a *auditLog) when(rev int64, since time.Time, wait time.Duration) (time.Time, bool) {
	start := time.Now()
	for {
		a.mu.Lock()
		t, ok := a.times[rev]
		passed := a.movedOn(rev, since)
		a.mu.Unlock()
		if ok || passed || time.Since(start) > wait {
			return t, ok
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// timeOf returns, without waiting, when the apiserver answered the write
// of line e (of resource): by the revision its response carries; for a
// BIND, by the Pod's binding; for a DELETE whose revision no response
// carries, by the update that completed it (deletedAt). passed says the
// log has moved on from e (movedOn: from its revision and its arrival).
func (a *auditLog) timeOf(e *Event, resource string) (at time.Time, found, passed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	passed = a.movedOn(e.Revision, e.arrived)
	if e.Verb == Bind {
		at, found = a.bound[e.Namespace+"/"+e.Name]
		return at, found, passed
	}
	if at, found = a.times[e.Revision]; found || e.Verb != Delete {
		return at, found, passed
	}
	if w, ok := a.written[auditKey(resource, e.Namespace, e.Name)]; ok && !w.read.Before(e.arrived.Add(-sameMoment)) {
		return w.stamp, true, passed
	}
	return time.Time{}, false, passed
}

// rememberEnd records who wrote the update that ended the deletion of the
// object uid.
func (a *auditLog) rememberEnd(uid, actor string) {
	if _, ok := a.ended[uid]; !ok {
		a.endedQ = append(a.endedQ, uid)
	}
	a.ended[uid] = actor
	if len(a.endedQ) > maxTimes {
		delete(a.ended, a.endedQ[0])
		a.endedQ = a.endedQ[1:]
	}
}

// finishedBy returns who made the write that ended a deletion held by
// finalizers of the object uid (an object of the same name before it had
// another): the update (or patch) that took its last finalizer off, which
// answers the object as the request made it, deleting and with none left
// (endedDeletion). No deletion request names that actor: the request
// named the line of the deletion's start. Neither the order in which the
// log has the two (the deletion request can be answered after the update
// its watch event set off) nor the time it was read matters.
func (a *auditLog) finishedBy(uid string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	actor, ok := a.ended[uid]
	return actor, ok && uid != "" && actor != ""
}

// dryRun reports whether the request was a dry run (?dryRun=All): the
// apiserver answered it as it would a write, and stored nothing, so it is
// no write, deletion or time of the timeline's (a learner's hint tried
// with --dry-run=server is not the learner deleting).
func (ev *auditEvent) dryRun() bool {
	_, query, _ := strings.Cut(ev.RequestURI, "?")
	v, err := url.ParseQuery(query)
	return err == nil && v.Has("dryRun")
}

// refused reports whether the apiserver refused the request (an error
// status): it wrote nothing, so it is no write, deletion or time of the
// timeline's. An Operator that patches an object its own write has just
// deleted gets a 404 whose Status names no object: taken for a write, it
// hid the write that ended the object's deletion (finishedBy).
func (ev *auditEvent) refused() bool {
	return ev.ResponseStatus != nil && ev.ResponseStatus.Code >= 400
}

// endedDeletion reports whether the write answered an object being
// deleted that has no finalizer left: the update that took the last one
// off, which the apiserver answers with the object as the request made it,
// and then deletes (a write that leaves one on answers it with it).
func (ev *auditEvent) endedDeletion() bool {
	return ev.ResponseObject != nil && ev.ResponseObject.Metadata.DeletionTimestamp != "" && len(ev.ResponseObject.Metadata.Finalizers) == 0
}

// uid is the uid of the object the request answered ("": none).
func (ev *auditEvent) uid() string {
	if ev.ResponseObject == nil {
		return ""
	}
	return ev.ResponseObject.Metadata.UID
}

// claimDeletion is deletion without waiting.
func (a *auditLog) claimDeletion(resource, ns, name string) (deletion, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, ok := a.claim(auditKey(resource, ns, name), true)
	if !ok {
		d, ok = a.claim(auditKey(resource, ns, ""), false)
	}
	return d, ok
}

// boundAt returns when the Pod namespace/name was bound to its node (the
// latest binding of it), waiting up to wait for the log to say.
func (a *auditLog) boundAt(namespace, name string, wait time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		t, ok := a.bound[namespace+"/"+name]
		a.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return t, ok
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// who returns who deleted the object (the oldest deletion of it not yet
// claimed, or else a deletion of its whole collection), waiting up to wait
// for the audit log to say (the watch can be faster than the log); "" if it
// does not.
func (a *auditLog) who(resource, ns, name string, wait time.Duration) string {
	d, _ := a.deletion(resource, ns, name, wait)
	return d.actor
}

// deletion is who: the deletion itself.
func (a *auditLog) deletion(resource, ns, name string, wait time.Duration) (deletion, bool) {
	deadline := time.Now().Add(wait)
	for {
		a.mu.Lock()
		d, ok := a.claim(auditKey(resource, ns, name), true)
		if !ok {
			d, ok = a.claim(auditKey(resource, ns, ""), false)
		}
		a.mu.Unlock()
		if ok || time.Now().After(deadline) {
			return d, ok
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// claim returns the oldest recent deletion of key, removing it if take (a
// collection's deletion stands for each of its objects).
func (a *auditLog) claim(key string, take bool) (deletion, bool) {
	list := a.deleted[key]
	for len(list) > 0 && time.Since(list[0].at) > auditMemory {
		list = list[1:] // nobody claimed it
	}
	if len(list) == 0 {
		delete(a.deleted, key)
		return deletion{}, false
	}
	d := list[0]
	if take {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(a.deleted, key)
	} else {
		a.deleted[key] = list
	}
	return d, true
}

// auditActor names the client of a request in a learner's words.
func auditActor(username, userAgent string) string { return actor.OfRequest(username, userAgent) }
