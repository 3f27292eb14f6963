package timeline

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// Group is a Sink for a terminal a person reads, in front of a Printer: it
// prints lines as they come, but a burst of lines of one actor, verb, kind
// and namespace (each within Window of the one before it) shows only its
// first Threshold lines one by one, and then a line that counts the rest,
//
//	+3.512s  replicaset           CREATE  pod ×480 more in 1.2 s
//
// once the burst ends (no line of it for Window), and at least every Every
// while it lasts. A burst that follows one of the same key within Cool
// (a scale-up's next batch) is counted from its first line. A lab of a few objects never bursts, and prints exactly
// what the Printer alone prints; logs/timeline.log, written by a Printer
// without a Group, keeps every line.
type Group struct {
	// Threshold is how many lines of a burst are printed one by one.
	Threshold int
	// Window: a line within Window of the last line of its actor, verb, kind
	// and namespace (by the lines' times) belongs to the same burst.
	Window time.Duration
	// Every is how often a burst that lasts is counted.
	Every time.Duration
	// Cool: a burst that starts within Cool of the end of a burst of the
	// same key (by the lines' times) prints no line one by one.
	Cool time.Duration
	// Msgf formats the words of a count and the note said once (lang.Lang.Msgf);
	// nil: English.
	Msgf func(format string, args ...any) string

	out *Printer
	now func() time.Time // when lines arrive: a burst ends Window after its last

	mu     sync.Mutex
	bursts map[groupKey]*burst
	ended  map[groupKey]time.Time // the last line of the key's last burst
	noted  bool
}

// groupKey is what the lines of a burst share.
type groupKey struct{ actor, verb, kind, namespace string }

// burst is the lines of one key, each within Window of the one before.
type burst struct {
	last    Event     // the latest line
	arrived time.Time // when the latest line arrived
	lines   int       // lines so far
	held    int       // lines not printed since the last count
	from    time.Time // the time of the first held line
}

// Defaults of a Group.
const (
	GroupThreshold = 20
	GroupWindow    = time.Second
	GroupEvery     = 5 * time.Second
	GroupCool      = 10 * time.Second
)

// NewGroup returns a Group in front of out, with the defaults: bursts of
// more than 20 lines, each within a second of the one before, counted at
// least every 5 seconds, a burst within 10 seconds of the last counted
// from its first line.
func NewGroup(out *Printer) *Group {
	return &Group{Threshold: GroupThreshold, Window: GroupWindow, Every: GroupEvery, Cool: GroupCool,
		out: out, now: time.Now, bursts: map[groupKey]*burst{}, ended: map[groupKey]time.Time{}}
}

// Record prints e, or counts it in its burst.
func (g *Group) Record(e Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	k := groupKey{e.Actor, e.Verb, e.Kind, e.Namespace}
	b := g.bursts[k]
	if b != nil && e.Time.Sub(b.last.Time) > g.Window {
		g.end(k, b)
		b = nil
	}
	if b == nil {
		b = &burst{}
		if end, ok := g.ended[k]; ok && e.Time.Sub(end) <= g.Cool {
			b.lines = g.Threshold // the same burst, on again: counted
		}
		g.bursts[k] = b
	}
	b.lines++
	b.last, b.arrived = e, now
	if b.lines <= g.Threshold {
		g.out.Record(e)
		return
	}
	if b.held == 0 {
		b.from = e.Time
	}
	b.held++
	if e.Time.Sub(b.from) >= g.Every {
		g.count(b)
	}
}

// Tick counts the bursts that ended: no line of theirs arrived for
// Window before now. Call it every so often (Run does).
func (g *Group) Tick(now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ended []groupKey
	for k, b := range g.bursts {
		if now.Sub(b.arrived) > g.Window {
			ended = append(ended, k)
		}
	}
	// In the order of their last lines, so that the counts come in the
	// cluster's order too.
	sort.Slice(ended, func(i, j int) bool { return g.bursts[ended[i]].last.Time.Before(g.bursts[ended[j]].last.Time) })
	for _, k := range ended {
		g.end(k, g.bursts[k])
	}
}

// end counts b, the burst of k, which ended, and remembers when.
func (g *Group) end(k groupKey, b *burst) {
	g.count(b)
	delete(g.bursts, k)
	if b.lines > g.Threshold {
		g.ended[k] = b.last.Time
	}
}

// Flush counts every burst's held lines (the timeline ends).
func (g *Group) Flush() { g.Tick(time.Unix(1<<40, 0)) }

// Run ticks every Window/2 until stop is closed, then flushes.
func (g *Group) Run(stop <-chan struct{}) {
	t := time.NewTicker(g.Window / 2)
	defer t.Stop()
	for {
		select {
		case <-stop:
			g.Flush()
			return
		case now := <-t.C:
			g.Tick(now)
		}
	}
}

// count prints the line counting b's held lines, if any.
func (g *Group) count(b *burst) {
	if b.held == 0 {
		return
	}
	l := words(g.Msgf)
	if l == nil {
		l = fmt.Sprintf
	}
	if !g.noted {
		g.noted = true
		g.out.note(l.Msgf("(bursts of more than %d lines of one actor, verb and kind are counted here; logs/timeline.log has every line)", g.Threshold))
	}
	span := max(b.last.Time.Sub(b.from), 0) // lines without a revision come by their times
	g.out.recordCount(b.last, l.Msgf("×%d more in %.1f s", b.held, span.Seconds()))
	b.held = 0
}

// words formats a message in the reader's language (Group.Msgf).
type words func(format string, args ...any) string

// Msgf formats format with args.
func (w words) Msgf(format string, args ...any) string { return w(format, args...) }
