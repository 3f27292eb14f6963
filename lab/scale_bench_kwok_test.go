//go:build linux

package lab_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/kubelet"
)

// kwokStages are the Stages kwokctl gives its kwok controller unless told
// otherwise (pkg/kwokctl/runtime/cluster.go: the node stages with a lease,
// as its node-lease-duration-seconds defaults to 40, and the pod-fast
// ones), as paths under the kwok module's kustomize/stage.
var kwokStages = []string{
	"node/fast/node-initialize.yaml",
	"node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"pod/fast/pod-ready.yaml",
	"pod/fast/pod-complete.yaml",
	"pod/fast/pod-delete.yaml",
}

// kwokSimulator runs KWOK's controller as the node simulator of a lab, as
// kwokctl's binary runtime runs it (--manage-all-nodes, a lease of 40 s,
// the default stages), on Node objects it creates as 'kwokctl scale node'
// does, with the capacity of crdlab's simulated nodes.
type kwokSimulator struct {
	binary, stages, dir string
	// nodeCreators is how many Node objects are created at once: 16, or
	// as kwokctl scale node does, one after the other (1).
	nodeCreators int
	cmd          *exec.Cmd
	exited       chan struct{}
}

// version is what the kwok binary says it is.
func (k *kwokSimulator) version(b *testing.B) string {
	out, err := exec.Command(k.binary, "--version").Output()
	if err != nil {
		b.Fatalf("%s --version: %v\n%s", k.binary, err, stderrOf(err))
	}
	f := strings.Fields(string(out)) // kwok version v0.8.0 go1.26 (linux/amd64)
	if len(f) < 3 {
		return strings.TrimSpace(string(out))
	}
	return f[2]
}

func (k *kwokSimulator) log() string { return filepath.Join(k.dir, "kwok.log") }

// start writes kwok's configuration and kubeconfig, starts it, and creates
// the nodes. It returns once the Node objects exist.
func (k *kwokSimulator) start(ctx context.Context, l *lab.Lab, nodes int) error {
	var config []string
	for _, s := range kwokStages {
		data, err := os.ReadFile(filepath.Join(k.stages, s))
		if err != nil {
			return fmt.Errorf("kwok's stages (CRDLAB_KWOK_STAGES): %w", err)
		}
		config = append(config, string(data))
	}
	configPath, kubeconfig := filepath.Join(k.dir, "kwok.yaml"), filepath.Join(k.dir, "kubeconfig")
	if err := os.WriteFile(configPath, []byte(strings.Join(config, "\n---\n")), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(kubeconfig, l.Kubeconfig(), 0o600); err != nil {
		return err
	}
	logFile, err := os.Create(k.log())
	if err != nil {
		return err
	}
	defer logFile.Close()
	k.cmd = exec.Command(k.binary,
		"--kubeconfig="+kubeconfig,
		"--config="+configPath,
		"--manage-all-nodes=true",
		"--node-lease-duration-seconds=40",
		"--cidr=10.0.0.0/16", // an address for each of 10,000 Pods; its default is a /24
	)
	// HOME: kwok reads ~/.kwok/kwok.yaml too when there is one.
	k.cmd.Env = append(os.Environ(), "HOME="+k.dir)
	k.cmd.Stdout, k.cmd.Stderr = logFile, logFile
	k.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := k.cmd.Start(); err != nil {
		return fmt.Errorf("unable to start %s: %w", k.binary, err)
	}
	k.exited = make(chan struct{})
	go func() { _ = k.cmd.Wait(); close(k.exited) }()
	if k.nodeCreators == 1 {
		return createNodes(ctx, kwokctlClient(l), nodes, 1)
	}
	cfg := l.RESTConfig()
	cfg.ContentType = runtime.ContentTypeProtobuf
	return createNodes(ctx, kubernetes.NewForConfigOrDie(cfg), nodes, 16)
}

// stop ends kwok with SIGTERM, then SIGKILL after 10 s.
func (k *kwokSimulator) stop(b *testing.B) {
	if k.cmd == nil || k.cmd.Process == nil {
		return
	}
	select {
	case <-k.exited:
		b.Errorf("kwok exited before the end of its row: %s", k.cmd.ProcessState)
		return
	default:
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.exited:
	case <-time.After(10 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.exited
	}
}

// createNodes creates kwok-node-1 to kwok-node-N, workers at a time, with
// the annotation KWOK's documentation gives its nodes.
func createNodes(ctx context.Context, cs kubernetes.Interface, n, workers int) error {
	capacity := kubelet.DefaultCapacity()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				name := fmt.Sprintf("kwok-node-%d", i)
				node := &corev1.Node{
					ObjectMeta: metav1.ObjectMeta{
						Name:        name,
						Labels:      map[string]string{"kubernetes.io/hostname": name, "type": "kwok"},
						Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
					},
					Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
				}
				if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create node %s: %w", name, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return errors.Join(collect(errs)...)
}

func collect[T any](ch <-chan T) []T {
	var out []T
	for v := range ch {
		out = append(out, v)
	}
	return out
}

// waitNodesSchedulable waits until n nodes are Ready and without the
// not-ready and unreachable taints the node lifecycle controller puts on
// a node until it is Ready: until the scheduler can use every one.
func waitNodesSchedulable(ctx context.Context, b *testing.B, cs kubernetes.Interface, n int, timeout time.Duration) {
	if good, done := waitNodesWhere(ctx, b, cs, n, schedulable, timeout); !done {
		b.Fatalf("%d of %d nodes schedulable after %s", good, n, timeout)
	}
}

// waitNodesWhere waits until n nodes are as cond says; after timeout it
// says how many are, and that it is not done.
func waitNodesWhere(ctx context.Context, b *testing.B, cs kubernetes.Interface, n int, cond func(*corev1.Node) bool, timeout time.Duration) (good int, done bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ok := map[string]bool{}
	for i := range list.Items {
		ok[list.Items[i].Name] = cond(&list.Items[i])
	}
	rv := list.ResourceVersion
	count := func() (good int) {
		for _, v := range ok {
			if v {
				good++
			}
		}
		return good
	}
	for count() < n {
		w, err := cs.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil && ctx.Err() != nil {
			return count(), false
		}
		if err != nil {
			b.Fatalf("%d of %d nodes as wanted after %s: %v", count(), n, timeout, err)
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				b.Fatalf("watching nodes: %v", apierrors.FromObject(ev.Object))
			}
			node, isNode := ev.Object.(*corev1.Node)
			if !isNode {
				continue
			}
			rv = node.ResourceVersion
			if ev.Type == watch.Deleted {
				delete(ok, node.Name)
			} else if ev.Type != watch.Bookmark {
				ok[node.Name] = cond(node)
			}
			if count() >= n {
				break
			}
		}
		w.Stop()
		if ctx.Err() != nil && count() < n {
			return count(), false
		}
	}
	return count(), true
}

func schedulable(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	return nodeReady(n) == corev1.ConditionTrue
}
