package controllers_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/crdlab/crdlab/controllers"
	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/lab"
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sample operators suite")
}

// shared is the lab of the suite: booted once, with the sample CRDs
// installed and the sample operators running in this process.
var shared *lab.Lab

var _ = BeforeSuite(func(ctx context.Context) {
	crds, err := fixtures.CRDs()
	Expect(err).NotTo(HaveOccurred())
	shared, err = lab.Start(ctx, lab.Options{CRDs: crds, Scheme: controllers.Scheme(), Logger: GinkgoLogr})
	Expect(err).NotTo(HaveOccurred())
	opCtx, stop := context.WithCancel(context.Background())
	done, err := controllers.Start(opCtx, shared.RESTConfig(), GinkgoLogr)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		stop()
		Expect(<-done).To(Succeed())
		Expect(shared.Stop()).To(Succeed())
	})
}, NodeTimeout(180e9))
