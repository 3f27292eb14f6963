package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/crdlab/crdlab/lab/labtest/install"
)

const usage = `Usage: setup-crdlab [flags] path|envtest

Prints where crdlab is, for a Makefile or a CI job that has Go and nothing
else:

  path     the path of the crdlab binary
  envtest  a KUBEBUILDER_ASSETS folder (etcd, kube-apiserver, kubectl run
           by crdlab): what 'crdlab envtest' prints

crdlab is, in order: $CRDLAB_BINARY, crdlab on $PATH if it is the release
wanted (another is refused), or the crdlab release of this command's
version (or --version, $CRDLAB_VERSION) for this OS and architecture,
downloaded from --download-url ($CRDLAB_DOWNLOAD_URL, default
https://github.com/crdlab/crdlab/releases/download): <url>/<version>/index.json,
its signature (index.json.sig) checked against the release keys compiled
into this command, names the archive, its size and its SHA-256, checked
before anything is unpacked into --cache-dir/<version>/<os>-<arch>/
(default: the user cache dir's crdlab folder), once; later runs download
nothing, once the cached crdlab is checked (yours, not writable by others,
its recorded SHA-256).

In a kubebuilder Makefile, the test target's setup-envtest call becomes:

  KUBEBUILDER_ASSETS="$(shell go run github.com/crdlab/crdlab/lab/labtest/cmd/setup-crdlab@<version> envtest)"

Flags (each beside its variable, which it overrides):
`

// errUsage: the command line is wrong; the usage was printed.
var errUsage = errors.New("usage")

// flags are setup-crdlab's flags.
type flags struct {
	version, downloadURL, cacheDir string
}

// run is setup-crdlab with its arguments, returning the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			_, _, _ = parse([]string{"-h"}, stdout) // the usage, on stdout when asked for
			return 0
		}
	}
	f, command, err := parse(args, stderr)
	if err != nil {
		return 2
	}
	if err := runE(ctx, f, command, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "setup-crdlab: %v\n", err)
		return 1
	}
	return 0
}

// parse reads the flags, before and after the command.
func parse(args []string, stderr io.Writer) (flags, string, error) {
	var f flags
	fs := flag.NewFlagSet("setup-crdlab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.version, "version", "", "the crdlab release to download, v0.3.0 ($"+install.VersionEnv+"; default this command's version)")
	fs.StringVar(&f.downloadURL, "download-url", "", "the base URL of the releases ($"+install.DownloadURLEnv+"; default "+install.DefaultDownloadURL+")")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where releases are unpacked, <dir>/<version>/<os>-<arch>/ (default the user cache dir's crdlab folder)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, "", err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return f, "", errUsage
	}
	command := rest[0]
	if err := fs.Parse(rest[1:]); err != nil {
		return f, "", err
	}
	if fs.NArg() > 0 || (command != "path" && command != "envtest") {
		fmt.Fprintf(stderr, "setup-crdlab: unexpected %q\n", strings.Join(rest, " "))
		fs.Usage()
		return f, "", errUsage
	}
	return f, command, nil
}

func runE(ctx context.Context, f flags, command string, stdout, stderr io.Writer) error {
	bin, err := install.Find(ctx, install.Options{Version: f.version, DownloadURL: f.downloadURL, CacheDir: f.cacheDir, Log: stderr})
	if err != nil {
		return err
	}
	if command == "path" {
		_, err := fmt.Fprintln(stdout, bin)
		return err
	}
	// The folder's layout stays crdlab's own.
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "envtest")
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s envtest: %w", bin, err)
	}
	dir := strings.TrimSpace(out.String())
	if dir == "" {
		return fmt.Errorf("%s envtest printed no folder", bin)
	}
	_, err = fmt.Fprintln(stdout, dir)
	return err
}
