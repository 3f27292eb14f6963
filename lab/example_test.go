package lab_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/crdlab/crdlab/lab"
)

// Start a lab, use its client, and stop it.
func Example() {
	// The program chooses its loggers; lab.Start sets none. envtest, which
	// installs the CRDs, logs through controller-runtime's, the in-process
	// aggregated API server through klog.
	ctrllog.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())

	ctx := context.Background()
	l, err := lab.Start(ctx, lab.Options{})
	if err != nil {
		panic(err)
	}
	defer func() {
		if err := l.Stop(); err != nil {
			panic(err)
		}
	}()

	var ns corev1.Namespace
	if err := l.Client().Get(ctx, nameOf("default"), &ns); err != nil {
		panic(err)
	}
	fmt.Println(ns.Name, ns.Status.Phase)
	// Output: default Active
}
