package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

// controllerDir is the folder of a lesson's files that holds a
// controller's skeleton, a Go module of its own.
const controllerDir = "controller"

// prepareEvery is how often 'crdlab learn prepare' says how far the build
// is.
const prepareEvery = 15 * time.Second

func newLearnPrepareCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "prepare [LESSON|FILE]",
		Short: "Download and build a lesson's controller skeleton, so that its first go run starts in seconds",
		Long: `Write the lesson's files to <state-dir>/learn/LESSON/ (a file of yours
there is kept) and build the skeleton of its controller, the Go module in
their folder controller: go mod download, then go build, saying how far it
is. The first build downloads the skeleton's modules (controller-runtime
and client-go, about 60, some 100 MB) and compiles them: a few minutes,
once. After it, 'go run .' in that folder starts in seconds.

Run it in a terminal of its own while you read the lesson; it needs no
lab. With no argument, it prepares every lesson that has a controller. It
needs Go, as the skeleton's go.mod says; where proxy.golang.org is out of
reach (in mainland China), export GOPROXY=https://goproxy.cn,direct first.`,
		Example: `  crdlab learn prepare reconcile-loop
  GOPROXY=https://goproxy.cn,direct crdlab learn prepare`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return prepareLessons(cmd.Context(), cmd.OutOrStdout(), g.state(), g.language(), args)
		},
	}
}

// prepareLessons writes the files of the lesson args names (of every
// built-in lesson with a controller, with no argument) to the state dir,
// and builds each one's controller.
func prepareLessons(ctx context.Context, out io.Writer, sd control.Dir, l lang.Lang, args []string) error {
	var lessons []*scenarios.Scenario
	if len(args) == 1 {
		s, err := scenarios.LoadLesson(args[0])
		if err != nil {
			return err
		}
		if !hasController(s) {
			return errors.New(l.Msgf("lesson %s has no controller to prepare (no folder %s in its files)", s.Metadata.Name, controllerDir))
		}
		lessons = append(lessons, s)
	} else {
		all, err := scenarios.Lessons()
		if err != nil {
			return err
		}
		for _, s := range all {
			if hasController(s) {
				lessons = append(lessons, s)
			}
		}
	}
	for _, s := range lessons {
		files := filepath.Join(sd.Learn(), s.Metadata.Name)
		if _, err := scenarios.WriteLessonFiles(s, files); err != nil {
			return err
		}
		if err := prepareController(ctx, out, l, filepath.Join(files, controllerDir)); err != nil {
			return err
		}
	}
	return nil
}

// hasController reports whether the lesson's files have a controller's
// skeleton.
func hasController(s *scenarios.Scenario) bool {
	files := scenarios.LessonFiles(s)
	if files == nil {
		return false
	}
	fi, err := fs.Stat(files, controllerDir)
	return err == nil && fi.IsDir()
}

// prepareController downloads the modules of the Go module in dir and
// builds it (the binary is thrown away: what counts is the build cache,
// which the learner's go run finds full), saying how far it is.
func prepareController(ctx context.Context, out io.Writer, l lang.Lang, dir string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return errors.New(l.Msgf("no go command on your PATH: the controller in %s needs Go (https://go.dev/dl)", dir))
	}
	start := time.Now()
	fmt.Fprintln(out, l.Msgf("preparing %s: downloading its modules (go mod download)", dir))
	download := exec.CommandContext(ctx, goCmd, "mod", "download")
	download.Dir = dir
	if msg, err := download.CombinedOutput(); err != nil {
		return errors.New(l.Msgf("go mod download in %s: %v\n%s\nwhere proxy.golang.org is out of reach (mainland China), export GOPROXY=https://goproxy.cn,direct and run it again",
			dir, err, strings.TrimSpace(string(msg))))
	}
	fmt.Fprintln(out, l.Msgf("modules downloaded in %s; building (go build): a few minutes the first time", since(start)))

	// go build -v names each package as it compiles it: their count is
	// the progress.
	build := exec.CommandContext(ctx, goCmd, "build", "-v", "-o", os.DevNull, ".")
	build.Dir = dir
	stderr, err := build.StderrPipe()
	if err != nil {
		return err
	}
	if err := build.Start(); err != nil {
		return lang.Errorf("go build in %s: %w", dir, err)
	}
	var (
		mu       sync.Mutex
		compiled int
		said     []string // the last lines, for a failure
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			if line := sc.Text(); strings.ContainsAny(line, " \t:") {
				said = append(said, line)
			} else {
				compiled++
			}
			mu.Unlock()
		}
	}()
	tick := time.NewTicker(prepareEvery)
	defer tick.Stop()
	waited := make(chan error, 1)
	go func() {
		<-read // all of stderr is read before Wait closes it
		waited <- build.Wait()
	}()
	for done := false; !done; {
		select {
		case <-tick.C:
			mu.Lock()
			n := compiled
			mu.Unlock()
			fmt.Fprintln(out, l.Msgf("building: %d packages compiled, %s", n, since(start)))
		case err = <-waited:
			done = true
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New(l.Msgf("go build in %s: %v\n%s", dir, err, strings.Join(said, "\n")))
	}
	fmt.Fprintln(out, l.Msgf("ready in %s (%d packages compiled): cd %s && go run . starts in seconds now", since(start), compiled, dir))
	return nil
}

// since is the time since start, to the second.
func since(start time.Time) time.Duration {
	return time.Since(start).Round(time.Second)
}
