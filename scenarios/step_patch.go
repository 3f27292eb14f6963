package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/scenarios/format"
)

// patchOp patches an object: a merge (default), strategic or JSON patch.
type patchOp struct{ *Patch }

func (p patchOp) run(ctx context.Context, r *runner, timeout time.Duration) (string, error) {
	pt, body, err := patchBody(p.Patch)
	if err != nil {
		return "", err
	}
	if p.Subresource == "" {
		if err := r.patch(ctx, &p.ObjectRef, pt, body); err != nil {
			return "", err
		}
		return "patched " + format.RefWhat(&p.ObjectRef), nil
	}
	// The apiserver serves a CRD's status subresource a moment after the
	// CRD gets it: until then the subresource is not found; tried again
	// until the step's timeout.
	for deadline := time.Now().Add(timeout); ; {
		err = r.patch(ctx, &p.ObjectRef, pt, body, p.Subresource)
		if err == nil || !apierrors.IsNotFound(err) || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err != nil {
		return "", err
	}
	return "patched " + format.RefWhat(&p.ObjectRef) + " " + p.Subresource, nil
}

// patch patches the object ref names (with ${NAMESPACE} expanded), or one
// of its subresources.
func (r *runner) patch(ctx context.Context, ref *ObjectRef, pt types.PatchType, body []byte, subresources ...string) error {
	x := r.ref(ref)
	ri, _, err := r.resource(ctx, x.APIVersion, x.Kind, x.Namespace)
	if err != nil {
		return err
	}
	if _, err := ri.Patch(ctx, x.Name, pt, body, metav1.PatchOptions{FieldManager: FieldManager}, subresources...); err != nil {
		return fmt.Errorf("%s: %w", format.RefWhat(ref), err)
	}
	return nil
}

func patchBody(p *Patch) (types.PatchType, []byte, error) {
	switch p.Type {
	case "json":
		b, err := json.Marshal(p.Ops)
		return types.JSONPatchType, b, err
	case "strategic":
		b, err := json.Marshal(p.Patch)
		return types.StrategicMergePatchType, b, err
	default:
		b, err := json.Marshal(p.Patch)
		return types.MergePatchType, b, err
	}
}
