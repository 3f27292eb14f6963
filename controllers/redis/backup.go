package redis

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// BackupName is the backup controller's name, event source and field
// manager suffix.
const BackupName = "redis-backup-operator"

// AnnotationRunTime tells the lab's simulated kubelet how long the backup
// Pod runs before it succeeds.
const AnnotationRunTime = "crdlab.dev/run-time"

// BackupRunTime is how long a backup takes in the lab.
const BackupRunTime = "2s"

// BackupReconciler runs each RedisBackup as a Job once its cluster is
// Ready, and records how the Job ended.
//
// +kubebuilder:object:generate=false
type BackupReconciler struct {
	Client   client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisbackups,verbs=get;list;watch
// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisbackups/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=samples.crdlab.dev,resources=redisclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create

// Reconcile moves a backup along Pending → Running → Succeeded or Failed.
func (r *BackupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	b := &RedisBackup{}
	if err := r.Client.Get(ctx, req.NamespacedName, b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !b.DeletionTimestamp.IsZero() || b.Status.Phase == BackupSucceeded || b.Status.Phase == BackupFailed {
		return ctrl.Result{}, nil // done: a backup runs once
	}
	base := b.DeepCopy()

	job := &batchv1.Job{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: JobName(b)}, job)
	switch {
	case apierrors.IsNotFound(err):
		rc := &RedisCluster{}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: b.Namespace, Name: b.Spec.ClusterName}, rc); err != nil {
			if !apierrors.IsNotFound(err) {
				return ctrl.Result{}, err
			}
			// The cluster watch wakes this backup when the cluster appears.
			b.Status.Phase, b.Status.Message = BackupPending, fmt.Sprintf("RedisCluster %q not found", b.Spec.ClusterName)
			return ctrl.Result{}, r.patchStatus(ctx, base, b)
		}
		if rc.Status.Phase != PhaseReady {
			b.Status.Phase = BackupPending
			b.Status.Message = fmt.Sprintf("waiting for RedisCluster %q to be Ready (it is %s)", rc.Name, phaseOf(rc))
			return ctrl.Result{}, r.patchStatus(ctx, base, b)
		}
		job = backupJob(b, rc)
		if err := controllerutil.SetControllerReference(b, job, r.Client.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Client.Create(ctx, job); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("job %s: %w", job.Name, err)
		}
		r.event(b, "Started", "Started Job %s to back up %d shards", job.Name, rc.Status.Shards)
		b.Status.Phase, b.Status.JobName, b.Status.Shards = BackupRunning, job.Name, rc.Status.Shards
		b.Status.Message = "backup Job started"
		return ctrl.Result{}, r.patchStatus(ctx, base, b)
	case err != nil:
		return ctrl.Result{}, err
	}

	b.Status.JobName = job.Name
	b.Status.StartTime = job.Status.StartTime
	switch {
	case jobCondition(job, batchv1.JobComplete):
		b.Status.Phase, b.Status.Message = BackupSucceeded, "backup Job completed"
		b.Status.CompletionTime = job.Status.CompletionTime
		if b.Status.CompletionTime == nil {
			b.Status.CompletionTime = ptr.To(metav1.Now())
		}
		b.Status.Location = fmt.Sprintf("/backups/%s/%s/%s.rdb", b.Namespace, b.Spec.ClusterName, b.Name)
		r.event(b, "Succeeded", "Backup written to %s", b.Status.Location)
	case jobCondition(job, batchv1.JobFailed):
		b.Status.Phase, b.Status.Message = BackupFailed, "backup Job failed"
		r.event(b, "Failed", "Backup Job %s failed", job.Name)
	default:
		b.Status.Phase = BackupRunning
	}
	return ctrl.Result{}, r.patchStatus(ctx, base, b)
}

// JobName is the name of the Job that runs the backup.
func JobName(b *RedisBackup) string { return b.Name + "-backup" }

func backupJob(b *RedisBackup, rc *RedisCluster) *batchv1.Job {
	labels := map[string]string{
		"app.kubernetes.io/name":       "redis-backup",
		"app.kubernetes.io/instance":   rc.Name,
		"app.kubernetes.io/managed-by": Name,
	}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: JobName(b), Namespace: b.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{AnnotationRunTime: BackupRunTime}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:  "backup",
						Image: "redis:" + rc.Spec.Version,
						Command: []string{"redis-cli", "--cluster", "call",
							fmt.Sprintf("%s.%s:%d", rc.Name, rc.Namespace, ClientPort), "BGSAVE"},
					}},
				},
			},
		},
	}
}

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func phaseOf(rc *RedisCluster) string {
	if rc.Status.Phase == "" {
		return "new"
	}
	return rc.Status.Phase
}

func (r *BackupReconciler) patchStatus(ctx context.Context, base, b *RedisBackup) error {
	if equality.Semantic.DeepEqual(base.Status, b.Status) {
		return nil
	}
	if err := r.Client.Status().Patch(ctx, b, client.MergeFrom(base)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("status: %w", err)
	}
	return nil
}

func (r *BackupReconciler) event(b *RedisBackup, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(b, nil, corev1.EventTypeNormal, reason, "Backup", format, args...)
	}
}

// SetupWithManager registers the reconciler: it watches RedisBackups, the
// Jobs they own, and RedisClusters (a Pending backup starts when its
// cluster becomes Ready).
func (r *BackupReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return r.SetupWithManagerAs(mgr, r)
}

// SetupWithManagerAs is SetupWithManager with rec as the reconciler and
// preds on every watch (see ClusterReconciler.SetupWithManagerAs).
func (r *BackupReconciler) SetupWithManagerAs(mgr ctrl.Manager, rec reconcile.Reconciler, preds ...predicate.Predicate) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(BackupName).
		For(&RedisBackup{}, builder.WithPredicates(preds...)).
		Owns(&batchv1.Job{}, builder.WithPredicates(preds...)).
		Watches(&RedisCluster{}, handler.EnqueueRequestsFromMapFunc(r.backupsOf), builder.WithPredicates(preds...)).
		Complete(rec)
}

// backupsOf maps a RedisCluster to its unfinished backups.
func (r *BackupReconciler) backupsOf(ctx context.Context, obj client.Object) []reconcile.Request {
	var list RedisBackupList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, b := range list.Items {
		if b.Spec.ClusterName == obj.GetName() && b.Status.Phase != BackupSucceeded && b.Status.Phase != BackupFailed {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&b)})
		}
	}
	return reqs
}
