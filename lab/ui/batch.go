package ui

import (
	"maps"
	"time"
)

// flushEvery is the least time between two messages of changes to the
// page: a change after a quiet spell goes at once, as a message of its
// own; the changes that follow it within flushEvery go together, the last
// state of each object and group once, in one "batch" message. At 10,000
// Pods that is 4 messages a second rather than thousands.
const flushEvery = 250 * time.Millisecond

// batch is what the page has not been sent yet.
type batch struct {
	objects map[string]Summary // by UID, the last state
	groups  map[string]bool    // owners whose Group changed
	events  []event
}

func (b *batch) empty() bool { return len(b.objects) == 0 && len(b.groups) == 0 && len(b.events) == 0 }

// queueObject sends sum to the page; s.mu is held.
func (s *store) queueObject(sum Summary) {
	if len(s.subs) == 0 {
		return
	}
	if s.pending.objects == nil {
		s.pending.objects = map[string]Summary{}
	}
	s.pending.objects[sum.UID] = sum
	s.push()
}

// queueGroup sends the group of owner to the page; s.mu is held.
func (s *store) queueGroup(owner string) {
	if len(s.subs) == 0 {
		return
	}
	if s.pending.groups == nil {
		s.pending.groups = map[string]bool{}
	}
	s.pending.groups[owner] = true
	s.push()
}

// queueEvent sends a timeline line to the page; s.mu is held.
func (s *store) queueEvent(e event) {
	if len(s.subs) == 0 {
		return
	}
	s.pending.events = appendBounded(s.pending.events, e, maxEvents)
	s.push()
}

// push sends what is pending now, if the last message went flushEvery
// ago or more, else once it has; s.mu is held.
func (s *store) push() {
	if s.timer != nil {
		return
	}
	if wait := flushEvery - time.Since(s.flushed); wait > 0 {
		s.timer = time.AfterFunc(wait, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.timer = nil
			s.flushLocked()
		})
		return
	}
	s.flushLocked()
}

// flushLocked sends what is pending: one object or one line as the
// message of its own it was before batches ("object", "event"), more as
// one "batch"; s.mu is held.
func (s *store) flushLocked() {
	b := s.pending
	s.pending = batch{}
	if b.empty() {
		return
	}
	s.flushed = time.Now()
	m := message{Type: "batch", Events: lastOf(b.events, maxEvents)}
	for _, sum := range b.objects {
		if r := s.objects[sum.UID]; r == nil || !s.hidden(r) {
			m.Objects = append(m.Objects, sum)
		}
	}
	for owner := range b.groups {
		g := s.groups[owner]
		if g == nil { // its last Pod went: it is no group
			m.Groups = append(m.Groups, Group{Owner: owner, States: map[string]int{}})
			continue
		}
		out := g.Group
		out.States = maps.Clone(g.States)
		m.Groups = append(m.Groups, out)
	}
	switch {
	case len(m.Objects) == 1 && len(m.Groups) == 0 && len(m.Events) == 0:
		m = message{Type: "object", Object: &m.Objects[0]}
	case len(m.Objects) == 0 && len(m.Groups) == 0 && len(m.Events) == 1:
		m = message{Type: "event", Event: &m.Events[0]}
	case len(m.Objects) == 0 && len(m.Groups) == 0 && len(m.Events) == 0:
		return
	}
	s.publish(m)
}
