package kubemain

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	schedulingrest "k8s.io/kubernetes/pkg/registry/scheduling/rest"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/crdlab/crdlab/lab/internal/kubeversion"
)

// ErrPatch is returned when kube-apiserver's internals are not what
// crdlab's patch to them expects (an upstream change in a minor): the
// component refuses to start rather than run silently slower.
var ErrPatch = errors.New("crdlab's patch does not fit this kube-apiserver")

// hooksFile is where the patch lives, named by ErrPatch's errors.
const hooksFile = "lab/internal/kubemain/hooks.go"

// Names of kube-apiserver's bootstrap post-start hooks, upstream's
// constants: a minor that renamed or dropped one does not compile.
const (
	rbacHook     = rbacrest.PostStartHookName       // "rbac/bootstrap-roles"
	priorityHook = schedulingrest.PostStartHookName // "scheduling/bootstrap-system-priority-classes"
)

// patchError is an ErrPatch naming the Kubernetes version and the file.
func patchError(format string, args ...any) error {
	return fmt.Errorf("kube-apiserver %s: %s: %w: update %s", kubeversion.Module(), fmt.Sprintf(format, args...), ErrPatch, hooksFile)
}

// FastBootstrapHooks wraps the RBAC and priority-class post-start hooks of
// s. Each of them polls with wait.Poll(1s), whose first try comes after a
// second, and kube-apiserver reports healthy (which envtest waits for) only
// once every hook is done: no apiserver is ready sooner than a second after
// it serves. A lab's etcd mostly comes from a template bootstrapped by the
// same Kubernetes version (or is a --data-dir of that version), so these
// objects are there already. The wrapped hook reports done as soon as it
// finds every object the hook would make, and the apiserver's informers
// synced (so that RBAC authorizes with them); the original hook still runs,
// in the background, and reconciles as ever. Where an object is missing (a
// fresh etcd, as envtest's), the wrapped hook makes them at once, with the
// hook's own work (ensure.go), as the original does after its first second;
// then it reports done as above.
func FastBootstrapHooks(s *genericapiserver.GenericAPIServer) error {
	field := reflect.ValueOf(s).Elem().FieldByName("postStartHooks")
	if !field.IsValid() || field.Kind() != reflect.Map {
		return patchError("GenericAPIServer has no postStartHooks map")
	}
	hooks := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
	for name, h := range map[string]struct {
		present func(context.Context, kubernetes.Interface) (bool, error)
		ensure  func(genericapiserver.PostStartHookContext) (bool, error)
	}{
		rbacHook:     {rbacPresent, ensureRBAC},
		priorityHook: {priorityClassesPresent, ensurePriorityClasses},
	} {
		entry := hooks.MapIndex(reflect.ValueOf(name))
		if !entry.IsValid() {
			continue // a kube-apiserver configured without it
		}
		patched := reflect.New(entry.Type()).Elem()
		patched.Set(entry)
		hookField := patched.FieldByName("hook")
		if !hookField.IsValid() {
			return patchError("post-start hook entry has no hook")
		}
		hook := reflect.NewAt(hookField.Type(), unsafe.Pointer(hookField.UnsafeAddr())).Elem()
		original, ok := hook.Interface().(genericapiserver.PostStartHookFunc)
		if !ok {
			return patchError("post-start hook %s is a %s", name, hook.Type())
		}
		hook.Set(reflect.ValueOf(genericapiserver.PostStartHookFunc(doneWhenPresent(name, original, h.present, h.ensure))))
		hooks.SetMapIndex(reflect.ValueOf(name), patched)
	}
	return nil
}

// doneWhenPresent returns a hook that runs original and returns once it
// did, or once present says what it makes is there. When present finds
// something missing (an empty etcd), ensure makes it at once, with the
// original's own work, rather than the wrapped hook waiting a second for
// the original's first try.
func doneWhenPresent(name string, original genericapiserver.PostStartHookFunc,
	present func(context.Context, kubernetes.Interface) (bool, error),
	ensure func(genericapiserver.PostStartHookContext) (bool, error)) genericapiserver.PostStartHookFunc {
	return func(hc genericapiserver.PostStartHookContext) error {
		done := make(chan error, 1)
		go func() { done <- original(hc) }()
		client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return <-done
		}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		made, nextTry := false, time.Time{}
		for {
			ctx, cancel := context.WithTimeout(hc, time.Second)
			ok, err := present(ctx, client)
			cancel()
			if ok {
				klog.InfoS("bootstrap objects found; the post-start hook reconciles them in the background", "hook", name)
				go func() {
					if err := <-done; err != nil {
						klog.ErrorS(err, "post-start hook failed in the background", "hook", name)
					}
				}()
				return nil
			}
			if err == nil && !made && !time.Now().Before(nextTry) {
				// Missing: make them now. A try that fails is tried
				// again after a second, as the original does.
				nextTry = time.Now().Add(time.Second)
				if made, err = ensure(hc); made {
					klog.InfoS("bootstrap objects made at once", "hook", name)
					continue
				}
			}
			if err != nil {
				klog.V(4).InfoS("bootstrap objects not found yet", "hook", name, "err", err)
			}
			select {
			case err := <-done:
				return err
			case <-hc.Done():
				return <-done
			case <-tick.C:
			}
		}
	}
}

// rbacPresent reports whether every bootstrap role and binding exists and
// the apiserver's informers (RBAC's among them) synced: false and no error
// when one is missing, an error while the informers have not synced.
func rbacPresent(ctx context.Context, c kubernetes.Interface) (bool, error) {
	rbac := c.RbacV1()
	crs, err := rbac.ClusterRoles().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	have := sets.New[string]()
	for _, r := range crs.Items {
		have.Insert(r.Name)
	}
	for _, r := range append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...) {
		if !have.Has(r.Name) {
			return false, nil
		}
	}
	crbs, err := rbac.ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	have = sets.New[string]()
	for _, b := range crbs.Items {
		have.Insert(b.Name)
	}
	for _, b := range append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...) {
		if !have.Has(b.Name) {
			return false, nil
		}
	}
	for ns, roles := range bootstrappolicy.NamespaceRoles() {
		for _, r := range roles {
			if _, err := rbac.Roles(ns).Get(ctx, r.Name, metav1.GetOptions{}); err != nil {
				return false, ignoreNotFound(err)
			}
		}
	}
	for ns, bindings := range bootstrappolicy.NamespaceRoleBindings() {
		for _, b := range bindings {
			if _, err := rbac.RoleBindings(ns).Get(ctx, b.Name, metav1.GetOptions{}); err != nil {
				return false, ignoreNotFound(err)
			}
		}
	}
	if err := c.Discovery().RESTClient().Get().AbsPath("/readyz/informer-sync").Do(ctx).Error(); err != nil {
		return false, err
	}
	return true, nil
}

// priorityClassesPresent reports whether the system priority classes exist.
func priorityClassesPresent(ctx context.Context, c kubernetes.Interface) (bool, error) {
	for _, pc := range schedulingapiv1.SystemPriorityClasses() {
		if _, err := c.SchedulingV1().PriorityClasses().Get(ctx, pc.Name, metav1.GetOptions{}); err != nil {
			return false, ignoreNotFound(err)
		}
	}
	return true, nil
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
