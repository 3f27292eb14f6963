package lab_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/crdlab/crdlab/lab"
)

// Start a lab, use its client, and stop it.
func Example() {
	ctx := context.Background()
	l, err := lab.Start(ctx, lab.Options{})
	if err != nil {
		panic(err)
	}
	defer l.Stop()

	var ns corev1.Namespace
	if err := l.Client().Get(ctx, nameOf("default"), &ns); err != nil {
		panic(err)
	}
	fmt.Println(ns.Name, ns.Status.Phase)
	// Output: default Active
}
