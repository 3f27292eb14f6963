package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/daemon"
)

func newStatusCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say whether a lab runs on the state dir, and where",
		Long: `Say whether a lab runs on the state dir and, if one does, its process,
endpoint, kubeconfig, data dir and uptime. Exits 0 when a lab runs, 3 when
none does.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			st, err := g.state().Status()
			if errors.Is(err, daemon.ErrNotRunning) {
				fmt.Fprintf(out, "no lab is running on state dir %s\n", g.stateDir)
				return exitCode(3)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "running\n  pid:        %d\n  endpoint:   %s\n  kubeconfig: %s\n", st.PID, st.Endpoint, st.Kubeconfig)
			if st.DataDir != "" {
				fmt.Fprintf(out, "  data dir:   %s\n", st.DataDir)
			}
			fmt.Fprintf(out, "  uptime:     %s\n", time.Since(st.ReadyAt).Round(time.Second))
			tree, err := daemon.Processes(st.PID)
			if err != nil {
				return nil // it stopped meanwhile; what we printed stands
			}
			fmt.Fprintf(out, "  processes:\n")
			var rss, pss int64
			for _, p := range tree {
				rss += p.RSS
				pss += p.PSS
				fmt.Fprintf(out, "    %-24s pid %-7d rss %4d MiB  pss %4d MiB  (peak rss %d MiB)\n", p.Name, p.PID, p.RSS>>20, p.PSS>>20, p.PeakRSS>>20)
			}
			fmt.Fprintf(out, "    %-24s             rss %4d MiB  pss %4d MiB  (pss counts shared pages once)\n", "total", rss>>20, pss>>20)
			return nil
		},
	}
}
