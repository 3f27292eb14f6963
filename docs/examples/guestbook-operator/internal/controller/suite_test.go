package controller

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/crdlab/crdlab/lab/labtest"
	"github.com/crdlab/crdlab/lab/labtest/trace"

	webappv1 "example.com/guestbook-operator/api/v1"
)

// The suite a kubebuilder project scaffolds, with crdlab's labtest in place
// of envtest: the same Start, Stop and CRDDirectoryPaths, and a lab with a
// controller-manager, a scheduler and simulated nodes behind it.

var (
	cfg       *rest.Config
	k8sClient client.Client
	testEnv   *labtest.Environment
	ctx       context.Context
	cancel    context.CancelFunc
	mark      labtest.Mark
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())

	Expect(webappv1.AddToScheme(scheme.Scheme)).To(Succeed())

	By("starting a lab (or attaching to 'crdlab up -d' with CRDLAB_ATTACH)")
	testEnv = &labtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())

	// trace.NewClient: the manager's client notes each write of a reconcile
	// pass, for the pass's line on the lab's timeline.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, NewClient: trace.NewClient})
	Expect(err).NotTo(HaveOccurred())
	Expect((&GuestbookReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})

// Each spec starts where the last one found the lab after boot: what a
// spec made is gone, stopped nodes run again. The timeline of the spec,
// who did what, is printed when it fails.
var _ = BeforeEach(func() {
	mark = testEnv.Mark()
})

var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		fmt.Fprintf(GinkgoWriter, "\ntimeline of the lab during the spec (who did what):\n%s", testEnv.TimelineSince(mark))
	}
	Expect(testEnv.Reset(ctx, labtest.ResetOptions{})).To(Succeed())
})
