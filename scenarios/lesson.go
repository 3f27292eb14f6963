package scenarios

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// LessonOptions configures the run of a lesson (a file of kind Lesson):
// where the learner works, and how the learner and the run talk.
type LessonOptions struct {
	// Namespace is the learner's namespace: ${NAMESPACE}, where objects
	// without a namespace go and whose changes the timeline shows. It is
	// used as it is: neither created nor deleted. Default: default.
	Namespace string
	// Files is the folder of the lesson's files on disk (${FILES} in a
	// task's text).
	Files string
	// Hints brings the learner's requests for the next hint, while a
	// task waits; each is answered on its Reply.
	Hints <-chan HintRequest
	// Done says which steps (1-based) are tasks done in an earlier run:
	// they are shown as done, not waited for, and the steps before the
	// first task not done are not run again (they would undo the
	// learner's work).
	Done map[int]bool
	// DoneIn is the cluster Done was recorded in (ClusterID). On another
	// cluster (a lab started again without --data-dir) the objects of
	// those tasks are gone, and the lab's own are back: unless every task
	// is done, the run starts from its first step, and each task is
	// checked again (a task whose work is there passes at once).
	// Empty: Done holds wherever the run is.
	DoneIn string
	// TaskDone, if set, is called as soon as a task is done (its step,
	// 1-based): the caller records the learner's progress.
	TaskDone func(step int)
}

// HintRequest asks the waiting task for its next hint.
type HintRequest struct {
	// Reply receives the hint, or why there is none (buffered by the
	// asker: the run does not wait for it to be read).
	Reply chan<- string
}

// lesson returns the run's lesson options, nil for a scenario.
func (r *runner) lesson() *LessonOptions { return r.opts.Lesson }

// text expands ${FILES} and ${NAMESPACE} in a text the learner reads.
func (r *runner) text(s string) string {
	if l := r.lesson(); l != nil {
		s = strings.ReplaceAll(s, "${FILES}", l.Files)
	}
	return strings.TrimSpace(strings.ReplaceAll(s, namespaceVar, r.ns))
}

// ClusterID names the cluster of cfg: the UID of the ConfigMap
// kube-system/crdlab-cluster, created the first time it is asked for. It
// lives as long as the cluster's data (a lab started again without
// --data-dir has a new one; its kube-system namespace comes from a
// template, with the same UID every time).
func ClusterID(ctx context.Context, cfg *rest.Config) (string, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return "", fmt.Errorf("unable to create a client for %s: %w", cfg.Host, err)
	}
	return clusterID(ctx, dyn)
}

// clusterConfigMap is the ConfigMap whose UID names a cluster.
const clusterConfigMap = "crdlab-cluster"

func clusterID(ctx context.Context, dyn dynamic.Interface) (string, error) {
	cms := dyn.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(metav1.NamespaceSystem)
	cm, err := cms.Get(ctx, clusterConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = cms.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": clusterConfigMap, "namespace": metav1.NamespaceSystem},
			"data":     map[string]any{"about": "its uid names this cluster for crdlab learn: the tasks done in it"},
		}}, metav1.CreateOptions{FieldManager: FieldManager})
		if apierrors.IsAlreadyExists(err) {
			cm, err = cms.Get(ctx, clusterConfigMap, metav1.GetOptions{})
		}
	}
	if err != nil {
		return "", fmt.Errorf("unable to tell which cluster this is (configmap kube-system/%s): %w", clusterConfigMap, err)
	}
	return string(cm.GetUID()), nil
}

// done returns the tasks done in an earlier run that hold for this run:
// none on another cluster than the one they were done in, unless every
// task of the lesson is done.
func (r *runner) done(ctx context.Context) map[int]bool {
	ls := r.lesson()
	if ls == nil {
		return nil
	}
	if len(ls.Done) == 0 || ls.DoneIn == "" {
		return ls.Done
	}
	// The tasks of the apiserver's minor, and those of them done (a task
	// of another minor, done on it, is none of this run's).
	tasks, done := 0, 0
	for i := range r.s.Spec.Steps {
		if st := &r.s.Spec.Steps[i]; st.Task != nil && !r.skips(st) {
			tasks++
			if ls.Done[i+1] {
				done++
			}
		}
	}
	if done >= tasks {
		return ls.Done
	}
	id, err := clusterID(ctx, r.dyn)
	if err != nil || id == ls.DoneIn {
		return ls.Done
	}
	r.note(r.s.Lang().Msgf("the lab was started again since your last session: the objects of the %d tasks you did are gone, and the lab's own are back. The lesson starts over from its first step; your files are kept, and a task whose work is there again passes at once.", len(ls.Done)))
	return nil
}
