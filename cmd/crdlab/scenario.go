package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
	"github.com/crdlab/crdlab/scenarios/format"
)

func newScenarioCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "List, explain, run and check scripted scenarios of the control loops",
		Long: `A scenario is a scripted, narrated run of Kubernetes' control loops: it
applies objects, deletes, patches and scales them, stops and starts
controllers and nodes, and expects what the loops make of it, while a
timeline shows every change with who made it (you, the replicaset
controller, the scheduler, the simulated kubelet, the garbage collector,
an operator...). Each runs in a namespace of its own and cleans up after
itself, also when it fails or is interrupted.

crdlab has built-in scenarios ('crdlab scenario list'); yours are YAML files
in the same format (docs/scenario-format.md, docs/scenario.schema.json).

--lang zh (or a Chinese locale: LANG=zh_CN.UTF-8) shows the scenarios in
Chinese: their titles, narration, step names and explanations (English
where a scenario has no Chinese text), the runner's own words, and the
timeline's actors with a gloss (replicaset（副本集控制器）); Kubernetes'
words (verbs, kinds, fields) stay as they are. Run against 'crdlab up',
a scenario speaks the lab's language unless --lang or the locale says
otherwise. docs/zh is the guide in Chinese.`,
		Example: `  crdlab scenario list
  crdlab scenario explain delete-pod
  crdlab scenario run delete-pod
  crdlab scenario run --all --junit report.xml
  crdlab scenario lint my-scenario.yaml
  crdlab scenario run delete-pod --lang zh`,
	}
	g.addLangFlag(cmd, true)
	cmd.AddCommand(newScenarioListCommand(g), newScenarioExplainCommand(g), newScenarioRunCommand(g), newScenarioLintCommand(g))
	return cmd
}

func newScenarioListCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := scenarios.Builtin()
			if err != nil {
				return err
			}
			l := g.language()
			rows := [][]string{strings.Split(l.Msg("NAME\tTITLE\tNEEDS"), "\t")}
			for _, s := range all {
				s = s.In(l)
				needs := strings.Join(s.Spec.Requires, ",")
				if needs == "" {
					needs = l.Msg("any cluster")
				}
				rows = append(rows, []string{s.Metadata.Name, s.Spec.Title, needs})
			}
			printColumns(cmd.OutOrStdout(), rows)
			return nil
		},
	}
}

func newScenarioExplainCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "explain NAME|FILE",
		Short: "Show what a scenario shows, its steps, and its explanation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := scenarios.Load(args[0])
			if err != nil && slices.Contains(scenarios.LessonNames(), args[0]) {
				s, err = scenarios.LoadLesson(args[0]) // a lesson, by the name crdlab learn lists
			}
			if err != nil {
				return err
			}
			scenarios.Explain(cmd.OutOrStdout(), s.In(g.language()))
			return nil
		},
	}
}

func newScenarioLintCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check scenario files without running them (no cluster needed)",
		Long: `Check scenario files: strict YAML decoding (unknown fields and steps, wrong
types, bad durations), required fields, one action per step, label
selectors, CEL expressions, and the files apply steps name. Every problem
is reported with its file and line. The exit status is 1 when any file has
a problem.`,
		Example: `  crdlab scenario lint my-scenario.yaml other.yaml`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l := g.language()
			bad := 0
			for _, f := range args {
				s, err := scenarios.Load(f)
				if err != nil {
					bad++
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					continue
				}
				fmt.Fprint(cmd.OutOrStdout(), l.Msgf("%s: ok\n", f))
				if missing := s.Untranslated(lang.ZH); len(missing) > 0 {
					fmt.Fprint(cmd.ErrOrStderr(), l.Msgf("%s: warning: no Chinese text for %s (a --lang zh learner reads them in English)\n", f, strings.Join(missing, ", ")))
				}
			}
			if bad > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
}

type runFlags struct {
	all        bool
	output     string
	junit      string
	kubeconfig string
}

func newScenarioRunCommand(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run NAME|FILE...",
		Short: "Run scenarios, built-in or from files, showing the timeline",
		Long: `Run scenarios, one after the other, each in a namespace of its own. The exit
status is 1 when an expectation of any scenario fails.

Where they run:
  - with 'crdlab up' running (on --state-dir): against that lab;
  - with no lab running: crdlab starts one for the run on --state-dir, as
    'crdlab up -d' does (with up's defaults), and stops it after;
  - with --kubeconfig: against that cluster (a real one, when one machine is
    not enough). Lab actions (stopping controllers and nodes) need a crdlab
    lab: a scenario that has one is skipped from that step on, with a note.

Output: narration, each step and its result, and the timeline of every
change in the scenario's namespaces with who made it; colour on a
terminal. On a lab the timeline is in the cluster's order (etcd
revisions), with the apiserver's times, each line under the step that
caused it; with --kubeconfig it is in arrival order, as a note says.
--output json writes one JSON object per line instead; --junit FILE also
writes a JUnit XML report.`,
		Example: `  crdlab scenario run delete-pod
  crdlab scenario run --all
  crdlab scenario run ./my-scenario.yaml --output json
  crdlab scenario run invalid-cr --kubeconfig ~/.kube/config`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenarios(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, f, args)
		},
	}
	cmd.Flags().BoolVar(&f.all, "all", false, "run every built-in scenario")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "text, or json: one JSON object per line")
	cmd.Flags().StringVar(&f.junit, "junit", "", "also write a JUnit XML report to this file")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "run against the cluster of this kubeconfig instead of a crdlab lab")
	return cmd
}

func runScenarios(ctx context.Context, out, errOut io.Writer, g *globalFlags, f *runFlags, args []string) error {
	if f.output != "text" && f.output != "json" {
		return errors.New(g.language().Msgf("--output %q: want text or json", f.output))
	}
	// The language: --lang, the locale, or the running lab's.
	labLang := lang.EN
	if st, err := g.state().Status(); err == nil && f.kubeconfig == "" && st.Lang != "" {
		labLang = lang.Lang(st.Lang)
	}
	l := g.languageOr(labLang)
	var list []*scenarios.Scenario
	switch {
	case f.all && len(args) > 0:
		return errors.New(l.Msg("give scenario names or --all, not both"))
	case f.all:
		all, err := scenarios.Builtin()
		if err != nil {
			return err
		}
		list = all
	case len(args) == 0:
		return lang.Errorf("which scenario? give a name (%s), a file, or --all", strings.Join(scenarios.Names(), ", "))
	}
	for _, a := range args {
		s, err := scenarios.Load(a)
		if err != nil {
			return err
		}
		list = append(list, s)
	}
	var junit *os.File
	if f.junit != "" {
		var err error
		if junit, err = os.Create(f.junit); err != nil {
			return lang.Errorf("--junit: %w", err)
		}
		defer junit.Close()
	}

	listener := scenarios.TextListenerIn(out, l)
	if f.output == "json" {
		listener = scenarios.JSONListener(out)
	}
	say := func(format string, args ...any) {
		if f.output == "text" {
			fmt.Fprintln(out, l.Msgf(format, args...))
		}
	}

	// A lab started for one scenario is the lab it needs (spec.lab);
	// for several, the default lab, which skips a scenario it is too
	// small for, saying so.
	var needs *format.LabNeeds
	if len(list) == 1 {
		needs = list[0].Spec.Lab
	}
	target, stop, err := scenarioTarget(ctx, out, errOut, g, f, needs, say)
	if err != nil {
		return err
	}
	defer stop()
	if c, ok := target.Lab.(scenarios.RemoteLab); ok {
		// The lab's web UI shows the run beside its timeline, each of the
		// run's timeline lines under its step.
		report, end := c.Report(ctx)
		defer end()
		shown := listener
		listener = func(e scenarios.Entry) {
			shown(e)
			report(e)
		}
	}

	started := time.Now()
	var results []*scenarios.Result
	failed := 0
	for _, s := range list {
		if ctx.Err() != nil {
			break
		}
		res, err := scenarios.Run(ctx, s, target, scenarios.Options{Listener: listener, Timeline: true, Lang: l})
		if err != nil {
			return err
		}
		results = append(results, res)
		if res.Status == scenarios.Failed {
			failed++
		}
	}
	if len(list) > 1 && f.output == "text" {
		fmt.Fprintln(out, l.Msg("Summary"))
		for _, r := range results {
			fmt.Fprintf(out, "  %-7s %-18s %5.1fs  %s\n", l.Msg(strings.ToUpper(r.Status)), r.Scenario, r.Duration.Seconds(), r.Message)
		}
	}
	if junit != nil {
		if err := scenarios.WriteJUnit(junit, results, started); err != nil {
			return lang.Errorf("--junit: %w", err)
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(errOut, l.Msg("interrupted: the scenario cleaned up after itself"))
		return exitCode(130)
	}
	if failed > 0 {
		return exitCode(1)
	}
	return nil
}

// scenarioTarget finds where scenarios run: --kubeconfig, the running lab,
// or a lab started for the run as 'crdlab up -d' starts one (startLab),
// which stop stops.
func scenarioTarget(ctx context.Context, out, errOut io.Writer, g *globalFlags, f *runFlags, needs *format.LabNeeds, say func(string, ...any)) (scenarios.Target, func(), error) {
	nothing := func() {}
	if f.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
		if err != nil {
			return scenarios.Target{}, nothing, lang.Errorf("--kubeconfig %s: %w", f.kubeconfig, err)
		}
		say("running against %s (--kubeconfig %s); lab actions are skipped", cfg.Host, f.kubeconfig)
		return scenarios.Target{Config: cfg}, nothing, nil
	}
	sd := g.state()
	if c, err := control.Dial(sd); err == nil {
		cfg, err := clientcmd.BuildConfigFromFlags("", sd.Kubeconfig())
		if err != nil {
			return scenarios.Target{}, nothing, lang.Errorf("the running lab's kubeconfig: %w", err)
		}
		say("running against the lab of 'crdlab up' (%s)", sd)
		return scenarios.Target{Config: cfg, Lab: scenarios.RemoteLab{Client: c}, AuditLog: sd.AuditLog()}, nothing, nil
	}

	say("no lab running on %s: booting one for this run ('crdlab up -d' keeps one running)", sd)
	shown := io.Discard
	if f.output == "text" {
		shown = out
	}
	var opts control.UpOptions
	if needs != nil {
		opts.Nodes, opts.Zones = max(needs.Nodes, 3), needs.Zones
	}
	st, p, err := startLab(ctx, shown, g, true, opts)
	if err != nil {
		return scenarios.Target{}, nothing, err
	}
	stop := func() {
		if err := p.Stop(stopTimeout); err != nil {
			fmt.Fprintln(errOut, err)
		}
	}
	c, err := control.Dial(sd)
	if err != nil {
		stop()
		return scenarios.Target{}, nothing, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", sd.Kubeconfig())
	if err != nil {
		stop()
		return scenarios.Target{}, nothing, lang.Errorf("the lab's kubeconfig: %w", err)
	}
	say("lab ready at %s", st.Endpoint)
	return scenarios.Target{Config: cfg, Lab: scenarios.RemoteLab{Client: c}, AuditLog: sd.AuditLog()}, stop, nil
}
