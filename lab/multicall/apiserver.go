package multicall

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/flagz"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"
	kubeapiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

// newAPIServerCommand is kube-apiserver's command (app.NewAPIServerCommand,
// the same flags and help) with one change to its Run: the post-start
// hooks that make sure the bootstrap RBAC policy and the system priority
// classes exist report done as soon as those objects are found, instead
// of after their first wait.Poll interval (1 s) has passed; see
// fastBootstrapHooks. The rest of kube-apiserver runs unchanged.
func newAPIServerCommand() *cobra.Command {
	s := options.NewServerRunOptions()
	ctx := genericapiserver.SetupSignalContext()
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	// Not app.NewAPIServerCommand() for its texts: a second
	// SetupSignalContext panics.
	cmd := &cobra.Command{
		Use: "kube-apiserver",
		Long: `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. The API Server services REST operations and provides the frontend to the
cluster's shared state through which all other components interact.`,
		SilenceUsage: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
				return err
			}
			rest.SetDefaultWarningHandler(rest.NoWarnings{})
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			verflag.PrintAndExitIfRequested()
			fs := cmd.Flags()
			if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
				return err
			}
			cliflag.PrintFlags(fs)
			completed, err := s.Complete(ctx)
			if err != nil {
				return err
			}
			if errs := completed.Validate(); len(errs) != 0 {
				return utilerrors.NewAggregate(errs)
			}
			featureGate.(featuregate.MutableFeatureGate).AddMetrics()
			s.GenericServerRunOptions.ComponentGlobalsRegistry.AddMetrics()
			return runAPIServer(ctx, completed)
		},
		Args: func(cmd *cobra.Command, args []string) error {
			for _, arg := range args {
				if len(arg) > 0 {
					return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
				}
			}
			return nil
		},
	}
	cmd.SetContext(ctx)
	fs := cmd.Flags()
	namedFlagSets := s.Flags()
	s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	verflag.AddFlags(namedFlagSets.FlagSet("global"))
	globalflag.AddGlobalFlags(namedFlagSets.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, f := range namedFlagSets.FlagSets {
		fs.AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, namedFlagSets, cols)
	return cmd
}

// runAPIServer is app.Run with the bootstrap hooks made fast, after etcd
// answers if WaitForEtcdEnv asks for it.
func runAPIServer(ctx context.Context, opts options.CompletedOptions) error {
	if v := os.Getenv(WaitForEtcdEnv); v != "" {
		timeout, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s=%q: not a duration: %w", WaitForEtcdEnv, v, err)
		}
		if err := waitForEtcd(ctx, opts.Etcd.StorageConfig.Transport.ServerList, timeout); err != nil {
			return err
		}
	}
	if opts.InformerName == nil {
		name, err := cache.NewInformerName("kube-apiserver")
		if err != nil {
			return err
		}
		opts.InformerName = name
	}
	config, err := kubeapiserver.NewConfig(opts)
	if err != nil {
		return err
	}
	completed, err := config.Complete()
	if err != nil {
		return err
	}
	server, err := kubeapiserver.CreateServerChain(completed)
	if err != nil {
		return err
	}
	if err := fastBootstrapHooks(server.GenericAPIServer); err != nil {
		return err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}

// waitForEtcd polls the /health endpoint of each plain-http etcd server
// every 5 ms until it answers 200 (etcd has a leader), for at most timeout.
func waitForEtcd(ctx context.Context, servers []string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	defer hc.CloseIdleConnections()
	for _, server := range servers {
		if !strings.HasPrefix(server, "http://") {
			continue // TLS to etcd: not a lab's; upstream's own retries apply
		}
		healthy := func(ctx context.Context) (bool, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(server, "/")+"/health", nil)
			if err != nil {
				return false, err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return false, nil //nolint:nilerr // not listening yet
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		}
		if err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, healthy); err != nil {
			return fmt.Errorf("etcd at %s not healthy within %s (%s): %w", server, timeout, WaitForEtcdEnv, err)
		}
	}
	return nil
}

// Names of kube-apiserver's bootstrap post-start hooks
// (k8s.io/kubernetes/pkg/registry/{rbac,scheduling}/rest).
const (
	rbacHook     = "rbac/bootstrap-roles"
	priorityHook = "scheduling/bootstrap-system-priority-classes"
)

// fastBootstrapHooks wraps the RBAC and priority-class post-start hooks of
// s. Each of them polls with wait.Poll(1s), whose first try comes after a
// second, and kube-apiserver reports healthy (which envtest waits for) only
// once every hook is done: no apiserver is ready sooner than a second after
// it serves. A lab's etcd mostly comes from a template bootstrapped by the
// same Kubernetes version (or is a --data-dir of that version), so these
// objects are there already. The wrapped hook reports done as soon as it
// finds every object the hook would make, and the apiserver's informers
// synced (so that RBAC authorizes with them); the original hook still runs,
// in the background, and reconciles as ever. Where an object is missing (a
// fresh etcd), the wrapped hook waits for the original, as kube-apiserver
// does.
func fastBootstrapHooks(s *genericapiserver.GenericAPIServer) error {
	field := reflect.ValueOf(s).Elem().FieldByName("postStartHooks")
	if !field.IsValid() || field.Kind() != reflect.Map {
		return fmt.Errorf("kube-apiserver's GenericAPIServer has no postStartHooks map: update lab/multicall/apiserver.go")
	}
	hooks := reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem()
	for name, present := range map[string]func(context.Context, kubernetes.Interface) (bool, error){
		rbacHook:     rbacPresent,
		priorityHook: priorityClassesPresent,
	} {
		entry := hooks.MapIndex(reflect.ValueOf(name))
		if !entry.IsValid() {
			continue // a kube-apiserver configured without it
		}
		patched := reflect.New(entry.Type()).Elem()
		patched.Set(entry)
		hookField := patched.FieldByName("hook")
		if !hookField.IsValid() {
			return fmt.Errorf("kube-apiserver's post-start hook entry has no hook: update lab/multicall/apiserver.go")
		}
		hook := reflect.NewAt(hookField.Type(), unsafe.Pointer(hookField.UnsafeAddr())).Elem()
		original, ok := hook.Interface().(genericapiserver.PostStartHookFunc)
		if !ok {
			return fmt.Errorf("kube-apiserver's post-start hook %s is a %s: update lab/multicall/apiserver.go", name, hook.Type())
		}
		hook.Set(reflect.ValueOf(genericapiserver.PostStartHookFunc(doneWhenPresent(name, original, present))))
		hooks.SetMapIndex(reflect.ValueOf(name), patched)
	}
	return nil
}

// doneWhenPresent returns a hook that runs original and returns once it
// did, or once present says what it makes is there already.
func doneWhenPresent(name string, original genericapiserver.PostStartHookFunc,
	present func(context.Context, kubernetes.Interface) (bool, error)) genericapiserver.PostStartHookFunc {
	return func(hc genericapiserver.PostStartHookContext) error {
		done := make(chan error, 1)
		go func() { done <- original(hc) }()
		client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
		if err != nil {
			return <-done
		}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case err := <-done:
				return err
			case <-hc.Done():
				return <-done
			case <-tick.C:
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
				if err != nil {
					klog.V(4).InfoS("bootstrap objects not found yet", "hook", name, "err", err)
				}
			}
		}
	}
}

// rbacPresent reports whether every bootstrap role and binding exists and
// the apiserver's informers (RBAC's among them) synced.
func rbacPresent(ctx context.Context, c kubernetes.Interface) (bool, error) {
	if err := c.Discovery().RESTClient().Get().AbsPath("/readyz/informer-sync").Do(ctx).Error(); err != nil {
		return false, err
	}
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
