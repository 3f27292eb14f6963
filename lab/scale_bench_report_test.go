//go:build linux

package lab_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab/internal/proc"
)

// scaleRow is what BenchmarkScale measured of one node simulator.
type scaleRow struct {
	name                  string
	pods, jobPods         int
	boot                  time.Duration // lab.Start to every node schedulable
	nodes                 time.Duration // kube-apiserver ready to every node schedulable
	up, down              time.Duration // the Deployment's Pods all Ready; all gone
	jobRun, jobGone       time.Duration // the Job complete; its Pods all gone
	latency               histogram     // kube-apiserver's requests over the Pods' phases
	procs                 map[string]procStat
	loadBefore, loadAfter string
	notes                 []string // phases that timed out
}

// procStat is a process's PSS with every Pod Ready, and its CPU seconds
// over the row.
type procStat struct {
	pss int64
	cpu float64
}

// benchProcess names this benchmark's own process in a row's procs: the
// lab's Go side, the benchmark's watches and, in crdlab's row, its
// simulated kubelets.
const benchProcess = "benchmark"

// scaleProcs are the processes of a row, in the order the tables give them;
// kwok is the peer's node simulator.
var scaleProcs = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", benchProcess}

func (r *scaleRow) rate(d time.Duration) float64 { return float64(r.pods) / d.Seconds() }

func (r *scaleRow) total() (pss int64, cpu float64) {
	for _, p := range r.procs {
		pss += p.pss
		cpu += p.cpu
	}
	return pss, cpu
}

// print says what the row measured as soon as it has.
func (r *scaleRow) print() {
	pss, cpu := r.total()
	fmt.Printf("%s: nodes schedulable %.1f s after kube-apiserver (lab up %.1f s); %d Pods Ready in %.1f s, gone in %.1f s; %.0f MiB PSS, %.0f CPU s; load %s → %s\n",
		r.name, r.nodes.Seconds(), r.boot.Seconds(), r.pods, r.up.Seconds(), r.down.Seconds(), mib(pss), cpu, r.loadBefore, r.loadAfter)
	for _, n := range r.notes {
		fmt.Printf("%s: %s\n", r.name, n)
	}
}

// printScaleTables prints docs/scale.md's tables: crdlab's row, the
// peer's, and crdlab's figures over the peer's.
func printScaleTables(size scaleSize, crdlab, peer *scaleRow) {
	type figure struct {
		label string
		value func(r *scaleRow) float64
	}
	figures := []figure{
		{fmt.Sprintf("%d nodes Ready, s", size.nodes), func(r *scaleRow) float64 { return r.nodes.Seconds() }},
		{fmt.Sprintf("0 → %d Pods Ready, Pods/s", size.pods), func(r *scaleRow) float64 { return r.rate(r.up) }},
		{fmt.Sprintf("%d → 0 Pods, Pods/s", size.pods), func(r *scaleRow) float64 { return r.rate(r.down) }},
	}
	if size.job > 0 {
		figures = append(figures,
			figure{fmt.Sprintf("Job of %d Pods complete, Pods/s", size.job), func(r *scaleRow) float64 { return float64(r.jobPods) / r.jobRun.Seconds() }},
			figure{"Job deleted, Pods gone/s", func(r *scaleRow) float64 { return float64(r.jobPods) / r.jobGone.Seconds() }})
	}
	figures = append(figures,
		figure{"API requests", func(r *scaleRow) float64 { return r.latency.count() }},
		figure{"request latency p50, ms", func(r *scaleRow) float64 { return r.latency.quantile(0.5) * 1000 }},
		figure{"request latency p99, ms", func(r *scaleRow) float64 { return r.latency.quantile(0.99) * 1000 }},
		figure{"PSS of every process, MiB", func(r *scaleRow) float64 { pss, _ := r.total(); return mib(pss) }},
		figure{"CPU seconds of every process", func(r *scaleRow) float64 { _, cpu := r.total(); return cpu }})
	fmt.Printf("\n%d CPUs. Ratio: crdlab's figure over KWOK's (rates: above 1 is faster; times, latency, memory, CPU: below 1 is less).\n\n", runtime.NumCPU())
	fmt.Print("| |")
	for _, f := range figures {
		fmt.Printf(" %s |", f.label)
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(figures)))
	for _, r := range []*scaleRow{crdlab, peer} {
		fmt.Printf("| %s |", r.name)
		for _, f := range figures {
			fmt.Printf(" %s |", number(f.value(r)))
		}
		fmt.Println()
	}
	fmt.Print("| **crdlab / KWOK** |")
	for _, f := range figures {
		fmt.Printf(" %.2f× |", f.value(crdlab)/f.value(peer))
	}
	fmt.Println()
	for _, r := range []*scaleRow{crdlab, peer} {
		for _, n := range r.notes {
			fmt.Printf("\n%s: %s\n", r.name, n)
		}
	}
	fmt.Printf("\nPSS with %d Pods Ready, MiB (CPU seconds over the row): %s is this benchmark's process (crdlab: with its simulated kubelets).\n\n", size.pods, benchProcess)
	fmt.Printf("| | %s |\n|---|%s\n", strings.Join(scaleProcs, " | "), strings.Repeat("---|", len(scaleProcs)))
	for _, r := range []*scaleRow{crdlab, peer} {
		fmt.Printf("| %s |", r.name)
		for _, name := range scaleProcs {
			p, ok := r.procs[name]
			if !ok {
				fmt.Print(" – |")
				continue
			}
			fmt.Printf(" %.0f (%.1f) |", mib(p.pss), p.cpu)
		}
		fmt.Println()
	}
	fmt.Println()
}

// number prints a figure with the precision its size needs.
func number(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// snapshot reads this process and its children: PSS now, CPU seconds so far.
func snapshot(b *testing.B) map[string]procStat {
	tree, err := proc.Tree(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]procStat{}
	for i, p := range tree {
		name := p.Name
		if i == 0 {
			name = benchProcess
		}
		s := out[name]
		s.pss += p.PSS
		s.cpu += cpuSeconds(b, p.PID)
		out[name] = s
	}
	return out
}

// cpuSeconds is the user and system CPU time pid used so far, from
// /proc/PID/stat (fields 14 and 15, in the kernel's USER_HZ of 100).
func cpuSeconds(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name, in parentheses, may hold spaces: count from its end.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %d fields after the name, want 13 or more", pid, len(f))
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return (utime + stime) / 100
}

// histogram is kube-apiserver's apiserver_request_duration_seconds summed
// over every request but the long-running ones (WATCH, CONNECT): the
// cumulative count of each bucket, by upper bound in seconds.
type histogram map[float64]float64

// scrapeLatency reads the histogram from kube-apiserver's /metrics.
func scrapeLatency(ctx context.Context, b *testing.B, c rest.Interface) histogram {
	raw, err := c.Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		b.Fatalf("kube-apiserver /metrics: %v", err)
	}
	h := histogram{}
	for line := range strings.SplitSeq(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, "apiserver_request_duration_seconds_bucket{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			b.Fatalf("kube-apiserver /metrics: unreadable line %q", line)
		}
		if verb := metricLabel(labels, "verb"); verb == "WATCH" || verb == "WATCHLIST" || verb == "CONNECT" {
			continue
		}
		le, err1 := strconv.ParseFloat(metricLabel(labels, "le"), 64) // "+Inf" parses
		n, err2 := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("kube-apiserver /metrics: unreadable line %q", line)
		}
		h[le] += n
	}
	if len(h) == 0 {
		b.Fatal("kube-apiserver /metrics: no apiserver_request_duration_seconds_bucket")
	}
	return h
}

// metricLabel is the value of label name in a metric's labels.
func metricLabel(labels, name string) string {
	for part := range strings.SplitSeq(labels, ",") {
		if v, ok := strings.CutPrefix(part, name+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// minus is the requests of h that were not yet in earlier.
func (h histogram) minus(earlier histogram) histogram {
	out := histogram{}
	for le, n := range h {
		out[le] = n - earlier[le]
	}
	return out
}

func (h histogram) count() float64 { return h[math.Inf(1)] }

// quantile estimates the q-quantile in seconds as Prometheus's
// histogram_quantile does: linearly within the bucket that holds it, the
// highest finite bound if it falls in the last.
func (h histogram) quantile(q float64) float64 {
	bounds := make([]float64, 0, len(h))
	for le := range h {
		bounds = append(bounds, le)
	}
	slices.Sort(bounds)
	rank := q * h.count()
	lower, below := 0.0, 0.0
	for _, le := range bounds {
		if n := h[le]; n >= rank {
			if math.IsInf(le, 1) || n == below {
				return lower
			}
			return lower + (le-lower)*(rank-below)/(n-below)
		}
		lower, below = le, h[le]
	}
	return lower
}

// tail is the last n lines of the file at path, or why it cannot be read.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
