package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/scenarios/format"
)

// patchOp patches an object: a merge (default), strategic or JSON patch.
type patchOp struct{ *Patch }

func (p patchOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	ref := r.ref(&p.ObjectRef)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return "", err
	}
	pt, body, err := patchBody(p.Patch)
	if err != nil {
		return "", err
	}
	if _, err := ri.Patch(ctx, ref.Name, pt, body, metav1.PatchOptions{FieldManager: FieldManager}); err != nil {
		return "", fmt.Errorf("%s: %w", format.RefWhat(&p.ObjectRef), err)
	}
	return "patched " + format.RefWhat(&p.ObjectRef), nil
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
