package lab_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/multicall"
)

// The lab owns etcd and kube-apiserver as it owns every process: it starts
// them with their own environment, leaves its own alone, and stops them,
// whichever binaries they are.
var _ = Describe("control plane processes", func() {
	It("gives each child the lab's process ID in its own environment, and sets none in the lab's", func() {
		for _, v := range []string{multicall.ParentPIDEnv, multicall.WaitForEtcdEnv} {
			_, set := os.LookupEnv(v)
			Expect(set).To(BeFalse(), "%s set in the lab's process", v)
		}
		want := multicall.ParentPIDEnv + "=" + strconv.Itoa(os.Getpid())
		for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			pids := childrenNamed(name)
			Expect(pids).To(HaveLen(1), "one %s running", name)
			Expect(environ(pids[0])).To(ContainElement(want), name)
		}
		// They are the lab's own, and collect nothing while they boot
		// (the suite sets no GOGC of its own).
		for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
			Expect(environ(childrenNamed(name)[0])).To(ContainElements(multicall.BootGCEnviron()), name)
		}
		Expect(multicall.BootGCEnviron()).To(ContainElement("GOGC=off"))
		// kube-apiserver starts with etcd and waits for it; the others do not.
		Expect(environ(childrenNamed("kube-apiserver")[0])).To(ContainElement(HavePrefix(multicall.WaitForEtcdEnv + "=")))
		Expect(environ(childrenNamed("etcd")[0])).NotTo(ContainElement(HavePrefix(multicall.WaitForEtcdEnv + "=")))
	})

	It("runs the etcd and kube-apiserver of KUBEBUILDER_ASSETS (a folder as 'crdlab envtest' lays out) untuned, and Stop leaves none of them", func(ctx context.Context) {
		assets, err := multicall.Link(filepath.Join(GinkgoT().TempDir(), "assets"))
		Expect(err).NotTo(HaveOccurred())
		GinkgoT().Setenv("KUBEBUILDER_ASSETS", assets)
		before := childPIDs()

		l, err := lab.Start(ctx, lab.Options{Components: []string{}})
		Expect(err).NotTo(HaveOccurred())
		stopped := false
		defer func() {
			if !stopped {
				_ = l.Stop()
			}
		}()

		etcd := commandOf(assets, "etcd")
		api := commandOf(assets, "kube-apiserver")
		// envtest's flags, without crdlab's tuning of its own binaries.
		Expect(etcd).To(ContainElement("--unsafe-no-fsync=true"))
		Expect(etcd).NotTo(ContainElement(HavePrefix("--election-timeout=")))
		Expect(api).To(ContainElement("--disable-admission-plugins=ServiceAccount"))
		Expect(api).NotTo(ContainElement(HavePrefix("--enable-priority-and-fairness=")))
		for _, name := range []string{"etcd", "kube-apiserver"} {
			for _, pid := range childrenNamed(name) {
				if args := cmdline(pid); args[0] == filepath.Join(assets, name) {
					Expect(environ(pid)).NotTo(ContainElement(HavePrefix("GOGC=")), name)
				}
			}
		}
		Expect(l.Client().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foreign", Namespace: "default"}})).To(Succeed())

		stopped = true
		Expect(l.Stop()).To(Succeed())
		Expect(childPIDs()).To(Equal(before))
	}, NodeTimeout(120e9))
})

// commandOf returns the command line of this process's one child run from
// dir/name, failing when there is none.
func commandOf(dir, name string) []string {
	GinkgoHelper()
	for _, pid := range childrenNamed(name) {
		if args := cmdline(pid); len(args) > 0 && args[0] == filepath.Join(dir, name) {
			return args
		}
	}
	Fail(fmt.Sprintf("no child process %s runs from %s", name, dir))
	return nil
}

// childrenNamed returns this process's children called name (the base of
// their argv[0]).
func childrenNamed(name string) []int {
	var pids []int
	for _, pid := range childPIDs() {
		if args := cmdline(pid); len(args) > 0 && filepath.Base(args[0]) == name {
			pids = append(pids, pid)
		}
	}
	return pids
}

func cmdline(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

func environ(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	Expect(err).NotTo(HaveOccurred())
	return slices.DeleteFunc(strings.Split(string(data), "\x00"), func(s string) bool { return s == "" })
}
