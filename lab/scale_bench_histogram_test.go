//go:build linux

package lab_test

import (
	"math"
	"testing"
)

// BenchmarkScale's reading of kube-apiserver's latency histogram.
func TestLatencyHistogram(t *testing.T) {
	inf := math.Inf(1)
	before := histogram{0.005: 4, 0.025: 4, 0.05: 4, inf: 4}
	after := histogram{0.005: 14, 0.025: 24, 0.05: 24, inf: 24}
	h := after.minus(before)
	for _, c := range []struct {
		name string
		h    histogram
		q    float64
		want float64
	}{
		{"p50 at the first bound", h, 0.5, 0.005},
		{"p99 within the second bucket", h, 0.99, 0.005 + 0.02*9.8/10},
		{"in the +Inf bucket: the highest finite bound", histogram{0.1: 5, inf: 10}, 0.99, 0.1},
		{"no requests", histogram{0.1: 0, inf: 0}, 0.5, 0},
	} {
		if got := c.h.quantile(c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: quantile(%v) = %v, want %v", c.name, c.q, got, c.want)
		}
	}
	if got := h.count(); got != 20 {
		t.Errorf("count = %v, want 20", got)
	}
	labels := `component="apiserver",group="",resource="pods",verb="LIST",version="v1",le="+Inf"`
	if verb, le := metricLabel(labels, "verb"), metricLabel(labels, "le"); verb != "LIST" || le != "+Inf" {
		t.Errorf("metricLabel: verb %q, le %q; want LIST, +Inf", verb, le)
	}
}
