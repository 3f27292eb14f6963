package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crdlab/crdlab/lab/labtest/control"
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
	_, err = AskHint(ctx, d)
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
		got, err := AskHint(ctx, d)
		if want := fmt.Sprintf(`asked "hint": Hint %d/2`, n); err != nil || got != want {
			t.Errorf("ask %d: %q, %v; want %q", n, got, err, want)
		}
	}
}
