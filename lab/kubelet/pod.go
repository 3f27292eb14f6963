package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// Annotations a Pod can steer its simulated life with (see the package doc).
const (
	AnnotationRunTime    = "crdlab.dev/run-time"
	AnnotationStartDelay = "crdlab.dev/start-delay"
	AnnotationBehavior   = "crdlab.dev/behavior"
)

// Behaviors for AnnotationBehavior.
const (
	BehaviorFail       = "fail"
	BehaviorCrashLoop  = "crashloop"
	BehaviorNeverReady = "never-ready"
)

// crashLoopEvery is how often a crash-looping container "restarts".
const crashLoopEvery = 5 * time.Second

// syncPod moves one Pod a step along its life, and returns how long to wait
// before looking at it again (0: not until it changes).
func (k *Kubelet) syncPod(ctx context.Context, key string) (time.Duration, error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, nil
	}
	pod, err := k.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, ok := k.nodeRunning(pod.Spec.NodeName)
	if !ok {
		return 0, nil // a stopped node does nothing; StartNode requeues its Pods
	}

	// Deletion: a kubelet stops the containers, then confirms with a
	// deletion of grace period 0, which removes the object. A grace period
	// of 0 already set means that deletion is under way: kube-apiserver
	// sets it in a write of its own (which the informer sees) before it
	// removes the Pod, or someone forced the deletion; deleting again
	// would only be a request answered NotFound.
	if pod.DeletionTimestamp != nil {
		if g := pod.DeletionGracePeriodSeconds; g != nil && *g == 0 {
			return 0, nil
		}
		err := k.client.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To(int64(0)),
			Preconditions:      &metav1.Preconditions{UID: &pod.UID},
		})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return 0, nil
		}
		return 0, err
	}

	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return 0, nil
	}
	now := k.now()
	behavior := pod.Annotations[AnnotationBehavior]

	if pod.Status.StartTime == nil {
		delay := k.opts.StartDelay
		if d, ok := durationAnnotation(pod, AnnotationStartDelay); ok {
			delay = d
		}
		if wait := delay - now.Sub(scheduledAt(pod)); wait > 0 {
			return wait, nil
		}
		status := k.runningStatus(pod, n, now, behavior)
		return k.writeStatus(ctx, pod, status, k.nextLook(pod, behavior))
	}

	started := pod.Status.StartTime.Time
	if behavior == BehaviorCrashLoop {
		if wait := crashLoopEvery - now.Sub(lastRestart(pod, started)); wait > 0 {
			return wait, nil
		}
		status := pod.Status.DeepCopy()
		crash(status, now)
		return k.writeStatus(ctx, pod, status, crashLoopEvery)
	}
	if behavior != BehaviorNeverReady && !podReady(pod) && pod.Status.Phase == corev1.PodRunning {
		// Someone else marked the Pod not ready (the node lifecycle
		// controller does, for every Pod of a node it sees NotReady): as a
		// kubelet's status manager does, report what the node knows again.
		return k.writeStatus(ctx, pod, readyAgain(pod, now), 0)
	}
	if pod.Spec.RestartPolicy == corev1.RestartPolicyAlways {
		return 0, nil // runs until deleted
	}
	runTime := k.opts.RunTime
	if d, ok := durationAnnotation(pod, AnnotationRunTime); ok {
		runTime = d
	}
	if wait := runTime - now.Sub(started); wait > 0 {
		return wait, nil
	}
	exitCode := int32(0)
	phase := corev1.PodSucceeded
	if behavior == BehaviorFail {
		exitCode, phase = 1, corev1.PodFailed
	}
	return k.writeStatus(ctx, pod, finishedStatus(pod, now, phase, exitCode), 0)
}

// podReady reports whether the Pod's Ready condition is True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readyAgain is the Pod's status with its containers and itself ready.
func readyAgain(pod *corev1.Pod, now time.Time) *corev1.PodStatus {
	status := pod.Status.DeepCopy()
	t := metav1.NewTime(now)
	for i := range status.Conditions {
		c := &status.Conditions[i]
		if (c.Type == corev1.PodReady || c.Type == corev1.ContainersReady) && c.Status != corev1.ConditionTrue {
			c.Status, c.Reason, c.Message, c.LastTransitionTime = corev1.ConditionTrue, "", "", t
		}
	}
	for i := range status.ContainerStatuses {
		status.ContainerStatuses[i].Ready = true
	}
	return status
}

// nextLook says when a Pod just started needs attention again.
func (k *Kubelet) nextLook(pod *corev1.Pod, behavior string) time.Duration {
	if behavior == BehaviorCrashLoop {
		return crashLoopEvery
	}
	if pod.Spec.RestartPolicy == corev1.RestartPolicyAlways {
		return 0
	}
	if d, ok := durationAnnotation(pod, AnnotationRunTime); ok {
		return d
	}
	return k.opts.RunTime
}

func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, status *corev1.PodStatus, next time.Duration) (time.Duration, error) {
	p := pod.DeepCopy()
	p.Status = *status
	_, err := k.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: FieldManager})
	switch {
	case apierrors.IsNotFound(err):
		return 0, nil
	case apierrors.IsConflict(err):
		return 0, nil // the newer version comes through the informer
	case refused(err):
		// Sending it again would be refused again: said once, on the
		// Pod's events (so on the timeline), in the log and in the lab's
		// status, and tried again when the Pod changes.
		k.refuse(ctx, pod, err)
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("unable to update status of pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return next, nil
}

// runningStatus is the status of a Pod whose containers just started.
func (k *Kubelet) runningStatus(pod *corev1.Pod, n *node, now time.Time, behavior string) *corev1.PodStatus {
	t := metav1.NewTime(now)
	ready := behavior != BehaviorNeverReady && behavior != BehaviorCrashLoop
	status := &corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    nodeIP(n.index),
		HostIPs:   []corev1.HostIP{{IP: nodeIP(n.index)}},
		PodIP:     k.podIP(pod, n),
		StartTime: &t,
		QOSClass:  pod.Status.QOSClass,
	}
	if pod.Spec.HostNetwork {
		status.PodIP = status.HostIP
	}
	status.PodIPs = []corev1.PodIP{{IP: status.PodIP}}
	readyStatus := conditionStatus(ready)
	status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: t},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: t},
		{Type: corev1.ContainersReady, Status: readyStatus, LastTransitionTime: t},
		{Type: corev1.PodReady, Status: readyStatus, LastTransitionTime: t},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: scheduledTime(pod, t)},
	}
	for _, c := range pod.Spec.InitContainers {
		status.InitContainerStatuses = append(status.InitContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name),
			Ready: true,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: t, FinishedAt: t}},
		})
	}
	for _, c := range pod.Spec.Containers {
		status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image), ContainerID: containerID(pod, c.Name),
			Ready: ready, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
		})
	}
	if behavior == BehaviorCrashLoop {
		crash(status, now)
	}
	return status
}

// crash records one more crash of every container: restart count up,
// waiting in CrashLoopBackOff, the last state a failure.
func crash(status *corev1.PodStatus, now time.Time) {
	t := metav1.NewTime(now)
	for i := range status.ContainerStatuses {
		cs := &status.ContainerStatuses[i]
		cs.RestartCount++
		cs.Ready = false
		cs.Started = ptr.To(false)
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", StartedAt: t, FinishedAt: t,
		}}
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason:  "CrashLoopBackOff",
			Message: "back-off restarting failed container (simulated: " + AnnotationBehavior + "=" + BehaviorCrashLoop + ")",
		}}
	}
}

// finishedStatus is the status of a Pod whose containers all exited.
func finishedStatus(pod *corev1.Pod, now time.Time, phase corev1.PodPhase, exitCode int32) *corev1.PodStatus {
	t := metav1.NewTime(now)
	status := pod.Status.DeepCopy()
	status.Phase = phase
	reason := "Completed"
	if exitCode != 0 {
		reason = "Error"
	}
	for i := range status.Conditions {
		if c := &status.Conditions[i]; c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
			c.Status, c.Reason, c.LastTransitionTime = corev1.ConditionFalse, "PodCompleted", t
		}
	}
	for i := range status.ContainerStatuses {
		cs := &status.ContainerStatuses[i]
		started := t
		if cs.State.Running != nil {
			started = cs.State.Running.StartedAt
		}
		cs.Ready, cs.Started = false, ptr.To(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: exitCode, Reason: reason, StartedAt: started, FinishedAt: t, ContainerID: cs.ContainerID,
		}}
	}
	return status
}

// podIP hands out the addresses of the node's podCIDR in turn, from its
// .2 (the .1 is a bridge's gateway) to the last before its broadcast
// address, and then from the start again; stable for a Pod.
func (k *Kubelet) podIP(pod *corev1.Pod, n *node) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	n.nextIP = n.nextIP%podHosts(n.podCIDR) + 1
	return hostAddr(n.podCIDR, n.nextIP+1).String()
}

func durationAnnotation(pod *corev1.Pod, key string) (time.Duration, bool) {
	v, ok := pod.Annotations[key]
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	return d, err == nil && d >= 0
}

// scheduledAt is when the Pod was bound, or created if that is unknown.
func scheduledAt(pod *corev1.Pod) time.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return pod.CreationTimestamp.Time
}

func scheduledTime(pod *corev1.Pod, fallback metav1.Time) metav1.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime
		}
	}
	return fallback
}

func lastRestart(pod *corev1.Pod, started time.Time) time.Time {
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.LastTerminationState.Terminated; t != nil {
			return t.FinishedAt.Time
		}
	}
	return started
}

func conditionStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

func imageID(image string) string { return "simulated://" + image }

func containerID(pod *corev1.Pod, name string) string {
	return "simulated://" + string(pod.UID)[:8] + "-" + name
}

// refused reports whether the apiserver refused a write for what it said,
// not for the moment: the same write would be refused again.
func refused(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsForbidden(err) ||
		apierrors.IsRequestEntityTooLargeError(err)
}

// ReasonStatusRefused is the reason of the Warning Event the simulated
// kubelet records on a Pod whose status the apiserver refused.
const ReasonStatusRefused = "StatusRefused"

// refuse counts a Pod status the apiserver refused, logs it and records a
// Warning Event on the Pod with the apiserver's words, as a component
// records what went wrong for the object it works on.
func (k *Kubelet) refuse(ctx context.Context, pod *corev1.Pod, err error) {
	msg := fmt.Sprintf("the apiserver refused the status the simulated kubelet wrote: %v", err)
	k.mu.Lock()
	k.refusals++
	k.lastRefusal = fmt.Sprintf("pod %s/%s: %v", pod.Namespace, pod.Name, err)
	k.mu.Unlock()
	k.opts.Logger.Info("status refused by the apiserver", "pod", pod.Namespace+"/"+pod.Name, "error", err.Error())
	now := metav1.NewTime(k.now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: pod.Name + ".", Namespace: pod.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, ResourceVersion: pod.ResourceVersion},
		Reason:              ReasonStatusRefused,
		Message:             msg,
		Type:                corev1.EventTypeWarning,
		Source:              corev1.EventSource{Component: "kubelet", Host: pod.Spec.NodeName},
		ReportingController: FieldManager, // the timeline says "kubelet (simulated)"
		ReportingInstance:   pod.Spec.NodeName,
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
	}
	if _, err := k.client.CoreV1().Events(pod.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		k.opts.Logger.Info("unable to record an event", "pod", pod.Namespace+"/"+pod.Name, "reason", ReasonStatusRefused, "error", err.Error())
	}
}

// Refusals says how many writes of the simulated kubelet the apiserver
// refused since it started, and the last, in words ("" with none).
func (k *Kubelet) Refusals() (count int, last string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.refusals, k.lastRefusal
}
