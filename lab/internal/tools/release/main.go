package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	format "github.com/crdlab/crdlab/lab/labtest/release"
)

const usage = `usage: go run ./lab/internal/tools/release package|verify [flags] <os>/<arch>...

package writes the release's archives, SHA256SUMS and index.json into -out,
and their signatures (-signing-key); verify checks them.`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || (args[0] != "package" && args[0] != "verify") {
		return fmt.Errorf("%s", usage)
	}
	cmd := args[0]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	var opts Options
	fs.StringVar(&opts.Version, "version", "", "the release's version, as v0.1.0")
	fs.StringVar(&opts.Dir, "out", "", "the release's folder (package: must not exist)")
	fs.StringVar(&opts.BaseURL, "base-url", "https://github.com/crdlab/crdlab/releases/download", "where releases are published: <base-url>/<version>/<archive>")
	fs.StringVar(&opts.License, "license", "LICENSE", "the file packaged as LICENSE")
	fs.StringVar(&opts.Readme, "readme", "README.md", "the file packaged as README.md")
	fs.StringVar(&opts.BinDir, "bin", "", "package: the binaries, <bin>/<os>-<arch>/crdlab")
	components := fs.String("components", "", "the Kubernetes minors whose components executables are released too, space-separated (make print-minors: K8S_MINORS): <bin>/<os>-<arch>/crdlab-k8s-<minor>")
	componentPlatforms := fs.String("component-platforms", "", "the platforms of the components archives, as \"linux/amd64 darwin/arm64\" (default: those of crdlab's)")
	date := fs.String("date", "0", "package: the archive entries' time, in seconds since 1970 (make release: the commit's)")
	runIt := fs.Bool("run", true, "verify: run the crdlab of this machine's platform")
	signingKey := fs.String("signing-key", "", "package: the PEM file of the ed25519 private key that signs index.json and SHA256SUMS (default: $"+SigningKeyEnv+", the key itself)")
	fs.BoolVar(&opts.AllowTestKey, "allow-test-key", false, "verify: a release signed by the test-only key checks out (make release outside the release workflow)")
	fs.BoolVar(&opts.Boot, "boot", false, "verify: the crdlab of this machine's platform boots a lab (up -d, kubectl get nodes, down) on an empty home")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if opts.Version == "" || opts.Dir == "" {
		return fmt.Errorf("%s: -version and -out are required", cmd)
	}
	platforms, err := ParsePlatforms(fs.Args())
	if err != nil {
		return err
	}
	opts.Platforms = platforms
	if opts.Components, err = ParseMinors(*components); err != nil {
		return fmt.Errorf("-components: %w", err)
	}
	opts.ComponentPlatforms = platforms
	if len(opts.Components) > 0 && strings.TrimSpace(*componentPlatforms) != "" {
		if opts.ComponentPlatforms, err = ParsePlatforms(strings.Fields(*componentPlatforms)); err != nil {
			return fmt.Errorf("-component-platforms: %w", err)
		}
	}
	if cmd == "verify" {
		if err := Verify(ctx, opts, *runIt); err != nil {
			return fmt.Errorf("release %s in %s: %w", opts.Version, opts.Dir, err)
		}
		key, _ := checkSignatures(opts.Dir, opts.AllowTestKey)
		fmt.Printf("release %s in %s: %d archives, SHA256SUMS and index.json (signed by the key %s) check out\n", opts.Version, opts.Dir, len(platforms)+len(componentsArchives(opts)), key)
		return nil
	}
	secs, err := strconv.ParseInt(*date, 10, 64)
	if err != nil {
		return fmt.Errorf("-date %q: %w", *date, err)
	}
	opts.ModTime = time.Unix(secs, 0)
	if opts.BinDir == "" {
		return fmt.Errorf("package: -bin is required")
	}
	if opts.SigningKey, err = readSigningKey(*signingKey); err != nil {
		return fmt.Errorf("package: %w", err)
	}
	if err := Package(opts); err != nil {
		return err
	}
	if id, _ := signingKeyID(opts.SigningKey); id == format.TestKey.ID {
		fmt.Printf("%s and %s signed with the TEST-ONLY key %s: no crdlab trusts this release but tests and 'make verify-release' (-allow-test-key)\n", IndexFile, SumsFile, id)
	} else {
		fmt.Printf("%s and %s signed with the release key %s\n", IndexFile, SumsFile, id)
	}
	return nil
}
