package main

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/multicall"
)

// kubernetesFlagUsage is --kubernetes's usage, for up and envtest.
var kubernetesFlagUsage = minorText("Kubernetes minor to serve: {MINORS} ({BUILTIN} is built in; the others run from crdlab-k8s-<minor>) " +
	"(default: $" + kubeminor.Env + " if set, else {BUILTIN})")

// minorText fills in what a help text says of the minors crdlab serves,
// from their one list (kubeminor): {MINORS} "1.35, 1.36 or 1.37" (a
// preview minor marked "(preview)"),
// {OTHERS} the minors not built in ("1.35 or 1.36"), {BUILTIN}, {OLDEST},
// and {EXAMPLE} {EXAMPLE_PATCH} the newest minor not built in and its
// patch ("1.36", "1.36.5"). It remembers the template of each text it
// fills, so that the catalog translates the template (localizedText), not
// a list of minors written again.
func minorText(s string) string {
	filled := minorTextIn(lang.EN, s)
	if filled != s {
		minorTemplates[filled] = s
	}
	return filled
}

// minorTemplates maps a text minorText filled to its template.
var minorTemplates = map[string]string{}

// minorTextIn fills in s as minorText does, in l (the lists' "or").
func minorTextIn(l lang.Lang, s string) string {
	others := kubeminor.ComponentsMinors()
	example := kubeminor.BuiltIn
	if len(others) > 0 {
		example = others[len(others)-1]
	}
	or := l.Msg("or")
	var minors []string // a preview marked so
	for _, m := range kubeminor.Supported() {
		if kubeminor.Preview(m) {
			m += l.Msg(" (preview)")
		}
		minors = append(minors, m)
	}
	return strings.NewReplacer(
		"{MINORS}", kubeminor.List(minors, or),
		"{OTHERS}", kubeminor.List(others, or),
		"{BUILTIN}", kubeminor.BuiltIn,
		"{OLDEST}", kubeminor.Oldest(),
		"{EXAMPLE}", example,
		"{EXAMPLE_PATCH}", strings.TrimPrefix(kubeminor.Patch(example), "v"),
	).Replace(s)
}

// localizedText is s in l: the catalog's translation of its template,
// filled in l, when minorText filled s, else of s itself.
func localizedText(l lang.Lang, s string) string {
	if t, ok := minorTemplates[s]; ok {
		return minorTextIn(l, l.Msg(t))
	}
	return l.Msg(s)
}

func addKubernetesFlag(cmd *cobra.Command, v *string) {
	cmd.Flags().StringVar(v, "kubernetes", "", kubernetesFlagUsage)
}

// resolveKubernetes resolves, once for the command, the Kubernetes that
// --kubernetes (flag) or its variable asks for, else the built-in one, with
// its components executable.
func resolveKubernetes(ctx context.Context, l lang.Lang, flag string) (kubeminor.Kubernetes, error) {
	v := multicall.BuildVersions()
	w := kubeminor.Here(v.Crdlab, v.Release)
	w.Lang = l
	return kubeminor.Resolve(ctx, "--kubernetes", flag, w)
}

// findComponents finds the components executable of minor, the one a
// running lab serves; nil for the minor built in. Its error names the
// executable, not a flag: the user gave none.
func findComponents(ctx context.Context, l lang.Lang, minor string) (*kubeminor.Components, error) {
	if minor == kubeminor.BuiltIn {
		return nil, nil
	}
	v := multicall.BuildVersions()
	w := kubeminor.Here(v.Crdlab, v.Release)
	w.Lang = l
	return kubeminor.Find(ctx, minor, w)
}
