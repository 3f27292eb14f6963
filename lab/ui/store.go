package ui

import (
	"encoding/json"
	"maps"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Bounds of what the UI keeps in memory.
const (
	maxEvents    = 2000 // timeline lines, for a page that opens later
	maxReports   = 1000 // report entries of scenario runs
	maxRevisions = 30   // changes kept per object
	maxGone      = 300  // deleted objects whose page is kept
	// maxGroupedObjects is how many of its changes' objects a Pod shown in
	// a group keeps (its newest change's diff needs the one before): with
	// 10,000 Pods Running, crdlab's process held 985 MiB PSS with it, 1,056
	// without (TestUpAtScale, one run each).
	maxGroupedObjects = 2
)

// record is an object the UI follows: its box, its latest version and its
// history of changes.
type record struct {
	summary   Summary
	obj       *unstructured.Unstructured // latest (the last seen, once gone)
	revisions []revision                 // oldest first
	dropped   int                        // older revisions not kept
	// A Pod's group (its owner's UID; "" for none, or once deleted) and
	// the state it counts in there (podState).
	group, state string
}

// revision is one change of an object.
type revision struct {
	Time   time.Time `json:"time"`
	Actor  string    `json:"actor"`
	Verb   string    `json:"verb"`
	Detail string    `json:"detail,omitempty"`
	// Details is Detail in the other languages (detailsOf).
	Details map[lang.Lang]string `json:"details,omitempty"`
	// obj is the object after the change (nil for a deletion, or when
	// notKept).
	obj *unstructured.Unstructured
	// NotKept: the object after this change is not kept (a Pod shown in
	// a group keeps its last maxGroupedObjects), so it has no diff.
	NotKept bool `json:"notKept,omitempty"`
}

// event is a line of the timeline as the page gets it: the line, with its
// detail in English as recorded, and in each other language crdlab speaks
// as the terminal says it (timeline.DetailIn). The words of a detail have
// one owner, lab/lang's catalog: the page picks the detail of its language
// and translates none.
type event struct {
	timeline.Event
	Details map[lang.Lang]string `json:"details,omitempty"`
}

// eventOf returns e as the page gets it.
func eventOf(e timeline.Event) event { return event{Event: e, Details: detailsOf(e)} }

// detailsOf returns e's detail in each language crdlab speaks but English,
// where it has one.
func detailsOf(e timeline.Event) map[lang.Lang]string {
	if e.Detail == "" {
		return nil
	}
	out := map[lang.Lang]string{}
	for _, l := range lang.All {
		if l != lang.EN {
			out[l] = timeline.DetailIn(l, e)
		}
	}
	return out
}

// message is one message of the stream to the page.
type message struct {
	Type    string            `json:"type"` // snapshot, object, event, batch, report
	Object  *Summary          `json:"object,omitempty"`
	Event   *event            `json:"event,omitempty"`
	Report  json.RawMessage   `json:"report,omitempty"`
	Objects []Summary         `json:"objects,omitempty"`
	Groups  []Group           `json:"groups,omitempty"`
	Events  []event           `json:"events,omitempty"`
	Reports []json.RawMessage `json:"reports,omitempty"`
}

// store holds what the page shows and hands every change to subscribers.
type store struct {
	mu      sync.Mutex
	objects map[string]*record // by UID
	groups  map[string]*group  // Pods by owner UID
	gone    []string           // UIDs of deleted objects, oldest first
	events  []timeline.Event
	reports []json.RawMessage
	subs    map[chan []byte]struct{}
	// What the subscribers have not been sent yet, sent by timer once
	// flushEvery has passed since flushed.
	pending batch
	timer   *time.Timer
	flushed time.Time
}

func newStore() *store {
	return &store{objects: map[string]*record{}, groups: map[string]*group{}, subs: map[chan []byte]struct{}{}}
}

// observe takes a change from the timeline's watch.
func (s *store) observe(c timeline.Change) {
	cur := c.New
	if cur == nil {
		cur = c.Old
	}
	if cur == nil {
		return
	}
	uid := string(cur.GetUID())
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.objects[uid]
	if r == nil {
		r = &record{}
		s.objects[uid] = r
	}
	if stale(cur, r.obj) {
		// The line of an older change, told after a newer one (the
		// timeline tells a change once the audit log has dated it, and
		// lookups end in any order): its history counts, its state does
		// not.
		if c.Event != nil {
			r.revisions = append(r.revisions, revision{Time: c.Event.Time, Actor: c.Event.Actor, Verb: c.Event.Verb, Detail: c.Event.Detail, obj: c.New})
			if n := len(r.revisions) - maxRevisions; n > 0 {
				r.revisions = append(r.revisions[:0:0], r.revisions[n:]...)
				r.dropped += n
			}
			r.summary.Changes = len(r.revisions) + r.dropped
		}
		return
	}
	r.obj = cur
	sum := summarize(c.Kind, c.Resource.Resource, cur)
	if c.New == nil {
		sum.Gone = true
		s.gone = append(s.gone, uid)
		if len(s.gone) > maxGone {
			delete(s.objects, s.gone[0])
			s.gone = s.gone[1:]
		}
	}
	switch {
	case c.Initial:
		r.revisions = append(r.revisions, revision{Time: cur.GetCreationTimestamp().Time, Actor: firstManager(cur), Verb: "EXISTED", obj: cur})
	case c.Event != nil:
		rev := revision{Time: c.Event.Time, Actor: c.Event.Actor, Verb: c.Event.Verb, Detail: c.Event.Detail, obj: c.New}
		r.revisions = append(r.revisions, rev)
	}
	if n := len(r.revisions) - maxRevisions; n > 0 {
		r.revisions = append(r.revisions[:0:0], r.revisions[n:]...)
		r.dropped += n
	}
	sum.Changes = len(r.revisions) + r.dropped
	wasHidden := s.hidden(r)
	owner, ownerKind, ownerName := "", "", ""
	if c.Kind == "Pod" && c.New != nil {
		owner, ownerKind, ownerName = podOwner(cur)
	}
	s.regroup(uid, r, owner, ownerKind, ownerName, sum.Namespace, podState(sum))
	if s.hidden(r) {
		r.dropObjects(maxGroupedObjects)
	}
	r.summary = sum
	if !s.hidden(r) && (!wasHidden || !sum.Gone) { // the page never had a grouped Pod's box
		s.queueObject(sum)
	}
}

// stale reports whether obj is an older state of the object than held: in
// a lab, resourceVersions are etcd revisions, which only go up.
func stale(obj, held *unstructured.Unstructured) bool {
	if held == nil {
		return false
	}
	rv, err1 := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	heldRV, err2 := strconv.ParseInt(held.GetResourceVersion(), 10, 64)
	return err1 == nil && err2 == nil && rv < heldRV
}

// firstManager names who created obj, from its oldest managedFields entry.
func firstManager(obj *unstructured.Unstructured) string {
	mf := obj.GetManagedFields()
	if len(mf) == 0 {
		return "?"
	}
	first := mf[0]
	for _, e := range mf[1:] {
		if e.Time != nil && first.Time != nil && e.Time.Before(first.Time) {
			first = e
		}
	}
	return timeline.Actor(first.Manager)
}

// record takes a timeline line.
func (s *store) record(e timeline.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = appendBounded(s.events, e, maxEvents)
	if e.Late && e.Revision > 0 {
		// The lab's stream is in revision order but for a late line: the
		// snapshot has it in its place, as the browser puts it.
		i := len(s.events) - 1
		for ; i > 0 && s.events[i-1].Revision > e.Revision; i-- {
			s.events[i] = s.events[i-1]
		}
		s.events[i] = e
	}
	if len(s.subs) > 0 { // the details in each language only for a page that reads them
		s.queueEvent(eventOf(e))
	}
}

// appendBounded appends v to s, of which only the last max elements count
// (lastOf). It drops the older ones only when s reaches twice max: dropping
// them at every append once s was full copied max elements each time, 15%
// of the crdlab process's CPU in a scale-up of a thousand Pods.
func appendBounded[T any](s []T, v T, max int) []T {
	s = append(s, v)
	if len(s) >= 2*max {
		s = append(s[:0:0], s[len(s)-max:]...)
	}
	return s
}

// lastOf returns the last max elements of s.
func lastOf[T any](s []T, max int) []T {
	if len(s) > max {
		return s[len(s)-max:]
	}
	return s
}

// report takes a report entry of a scenario run.
func (s *store) report(entry json.RawMessage) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(entry, &head) != nil || head.Type == "event" {
		return // the timeline has its lines already
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reports = appendBounded(s.reports, entry, maxReports)
	s.flushLocked() // the lines before it go before it
	s.publish(message{Type: "report", Report: entry})
}

// publish sends m to every subscriber; s.mu is held. A subscriber that
// does not keep up is dropped (its page reconnects and starts from a new
// snapshot) rather than slowing the lab down.
func (s *store) publish(m message) {
	if len(s.subs) == 0 {
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	for ch := range s.subs {
		select {
		case ch <- b:
		default:
			delete(s.subs, ch)
			close(ch)
		}
	}
}

// subscribe returns the snapshot of now and the messages after it, until
// cancel or until the subscriber falls behind (the channel closes).
func (s *store) subscribe() (snapshot []byte, ch chan []byte, cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked() // what the snapshot has goes to the other subscribers first
	snapshot, _ = json.Marshal(s.snapshotLocked())
	ch = make(chan []byte, 4096)
	s.subs[ch] = struct{}{}
	return snapshot, ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.subs[ch]; ok {
			delete(s.subs, ch)
			close(ch)
		}
	}
}

func (s *store) snapshot() message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

func (s *store) snapshotLocked() message {
	m := message{Type: "snapshot", Objects: []Summary{}, Events: []event{}, Reports: append([]json.RawMessage{}, lastOf(s.reports, maxReports)...)}
	for _, e := range lastOf(s.events, maxEvents) {
		m.Events = append(m.Events, eventOf(e))
	}
	for _, r := range s.objects {
		if !s.hidden(r) {
			m.Objects = append(m.Objects, r.summary)
		}
	}
	for _, g := range s.groups {
		if g.Grouped {
			out := g.Group
			out.States = maps.Clone(g.States)
			m.Groups = append(m.Groups, out)
		}
	}
	return m
}

// Page is an object's page: its box, its YAML now, who manages which of
// its fields, and its changes with who made each and the diff.
type Page struct {
	Summary  Summary      `json:"summary"`
	YAML     string       `json:"yaml"`
	Managers []Manager    `json:"managers"`
	History  []PageChange `json:"history"`
	Dropped  int          `json:"dropped,omitempty"` // older changes not kept
}

// Manager is an entry of the object's managedFields.
type Manager struct {
	Manager     string `json:"manager"`
	Actor       string `json:"actor"`
	Operation   string `json:"operation"`
	Subresource string `json:"subresource,omitempty"`
	Time        string `json:"time,omitempty"`
}

// PageChange is a change on an object's page, newest first.
type PageChange struct {
	revision
	Diff string `json:"diff,omitempty"`
}

// dropObjects lets go of the objects of r's changes but its last keep.
func (r *record) dropObjects(keep int) {
	for i := len(r.revisions) - keep - 1; i >= 0 && !r.revisions[i].NotKept; i-- {
		if r.revisions[i].obj != nil {
			r.revisions[i].obj, r.revisions[i].NotKept = nil, true
		}
	}
}

// page returns the page of the object uid, or false.
func (s *store) page(uid string) (Page, bool) {
	s.mu.Lock()
	r, ok := s.objects[uid]
	var revs []revision
	var p Page
	if ok {
		revs = append(revs, r.revisions...)
		p = Page{Summary: r.summary, Dropped: r.dropped}
		p.YAML = toYAML(r.obj, false)
		for _, e := range r.obj.GetManagedFields() {
			p.Managers = append(p.Managers, manager(e))
		}
	}
	s.mu.Unlock()
	if !ok {
		return Page{}, false
	}
	// Diffs are made on demand: most changes are never looked at.
	prev, prevKept := "", true
	for i, rev := range revs {
		cur := ""
		if rev.obj != nil {
			cur = toYAML(rev.obj, true)
		}
		pc := PageChange{revision: rev}
		pc.Details = detailsOf(timeline.Event{Verb: rev.Verb, Kind: p.Summary.Kind, Detail: rev.Detail})
		switch {
		case rev.Verb == "EXISTED":
		case i == 0 && p.Dropped > 0 && rev.obj != nil:
			// The version before it is not kept.
		case rev.obj != nil && prevKept:
			pc.Diff = unifiedDiff(prev, cur)
		}
		if rev.obj != nil {
			prev = cur
		}
		prevKept = !rev.NotKept
		p.History = append(p.History, pc)
	}
	for i, j := 0, len(p.History)-1; i < j; i, j = i+1, j-1 {
		p.History[i], p.History[j] = p.History[j], p.History[i]
	}
	return p, true
}

func manager(e metav1.ManagedFieldsEntry) Manager {
	m := Manager{Manager: e.Manager, Actor: timeline.Actor(e.Manager), Operation: string(e.Operation), Subresource: e.Subresource}
	if e.Time != nil {
		m.Time = e.Time.UTC().Format(time.RFC3339)
	}
	return m
}

// toYAML renders obj without its managedFields (the page lists them apart);
// for a diff also without its resourceVersion, which every write changes.
func toYAML(obj *unstructured.Unstructured, forDiff bool) string {
	if obj == nil {
		return ""
	}
	o := obj.DeepCopy()
	unstructured.RemoveNestedField(o.Object, "metadata", "managedFields")
	if forDiff {
		unstructured.RemoveNestedField(o.Object, "metadata", "resourceVersion")
	}
	b, err := yaml.Marshal(o.Object)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
