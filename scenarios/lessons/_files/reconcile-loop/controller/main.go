// A controller for the seed's User: for each User, a ConfigMap user-NAME
// that holds its userID, e-mail and groups. The lesson reconcile-loop
// asks you to complete Reconcile; run it against the lab with
//
//	go run .
//
// (KUBECONFIG names the lab: <state-dir>/kubeconfig).
//
// 一个 User 的控制器：为每个 User 维护一个 ConfigMap user-NAME，保存它的
// userID、email 和 groups。reconcile-loop 这一课请你补全 Reconcile，然后用
// go run . 让它连上实验环境运行。
package main

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// userGVK is the seed's User: no Go type is needed, the controller reads
// it as unstructured data.
var userGVK = schema.GroupVersionKind{Group: "auth.ilinux.io", Version: "v1beta1", Kind: "User"}

func newUser() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(userGVK)
	return u
}

// UserReconciler makes the actual state (a ConfigMap per User) match the
// desired state (the Users).
type UserReconciler struct {
	client.Client
}

// Reconcile is one pass of the reconcile loop for the User req names: it
// is called when that User changes, and when a ConfigMap it owns does.
func (r *UserReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	user := newUser()
	if err := r.Get(ctx, req.NamespacedName, user); err != nil {
		// Deleted: its ConfigMap goes with it (the garbage collector
		// deletes what the User owns).
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "user-" + user.GetName(), Namespace: user.GetNamespace()}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		// TODO(you): fill cm.Data from the User's spec: the keys userID,
		// email and groups (the groups joined by ","). The spec is
		// user.Object["spec"]; unstructured.NestedInt64, NestedString and
		// NestedStringSlice read its fields.
		//
		// TODO(you): make the User the ConfigMap's owner
		// (controllerutil.SetControllerReference), so that the garbage
		// collector deletes it with the User, and so that Owns (in main)
		// maps a change of the ConfigMap back to its User.
		return nil
	})
	return ctrl.Result{}, err
}

func main() {
	ctrl.SetLogger(zap.New())
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Metrics: server.Options{BindAddress: "0"}, // no metrics server
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("user-configmaps").
		For(newUser()).
		// TODO(you): also watch the ConfigMaps the Users own, so that a
		// deleted ConfigMap brings its User's reconcile back: Owns(...).
		Complete(&UserReconciler{Client: mgr.GetClient()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
