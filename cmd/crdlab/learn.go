package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

type learnFlags struct {
	namespace string
	restart   bool
}

func newLearnCommand(g *globalFlags) *cobra.Command {
	f := &learnFlags{}
	cmd := &cobra.Command{
		Use:   "learn [LESSON|FILE]",
		Short: "Lessons: write the CRD, the custom resource and the controller yourself, checked live",
		Long: `Lessons that follow the seed's chapter: you do the work, with your own
kubectl, editor and code, and crdlab checks it live on the lab's apiserver.

A lesson narrates, then gives you tasks: each says what to do, waits (with
no deadline) until its check holds, and then shows what your writes did on
the timeline: your kubectl lines and what the controllers did in answer.
Stuck? Press Enter for the next hint, or run 'crdlab learn hint' in another
terminal; a hint also comes by itself after a while. Until the check holds,
the lesson says what it still misses.

The lesson runs against the lab of 'crdlab up' on --state-dir, and starts
one ('crdlab up -d') if none runs; use kubectl with its kubeconfig
(<state-dir>/kubeconfig). The lesson's files (manifests to edit, a
controller's skeleton) are written to <state-dir>/learn/LESSON/, where
your edits stay. Your progress (the tasks done) is kept in
<state-dir>/learn/LESSON.json: it survives 'crdlab down' and 'up', and a
lesson started again goes on from the first task not done (--restart
starts over). Objects go into --namespace (default: default).

With no argument, prints the course map: the lessons in order, each one's
time, the lessons to do first, the seed's section it teaches and your
progress. Lessons are files too (docs/learn.md: how to write one).`,
		Example: `  crdlab learn                 # the course map
  crdlab learn crd-basics
  crdlab learn crd-validation --lang zh
  crdlab learn hint            # in another terminal: the next hint
  crdlab learn prepare reconcile-loop   # build its controller's skeleton first
  crdlab learn ./my-lesson.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l := g.language()
			if len(args) == 0 {
				return listLessons(cmd.OutOrStdout(), g.state(), l)
			}
			return runLesson(cmd.Context(), cmd.OutOrStdout(), cmd.InOrStdin(), g, f, l, args[0])
		},
	}
	g.addLangFlag(cmd, true)
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "default", "the namespace you work in")
	cmd.Flags().BoolVar(&f.restart, "restart", false, "forget your progress in the lesson and start over (your files stay)")
	cmd.AddCommand(newLearnListCommand(g, f), newLearnHintCommand(g), newLearnPrepareCommand(g))
	return cmd
}

func newLearnListCommand(g *globalFlags, f *learnFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Print the course map: the lessons in order, and your progress in each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l := g.language()
			return listLessons(cmd.OutOrStdout(), g.state(), l)
		},
	}
}

// tasks counts the task steps of a lesson on the learner's minor
// (labMinor): a task of another minor (its kubernetes range) is none of
// theirs.
func tasks(s *scenarios.Scenario, minor string) int {
	n := 0
	for i := range s.Spec.Steps {
		if st := &s.Spec.Steps[i]; st.Task != nil && st.Applies(minor) {
			n++
		}
	}
	return n
}

// labMinor is the Kubernetes the learner's lessons run on: the running
// lab's, else the minor crdlab up would start ($CRDLAB_KUBERNETES_VERSION,
// or the built-in one).
func labMinor(sd control.Dir) string {
	if st, err := sd.Status(); err == nil && st.Kubernetes != "" {
		return st.Kubernetes
	}
	if m, err := kubeminor.Choose(""); err == nil {
		return m
	}
	return kubeminor.BuiltIn
}

func runLesson(ctx context.Context, out io.Writer, in io.Reader, g *globalFlags, f *learnFlags, l lang.Lang, arg string) error {
	s, err := scenarios.LoadLesson(arg)
	if errors.Is(err, scenarios.ErrNoLesson) {
		return errors.New(l.Msgf("no such lesson %q: lessons are %s", arg, strings.Join(scenarios.LessonNames(), ", ")))
	}
	if err != nil {
		return err
	}
	name := s.Metadata.Name
	written := s // progress names tasks as the lesson is written, in every language
	s = s.In(l)
	sd := g.state()
	c, err := labForLesson(ctx, out, g, l)
	if err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", sd.Kubeconfig())
	if err != nil {
		return lang.Errorf("the running lab's kubeconfig: %w", err)
	}

	files := filepath.Join(sd.Learn(), name)
	if _, err := scenarios.WriteLessonFiles(s, files); err != nil {
		return err
	}
	if f.restart {
		if err := os.Remove(progressFile(sd, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return lang.Errorf("--restart: %w", err)
		}
	}
	p, err := loadProgress(sd, name, l)
	if err != nil {
		return err
	}
	cluster, err := scenarios.ClusterID(ctx, cfg)
	if err != nil {
		return err
	}

	hints := make(chan scenarios.HintRequest)
	stop, err := serveHints(ctx, sd, hints, l)
	if err != nil {
		return err
	}
	defer stop()
	go hintsFromKeys(ctx, in, hints, l)

	fmt.Fprintln(out, l.Msgf("lesson files: %s", files))
	for _, line := range onboarding(l, sd) {
		fmt.Fprintln(out, line)
	}
	fmt.Fprintln(out, l.Msg("stuck? press Enter for a hint, or run 'crdlab learn hint' in another terminal"))
	if n := p.count(written); n > 0 && (p.Cluster == "" || p.Cluster == cluster) {
		fmt.Fprintln(out, l.Msgf("%d of %d tasks done in an earlier session: going on from the next (--restart starts over)", n, tasks(s, labMinor(sd))))
	}
	fmt.Fprintln(out)

	listener := scenarios.TextListenerIn(out, l)
	report, end := c.Report(ctx)
	defer end()
	shown := listener
	listener = func(e scenarios.Entry) {
		shown(e)
		if e.Type != "event" {
			report(e)
		}
	}
	opts := scenarios.Options{Listener: listener, Timeline: true, Lang: l, Lesson: &scenarios.LessonOptions{
		Namespace: f.namespace,
		Files:     files,
		Hints:     hints,
		Done:      p.doneSteps(written),
		DoneIn:    p.Cluster,
		TaskDone: func(step int) {
			if err := p.markDone(sd, written, step, cluster, l); err != nil {
				fmt.Fprintln(out, err)
			}
		},
	}}
	target := scenarios.Target{Config: cfg, Lab: scenarios.RemoteLab{Client: c}, AuditLog: sd.AuditLog()}
	res, err := scenarios.Run(ctx, s, target, opts)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		fmt.Fprintln(out, l.Msgf("stopped: your progress is kept (%d of %d tasks done); 'crdlab learn %s' goes on", p.count(written), tasks(s, labMinor(sd)), arg))
		return exitCode(130)
	}
	if !res.Passed() {
		return exitCode(1)
	}
	return nil
}

// labForLesson dials the lab on g's state dir, starting one as 'crdlab up
// -d' does (startLab, with up's defaults) if none runs, and leaving it
// running: the learner's kubectl needs a lab that outlives the lesson.
func labForLesson(ctx context.Context, out io.Writer, g *globalFlags, l lang.Lang) (*control.Client, error) {
	sd := g.state()
	if c, err := control.Dial(sd); err == nil {
		return c, nil
	}
	fmt.Fprintln(out, l.Msgf("no lab running on %s: starting one (crdlab up -d)", sd))
	st, _, err := startLab(ctx, out, g, false, control.UpOptions{})
	if err != nil {
		return nil, err
	}
	printReady(out, l, sd, st)
	return control.Dial(sd)
}

// onboarding says, before the first task, how the learner reaches the lab:
// a second terminal, the kubeconfig (and whether KUBECONFIG names it
// already), and, with no kubectl on the PATH, the lab's own.
func onboarding(l lang.Lang, sd control.Dir) []string {
	out := []string{l.Msg("work in a second terminal: this one runs the lesson")}
	if os.Getenv("KUBECONFIG") == sd.Kubeconfig() {
		out = append(out, l.Msgf("your kubectl uses this lab: KUBECONFIG=%s", sd.Kubeconfig()))
	} else {
		out = append(out, l.Msgf("your kubectl: export KUBECONFIG=%s", sd.Kubeconfig()))
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		out = append(out, l.Msgf("no kubectl on your PATH: where a task says kubectl, run crdlab --state-dir %s kubectl (the lab's own, of its Kubernetes version)", sd))
	}
	return out
}
