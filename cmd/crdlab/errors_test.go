package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/crdlab/crdlab/lab/lang"
)

// errorLocales are the languages every error path is read in: the
// pseudo-language (a word that bypasses the catalog shows bare) and
// Chinese.
var errorLocales = []struct {
	name, locale string
	l            lang.Lang
}{{"pseudo", "xx", lang.Pseudo}, {"zh", "zh_CN.UTF-8", lang.ZH}}

// checkError fails unless out, what crdlab printed for a command that
// failed, says its error through the catalog in l: no English sentence
// outside quotes of another program's words (lang.Bare) and, in Chinese,
// the error itself in Chinese, not only its "错误：".
func checkError(t *testing.T, l lang.Lang, what, out string) {
	t.Helper()
	if bare := lang.Bare(what + "\n" + out); len(bare) > 0 {
		t.Errorf("%s (%s): English outside the catalog: %q\n%s", what, l, bare, out)
	}
	if l != lang.ZH {
		return
	}
	prefix := strings.TrimSuffix(lang.ZH.Msgf("Error: %s", "\x00"), "\x00")
	i := strings.LastIndex(out, prefix)
	if i < 0 {
		t.Errorf("%s (zh): no %q line:\n%s", what, prefix, out)
		return
	}
	if !strings.ContainsFunc(out[i+len(prefix):], func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
		t.Errorf("%s (zh): the error is not said in Chinese:\n%s", what, out)
	}
}

// runInProcess runs crdlab's command line args in this process, as main
// does, and returns what it printed and whether it failed.
func runInProcess(args ...string) (string, bool) {
	var out bytes.Buffer
	cmd, g := newRoot()
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	err := cmd.ExecuteContext(context.Background())
	var code exitCode
	if err != nil && !errors.As(err, &code) { // an exit code: the command said why
		printError(cmd, g, err)
	}
	return out.String(), err != nil
}

// badValues are values each type of flag refuses, by pflag's Type.
var badValues = map[string]string{
	"int":            "many",
	"uint":           "-1",
	"float64":        "half",
	"bool":           "maybe",
	"duration":       "forever",
	"stringToString": "cpu",
	"intSlice":       "one,two",
	"en|zh":          "fr",
}

// commandAt returns the command at path under root.
func commandAt(root *cobra.Command, path []string) *cobra.Command {
	c, _, err := root.Find(path)
	if err != nil {
		return nil
	}
	return c
}

// errorPaths lists the command lines that fail before anything runs: each
// command with too few and too many arguments (where its Args refuses
// them), each flag with a value of the wrong form, and the value checks
// of up, envtest and the lab's commands with no lab running.
func errorPaths(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	root := newRootCommand()
	for _, path := range commandPaths(root) {
		c := commandAt(newRootCommand(), path)
		if c == nil || !c.Runnable() || c.Name() == "help" || c.Name() == "__complete" || c.Name() == "__completeNoDesc" {
			continue
		}
		if c.Args == nil && c.Name() != "kubectl" && !strings.HasSuffix(c.Use, "...") { // NAME...: any number
			t.Errorf("crdlab %s: no Args: extra arguments would be ignored", strings.Join(path, " "))
		}
		for _, args := range [][]string{nil, {"a", "b", "c", "d", "e"}} {
			if c.Args != nil && c.ValidateArgs(args) != nil {
				out = append(out, append(append([]string(nil), path...), args...))
			}
		}
		flags := pflag.NewFlagSet("", pflag.ContinueOnError)
		flags.AddFlagSet(c.LocalFlags())
		flags.AddFlagSet(c.InheritedFlags())
		flags.VisitAll(func(f *pflag.Flag) {
			bad, ok := badValues[f.Value.Type()]
			if !ok || f.Hidden {
				return
			}
			// On a fresh command: Set on the one run would change its default.
			fresh := commandAt(newRootCommand(), path)
			ff := fresh.Flags().Lookup(f.Name)
			if ff == nil {
				ff = fresh.InheritedFlags().Lookup(f.Name)
			}
			if ff == nil || ff.Value.Set(bad) == nil {
				return
			}
			out = append(out, append(append([]string(nil), path...), "--"+f.Name+"="+bad))
		})
	}
	return append(out,
		[]string{"no-such-command"},
		[]string{"--lang", "fr", "version"},
		[]string{"up", "--node-capacity", "cpu=lots"},
		[]string{"up", "--node-capacity", "gpu=1"},
		[]string{"up", "--node-capacity", "memory=-1Gi"},
		[]string{"up", "--node-capacity", "pods=1500m"},
		[]string{"up", "--nodes", "0"},
		[]string{"up", "--zones", "5", "--nodes", "2"},
		[]string{"up", "--components", "kubelet"},
		[]string{"up", "-d", "--webhook-port", "9443"},
		[]string{"up", "-d", "--binary-assets-dir", "/nonexistent"},
		[]string{"up", "-d", "--kubernetes", "1.2"},
		[]string{"envtest", "--kubernetes", "0.1"},
		[]string{"envtest", "--dir", "/dev/null/assets"},
		[]string{"kubectl", "get", "pods"},
		[]string{"node", "stop", "lab-node-9"},
		[]string{"controller", "stop", "no-such"},
		[]string{"status", "--output", "yaml"},
		[]string{"reset"},
		[]string{"down"},
		[]string{"learn", "no-such-lesson"},
		[]string{"scenario", "run", "no-such"},
		[]string{"scenario", "run"},
		[]string{"crd", "migrate", "/nonexistent.yaml"},
	)
}

// Every error a command line can reach with no lab running is said
// through the catalog, in the pseudo-language and in Chinese: cobra's
// "accepts 1 arg(s), received 0", pflag's refusals of a value (and Go's
// reasons in them), crdlab's own checks.
func TestErrorPathsSpeakTheCatalog(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CRDLAB_STATE_DIR", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	paths := errorPaths(t)
	if len(paths) < 60 {
		t.Fatalf("only %d error paths found: %q", len(paths), paths)
	}
	for _, loc := range errorLocales {
		t.Run(loc.name, func(t *testing.T) {
			t.Setenv("LC_ALL", loc.locale)
			for _, args := range paths {
				what := "crdlab " + strings.Join(args, " ")
				out, failed := runInProcess(args...)
				if !failed {
					t.Errorf("%s: did not fail\n%s", what, out)
					continue
				}
				checkError(t, loc.l, what, out)
			}
		})
	}
}

// The errors of a lab that runs: 'crdlab up -d' (and up) on a state dir a
// lab holds, and names the lab does not have.
func TestLabErrorsSpeakTheCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a lab")
	}
	c := newCLI(t)
	c.mustRun("up", "-d", "--no-ui", "--no-samples")
	defer c.mustRun("down")
	for _, loc := range errorLocales {
		c.env = []string{"LC_ALL=" + loc.locale}
		for _, args := range [][]string{
			{"up", "-d", "--no-ui"},
			{"up", "--no-ui"},
			{"node", "stop", "lab-node-9"},
			{"node", "start", "no-such"},
			{"controller", "stop", "no-such"},
			{"learn", "hint"},
		} {
			out, code := c.run(args...)
			what := "crdlab " + strings.Join(args, " ")
			if code == 0 {
				t.Errorf("%s (%s): did not fail\n%s", what, loc.name, out)
				continue
			}
			checkError(t, loc.l, what, out)
		}
	}
}

// A lab that cannot start says why through the catalog too: the errors the
// lab itself raises behind a flag (a port in use, a data dir it cannot
// use, node capacity beyond its podCIDR), in the pseudo-language and in
// Chinese; what the system said is quoted.
func TestLabStartErrorsSpeakTheCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts labs that fail")
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	for _, loc := range errorLocales {
		c.env = []string{"LC_ALL=" + loc.locale}
		for _, args := range [][]string{
			{"up", "-d", "--no-ui", "--components", "none", "--port", port},
			{"up", "-d", "--ui-port", port, "--components", "none"},
			{"up", "-d", "--no-ui", "--components", "none", "--data-dir", filepath.Join(notADir, "data")},
			{"up", "-d", "--no-ui", "--components", "none", "--crds", filepath.Join(notADir, "crds")},
			{"up", "-d", "--no-ui", "--components", "none", "--crds", notADir},
		} {
			out, code := c.run(args...)
			what := "crdlab " + strings.Join(args, " ")
			if code == 0 {
				t.Errorf("%s (%s): did not fail\n%s", what, loc.name, out)
				c.mustRun("down")
				continue
			}
			checkError(t, loc.l, what, out)
		}
	}
}
