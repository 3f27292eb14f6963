package lab_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// envtestMinors are the Kubernetes minors BenchmarkEnvtest compares on:
// the one built into crdlab and the oldest one crdlab serves.
var envtestMinors = []string{"1.37", "1.35"}

// BenchmarkEnvtest runs envtest as an operator's suite does (Start with
// CRDs installed, then Stop), side by side in each round and in rotating
// order, on 'crdlab envtest --kubernetes <minor>'s folder and on the
// reference for that minor: standalone etcd and kube-apiserver binaries
// ('make standalone': $CRDLAB_STANDALONE_ASSETS for the minor crdlab
// builds in, $CRDLAB_STANDALONE_ASSETS/<minor> for the others), what
// setup-envtest gives a user. It prints, per minor, the median Start and
// Stop and their ratios against the reference of the same run.
//
//	make bench-envtest    # $CRDLAB_BINARY is bin/crdlab
func BenchmarkEnvtest(b *testing.B) {
	if f := flag.Lookup("test.benchtime"); f != nil {
		// -benchtime Nx: skip the harness's first run of b.N = 1.
		if n, err := strconv.Atoi(strings.TrimSuffix(f.Value.String(), "x")); err == nil && b.N < n {
			return
		}
	}
	quiet()
	cli, standalone := os.Getenv("CRDLAB_BINARY"), os.Getenv("CRDLAB_STANDALONE_ASSETS")
	if cli == "" || standalone == "" {
		b.Fatal("CRDLAB_BINARY must name bin/crdlab and CRDLAB_STANDALONE_ASSETS the standalone binaries (make standalone; make bench-envtest sets both)")
	}
	crds := []string{"../fixtures/crds"}
	type row struct{ minor, name, assets string }
	var rows []row
	for i, minor := range envtestMinors {
		ref, args := standalone, []string{"envtest", "--dir", filepath.Join(b.TempDir(), "assets")}
		if i > 0 { // not the minor built into crdlab
			ref, args = filepath.Join(standalone, minor), append(args, "--kubernetes", minor)
		}
		out, err := exec.Command(cli, args...).Output()
		if err != nil {
			b.Fatalf("crdlab %s: %v\n%s", strings.Join(args, " "), err, stderrOf(err))
		}
		rows = append(rows,
			row{minor, "standalone", ref},
			row{minor, "crdlab", strings.TrimSpace(string(out))})
	}
	start, stop := map[row][]time.Duration{}, map[row][]time.Duration{}
	load0 := loadavg()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range rows {
			r := rows[(i+j)%len(rows)]
			env := &envtest.Environment{BinaryAssetsDirectory: r.assets, CRDDirectoryPaths: crds, ErrorIfCRDPathMissing: true}
			t0 := time.Now()
			if _, err := env.Start(); err != nil {
				b.Fatalf("envtest on %s (%s %s): %v", r.assets, r.name, r.minor, err)
			}
			t1 := time.Now()
			if err := env.Stop(); err != nil {
				b.Fatalf("envtest on %s: stop: %v", r.assets, err)
			}
			start[r] = append(start[r], t1.Sub(t0))
			stop[r] = append(stop[r], time.Since(t1))
		}
	}
	b.StopTimer()
	fmt.Printf("\n%d rounds, medians; ratios against the standalone binaries of the same minor, this run\n\n", b.N)
	fmt.Println("| Kubernetes | envtest on | Start (CRDs installed) | × reference | Stop | × reference | Start + Stop | × reference |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for i := 0; i < len(rows); i += 2 {
		ref, r := rows[i], rows[i+1]
		refStart, refStop, refBoth := median(start[ref]).Seconds(), median(stop[ref]).Seconds(), median(sum(start[ref], stop[ref])).Seconds()
		s, st, both := median(start[r]).Seconds(), median(stop[r]).Seconds(), median(sum(start[r], stop[r])).Seconds()
		fmt.Printf("| %s | standalone binaries (**reference**) | %.2f s | 1.00× | %.2f s | 1.00× | %.2f s | 1.00× |\n", r.minor, refStart, refStop, refBoth)
		fmt.Printf("| %s | `crdlab envtest --kubernetes %s` | %.2f s | %.2f× | %.2f s | %.2f× | %.2f s | %.2f× |\n",
			r.minor, r.minor, s, s/refStart, st, st/refStop, both, both/refBoth)
		unit := "v" + strings.ReplaceAll(r.minor, ".", "_")
		b.ReportMetric(refStart, unit+"-standalone-start-s")
		b.ReportMetric(s, unit+"-crdlab-start-s")
		b.ReportMetric(s/refStart, unit+"-crdlab/standalone")
	}
	fmt.Println("\nEach round, Start in seconds, reference then crdlab:")
	for i := 0; i < len(rows); i += 2 {
		ref, r := rows[i], rows[i+1]
		var pairs []string
		for k := range start[r] {
			pairs = append(pairs, fmt.Sprintf("%.2f/%.2f", start[ref][k].Seconds(), start[r][k].Seconds()))
		}
		fmt.Printf("%s: %s\n", r.minor, strings.Join(pairs, " "))
	}
	fmt.Printf("Load average before and after: %s, %s\n\n", load0, loadavg())
}

// sum returns the element-wise sums of a and b.
func sum(a, b []time.Duration) []time.Duration {
	out := make([]time.Duration, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

// loadavg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg says, or "?" where there is none.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// stderrOf returns what a failed command wrote on stderr, if err says.
func stderrOf(err error) string {
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
