//go:build linux

package lab_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/crdlab/crdlab/lab"
)

// profileSlice is how long each CPU profile a component's /debug/pprof
// takes: a step's profile is its slices merged, the last ending at most
// this long after the step.
const profileSlice = 2 * time.Second

// profiler writes CPU profiles of a row's processes over a step into the
// folder $CRDLAB_BENCH_SCALE_PROFILE (make bench-scale BENCH_SCALE_PROFILE=dir),
// one file a process and step, <row>-<step>-<process>.pb.gz:
// kube-apiserver's (the row's lab runs it with --profiling), kube-
// controller-manager's and kube-scheduler's from their /debug/pprof, in
// slices of profileSlice merged until the step ends; and this process's
// (the benchmark's client and watches and, in crdlab's row, the simulated
// kubelets) through runtime/pprof, the benchmark's own goroutines labelled
// bench=client (the requests it times) and bench=watch (its watch that
// counts). etcd serves no /debug/pprof in a lab (its flags are the lab's):
// its CPU seconds are in the row's table. A nil profiler profiles nothing.
type profiler struct{ dir string }

// newProfiler is the profiler $CRDLAB_BENCH_SCALE_PROFILE asks for, nil if
// it is not set.
func newProfiler(b *testing.B) *profiler {
	dir := os.Getenv("CRDLAB_BENCH_SCALE_PROFILE")
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("CRDLAB_BENCH_SCALE_PROFILE: %v", err)
	}
	fmt.Printf("profiles in %s\n", dir)
	return &profiler{dir: dir}
}

// apiServerFlags are the flags a row's kube-apiserver needs to be
// profiled: the lab runs it with --profiling=false.
func (p *profiler) apiServerFlags() map[string]string {
	if p == nil {
		return nil
	}
	return map[string]string{"profiling": "true"}
}

// start profiles l's processes from now on; the returned stop ends the
// profiles and writes them as <row>-<step>-<process>.pb.gz.
func (p *profiler) start(ctx context.Context, b *testing.B, l *lab.Lab, row, step string) (stop func()) {
	if p == nil {
		return func() {}
	}
	name := func(process string) string {
		return filepath.Join(p.dir, fmt.Sprintf("%s-%s-%s.pb.gz", row, step, process))
	}
	self, err := os.Create(name(benchProcess))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(self); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for process, c := range profiledServers(l) {
		wg.Go(func() {
			if err := profileSlices(ctx, c, done, name(process)); err != nil {
				fmt.Printf("%s, %s: no CPU profile of %s: %v\n", row, step, process, err)
			}
		})
	}
	return func() {
		pprof.StopCPUProfile()
		if err := self.Close(); err != nil {
			b.Fatal(err)
		}
		close(done)
		wg.Wait()
	}
}

// profiledServers are the clients of the /debug/pprof of l's processes:
// kube-apiserver's, and kube-controller-manager's and kube-scheduler's if
// they run.
func profiledServers(l *lab.Lab) map[string]rest.Interface {
	client := func(cfg *rest.Config) rest.Interface {
		cfg.Timeout = 4 * profileSlice
		return kubernetes.NewForConfigOrDie(cfg).CoreV1().RESTClient()
	}
	out := map[string]rest.Interface{"kube-apiserver": client(l.RESTConfig())}
	for component, process := range map[string]string{lab.ControllerManager: "kube-controller-manager", lab.Scheduler: "kube-scheduler"} {
		host, ca, err := l.ComponentServer(component)
		if err != nil {
			continue // not in this lab
		}
		cfg := l.RESTConfig()
		cfg.Host, cfg.CAData, cfg.CAFile = host, ca, ""
		out[process] = client(cfg)
	}
	return out
}

// profileSlices takes CPU profiles of profileSlice from c's /debug/pprof
// until done is closed, and writes them merged to path.
func profileSlices(ctx context.Context, c rest.Interface, done <-chan struct{}, path string) error {
	var slices []*profile.Profile
	for {
		raw, err := c.Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(int(profileSlice/time.Second))).DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("/debug/pprof/profile: %w", err)
		}
		prof, err := profile.Parse(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("/debug/pprof/profile: %w", err)
		}
		slices = append(slices, prof)
		select {
		case <-done:
			merged, err := profile.Merge(slices)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if err := merged.Write(&out); err != nil {
				return err
			}
			return os.WriteFile(path, out.Bytes(), 0o644)
		default:
		}
	}
}

// heap writes each process's heap profile, after a collection, as
// <row>-<step>-<process>.heap.pb.gz: what holds the memory a row ends with
// (go tool pprof -sample_index=inuse_space).
func (p *profiler) heap(ctx context.Context, b *testing.B, l *lab.Lab, row, step string) {
	if p == nil {
		return
	}
	name := func(process string) string {
		return filepath.Join(p.dir, fmt.Sprintf("%s-%s-%s.heap.pb.gz", row, step, process))
	}
	runtime.GC()
	var self bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&self, 0); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name(benchProcess), self.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for process, c := range profiledServers(l) {
		raw, err := c.Get().AbsPath("/debug/pprof/heap").Param("gc", "1").DoRaw(ctx)
		if err != nil {
			fmt.Printf("%s, %s: no heap profile of %s: %v\n", row, step, process, err)
			continue
		}
		if err := os.WriteFile(name(process), raw, 0o644); err != nil {
			b.Fatal(err)
		}
		// The text form ends with the runtime's MemStats: how much of the
		// heap is in use, idle, returned to the system.
		text, err := c.Get().AbsPath("/debug/pprof/heap").Param("debug", "1").DoRaw(ctx)
		if err == nil {
			if i := bytes.Index(text, []byte("\n# runtime.MemStats")); i >= 0 {
				text = text[i+1:]
			}
			err = os.WriteFile(strings.TrimSuffix(name(process), ".pb.gz")+".memstats.txt", text, 0o644)
		}
		if err != nil {
			fmt.Printf("%s, %s: no MemStats of %s: %v\n", row, step, process, err)
		}
	}
}

// labelled runs f with the pprof label bench=what: the benchmark's own
// goroutines, told apart in its process's profile.
func labelled(ctx context.Context, what string, f func()) {
	pprof.Do(ctx, pprof.Labels("bench", what), func(context.Context) { f() })
}
