package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/crdlab/crdlab/scenarios/format"
)

// deleteOp deletes the objects named or selected (all, the first or one at
// random), and with wait, waits until they are gone.
type deleteOp struct{ *Delete }

func (d deleteOp) run(ctx context.Context, r *runner, timeout time.Duration) (string, error) {
	ri, objs, err := r.selectObjects(ctx, &d.ObjectRef)
	if err != nil {
		return "", err
	}
	var live []unstructured.Unstructured
	for _, o := range objs {
		if o.GetDeletionTimestamp() == nil {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		if r.lesson() != nil {
			// A lesson's delete puts the cluster in the state the lesson
			// starts from, whatever the learner did before.
			return r.opts.Lang.Msgf("nothing to delete: no %s", format.RefWhat(&d.ObjectRef)), nil
		}
		return "", errors.New(r.opts.Lang.Msgf("nothing to delete: no %s", format.RefWhat(&d.ObjectRef)))
	}
	switch d.Pick {
	case "first":
		live = live[:1]
	case "random":
		i := rand.IntN(len(live))
		live = live[i : i+1]
	}
	opts := metav1.DeleteOptions{}
	if d.Propagation != "" {
		p := metav1.DeletionPropagation(d.Propagation)
		opts.PropagationPolicy = &p
	}
	var names []string
	for _, o := range live {
		r.deleting(o.GetKind(), o.GetNamespace(), o.GetName())
		if err := ri.Delete(ctx, o.GetName(), opts); err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("%s/%s: %w", strings.ToLower(o.GetKind()), o.GetName(), err)
		}
		names = append(names, strings.ToLower(o.GetKind())+"/"+o.GetName())
	}
	note := r.opts.Lang.Msgf("deleted %s", strings.Join(names, ", "))
	if !d.Wait {
		return note, nil
	}
	var nudged time.Time
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		for _, o := range live {
			got, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
			if err == nil && got.GetUID() == o.GetUID() {
				if crdFinalizerFailed(got) && time.Since(nudged) > nudgeEvery {
					nudged = time.Now()
					_ = nudgeCRDFinalizer(ctx, ri, got) // the next poll reads again
				}
				return false, nil
			}
			if err != nil && !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf(r.opts.Lang.Msg("%s: not gone within %s (a finalizer waits?)"), strings.Join(names, ", "), timeout)
	}
	return r.opts.Lang.Msgf("%s, gone", note), nil
}

// nudgeEvery is how often a delete's wait nudges a CRD whose finalizer's
// last try failed (see nudgeCRDFinalizer): the finalizer's own retries
// come first.
const nudgeEvery = 2 * time.Second
