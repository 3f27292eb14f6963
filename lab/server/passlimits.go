package server

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/crdlab/crdlab/lab/labtest/control"
)

// Limits of what control.RoutePasses takes. Passes come from another
// process (labtest/trace in a suite's operator): whatever it sends must
// neither exhaust the lab nor reach the terminal as anything but text, nor
// move the timeline's clock.
const (
	// maxPassesBody bounds one request: 256 passes (labtest/trace's
	// batch) of ordinary size are far less.
	maxPassesBody = 8 << 20
	// maxName bounds a controller's, kind's, namespace's or object's name
	// (an object name's limit in Kubernetes).
	maxName = 253
	// maxText bounds an error, a trigger's change or a write's verb; a
	// longer one is cut.
	maxText = 1024
	// maxTriggers and maxWrites bound a pass's lists (labtest/trace sends
	// at most 5 triggers).
	maxTriggers = 100
	maxWrites   = 1000
	// passWindow is how long before now a pass may have ended, and how
	// long it may have lasted: a pass is put within it.
	passWindow = time.Hour
)

// cleanPass checks p's names against the limits, cuts its texts, strips
// control characters from every string, and puts its end within
// passWindow before now (a pass that claims to end in the future would
// make every later line late: timeline.Order). i numbers p in its request
// for the error.
func cleanPass(i int, p control.Pass, now time.Time) (control.Pass, error) {
	switch {
	case len(p.Triggers) > maxTriggers:
		return p, fmt.Errorf("reconcile pass %d: %d triggers, more than %d", i, len(p.Triggers), maxTriggers)
	case len(p.Writes) > maxWrites:
		return p, fmt.Errorf("reconcile pass %d: %d writes, more than %d", i, len(p.Writes), maxWrites)
	}
	p.Triggers, p.Writes = slices.Clone(p.Triggers), slices.Clone(p.Writes)
	var err error
	name := func(v *string, field string, j int) {
		if l := utf8.RuneCountInString(*v); l > maxName && err == nil {
			err = fmt.Errorf("reconcile pass %d: %s is %d characters long, more than %d", i, strings.Replace(field, "%d", strconv.Itoa(j), 1), l, maxName)
		}
		*v = cleanText(*v, maxName)
	}
	name(&p.Controller, "controller", 0)
	name(&p.Kind, "kind", 0)
	name(&p.Namespace, "namespace", 0)
	name(&p.Name, "name", 0)
	for j := range p.Triggers {
		t := &p.Triggers[j]
		name(&t.Kind, "triggers[%d].kind", j)
		name(&t.Namespace, "triggers[%d].namespace", j)
		name(&t.Name, "triggers[%d].name", j)
		t.Change = cleanText(t.Change, maxText)
	}
	for j := range p.Writes {
		w := &p.Writes[j]
		name(&w.Kind, "writes[%d].kind", j)
		name(&w.Namespace, "writes[%d].namespace", j)
		name(&w.Name, "writes[%d].name", j)
		w.Verb, w.Error = cleanText(w.Verb, maxText), cleanText(w.Error, maxText)
	}
	if err != nil {
		return p, err
	}
	if p.Controller == "" {
		return p, fmt.Errorf("reconcile pass %d: no controller", i)
	}
	p.Error = cleanText(p.Error, maxText)

	p.Duration = min(max(p.Duration, 0), passWindow)
	p.RequeueAfter = max(p.RequeueAfter, 0)
	end := p.Start.Add(p.Duration)
	switch earliest := now.Add(-passWindow); {
	case end.After(now):
		end = now
	case end.Before(earliest):
		end = earliest
	}
	p.Start = end.Add(-p.Duration)
	return p, nil
}

// cleanText is s as valid UTF-8 without control characters (a tab or a
// line break becomes a space; an escape sequence's other characters stay,
// harmless without its ESC) nor bidirectional overrides, cut to max
// characters with "…".
func cleanText(s string, limit int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		switch {
		case r == '\t', r == '\n', r == '\r':
			r = ' '
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			continue
		}
		if n == limit {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
