package lab_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/internal/proc"
	"github.com/crdlab/crdlab/lab/labtest/control"
	"github.com/crdlab/crdlab/lab/timeline"
)

// Every process of a lab is supervised: killed as a crash would (SIGKILL),
// it is started again on the same port, certificates and data; the lab
// says degraded meanwhile, and works again afterwards.
var _ = Describe("supervision", Ordered, func() {
	var (
		c  client.Client
		ns string
	)
	BeforeAll(func(ctx context.Context) {
		c = shared.Client()
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "crash-"}}
		Expect(c.Create(ctx, n)).To(Succeed())
		ns = n.Name
	})

	processHealth := func(h control.Health, name string) control.ProcessHealth {
		for _, p := range h.Processes {
			if p.Name == name {
				return p
			}
		}
		Fail("no process " + name + " in the lab's health")
		return control.ProcessHealth{}
	}

	It("lists every supervised process as up", func() {
		h := shared.Health()
		Expect(h.State).To(Equal(control.StateRunning))
		var names []string
		for _, p := range h.Processes {
			names = append(names, p.Name)
			Expect(p.Up).To(BeTrue(), p.Name)
		}
		Expect(names).To(Equal([]string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}))
	})

	for i, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		It("restarts "+name+" killed with SIGKILL; degraded meanwhile, working after", func(ctx context.Context) {
			// The fault goes into a lab at rest. kube-controller-manager
			// answers /healthz before it starts its controllers, and one
			// whose controllers fail to start (etcd killed under it) exits:
			// a second crash, which this spec does not count.
			Eventually(controllersRunning).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
			before := processHealth(shared.Health(), name).Restarts
			healthMark, eventMark := seen.marks()
			killed := time.Now()
			Expect(shared.KillProcess(name)).To(Succeed())

			Eventually(func(g Gomega) {
				h := shared.Health()
				g.Expect(h.State).To(Equal(control.StateRunning))
				p := processHealth(h, name)
				g.Expect(p.Up).To(BeTrue())
				g.Expect(p.Restarts).To(Equal(before + 1))
			}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
			GinkgoWriter.Printf("%s: up again %s after the kill\n", name, time.Since(killed).Round(time.Millisecond))

			// What the lab said meanwhile: degraded with the process down,
			// then running; and both on the timeline. The callbacks of the
			// restart come just after Health says up.
			var (
				healths []control.Health
				events  []timeline.Event
			)
			Eventually(func(g Gomega) {
				healths, events = seen.since(healthMark, eventMark)
				g.Expect(healths).To(HaveLen(2))
			}).WithContext(ctx).WithTimeout(10 * time.Second).WithPolling(10 * time.Millisecond).Should(Succeed())
			Expect(healths[0].State).To(Equal(control.StateDegraded))
			Expect(processHealth(healths[0], name).Up).To(BeFalse())
			Expect(processHealth(healths[0], name).DownSince).NotTo(BeZero())
			Expect(healths[1].State).To(Equal(control.StateRunning))
			var verbs []string
			for _, e := range events {
				if e.Kind == "Process" && e.Name == name {
					verbs = append(verbs, e.Verb)
				}
			}
			Expect(verbs).To(Equal([]string{"CRASHED", "RESTARTED"}))

			// A write made now succeeds, at once, and the whole chain works:
			// the Deployment's Pod is created, scheduled and run.
			Expect(c.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "after-" + name, Namespace: ns},
			})).To(Succeed())
			Expect(c.Create(ctx, deployment(ns, fmt.Sprintf("after-%d", i), 1))).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(runningReadyPods(ctx, g, c, ns, fmt.Sprintf("after-%d", i))).To(HaveLen(1))
			}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		}, NodeTimeout(3*time.Minute))
	}

	It("refuses to kill a process it does not have", func() {
		err := shared.KillProcess("kubelet")
		Expect(err).To(MatchError(lab.ErrUnknownComponent))
		Expect(err.Error()).To(ContainSubstring("etcd, kube-apiserver, kube-controller-manager, kube-scheduler"))
	})
})

// controllersRunning fails until the lab's kube-controller-manager has
// started its controllers: it adds their health checks to its verbose
// /healthz report once all of them started.
func controllersRunning(ctx context.Context) error {
	pids, err := proc.Children(os.Getpid())
	if err != nil {
		return err
	}
	port := ""
	for _, pid := range pids {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if filepath.Base(args[0]) != "kube-controller-manager" {
			continue
		}
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "--secure-port="); ok {
				port = v
			}
		}
	}
	if port == "" {
		return errors.New("no kube-controller-manager running")
	}
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback
	defer hc.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:"+port+"/healthz?verbose", nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !strings.Contains(string(body), "[+]replicaset-controller ok") {
		return fmt.Errorf("kube-controller-manager has not started its controllers yet:\n%s", body)
	}
	return nil
}
