package kubecmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/component-base/featuregate"
	featuremetrics "k8s.io/component-base/metrics/prometheus/feature"
)

// signalContext is upstream's SetupSignalContext, written once for every
// minor: the package that holds it moved in 1.38 (k8s.io/apiserver's
// pkg/server up to 1.37, pkg/server/signals from 1.38), and kube-apiserver
// is its one caller here. The first SIGINT or SIGTERM cancels the context,
// a second exits at once with 1.
func signalContext() context.Context {
	ch := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancel(context.Background())
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		cancel()
		<-ch
		os.Exit(1) // a second signal
	}()
	return ctx
}

// addFeatureMetrics records the feature gates' enablement metric, as
// upstream's command does: AddMetrics takes no argument up to 1.37 and the
// metric's recorder from 1.38 (featuremetrics.RecordFeatureInfo, the
// function that AddMetrics called itself before). The assertions are to
// interfaces, so that this compiles against every minor.
func addFeatureMetrics(g featuregate.FeatureGate) {
	switch m := g.(type) {
	case interface {
		AddMetrics(func(ctx context.Context, name, stage string, enabled bool))
	}:
		m.AddMetrics(featuremetrics.RecordFeatureInfo)
	case interface{ AddMetrics() }:
		m.AddMetrics()
	}
}
