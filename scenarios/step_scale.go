package scenarios

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/scenarios/format"
)

// scaleOp sets an object's replicas through its scale subresource, as
// kubectl scale does.
type scaleOp struct{ *Scale }

func (s scaleOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	ref := r.ref(&s.ObjectRef)
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return "", err
	}
	body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, s.Replicas)
	if _, err := ri.Patch(ctx, ref.Name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: FieldManager}, "scale"); err != nil {
		return "", fmt.Errorf("%s: %w", format.RefWhat(&s.ObjectRef), err)
	}
	return fmt.Sprintf("scaled %s to %d", format.RefWhat(&s.ObjectRef), s.Replicas), nil
}
