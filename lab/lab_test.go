package lab_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/internal/fasthelp"
	"github.com/crdlab/crdlab/lab/internal/kubeversion"
	"github.com/crdlab/crdlab/lab/internal/proc"
)

var _ = Describe("a started lab", func() {
	It("serves the built-in namespaces", func(ctx context.Context) {
		var list corev1.NamespaceList
		Expect(shared.Client().List(ctx, &list)).To(Succeed())
		var names []string
		for _, ns := range list.Items {
			names = append(names, ns.Name)
		}
		Expect(names).To(ContainElements("default", "kube-system", "kube-public"))
	})

	It("listens on 127.0.0.1 only", func() {
		u, err := url.Parse(shared.Endpoint())
		Expect(err).NotTo(HaveOccurred())
		Expect(u.Hostname()).To(Equal("127.0.0.1"))
	})

	It("reports the Kubernetes version it runs, as a real cluster does", func() {
		// A plain 'go build' of kube-apiserver says v0.0.0-master, which
		// clients that parse the version (Kubernetes' e2e framework, for
		// one) refuse.
		dc, err := discovery.NewDiscoveryClientForConfig(shared.RESTConfig())
		Expect(err).NotTo(HaveOccurred())
		v, err := dc.ServerVersion()
		Expect(err).NotTo(HaveOccurred())
		Expect(v.GitVersion).To(Equal(kubeversion.Kubernetes))
		Expect(v.Major + "." + v.Minor).To(Equal("1.37"))
	})

	It("writes a kubeconfig that a client can use", func(ctx context.Context) {
		path := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
		Expect(shared.WriteKubeconfig(path)).To(Succeed())
		fi, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o600)))

		cfg, err := clientcmd.BuildConfigFromFlags("", path)
		Expect(err).NotTo(HaveOccurred())
		c, err := client.New(cfg, client.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Get(ctx, nameOf("kube-system"), &corev1.Namespace{})).To(Succeed())
	})

	It("keeps authentication on: an anonymous request is refused", func() {
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test of refusal only
		resp, err := (&http.Client{Transport: tr}).Get(shared.Endpoint() + "/api/v1/namespaces")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.StatusCode).To(BeElementOf(http.StatusUnauthorized, http.StatusForbidden))
	})

	It("installs a CRD and stores its custom resources", func(ctx context.Context) {
		c := shared.Client()
		crd := widgetCRD()
		Expect(c.Create(ctx, crd)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { _ = c.Delete(ctx, crd) })
		Eventually(func(g Gomega) {
			g.Expect(c.Get(ctx, nameOf(crd.Name), crd)).To(Succeed())
			g.Expect(isEstablished(crd)).To(BeTrue())
		}).WithContext(ctx).Should(Succeed())

		w := widget("w1", 3)
		Eventually(func() error { return c.Create(ctx, w) }).WithContext(ctx).Should(Succeed())
		got := widget("", 0)
		Expect(c.Get(ctx, client.ObjectKeyFromObject(w), got)).To(Succeed())
		Expect(got.Object["spec"]).To(HaveKeyWithValue("size", int64(3)))

		By("refusing a custom resource that breaks the schema")
		err := c.Create(ctx, widget("w2", 1000))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("spec.size"))
	})
})

var _ = Describe("the multi-call binary", func() {
	It("answers envtest's --help look-ups early, exactly as the real components", func() {
		for name := range fasthelp.Help {
			link := shared.Dir().Path("bin", name)
			real := exec.Command(link, "--help")
			real.Env = append(os.Environ(), fasthelp.RealHelpEnv+"=1")
			want, err := real.CombinedOutput()
			Expect(err).NotTo(HaveOccurred())
			got, err := exec.Command(link, "--help").CombinedOutput()
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%s --help changed: run 'make generate'", name)
		}
	})
})

var _ = Describe("Start", func() {
	It("refuses a port in use, naming it, and starts nothing", func(ctx context.Context) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port

		before := childPIDs()
		_, err = lab.Start(ctx, lab.Options{Port: port})
		Expect(errors.Is(err, lab.ErrPortInUse)).To(BeTrue(), "got %v", err)
		Expect(err.Error()).To(ContainSubstring("127.0.0.1:" + strconv.Itoa(port)))
		Expect(childPIDs()).To(Equal(before))
	})

	It("refuses a data dir it cannot write, naming it", func(ctx context.Context) {
		file := filepath.Join(GinkgoT().TempDir(), "a-file")
		Expect(os.WriteFile(file, nil, 0o600)).To(Succeed())
		_, err := lab.Start(ctx, lab.Options{DataDir: filepath.Join(file, "data")})
		Expect(errors.Is(err, lab.ErrDataDir)).To(BeTrue(), "got %v", err)
		Expect(err).To(MatchError(ContainSubstring(file)))
	})

	It("explains a failed boot with the component's own error and leaves no process", func(ctx context.Context) {
		assets := GinkgoT().TempDir()
		fake := "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\necho 'Error: this etcd is broken on purpose' >&2\nexit 1\n"
		Expect(os.WriteFile(filepath.Join(assets, "etcd"), []byte(fake), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(assets, "kube-apiserver"), []byte(fake), 0o755)).To(Succeed())
		before := childPIDs()
		_, err := lab.Start(ctx, lab.Options{BinaryAssetsDirectory: assets})
		Expect(err).To(MatchError(ContainSubstring("etcd: this etcd is broken on purpose")))
		Expect(childPIDs()).To(Equal(before))
	})

	It("fails at once with etcd's error when etcd cannot start, without waiting out kube-apiserver's start", func(ctx context.Context) {
		// etcd and kube-apiserver start together, and kube-apiserver waits
		// for etcd: when etcd fails, the lab must end that wait itself
		// rather than at the start timeout (ten minutes here, beyond the
		// spec's own limit).
		dataDir := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(dataDir, "etcd", "member", "snap"), 0o700)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dataDir, "etcd", "member", "snap", "db"), []byte("not a bbolt file"), 0o600)).To(Succeed())
		before := childPIDs()
		_, err := lab.Start(ctx, lab.Options{DataDir: dataDir, Components: []string{}, StartTimeout: 10 * time.Minute})
		Expect(errors.Is(err, lab.ErrDataDir)).To(BeTrue(), "got %v", err)
		Expect(err).To(MatchError(ContainSubstring("invalid database")))
		Expect(childPIDs()).To(Equal(before))
	}, SpecTimeout(time.Minute))

	It("keeps every object across a restart on the same data dir", func(ctx context.Context) {
		dataDir := GinkgoT().TempDir()
		first, err := lab.Start(ctx, lab.Options{DataDir: dataDir, Components: []string{}})
		Expect(err).NotTo(HaveOccurred())
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"},
			Data:       map[string]string{"answer": "42"},
		}
		Expect(first.Client().Create(ctx, cm)).To(Succeed())
		Expect(first.Stop()).To(Succeed())

		second, err := lab.Start(ctx, lab.Options{DataDir: dataDir, Components: []string{}})
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(second.Stop()).To(Succeed()) }()
		got := &corev1.ConfigMap{}
		Expect(second.Client().Get(ctx, client.ObjectKeyFromObject(cm), got)).To(Succeed())
		Expect(got.Data).To(Equal(cm.Data))
	}, NodeTimeout(180e9))
})

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	min, max := 1.0, 10.0
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.test.crdlab.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "test.crdlab.dev",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: &min, Maximum: &max},
						}},
					},
				}},
			}},
		},
	}
}

func widget(name string, size int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "test.crdlab.dev", Version: "v1", Kind: "Widget"})
	if name != "" {
		u.SetName(name)
		u.SetNamespace("default")
		u.Object["spec"] = map[string]any{"size": size}
	}
	return u
}

func isEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// childPIDs lists this process's children.
func childPIDs() []int {
	pids, err := proc.Children(os.Getpid())
	Expect(err).NotTo(HaveOccurred())
	return pids
}
