package timeline

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/crdlab/crdlab/lab/lang"
)

// Printer writes events as aligned lines, relative to the time it was made:
//
//	+0.004s  replicaset          CREATE  pod/web-6f9c-xk2lp  2/3 → 3/3
//
// with colour when writing to a terminal. A line marked Late says so.
type Printer struct {
	// Namespace is left unsaid on lines about objects in it ("default").
	Namespace string
	// ActorName, if not nil, names an actor as printed (lang.Lang.Actor:
	// a Chinese gloss); nil: as the event names it.
	ActorName func(actor string) string
	// Lang is the language of the words a line adds to its object: its
	// detail (DetailIn) and its notes. Zero: English, as recorded.
	Lang lang.Lang
	// Revisions ends each line of a write with its revision, "  #1234"
	// (logs/timeline.log: lab/labtest reads it to tell the lines after a
	// Mark from the lines before).
	Revisions bool

	mu    sync.Mutex
	out   io.Writer
	start time.Time
	color bool
}

// NewPrinter returns a printer to out; times are relative to now.
func NewPrinter(out io.Writer) *Printer { return NewPrinterAt(out, time.Now()) }

// NewPrinterAt returns a printer to out; times are relative to start.
func NewPrinterAt(out io.Writer, start time.Time) *Printer {
	p := &Printer{Namespace: "default", out: out, start: start}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.color = true
	}
	return p
}

var verbColor = map[string]string{
	Create:    "\x1b[32m", // green
	Update:    "\x1b[33m", // yellow
	Status:    "\x1b[36m", // cyan
	Delete:    "\x1b[31m", // red
	Emit:      "\x1b[35m", // magenta
	Bind:      "\x1b[34m", // blue
	Reconcile: "\x1b[1m",  // bold: an in-process operator's reconcile pass
}

// head is the start of e's line: its time, actor and verb.
func (p *Printer) head(e Event) string {
	verb := fmt.Sprintf("%-6s", e.Verb)
	if p.color {
		verb = verbColor[e.Verb] + verb + "\x1b[0m"
	}
	actor := e.Actor
	if p.ActorName != nil {
		actor = p.ActorName(actor)
	}
	return fmt.Sprintf("%+8.3fs  %-20s %s", e.Time.Sub(p.start).Seconds(), actor, verb)
}

// Record prints e.
func (p *Printer) Record(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	obj := e.Object()
	if e.Namespace != "" && e.Namespace != p.Namespace {
		obj += " -n " + e.Namespace
	}
	line := p.head(e) + "  " + obj
	if e.Detail != "" {
		line += "  " + DetailIn(p.Lang, e)
	}
	if e.Late {
		line += "  " + p.Lang.Msg("(late: arrived after the lines that follow it)")
	}
	if p.Revisions && e.Revision > 0 {
		line += fmt.Sprintf("  #%d", e.Revision)
	}
	fmt.Fprintln(p.out, line)
}

// recordCount prints a line that counts lines of e's actor, verb and kind
// (Group): e's time, actor and verb, its kind without a name, and count.
func (p *Printer) recordCount(e Event, count string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	obj := strings.ToLower(e.Kind)
	if e.Namespace != "" && e.Namespace != p.Namespace {
		obj += " -n " + e.Namespace
	}
	fmt.Fprintln(p.out, p.head(e)+"  "+obj+" "+count)
}

// note prints a line of its own, not an event's.
func (p *Printer) note(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.out, text)
}
