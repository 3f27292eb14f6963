// The seed's User, then its controller, now its Operator. For each User it
// keeps a ConfigMap user-NAME (as in the lesson reconcile-loop) and the
// User's entry in the namespace's shared ConfigMap user-directory. The
// lesson operator asks you to make it report the User's state in its
// status (Ready, with observedGeneration), clean the directory up before
// a User goes (a finalizer), and let the garbage collector delete a User's
// ConfigMap with it (an owner reference): the places marked TODO(you).
// Run it against the lab with
//
//	go run .
//
// (KUBECONFIG names the lab: <state-dir>/kubeconfig). The first go run
// downloads the modules of controller-runtime and builds them: a few
// minutes, once. Where proxy.golang.org is out of reach (in mainland
// China), set GOPROXY=https://goproxy.cn,direct first.
//
// 种子文本里的 User，先有了控制器，现在成为 Operator。它为每个 User 维护一个
// ConfigMap user-NAME（和 reconcile-loop 那一课一样），并在名称空间共用的
// ConfigMap user-directory 里维护这个 User 的条目。这一课（`crdlab learn operator`）
// 请你补全标有 TODO(you) 的地方：在 status 里报告 User 的状态（Ready，带上
// observedGeneration），在 User 被删除之前清理目录（finalizer），并让垃圾
// 收集器连同 User 一起删除它的 ConfigMap（属主引用）。用 go run . 让它连上
// 实验环境运行。第一次 go run 会下载并编译 controller-runtime 的模块，需要
// 几分钟（只有第一次）。访问不了 proxy.golang.org 的话（比如在中国大陆），
// 先设置 GOPROXY=https://goproxy.cn,direct。
package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// userGVK is the seed's User: no Go type is needed, the Operator reads it
// as unstructured data.
var userGVK = schema.GroupVersionKind{Group: "auth.ilinux.io", Version: "v1beta1", Kind: "User"}

func newUser() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(userGVK)
	return u
}

// finalizer is the Operator's finalizer: while a User carries it, deleting
// the User only marks it (metadata.deletionTimestamp); the apiserver
// removes it once the Operator has cleaned up and taken the finalizer off.
// Operator 的 finalizer：User 带着它时，删除 User 只是给它打上标记
// （metadata.deletionTimestamp）；等 Operator 清理完并摘掉这个 finalizer，
// API 服务器才真正删除它。
const finalizer = "auth.ilinux.io/cleanup"

// directoryName is the namespace's shared ConfigMap: an entry NAME: userID
// per User. No User owns it, so nothing removes an entry but the Operator.
// 名称空间共用的 ConfigMap：每个 User 一个条目 NAME: userID。它不属于任何
// 一个 User，所以除了 Operator 没有谁会删除其中的条目。
const directoryName = "user-directory"

// UserReconciler makes the actual state (a ConfigMap per User, an entry
// per User in the directory, each User's status) match the desired state
// (the Users).
type UserReconciler struct {
	client.Client
}

// Reconcile is one pass of the reconcile loop for the User req names: it
// is called when that User changes (its deletion starting too), and when a
// ConfigMap it owns does.
func (r *UserReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	user := newUser()
	if err := r.Get(ctx, req.NamespacedName, user); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if !user.GetDeletionTimestamp().IsZero() {
		// The User is being deleted: the apiserver keeps it until its
		// finalizers are gone.
		//
		// TODO(you), finalizer: clean up what the User does not own:
		// remove its entry from the directory (r.editDirectory, with
		// delete(data, user.GetName())); then take your finalizer off
		// (controllerutil.RemoveFinalizer) and write the User (r.Update):
		// the apiserver deletes it then.
		// 待你完成（finalizer）：清理 User 并不拥有的东西：从目录里删除它的条目
		// （r.editDirectory，配合 delete(data, user.GetName())）；然后摘掉你的
		// finalizer（controllerutil.RemoveFinalizer），再写回这个 User
		// （r.Update）：API 服务器这时才删除它。
		return ctrl.Result{}, nil
	}

	// TODO(you), finalizer: put your finalizer on the User
	// (controllerutil.AddFinalizer(user, finalizer)) and write it
	// (r.Update), before its entry is made in the directory.
	// 待你完成（finalizer）：给 User 加上你的 finalizer
	// （controllerutil.AddFinalizer(user, finalizer)）并写回它（r.Update），
	// 要在目录里创建它的条目之前。

	// The User's entry in the shared directory.
	id, _, _ := unstructured.NestedInt64(user.Object, "spec", "userID")
	if err := r.editDirectory(ctx, user.GetNamespace(), func(data map[string]string) {
		data[user.GetName()] = fmt.Sprint(id)
	}); err != nil {
		return ctrl.Result{}, err
	}

	// The User's own ConfigMap.
	email, _, _ := unstructured.NestedString(user.Object, "spec", "email")
	groups, _, _ := unstructured.NestedStringSlice(user.Object, "spec", "groups")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "user-" + user.GetName(), Namespace: user.GetNamespace()}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		cm.Data = map[string]string{"userID": fmt.Sprint(id), "email": email, "groups": strings.Join(groups, ",")}
		// TODO(you), owner: make the User the ConfigMap's owner
		// (controllerutil.SetControllerReference), so that the garbage
		// collector deletes it with the User.
		// 待你完成（属主）：让 User 成为这个 ConfigMap 的属主
		// （controllerutil.SetControllerReference），这样垃圾收集器会连同
		// User 一起删除它。
		return nil
	})
	if err != nil {
		return ctrl.Result{}, err
	}

	// TODO(you), status: say in the User's status that it is Ready: the
	// condition Ready, True, with ObservedGeneration the generation this
	// pass read (user.GetGeneration()), set by setCondition; then write it
	// through the status subresource (r.Status().Update).
	// 待你完成（status）：在 User 的 status 里说明它已就绪：状况 Ready 为 True，
	// ObservedGeneration 是这一遍读到的 generation（user.GetGeneration()），
	// 用 setCondition 设置；然后通过 status 子资源写回（r.Status().Update）。
	return ctrl.Result{}, nil
}

// editDirectory changes the shared directory's data with edit and writes
// it when it changed; it makes the directory when there is none. A write
// that conflicts with another is an error: the reconcile is tried again.
// 用 edit 修改共用目录的 data，有变化才写回；目录不存在时创建它。和别人的写操作
// 冲突时返回错误：这一遍和解会重新再来。
func (r *UserReconciler) editDirectory(ctx context.Context, namespace string, edit func(data map[string]string)) error {
	dir := &corev1.ConfigMap{}
	err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: directoryName}, dir)
	if apierrors.IsNotFound(err) {
		dir = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: directoryName, Namespace: namespace}, Data: map[string]string{}}
		edit(dir.Data)
		return r.Create(ctx, dir)
	}
	if err != nil {
		return err
	}
	before := maps.Clone(dir.Data)
	if dir.Data == nil {
		dir.Data = map[string]string{}
	}
	edit(dir.Data)
	if maps.Equal(before, dir.Data) {
		return nil
	}
	return r.Update(ctx, dir)
}

// setCondition sets a condition in the User's status.conditions, as
// meta.SetStatusCondition does for a typed object: lastTransitionTime
// changes only when the condition's status does, so that writing the same
// status again changes nothing.
// 在 User 的 status.conditions 里设置一个状况，和 meta.SetStatusCondition
// 对有类型的对象所做的一样：只有状况的 status 变了，lastTransitionTime 才变，
// 所以再写一次同样的状态什么也不会改变。
func setCondition(user *unstructured.Unstructured, c metav1.Condition) error {
	raw, _, _ := unstructured.NestedSlice(user.Object, "status", "conditions")
	var conds []metav1.Condition
	for _, x := range raw {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		var cond metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond); err != nil {
			return err
		}
		conds = append(conds, cond)
	}
	meta.SetStatusCondition(&conds, c)
	out := make([]any, len(conds))
	for i := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err != nil {
			return err
		}
		out[i] = m
	}
	return unstructured.SetNestedSlice(user.Object, out, "status", "conditions")
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
		Named("user-operator").
		For(newUser()).
		Owns(&corev1.ConfigMap{}).
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
