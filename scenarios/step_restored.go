package scenarios

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crdlab/crdlab/scenarios/format"
)

// defaultRestoreWithin is how long an object an expectRestored check
// deleted may take to come back: a controller that watches it answers in
// well under a second.
const defaultRestoreWithin = 10 * time.Second

// restore is what an expectRestored check deleted: the object's uid, and
// when.
type restore struct {
	uid     types.UID
	at      time.Time
	expired bool // said not back within the time: a later one is not a put back
}

// checkRestored checks that the learner's controller puts back the object
// of e while it runs: when the object exists and is not one it put back in
// time after the check deleted it, the check deletes it (again), and holds
// once a new object is there within the time. It says what it found
// otherwise.
func (r *runner) checkRestored(ctx context.Context, e *format.ExpectRestored) string {
	l := r.s.Lang()
	ref := r.ref(&e.ObjectRef)
	within := defaultRestoreWithin
	if e.Within != nil {
		within = e.Within.Duration
	}
	ri, _, err := r.resource(ctx, ref.APIVersion, ref.Kind, ref.Namespace)
	if err != nil {
		return err.Error()
	}
	what := format.RefWhat(ref)
	key := ref.APIVersion + "/" + ref.Kind + "/" + ref.Namespace + "/" + ref.Name
	r.mu.Lock()
	last := r.restores[key]
	r.mu.Unlock()
	o, err := ri.Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && last.at.IsZero():
		return l.Msgf("no %s exists", what)
	case apierrors.IsNotFound(err) && time.Since(last.at) <= within:
		return l.Msgf("%s: deleted by this check; waiting for your controller to put it back (within %s)", what, within)
	case apierrors.IsNotFound(err):
		r.mu.Lock()
		last.expired = true
		r.restores[key] = last
		r.mu.Unlock()
		return l.Msgf("%s: deleted by this check, and not back within %s: your controller does not see it go. Does it watch the objects it owns (Owns), or make them only when it starts and lists everything?", what, within)
	case err != nil:
		return err.Error()
	}
	// A creation timestamp is floored to the second: the object was made
	// up to a second after it says.
	if !last.at.IsZero() && !last.expired && o.GetUID() != last.uid && o.GetCreationTimestamp().Add(time.Second).Sub(last.at) <= within {
		return "" // put back, while it ran
	}
	uid := o.GetUID()
	r.deleting(ref.Kind, o.GetNamespace(), o.GetName())
	if err := ri.Delete(ctx, ref.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); err != nil && !apierrors.IsNotFound(err) {
		return err.Error()
	}
	r.mu.Lock()
	r.restores[key] = restore{uid: uid, at: time.Now()}
	r.mu.Unlock()
	return l.Msgf("%s: deleted by this check; waiting for your controller to put it back (within %s)", what, within)
}
