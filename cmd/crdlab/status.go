package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/server"
)

func newStatusCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether a lab runs on the state dir, and where",
		Long: `Say whether a lab runs on the state dir and, if one does, its process,
endpoint, kubeconfig, the Kubernetes version it serves ('crdlab up
--kubernetes'), data dir and uptime, each supervised process (etcd,
kube-apiserver, kube-controller-manager, kube-scheduler) with its restarts,
and the processes' memory. The first line is "running", or "degraded" while
a process that crashed is being restarted (or when the lab lost data it
cannot get back). Exits 0 when a lab runs, 3 when none does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			l := g.language()
			st, err := g.state().Status()
			if errors.Is(err, control.ErrNotRunning) {
				fmt.Fprint(out, l.Msgf("no lab is running on state dir %s\n", g.stateDir))
				return exitCode(3)
			}
			if err != nil {
				return err
			}
			state := st.State
			if state == "" {
				state = control.StateRunning // a lab of an older crdlab
			}
			fmt.Fprintln(out, l.Msg(string(state)))
			for _, p := range st.Problems {
				fmt.Fprint(out, l.Msgf("  problem:    %s\n", p))
			}
			if st.KubeletRefused > 0 {
				fmt.Fprint(out, l.Msgf("  refused:    %d Pod statuses of the simulated kubelet (events of reason StatusRefused); the last: %s\n",
					st.KubeletRefused, st.LastKubeletRefusal))
			}
			fmt.Fprint(out, l.Msgf("  pid:        %d\n  endpoint:   %s\n  kubeconfig: %s\n", st.PID, st.Endpoint, st.Kubeconfig))
			if st.Kubernetes != "" {
				fmt.Fprint(out, l.Msgf("  kubernetes: %s\n", st.Kubernetes))
			}
			if st.DataDir != "" {
				fmt.Fprint(out, l.Msgf("  data dir:   %s\n", st.DataDir))
			}
			if url := g.state().UIURL(st); url != "" {
				fmt.Fprint(out, l.Msgf("  web UI:     %s\n", url))
			}
			if w := st.Webhooks; w != nil {
				fmt.Fprint(out, l.Msgf("  webhooks:   serve on https://%s:%d, certificate in %s; called through %s\n", w.Host, w.Port, w.CertDir, w.Front))
			}
			if st.Lang != "" {
				fmt.Fprint(out, l.Msgf("  language:   %s\n", st.Lang))
			}
			fmt.Fprint(out, l.Msgf("  uptime:     %s\n", time.Since(st.ReadyAt).Round(time.Second)))
			printHealth(out, l, st.Processes)
			tree, err := server.Processes(st.PID)
			if err != nil {
				return nil // it stopped meanwhile; what we printed stands
			}
			printProcesses(out, tree, l)
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	return cmd
}

// printHealth lists the supervised processes: up, stopped or down (and
// since when, and why), and their restarts.
func printHealth(out io.Writer, l lang.Lang, processes []control.ProcessHealth) {
	if len(processes) == 0 {
		return
	}
	fmt.Fprint(out, l.Msg("  supervised:\n"))
	for _, p := range processes {
		state := l.Msg("up")
		switch {
		case p.Stopped:
			state = l.Msg("stopped")
		case !p.Up:
			state = l.Msgf("DOWN for %s, restarting", time.Since(p.DownSince).Round(100*time.Millisecond))
		}
		line := l.Msgf("    %-24s %s, restarts %d", p.Name, state, p.Restarts)
		if p.LastExit != "" {
			line += l.Msgf(" (last exit: %s)", p.LastExit)
		}
		fmt.Fprintln(out, line)
	}
}

// printProcesses lists the lab's processes and their memory. PSS (shared
// pages divided among the processes sharing them) and the peak RSS are
// shown where the kernel reports them (Linux); elsewhere (macOS) the lines
// give the RSS alone, whose total counts the pages the processes share
// (one executable) once per process.
func printProcesses(out io.Writer, tree []server.Process, l lang.Lang) {
	var rss, pss int64
	withPSS := false
	for _, p := range tree {
		rss += p.RSS
		pss += p.PSS
		withPSS = withPSS || p.PSS > 0
	}
	fmt.Fprint(out, l.Msg("  processes:\n"))
	for _, p := range tree {
		if withPSS {
			fmt.Fprint(out, l.Msgf("    %-24s pid %-7d rss %4d MiB  pss %4d MiB  (peak rss %d MiB)\n", p.Name, p.PID, p.RSS>>20, p.PSS>>20, p.PeakRSS>>20))
			continue
		}
		fmt.Fprintf(out, "    %-24s pid %-7d rss %4d MiB\n", p.Name, p.PID, p.RSS>>20)
	}
	if withPSS {
		fmt.Fprint(out, l.Msgf("    %-24s             rss %4d MiB  pss %4d MiB  (pss counts shared pages once)\n", l.Msg("total"), rss>>20, pss>>20))
		return
	}
	fmt.Fprint(out, l.Msgf("    %-24s             rss %4d MiB  (shared pages counted in each process)\n", l.Msg("total"), rss>>20))
}
