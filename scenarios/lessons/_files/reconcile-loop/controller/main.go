// A controller for the seed's User: for each User, a ConfigMap user-NAME
// that holds its userID, e-mail and groups. The lesson reconcile-loop
// asks you to complete Reconcile; run it against the lab with
//
//	go run .
//
// (KUBECONFIG names the lab: <state-dir>/kubeconfig).
//
// The first go run downloads the modules of controller-runtime and builds
// them: a few minutes, once. Where proxy.golang.org is out of reach (in
// mainland China), set GOPROXY=https://goproxy.cn,direct first.
//
// 一个 User 的控制器：为每个 User 维护一个 ConfigMap user-NAME，保存它的
// userID、email 和 groups。reconcile-loop 这一课请你补全 Reconcile，然后用
// go run . 让它连上实验环境运行。第一次 go run 会下载并编译 controller-runtime
// 的模块，需要几分钟（只有第一次）。访问不了 proxy.golang.org 的话（比如在
// 中国大陆），先设置 GOPROXY=https://goproxy.cn,direct。
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

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

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configMapName(user), Namespace: user.GetNamespace()}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		// TODO(you): fill cm.Data from the User's spec: the keys userID,
		// email and groups (the groups joined by ","). The spec is
		// user.Object["spec"]; unstructured.NestedInt64, NestedString and
		// NestedStringSlice read its fields.
		// 待你完成：用 User 的 spec 填写 cm.Data：键为 userID、email 和
		// groups（groups 用 "," 连接）。spec 就是 user.Object["spec"]；
		// unstructured.NestedInt64、NestedString 和 NestedStringSlice
		// 读取其中的字段。
		//
		// TODO(you): make the User the ConfigMap's owner
		// (controllerutil.SetControllerReference), so that the garbage
		// collector deletes it with the User, and so that Owns (in main)
		// maps a change of the ConfigMap back to its User.
		// 待你完成：让 User 成为这个 ConfigMap 的属主
		// (controllerutil.SetControllerReference)，这样垃圾收集器会连同
		// User 一起删除它，main 中的 Owns 也能把 ConfigMap 的变动映射回它的
		// User。
		return nil
	})
	return ctrl.Result{}, err
}

// configMapName is the name of a User's ConfigMap: user-NAME.
// User 的 ConfigMap 的名字：user-NAME。
func configMapName(user *unstructured.Unstructured) string {
	return strings.Join([]string{"user", user.GetName()}, "-")
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
		// 待你完成：同时监视 User 所拥有的 ConfigMap，这样被删除的
		// ConfigMap 会让它的 User 再走一遍和解循环：Owns(...)。
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
