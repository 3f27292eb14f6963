package scenarios

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crdlab/crdlab/scenarios/format"
)

// applyOp creates or updates objects by server-side apply (an object with
// generateName is created). What did not exist before is the scenario's,
// deleted when it ends.
type applyOp struct{ *Apply }

func (a applyOp) run(ctx context.Context, r *runner, timeout time.Duration) (string, error) {
	objs, err := r.objects(a.Apply)
	if err != nil {
		return "", err
	}
	var done []string
	for _, o := range objs {
		ri, m, err := r.resource(ctx, o.GetAPIVersion(), o.GetKind(), o.GetNamespace())
		if err != nil {
			return "", err
		}
		var got *unstructured.Unstructured
		existed := false
		if o.GetName() == "" { // generateName: create
			got, err = ri.Create(ctx, o, metav1.CreateOptions{FieldManager: r.manager})
		} else {
			// What existed before the scenario is not the scenario's to
			// delete when it ends (a CRD of the lab, with its objects).
			_, gerr := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
			existed = gerr == nil
			got, err = ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: r.manager, Force: true})
		}
		// A webhook the apiserver could not call, right after a webhook
		// server started or a webhook configuration changed (which the
		// apiserver learns through an informer): tried again until the
		// step's timeout.
		for deadline := time.Now().Add(timeout); err != nil && o.GetName() != "" && webhookUnreachable(err) && time.Now().Before(deadline); {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			got, err = ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: r.manager, Force: true})
		}
		if err != nil {
			return "", fmt.Errorf("%s/%s: %w", strings.ToLower(o.GetKind()), o.GetName(), err)
		}
		if !existed {
			r.track(got, m.Resource.Resource == "namespaces")
		}
		done = append(done, strings.ToLower(got.GetKind())+"/"+got.GetName())
	}
	return r.opts.Lang.Msgf("applied %s", strings.Join(done, ", ")), nil
}

// objects returns the objects of an apply step, with the scenario's
// namespace substituted for ${NAMESPACE}.
func (r *runner) objects(a *Apply) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	var err error
	if a.File != "" {
		data, rerr := r.s.ReadFile(a.File)
		if rerr != nil {
			return nil, rerr
		}
		objs, err = format.DecodeObjects(data)
	} else {
		objs, err = format.ToObjects(a.Object)
	}
	for _, o := range objs {
		r.expand(o.Object)
	}
	return objs, err
}

// webhookUnreachable reports whether err is the apiserver failing to call
// an admission or conversion webhook.
func webhookUnreachable(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "failed calling webhook") || strings.Contains(msg, "conversion webhook")
}
