package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	var sub []string
	if p.Subresource != "" {
		sub = []string{p.Subresource}
	}
	for deadline := time.Now().Add(timeout); ; {
		err = r.patch(ctx, &p.ObjectRef, pt, body, sub...)
		if err == nil || !again(p.Patch, err) || !time.Now().Before(deadline) {
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
	return strings.TrimSpace("patched " + format.RefWhat(&p.ObjectRef) + " " + p.Subresource), nil
}

// again reports whether a patch that failed with err is sent again, until
// the step's timeout. Right after a CRD changed, the apiserver serves its
// new status subresource a moment later (until then: not found), and it
// aborts the requests in flight to the CRD's former handler (a broken
// stream, no answer of the apiserver's). A merge patch is sent again on
// such an abort, as it does the same twice; a JSON patch (remove) is not.
func again(p *Patch, err error) bool {
	if p.Subresource != "" && apierrors.IsNotFound(err) {
		return true
	}
	var status apierrors.APIStatus
	return p.Type != "json" && !errors.As(err, &status) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// patch patches the object ref names (with ${NAMESPACE} expanded), or one
// of its subresources.
func (r *runner) patch(ctx context.Context, ref *ObjectRef, pt types.PatchType, body []byte, subresources ...string) error {
	x := r.ref(ref)
	ri, _, err := r.resource(ctx, x.APIVersion, x.Kind, x.Namespace)
	if err != nil {
		return err
	}
	if _, err := ri.Patch(ctx, x.Name, pt, body, metav1.PatchOptions{FieldManager: r.manager}, subresources...); err != nil {
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
