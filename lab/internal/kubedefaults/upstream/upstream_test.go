package upstream_test

import (
	"testing"

	"github.com/crdlab/crdlab/lab/internal/kubedefaults/upstream"
)

// The built-in minor's defaults (the main module's Kubernetes): every
// default-on controller and admission plugin is run, or left out with a
// reason. Each components module runs the same test against its own minor
// (lab/components/<minor>/main_test.go).
func TestLabRunsTheMinorsDefaults(t *testing.T) { upstream.Test(t) }
