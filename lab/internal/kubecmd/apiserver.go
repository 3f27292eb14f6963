package kubecmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/server/flagz"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
	"k8s.io/component-base/version/verflag"
	kubeapiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"

	"github.com/crdlab/crdlab/lab/internal/kubemain"
)

// Prepare changes kube-apiserver's completed options before its server is
// built: what one minor needs that another's options lack (a field added
// in 1.37, say). The components of a minor pass the hooks of that minor
// (lab/internal/tools/minorgen says which minor gets which).
type Prepare func(*options.CompletedOptions) error

// newAPIServerCommand is kube-apiserver's command (app.NewAPIServerCommand,
// the same flags and help), compiled against the Kubernetes of the module
// that links it, with three changes to its Run (runAPIServer): the
// post-start hooks that make sure the bootstrap RBAC policy and the system
// priority classes exist report done as soon as those objects are found,
// instead of after their first wait.Poll interval (1 s) has passed
// (kubemain.FastBootstrapHooks); the OpenAPI v2 document of the built-in
// APIs is built when first asked for (kubemain.LazyOpenAPIV2); its boot,
// during which it collects nothing, ends when it is ready
// (kubemain.BootDoneWhenReady). The rest of kube-apiserver runs unchanged.
func newAPIServerCommand(prepare []Prepare) *cobra.Command {
	s := options.NewServerRunOptions()
	ctx := signalContext()
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	// Not app.NewAPIServerCommand() for its texts: a second
	// SetupSignalContext panics. Its signal context and feature metrics are
	// signalContext and addFeatureMetrics (signal.go): what moved between
	// minors.
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
			addFeatureMetrics(featureGate)
			s.GenericServerRunOptions.ComponentGlobalsRegistry.AddMetrics()
			return runAPIServer(ctx, completed, prepare)
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

// runAPIServer is app.Run with the bootstrap hooks made fast
// (kubemain.FastBootstrapHooks) and the OpenAPI v2 document built when
// first asked for (kubemain.LazyOpenAPIV2), after etcd answers if
// WaitForEtcdEnv asks for it and prepare has changed the options.
func runAPIServer(ctx context.Context, opts options.CompletedOptions, prepare []Prepare) error {
	if err := kubemain.WaitForEtcdIfAsked(ctx, opts.Etcd.StorageConfig.Transport.ServerList); err != nil {
		return err
	}
	for _, p := range prepare {
		if err := p(&opts); err != nil {
			return err
		}
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
	if err := kubemain.FastBootstrapHooks(server.GenericAPIServer); err != nil {
		return err
	}
	if err := kubemain.LazyOpenAPIV2(server.GenericAPIServer); err != nil {
		return err
	}
	kubemain.BootDoneWhenReady(ctx, server.GenericAPIServer.LoopbackClientConfig)
	prepared, err := server.PrepareRun()
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}
