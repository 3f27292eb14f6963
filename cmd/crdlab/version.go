package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
)

func newVersionCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the versions of crdlab and of the components built into it",
		Long: minorText(`Print the versions of crdlab and of the components built into it
(Kubernetes {BUILTIN}, etcd), then each Kubernetes minor crdlab serves:
built in, or the components executable found for it (crdlab-k8s-<minor>,
in $CRDLAB_COMPONENTS_DIR, next to crdlab, or in the user cache) and the
version it serves, or where it was looked for. An executable that anyone
but you or root could have changed, or (for a release of crdlab) that is
not its release's, is listed as refused, with the reason, and not run.`),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := multicall.BuildVersions()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "crdlab:             %s\nkubernetes:         %s\netcd:               %s\ncontroller-runtime: %s\ngo:                 %s\n",
				v.Crdlab, v.Kubernetes, v.Etcd, v.ControllerRuntime, v.Go)
			printMinors(cmd.Context(), out, g.language(), v)
			return nil
		},
	}
	g.addLangFlag(cmd, false)
	return cmd
}

// printMinors lists each supported minor: built in, found (where, and the
// version it serves), refused before it ran (why) or not found (where
// crdlab looked).
func printMinors(ctx context.Context, out io.Writer, l lang.Lang, v multicall.Versions) {
	fmt.Fprintln(out, l.Msg("kubernetes minors:"))
	w := kubeminor.Here(v.Crdlab, v.Release)
	w.NoDownload, w.Lang = true, l
	for _, minor := range kubeminor.Supported() {
		if kubeminor.Preview(minor) {
			// A beta or an rc: the minor before its GA release
			// (docs/kubernetes.md's support policy).
			fmt.Fprint(out, l.Msgf("  %s  %s: a preview, before its GA release\n", minor, kubeminor.Patch(minor)))
		}
		if minor == kubeminor.BuiltIn {
			fmt.Fprint(out, l.Msgf("  %s  %s, built in\n", minor, v.Kubernetes))
			continue
		}
		c, err := kubeminor.Find(ctx, minor, w)
		switch {
		case err == nil:
			fmt.Fprintf(out, "  %s  %s, %s\n", minor, c.Versions.Kubernetes, c.Path)
		case errors.Is(err, kubeminor.ErrNotFound):
			paths, _ := w.Candidates(minor)
			where := make([]string, len(paths))
			for i, p := range paths {
				where[i] = filepath.Dir(p)
			}
			fmt.Fprint(out, l.Msgf("  %s  not found (looked in %s; make components K8S=%s)\n", minor, strings.Join(where, ", "), minor))
		case errors.Is(err, kubeminor.ErrUntrusted):
			fmt.Fprint(out, l.Msgf("  %s  refused, not run: %v\n", minor, err))
		default:
			fmt.Fprint(out, l.Msgf("  %s  unusable: %v\n", minor, err))
		}
	}
}
