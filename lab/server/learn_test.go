package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
)

// AskHint speaks the lesson's socket protocol (a line "hint", the answer
// until the lesson closes), and says when no lesson runs.
func TestAskHint(t *testing.T) {
	dir, err := os.MkdirTemp("", "crdlab-hint-") // short: a socket's path is bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := control.Dir(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = AskHint(ctx, d, lang.EN)
	if !errors.Is(err, ErrNoLesson) || !strings.Contains(err.Error(), "no lesson is running on "+dir+": start one with 'crdlab learn LESSON'") {
		t.Errorf("no lesson: %v", err)
	}

	ln, err := ListenPrivate(d.LearnSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for n := 1; ; n++ {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			fmt.Fprintf(conn, "asked %q: Hint %d/2\n", strings.TrimSpace(line), n)
			conn.Close()
		}
	}()
	for n := 1; n <= 2; n++ {
		got, err := AskHint(ctx, d, lang.EN)
		if want := fmt.Sprintf(`asked "hint": Hint %d/2`, n); err != nil || got != want {
			t.Errorf("ask %d: %q, %v; want %q", n, got, err, want)
		}
	}
}

// AskHint's own errors (no lesson, a lesson that gives no answer, one that
// does not answer in time) are in the catalog: in the pseudo-language no
// English of crdlab's is left bare, and in Chinese they are Chinese. What
// they wrap (Go's error) is not crdlab's to say.
func TestAskHintErrorsInTheCatalog(t *testing.T) {
	dir, err := os.MkdirTemp("", "crdlab-hint-") // short: a socket's path is bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := control.Dir(dir)
	ask := func(l lang.Lang, wait time.Duration) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		got, err := AskHint(ctx, d, l)
		if err == nil {
			t.Fatalf("%s: answered %q, want an error", l, got)
		}
		return err
	}
	said := func(what string, l lang.Lang, err error) {
		t.Helper()
		msg := err.Error()
		var causes []error
		var joined interface{ Unwrap() []error }
		var wrapping interface{ Unwrap() error }
		switch {
		case errors.As(err, &joined):
			causes = joined.Unwrap()
		case errors.As(err, &wrapping):
			causes = []error{wrapping.Unwrap()}
		}
		for _, c := range causes {
			if !errors.Is(c, ErrNoLesson) { // the sentinel is worded, not printed
				msg = strings.ReplaceAll(msg, c.Error(), "…")
			}
		}
		if bare := lang.Bare(msg); len(bare) > 0 {
			t.Errorf("%s (%s): English outside the catalog: %q\n%s", what, l, bare, msg)
		}
		if l == lang.ZH && !strings.ContainsFunc(msg, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("%s: not said in Chinese: %s", what, msg)
		}
	}
	langs := []lang.Lang{lang.Pseudo, lang.ZH}

	for _, l := range langs {
		err := ask(l, 10*time.Second)
		if !errors.Is(err, ErrNoLesson) || !strings.Contains(err.Error(), dir) {
			t.Errorf("no lesson (%s): %v, want ErrNoLesson naming %s", l, err, dir)
		}
		said("no lesson", l, err)
	}

	ln, err := ListenPrivate(d.LearnSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	silent := make(chan bool) // true: hold the connection without an answer
	held := make(chan net.Conn, len(langs))
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = bufio.NewReader(conn).ReadString('\n')
			if <-silent {
				held <- conn // closed at the end of the test
				continue
			}
			conn.Close()
		}
	}()
	t.Cleanup(func() {
		close(held)
		for c := range held {
			c.Close()
		}
	})
	for _, l := range langs {
		go func() { silent <- false }()
		err := ask(l, 10*time.Second)
		if errors.Is(err, ErrNoLesson) || !strings.Contains(err.Error(), d.LearnSocket()) {
			t.Errorf("no answer (%s): %v, want the socket named", l, err)
		}
		said("a lesson that gives no answer", l, err)

		go func() { silent <- true }()
		err = ask(l, 300*time.Millisecond)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("no answer in time (%s): %v, want the deadline", l, err)
		}
		said("a lesson that does not answer in time", l, err)
	}
}
