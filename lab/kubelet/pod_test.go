package kubelet

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// pod is a Pod bound to lab-node-1 at t0, before any kubelet saw it.
func pod(mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("0123456789abcdef"),
			CreationTimestamp: metav1.NewTime(t0), Annotations: map[string]string{}},
		Spec: corev1.PodSpec{
			NodeName:      "lab-node-1",
			RestartPolicy: corev1.RestartPolicyAlways,
			Containers:    []corev1.Container{{Name: "web", Image: "nginx"}, {Name: "sidecar", Image: "envoy"}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}},
		},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

// running is what the kubelet wrote when the Pod started at start.
func running(start time.Time, behavior string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		k := &Kubelet{}
		p.Status = *k.runningStatus(p, mustNode("lab-node-1", 1), start, behavior)
	}
}

func annotate(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations[key] = value }
}

func neverRestart(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever }

// notReady is what the node lifecycle controller writes for a Pod of a
// node it sees NotReady.
func notReady(p *corev1.Pod) {
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			c.Status, c.Reason = corev1.ConditionFalse, "NodeNotReady"
		}
	}
}

func condition(s *corev1.PodStatus, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

// TestSyncPod drives one step of a Pod's simulated life at a given moment
// and checks the status written and when the kubelet looks again.
func TestSyncPod(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		now     time.Time
		opts    Options
		stopped bool // the node is stopped

		wantPhase corev1.PodPhase // "": no status written
		wantReady corev1.ConditionStatus
		wantNext  time.Duration
		check     func(t *testing.T, s *corev1.PodStatus)
	}{{
		name: "a bound Pod starts, ready, and runs until deleted",
		pod:  pod(), now: t0,
		wantPhase: corev1.PodRunning, wantReady: corev1.ConditionTrue, wantNext: 0,
		check: func(t *testing.T, s *corev1.PodStatus) {
			if s.PodIP != "10.128.0.2" || s.HostIP != "10.89.0.1" {
				t.Errorf("addresses: pod %s, host %s", s.PodIP, s.HostIP)
			}
			if len(s.ContainerStatuses) != 2 || s.ContainerStatuses[0].State.Running == nil || !s.ContainerStatuses[1].Ready {
				t.Errorf("container statuses: %+v", s.ContainerStatuses)
			}
			if !s.StartTime.Time.Equal(t0) {
				t.Errorf("start time %s", s.StartTime)
			}
		},
	}, {
		name: "a start delay is waited out",
		pod:  pod(), now: t0.Add(time.Second), opts: Options{StartDelay: 3 * time.Second},
		wantNext: 2 * time.Second,
	}, {
		name: "the start-delay annotation wins over the option",
		pod:  pod(annotate(AnnotationStartDelay, "10s")), now: t0.Add(time.Second), opts: Options{StartDelay: 3 * time.Second},
		wantNext: 9 * time.Second,
	}, {
		name: "a never-ready Pod runs, not ready",
		pod:  pod(annotate(AnnotationBehavior, BehaviorNeverReady)), now: t0,
		wantPhase: corev1.PodRunning, wantReady: corev1.ConditionFalse,
	}, {
		name: "a crash-looping Pod starts crashed, and is looked at again",
		pod:  pod(annotate(AnnotationBehavior, BehaviorCrashLoop)), now: t0,
		wantPhase: corev1.PodRunning, wantReady: corev1.ConditionFalse, wantNext: crashLoopEvery,
		check: func(t *testing.T, s *corev1.PodStatus) {
			cs := s.ContainerStatuses[0]
			if cs.RestartCount != 1 || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" {
				t.Errorf("container status: %+v", cs)
			}
		},
	}, {
		name: "a crash-looping Pod crashes again once the back-off passed",
		pod:  pod(annotate(AnnotationBehavior, BehaviorCrashLoop), running(t0, BehaviorCrashLoop)), now: t0.Add(crashLoopEvery),
		wantPhase: corev1.PodRunning, wantReady: corev1.ConditionFalse, wantNext: crashLoopEvery,
		check: func(t *testing.T, s *corev1.PodStatus) {
			if n := s.ContainerStatuses[0].RestartCount; n != 2 {
				t.Errorf("restart count %d, want 2", n)
			}
		},
	}, {
		name: "a crash-looping Pod in back-off waits",
		pod:  pod(annotate(AnnotationBehavior, BehaviorCrashLoop), running(t0, BehaviorCrashLoop)), now: t0.Add(2 * time.Second),
		wantNext: crashLoopEvery - 2*time.Second,
	}, {
		name: "a running Pod someone marked not ready is ready again",
		pod:  pod(running(t0, ""), notReady), now: t0.Add(time.Minute),
		wantPhase: corev1.PodRunning, wantReady: corev1.ConditionTrue,
	}, {
		name: "a never-ready Pod marked not ready stays so",
		pod:  pod(annotate(AnnotationBehavior, BehaviorNeverReady), running(t0, BehaviorNeverReady), notReady), now: t0.Add(time.Minute),
	}, {
		name: "a running Pod that restarts always is left alone",
		pod:  pod(running(t0, "")), now: t0.Add(time.Hour),
	}, {
		name: "a Pod that never restarts runs for RunTime",
		pod:  pod(neverRestart, running(t0, "")), now: t0.Add(300 * time.Millisecond), opts: Options{RunTime: time.Second},
		wantNext: 700 * time.Millisecond,
	}, {
		name: "then succeeds",
		pod:  pod(neverRestart, running(t0, "")), now: t0.Add(time.Second), opts: Options{RunTime: time.Second},
		wantPhase: corev1.PodSucceeded, wantReady: corev1.ConditionFalse,
		check: func(t *testing.T, s *corev1.PodStatus) {
			term := s.ContainerStatuses[0].State.Terminated
			if term == nil || term.ExitCode != 0 || term.Reason != "Completed" || !term.StartedAt.Time.Equal(t0) {
				t.Errorf("terminated state: %+v", term)
			}
		},
	}, {
		name: "the run-time annotation wins over the option",
		pod:  pod(neverRestart, annotate(AnnotationRunTime, "1m"), running(t0, "")), now: t0.Add(time.Second), opts: Options{RunTime: time.Second},
		wantNext: 59 * time.Second,
	}, {
		name: "a failing Pod fails with exit code 1",
		pod:  pod(neverRestart, annotate(AnnotationBehavior, BehaviorFail), running(t0, BehaviorFail)), now: t0.Add(time.Second), opts: Options{RunTime: time.Second},
		wantPhase: corev1.PodFailed, wantReady: corev1.ConditionFalse,
		check: func(t *testing.T, s *corev1.PodStatus) {
			if term := s.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 1 || term.Reason != "Error" {
				t.Errorf("terminated state: %+v", term)
			}
		},
	}, {
		name: "a finished Pod is left alone",
		pod:  pod(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), now: t0,
	}, {
		name: "a stopped node does nothing",
		pod:  pod(), now: t0, stopped: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.pod)
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if err := indexer.Add(tc.pod); err != nil {
				t.Fatal(err)
			}
			k := &Kubelet{
				opts:   tc.opts,
				client: client,
				pods:   corelisters.NewPodLister(indexer),
				nodes:  map[string]*node{"lab-node-1": stopped(mustNode("lab-node-1", 1), tc.stopped)},
			}
			k.now = func() time.Time { return tc.now }
			next, err := k.syncPod(context.Background(), "default/web")
			if err != nil {
				t.Fatal(err)
			}
			if next != tc.wantNext {
				t.Errorf("looks again in %s, want %s", next, tc.wantNext)
			}
			var written *corev1.PodStatus
			for _, a := range client.Actions() {
				if a.GetVerb() == "update" && a.GetSubresource() == "status" {
					p, _ := client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), "default", "web")
					written = &p.(*corev1.Pod).Status
				}
			}
			if tc.wantPhase == "" {
				if written != nil {
					t.Fatalf("wrote a status (phase %s), want none", written.Phase)
				}
				return
			}
			if written == nil {
				t.Fatal("wrote no status")
			}
			if written.Phase != tc.wantPhase {
				t.Errorf("phase %s, want %s", written.Phase, tc.wantPhase)
			}
			if got := condition(written, corev1.PodReady); got != tc.wantReady {
				t.Errorf("Ready %s, want %s", got, tc.wantReady)
			}
			if got := condition(written, corev1.ContainersReady); got != tc.wantReady {
				t.Errorf("ContainersReady %s, want %s", got, tc.wantReady)
			}
			if tc.check != nil {
				tc.check(t, written)
			}
		})
	}
}

// A Pod being deleted is removed by the kubelet's confirmation: a deletion
// with grace period 0, for that Pod's UID only.
func TestSyncPodConfirmsDeletion(t *testing.T) {
	p := pod(running(t0, ""), func(p *corev1.Pod) {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
		p.DeletionGracePeriodSeconds = ptr.To(int64(30))
	})
	client := fake.NewClientset(p)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = indexer.Add(p)
	k := &Kubelet{client: client, pods: corelisters.NewPodLister(indexer),
		nodes: map[string]*node{"lab-node-1": mustNode("lab-node-1", 1)}}
	k.now = func() time.Time { return t0 }
	if _, err := k.syncPod(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	deletes := countVerb(client.Actions(), "delete")
	if deletes != 1 {
		t.Fatalf("%d deletions, want 1: %v", deletes, client.Actions())
	}
	if _, err := client.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{}); err == nil {
		t.Error("the Pod is still there")
	}
}

// Pod addresses are stable for a Pod, and handed out in turn per node.
func TestPodIP(t *testing.T) {
	k := &Kubelet{}
	n := mustNode("lab-node-2", 2)
	if got := k.podIP(pod(), n); got != "10.128.2.2" {
		t.Errorf("first address %s", got)
	}
	if got := k.podIP(pod(), n); got != "10.128.2.3" {
		t.Errorf("second address %s", got)
	}
	if got := k.podIP(pod(func(p *corev1.Pod) { p.Status.PodIP = "10.244.9.9" }), n); got != "10.244.9.9" {
		t.Errorf("a Pod's own address %s", got)
	}
}

func TestDurationAnnotation(t *testing.T) {
	for _, tc := range []struct {
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false}, {"1s", time.Second, true}, {"0s", 0, true}, {"-1s", -time.Second, false}, {"soon", 0, false},
	} {
		p := pod()
		if tc.value != "" {
			p.Annotations[AnnotationRunTime] = tc.value
		}
		if got, ok := durationAnnotation(p, AnnotationRunTime); ok != tc.wantOK || (ok && got != tc.want) {
			t.Errorf("%q: %s, %v; want %s, %v", tc.value, got, ok, tc.want, tc.wantOK)
		}
	}
}

// mustNode is the index-th simulated node, running.
func mustNode(name string, index int) *node {
	n, err := newNode(name, index, "")
	if err != nil {
		panic(err)
	}
	return n
}

// stopped marks n stopped when s.
func stopped(n *node, s bool) *node {
	n.running = !s
	return n
}

// From bind to Ready the simulated kubelet writes a Pod's status once: the
// Pod Running and Ready in one write (a kubelet's status manager may write
// several: Pending with its containers waiting, Running, Ready). The loop
// plays the informer: each write comes back as an update of the Pod and
// is synced again, as it would be, until the Pod is Ready and nothing is
// due; the writes are counted per Pod.
func TestOneStatusWriteFromBindToReady(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		opts Options
	}{
		{"a Deployment's Pod", pod(), Options{}},
		{"a Pod started after a delay", pod(), Options{StartDelay: 3 * time.Second}},
		{"a Pod with its own start delay", pod(annotate(AnnotationStartDelay, "2s")), Options{}},
		{"a Job's Pod, until Ready", pod(neverRestart, annotate(AnnotationRunTime, "1h")), Options{}},
		{"a Pod with init containers", pod(func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
		}), Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.pod)
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if err := indexer.Add(tc.pod); err != nil {
				t.Fatal(err)
			}
			k := &Kubelet{opts: tc.opts, client: client, pods: corelisters.NewPodLister(indexer),
				nodes: map[string]*node{"lab-node-1": mustNode("lab-node-1", 1)}}
			now := t0
			k.now = func() time.Time { return now }
			writes := func() (n int) {
				for _, a := range client.Actions() {
					if a.GetVerb() == "update" && a.GetSubresource() == "status" {
						n++
					}
				}
				return n
			}
			// sync is a sync of the Pod, then the informer's update with
			// what the apiserver holds; it says whether the Pod is Ready.
			sync := func() (time.Duration, bool) {
				next, err := k.syncPod(context.Background(), "default/web")
				if err != nil {
					t.Fatal(err)
				}
				obj, err := client.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), "default", "web")
				if err != nil {
					t.Fatal(err)
				}
				if err := indexer.Update(obj); err != nil {
					t.Fatal(err)
				}
				return next, podReady(obj.(*corev1.Pod))
			}
			for step := 0; ; step++ {
				if step == 20 {
					t.Fatalf("not Ready after %d syncs, %d status writes", step, writes())
				}
				next, ready := sync()
				if ready {
					break
				}
				now = now.Add(next)
			}
			if got := writes(); got != 1 {
				t.Errorf("%d status writes from bind to Ready, want 1: %v", got, client.Actions())
			}
			// The update its own write caused: nothing more to write.
			if sync(); writes() != 1 {
				t.Errorf("the kubelet wrote again on the update of its own write: %d status writes", writes())
			}
		})
	}
}

// A Pod's deletion is confirmed with one delete. kube-apiserver carries
// out a delete of grace period 0 of a Pod being deleted in two writes: it
// sets the grace period to 0 (an update the informer sees), then removes
// the object; that update must not make the kubelet delete again.
func TestOneDeleteConfirmsADeletion(t *testing.T) {
	p := pod(running(t0, ""), func(p *corev1.Pod) {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(30 * time.Second)))
		p.DeletionGracePeriodSeconds = ptr.To(int64(30))
	})
	client := fake.NewClientset(p)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = indexer.Add(p)
	k := &Kubelet{client: client, pods: corelisters.NewPodLister(indexer),
		nodes: map[string]*node{"lab-node-1": mustNode("lab-node-1", 1)}}
	k.now = func() time.Time { return t0 }
	if _, err := k.syncPod(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	// The update kube-apiserver made before it removed the Pod, seen by
	// the informer before the removal.
	shortened := p.DeepCopy()
	shortened.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	shortened.DeletionGracePeriodSeconds = ptr.To(int64(0))
	_ = indexer.Update(shortened)
	if _, err := k.syncPod(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	deletes := countVerb(client.Actions(), "delete")
	if deletes != 1 {
		t.Errorf("%d deletes to confirm one deletion, want 1: %v", deletes, client.Actions())
	}
}

// countVerb counts the fake client's actions of verb.
func countVerb(actions []k8stesting.Action, verb string) int {
	n := 0
	for _, a := range actions {
		if a.GetVerb() == verb {
			n++
		}
	}
	return n
}
