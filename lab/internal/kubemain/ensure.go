package kubemain

import (
	"context"
	"fmt"
	_ "unsafe" // go:linkname, for ensureRBACPolicy

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	schedulingclient "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	"k8s.io/klog/v2"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	rbacrest "k8s.io/kubernetes/pkg/registry/rbac/rest"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// ensureRBACPolicy is the body of kube-apiserver's rbac/bootstrap-roles
// hook (k8s.io/kubernetes/pkg/registry/rbac/rest), which the hook runs
// through wait.Poll(1s): one try at creating or reconciling every
// bootstrap role and binding, done once all are. The same in every minor
// crdlab serves; a Kubernetes version without it fails to link, naming it, and
// lab/internal/tools/linkname's TestUpstreamSignatures fails if its type differs
// from this declaration's in the main module or any components module.
//
//go:linkname ensureRBACPolicy k8s.io/kubernetes/pkg/registry/rbac/rest.ensureRBACPolicy
func ensureRBACPolicy(p *rbacrest.PolicyData, client kubernetes.Interface) (done bool, err error)

// ensureRBAC makes or reconciles the bootstrap RBAC policy now: one try of
// the rbac/bootstrap-roles hook's own work, on the policy the hook is given
// (rbacrest.RESTStorageProvider.PostStartHook), so that what it makes is
// what the hook makes.
func ensureRBAC(hc genericapiserver.PostStartHookContext) (bool, error) {
	client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
	if err != nil {
		return false, fmt.Errorf("loopback client: %w", err)
	}
	policy := &rbacrest.PolicyData{
		ClusterRoles:               append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...),
		ClusterRoleBindings:        append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...),
		Roles:                      bootstrappolicy.NamespaceRoles(),
		RoleBindings:               bootstrappolicy.NamespaceRoleBindings(),
		ClusterRolesToAggregate:    bootstrappolicy.ClusterRolesToAggregate(),
		ClusterRoleBindingsToSplit: bootstrappolicy.ClusterRoleBindingsToSplit(),
	}
	return ensureRBACPolicy(policy, client)
}

// ensurePriorityClasses makes the system priority classes now: one try of
// what the scheduling/bootstrap-system-priority-classes hook
// (k8s.io/kubernetes/pkg/registry/scheduling/rest.AddSystemPriorityClasses)
// does in each of its wait.Poll(1s) rounds, with the same client and objects.
func ensurePriorityClasses(hc genericapiserver.PostStartHookContext) (bool, error) {
	client, err := schedulingclient.NewForConfig(hc.LoopbackClientConfig)
	if err != nil {
		return false, fmt.Errorf("loopback client: %w", err)
	}
	for _, pc := range schedulingapiv1.SystemPriorityClasses() {
		_, err := client.PriorityClasses().Get(context.TODO(), pc.Name, metav1.GetOptions{})
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return false, nil // as the hook: not an answer, try again
		}
		_, err = client.PriorityClasses().Create(context.TODO(), pc, metav1.CreateOptions{})
		switch {
		case err == nil || apierrors.IsAlreadyExists(err):
			klog.Infof("created PriorityClass %s with value %v", pc.Name, pc.Value)
		case apierrors.IsServiceUnavailable(err):
			return false, nil
		default:
			return false, fmt.Errorf("create PriorityClass %s: %w", pc.Name, err)
		}
	}
	return true, nil
}
