package scenarios

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/scenarios/format"
)

// scaleOp sets an object's replicas through its scale subresource, as
// kubectl scale does.
type scaleOp struct{ *Scale }

func (s scaleOp) run(ctx context.Context, r *runner, _ time.Duration) (string, error) {
	body := fmt.Sprintf(`{"spec":{"replicas":%d}}`, s.Replicas)
	if err := r.patch(ctx, &s.ObjectRef, types.MergePatchType, []byte(body), "scale"); err != nil {
		return "", err
	}
	return r.opts.Lang.Msgf("scaled %s to %d", format.RefWhat(&s.ObjectRef), s.Replicas), nil
}
