package v1

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/crdlab/crdlab/lab/labtest"

	webappv1 "example.com/guestbook-operator/api/v1"
)

// The webhook suite kubebuilder scaffolds, with crdlab's labtest in place
// of envtest: WebhookInstallOptions.Paths names config/webhook, and the
// manager's webhook server serves where Start says. The lab's apiserver
// calls the webhooks in this test process.

var (
	cfg       *rest.Config
	k8sClient client.Client
	testEnv   *labtest.Environment
	ctx       context.Context
	cancel    context.CancelFunc
	mark      labtest.Mark
)

func TestWebhooks(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Webhook Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.TODO())

	Expect(webappv1.AddToScheme(scheme.Scheme)).To(Succeed())

	By("starting a lab with the webhook configurations")
	testEnv = &labtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: labtest.WebhookInstallOptions{
			Paths: []string{filepath.Join("..", "..", "..", "config", "webhook")},
		},
		WithComponents: []string{}, // admission needs the apiserver only
	}
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())

	By("serving the webhooks in this process, where the lab said")
	w := testEnv.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme.Scheme,
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    w.LocalServingHost,
			Port:    w.LocalServingPort,
			CertDir: w.LocalServingCertDir,
		}),
		LeaderElection: false,
		Metrics:        metricsserver.Options{BindAddress: "0"},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(SetupGuestbookWebhookWithManager(mgr)).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()

	// As kubebuilder's scaffold: wait until the webhook server answers TLS.
	dialer := &net.Dialer{Timeout: time.Second}
	addr := fmt.Sprintf("%s:%d", w.LocalServingHost, w.LocalServingPort)
	Eventually(func() error {
		conn, err := tls.DialWithDialer(dialer, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return err
		}
		return conn.Close()
	}).Should(Succeed())
})

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})

var _ = BeforeEach(func() {
	mark = testEnv.Mark()
})

var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		fmt.Fprintf(GinkgoWriter, "\ntimeline of the lab during the spec (who did what):\n%s", testEnv.TimelineSince(mark))
	}
	Expect(testEnv.Reset(ctx, labtest.ResetOptions{})).To(Succeed())
})
