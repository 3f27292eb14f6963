package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios/format"
)

// A read that must be refused is read again until it is, within the
// step's timeout: the aggregator still served lab.crdlab.dev a moment
// after its APIService was deleted (aggregator's step 3, "accepted; want
// a refusal"). A read that stays served fails at the timeout.
func TestAReadIsRefusedWithinTheTimeout(t *testing.T) {
	want := &format.ExpectError{Code: 404}
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "lab.crdlab.dev", Resource: "summaries"}, "lab")
	judge := func(err error) (string, error) { return refusal(lang.EN, want, err) }

	reads := 0
	note, err := untilRefused(context.Background(), 10*time.Second, func() error {
		reads++
		if reads < 3 {
			return nil // still served
		}
		return notFound
	}, judge)
	if err != nil || reads != 3 {
		t.Errorf("served twice, then refused: %d reads, %q, %v", reads, note, err)
	}

	start := time.Now()
	_, err = untilRefused(context.Background(), 300*time.Millisecond, func() error { return nil }, judge)
	if err == nil || !strings.Contains(err.Error(), "accepted; want a refusal") || time.Since(start) < 300*time.Millisecond {
		t.Errorf("always served: %v after %s, want a failure at the timeout", err, time.Since(start))
	}
}
