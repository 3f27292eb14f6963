package lab_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/lab"
)

func TestLab(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "lab suite")
}

// shared is the lab booted once for the suite.
var shared *lab.Lab

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	shared, err = lab.Start(ctx, lab.Options{Logger: GinkgoLogr})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(shared.Stop()).To(Succeed())
	})
}, NodeTimeout(120e9))

func nameOf(name string) types.NamespacedName { return types.NamespacedName{Name: name} }

// nodeNames are the names of the shared lab's simulated nodes.
func nodeNames() []string {
	var names []string
	for _, n := range shared.Nodes() {
		names = append(names, n.Name)
	}
	return names
}
