package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
	"github.com/crdlab/crdlab/scenarios"
)

// hintWait bounds how long a request for a hint waits for a task to take
// it: between tasks, none does.
const hintWait = 2 * time.Second

func newLearnHintCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "hint",
		Short: "Show the next hint of the task the running lesson waits for",
		Long: `Ask the lesson that runs ('crdlab learn LESSON', on the same --state-dir,
in another terminal) for the next hint of its task, and print it here; the
lesson's terminal shows it too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return askHint(cmd.Context(), cmd.OutOrStdout(), g.state(), g.language())
		},
	}
}

func askHint(ctx context.Context, out io.Writer, sd control.Dir, l lang.Lang) error {
	answer, err := server.AskHint(ctx, sd, l)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, answer)
	return err
}

// serveHints serves the lesson's socket until stop: each connection asks
// for the next hint, which the waiting task answers.
func serveHints(ctx context.Context, sd control.Dir, hints chan<- scenarios.HintRequest, l lang.Lang) (stop func(), err error) {
	path := sd.LearnSocket()
	if conn, err := net.Dial("unix", path); err == nil {
		conn.Close()
		return nil, errors.New(l.Msgf("a lesson runs already on this state dir (%s): one lesson at a time", path))
	}
	_ = os.Remove(path) // left by a lesson that was killed
	// 0600, and only this user's (and root's) processes answered, as the
	// control socket: a hint is the learner's.
	ln, err := server.ListenPrivate(path)
	if err != nil {
		return nil, fmt.Errorf(l.Msg("unable to serve the lesson's socket: %w"), err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go answerHint(ctx, conn, hints, l)
		}
	}()
	return func() { ln.Close(); _ = os.Remove(path) }, nil
}

func answerHint(ctx context.Context, conn net.Conn, hints chan<- scenarios.HintRequest, l lang.Lang) {
	defer conn.Close()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "hint" {
		fmt.Fprintln(conn, "unknown request: want hint")
		return
	}
	fmt.Fprintln(conn, requestHint(ctx, hints, l))
}

// requestHint asks the waiting task for its next hint.
func requestHint(ctx context.Context, hints chan<- scenarios.HintRequest, l lang.Lang) string {
	reply := make(chan string, 1)
	select {
	case hints <- scenarios.HintRequest{Reply: reply}:
	case <-time.After(hintWait):
		return l.Msg("no task is waiting for you now")
	case <-ctx.Done():
		return l.Msg("the lesson has ended")
	}
	select {
	case h := <-reply:
		return h
	case <-ctx.Done():
		return l.Msg("the lesson has ended")
	}
}

// hintsFromKeys asks for the next hint each time the learner presses
// Enter in the lesson's terminal; the lesson shows the hint itself.
func hintsFromKeys(ctx context.Context, in io.Reader, hints chan<- scenarios.HintRequest, l lang.Lang) {
	if in == nil {
		return
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() && ctx.Err() == nil {
		_ = requestHint(ctx, hints, l)
	}
}
